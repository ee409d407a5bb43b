"""The classes rftc adds to Trinity-RFT, for veRL behaviour Trinity 0.6 does not have: veRL's rule rewards
(workflow, reward) and the chat messages its on-policy distillation samples from (distill_workflow), its estimators
and gpg loss (algorithms), its dynamic-sampling filter (operators, groups). They import trinity-rft, torch or verl, so
nothing on `rftc check`'s or `rftc convert`'s path imports them; this module names them. Configs name a class by a
dotted path under rftc.trinity (rftc/trinity/verl_*.py re-export them), which Trinity imports from its registries
at run time: rftc must be installed beside trinity-rft."""

WORKFLOW = "rftc.trinity.verl_workflow.VerlRewardWorkflow"
DISTILL_WORKFLOW = "rftc.trinity.verl_distill_workflow.VerlDistillWorkflow"
# the workflows that give a distillation advantage its teacher log-probs: Trinity's
# (trinity/common/workflows/on_policy_distill_workflow.py) and rftc's
DISTILL_WORKFLOWS = ("on_policy_distill_workflow", "on_policy_distill_math_workflow", DISTILL_WORKFLOW)
ADVANTAGE_FN = "rftc.trinity.verl_algorithms.VerlAdvantageFn"
GPG_LOSS_FN = "rftc.trinity.verl_algorithms.GPGPolicyLossFn"
FILTER_GROUPS = "rftc.trinity.verl_operators.VerlFilterGroups"
PREFIX = "rftc.trinity."
# the veRL estimators ADVANTAGE_FN computes (advantage_fn_args.estimator)
VERL_ESTIMATORS = ("gpg", "reinforce_plus_plus_baseline", "opo", "grpo_passk")
