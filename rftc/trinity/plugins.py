"""The dotted names of the classes rftc adds to Trinity-RFT (rftc/trinity/verl_workflow.py,
rftc/trinity/verl_algorithms.py, rftc/trinity/verl_operators.py), for the converter that writes them and the
runtime that reads them. Trinity imports a dotted name from its registries at run time, so a config that names
one needs rftc installed beside trinity-rft."""

WORKFLOW = "rftc.trinity.verl_workflow.VerlRewardWorkflow"
ADVANTAGE_FN = "rftc.trinity.verl_algorithms.VerlAdvantageFn"
GPG_LOSS_FN = "rftc.trinity.verl_algorithms.GPGPolicyLossFn"
FILTER_GROUPS = "rftc.trinity.verl_operators.VerlFilterGroups"
PREFIX = "rftc.trinity."
# the veRL estimators ADVANTAGE_FN computes (advantage_fn_args.estimator)
VERL_ESTIMATORS = ("gpg", "reinforce_plus_plus_baseline", "opo", "grpo_passk")
