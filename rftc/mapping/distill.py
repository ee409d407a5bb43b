"""veRL's on-policy distillation (distillation.enabled, verl 0.8.0 on) as Trinity-RFT 0.6's on_policy_distill.

veRL (verl/trainer/distillation/losses.py distillation_ppo_loss, distillation_loss; verl/workers/config/
distillation.py; verl/experimental/teacher_loop/teacher_manager.py, identical in what follows from 0.8.0 to 0.9.1):
the agent loop asks the teacher for the log-prob of every token of prompt + response (vLLM's prompt log-probs, at
temperature 1.0: 0.9 ignores inference.temperature, 0.8.0 refuses another value at start). The actor's loss is
the distillation loss, an estimate per token from the trained policy's log-prob and the teacher's (loss_mode: k1 is
student minus teacher), clamped to +-loss_max_clamp where set, either backpropagated as it is (use_policy_gradient
false) or, negated and detached, the advantage of veRL's vanilla PPO loss with the distillation section's own clip
ratios (clip_ratio_c 3.0: the section has none) and the actor's loss_agg_mode. With use_task_rewards the actor's
PPO loss on the task advantages (with its KL and entropy terms) is added, the distillation loss weighed by
distillation_loss_coef; without, that loss is dropped whole and the weight is 1.

Trinity (trinity/algorithm/algorithm.py OnPolicyDistillAlgorithm, advantage_fn/on_policy_distill_advantage.py,
common/workflows/on_policy_distill_workflow.py): the workflow asks the first auxiliary model for the log-prob of
every token (at workflow_args.temperature, default 1.0), the trainer's advantage is kl_coef x (teacher - old
log-prob), the loss Trinity's ppo policy loss, without task rewards, KL or entropy terms. The two train alike for
veRL's k1 as the advantage, no task rewards, no clamp, one teacher, and an old log-prob that is the trained
policy's: Trinity's is recomputed by the trainer at each trainer step (bypass_old_logprobs false), which is the
policy a step trains where ppo_epochs is 1, as veRL's is the trained policy's at every step."""

from __future__ import annotations

from rftc.mapping.draft import Draft
from rftc.mapping.rewards import reward_model
from rftc.mapping.sampling import group_filter

DIST = "distillation"
LOSS = "distillation.distillation_loss"
TEACHERS = "distillation.teacher_models"
ONE = "teacher_model"  # the bundled entry: the only teacher, unless others are added (then it is dropped)
TEACHER = f"{TEACHERS}.{ONE}"
INF = f"{TEACHER}.inference"
A = "actor_rollout_ref.actor"
RC = "algorithm.rollout_correction"
# veRL's kl_penalty_forward (verl/trainer/ppo/core_algos.py) estimates, by their names
ESTIMATES = {"kl": "k1", "k1": "k1", "abs": "abs", "mse": "k2", "k2": "k2", "low_var_kl": "k3", "k3": "k3"}
TOPK = "forward_kl_topk"  # the teacher's top-k log-probs against the student's (the only top-k loss)
REVERSE_KL = "k1"  # student minus teacher log-prob of the sampled token: Trinity's advantage, negated
TEACHER_TEMPERATURE = 1.0  # veRL asks its teacher's vLLM for prompt log-probs at temperature 1.0
CLIP_RATIO_C = 3.0  # compute_policy_loss_vanilla's default: DistillationLossConfig has no clip_ratio_c


def enabled(get) -> bool:
    return get(f"{DIST}.enabled") is True


def teachers(get) -> dict:
    """The teacher entries veRL keeps (DistillationConfig._resolve_teacher_models): teacher_model alone, or, where
    others are added, the others (teacher_model is dropped)."""
    entries = get(TEACHERS) or {}
    entries = dict(entries) if hasattr(entries, "items") else {}
    return {ONE: entries.get(ONE, {})} if set(entries) <= {ONE} else {k: v for k, v in entries.items() if k != ONE}


def task_free(get) -> bool:
    """The actor's loss is the distillation loss alone (use_task_rewards false): the task rewards' policy loss, its
    KL and entropy terms are dropped."""
    return enabled(get) and get(f"{LOSS}.use_task_rewards") is False


def estimate(get) -> str:
    """The per-token distillation estimate, by veRL's loss_mode (a name its registry lacks stops the run)."""
    mode = str(get(f"{LOSS}.loss_mode"))
    if mode == TOPK:
        clamp = get(f"{LOSS}.log_prob_min_clamp")
        return f"forward KL over the teacher's top {get(f'{LOSS}.topk')}" + (
            f", log-probs clamped at {clamp}" if clamp is not None else "")
    return ESTIMATES.get(mode, f"unknown (veRL's distillation has no loss_mode {mode}: the run stops)")


def clip(get) -> tuple:
    """The distillation's PPO clip (low, high): clip_ratio_low/high, each clip_ratio where null
    (compute_policy_loss_vanilla)."""
    base = get(f"{LOSS}.clip_ratio")
    return tuple(get(f"{LOSS}.clip_ratio_{s}") if get(f"{LOSS}.clip_ratio_{s}") is not None else base
                 for s in ("low", "high"))


def differences(d: Draft) -> list[str]:
    """What the launch's distillation trains that Trinity-RFT 0.6's on_policy_distill does not."""
    get = d.val
    mode, out = str(get(f"{LOSS}.loss_mode")), []
    entries = teachers(get)
    if len(entries) > 1:
        key = get(f"{DIST}.teacher_key", "data_source")
        out.append(f"it routes rows to {len(entries)} teachers by their {key} (Trinity's distillation workflow asks "
                   "one, the first auxiliary model)")
    elif set(entries) != {ONE}:
        out.append(f"its teacher is an entry added beside teacher_model ({', '.join(entries)}), which veRL takes in "
                   "its place and rftc does not read: name it teacher_model")
    if ESTIMATES.get(mode) != REVERSE_KL:
        out.append(f"its loss_mode {mode} is not the reverse KL k1 of the sampled token (student minus teacher "
                   "log-prob)")
    if not d.flag(f"{LOSS}.use_policy_gradient"):
        out.append("it backpropagates the distillation loss itself (use_policy_gradient false), where Trinity's is "
                   "the advantage of a policy-gradient loss")
    if d.flag(f"{LOSS}.use_task_rewards"):
        out.append("it adds the policy loss of the task rewards (use_task_rewards), weighing the distillation loss "
                   f"by distillation_loss_coef {get(f'{LOSS}.distillation_loss_coef')}")
    if get(f"{LOSS}.loss_max_clamp") is not None:
        out.append(f"it clamps the distillation loss at +-{get(f'{LOSS}.loss_max_clamp')} (loss_max_clamp), "
                   "Trinity's advantage is not clamped")
    if get(f"{LOSS}.policy_loss_mode", "vanilla") != "vanilla":
        out.append(f"its policy_loss_mode {get(f'{LOSS}.policy_loss_mode')} stops veRL at start (only vanilla)")
    if get("algorithm.adv_estimator") == "gae":
        out.append("it trains a critic (adv_estimator gae) on the task rewards, which on_policy_distill does not")
    epochs = get(f"{A}.ppo_epochs")
    if isinstance(epochs, int) and epochs > 1:
        out.append(f"it takes {epochs} epochs over each batch (ppo_epochs) with the advantage from the policy each "
                   "epoch trains, where Trinity's comes from the log-probs of its trainer step's start")
    if d.flag(f"{RC}.bypass_mode"):
        out.append("its old log-probs are the rollout's (rollout_correction.bypass_mode), which Trinity's advantage "
                   "would take for the student's, where veRL's advantage takes the trained policy's")
    if d.sem.value("teacher_temperature") == "refused" and get(f"{INF}.temperature") != TEACHER_TEMPERATURE:
        out.append(f"verl {d.sem.release} stops at start with a teacher temperature other than 1.0 "
                   f"({INF}.temperature {get(f'{INF}.temperature')}, which follows rollout.temperature)")
    if group_filter(d.cfg.invocation, d.sem.release, get) is not None and d.flag("algorithm.filter_groups.enable") \
            and (get("actor_rollout_ref.rollout.n") or 1) > 1:
        out.append("it drops groups whose task reward does not vary (algorithm.filter_groups), where Trinity's "
                   "distillation workflow rewards every response 0")
    if reward_model(d):
        out.append("it scores with a reward model, where Trinity's distillation workflow takes the first auxiliary "
                   "model as its teacher")
    return out


ARGS = "algorithm.policy_loss_fn_args"
TRAINING = "buffer.explorer_input.tasksets["
# the actor's keys of the task rewards' policy loss, which veRL drops without task rewards (distillation_ppo_loss)
TASK_LOSS = (f"{A}.use_kl_loss", f"{A}.kl_loss_type", f"{A}.kl_loss_coef", f"{A}.entropy_coeff", f"{A}.clip_ratio",
             f"{A}.clip_ratio_low", f"{A}.clip_ratio_high", f"{A}.clip_ratio_c", f"{A}.tau_pos", f"{A}.tau_neg",
             f"{A}.policy_loss", "algorithm.adv_estimator", "algorithm.gamma", "algorithm.lam",
             "algorithm.norm_adv_by_std_in_grpo", "algorithm.use_kl_in_reward", "algorithm.kl_penalty",
             "algorithm.kl_ctrl")
DROPPED = ("not read: veRL's distillation without task rewards drops the task rewards' policy loss with its "
           "advantage, KL and entropy terms (distillation_ppo_loss)")
# what each distillation key the conversion does not write is, by its last names
UNWRITTEN = {"distillation_loss_coef": "read only with use_task_rewards (the weight is 1 without)",
             "topk": "read by the forward_kl_topk loss only", "log_prob_min_clamp": "read by the forward_kl_topk "
             "loss only", "use_chunked_topk": "read by the forward_kl_topk loss only",
             "chunked_topk_chunk_size": "read by the forward_kl_topk loss only",
             "loss_max_clamp": "null: no clamp, as Trinity's advantage", "teacher_key": "one teacher: every row",
             "temperature": "veRL's teacher gives log-probs at temperature 1.0, Trinity's workflow_args.temperature",
             "key": "one teacher: veRL names it default", "num_replicas": "veRL computes it from the teacher's GPUs",
             "prompt_length": "the teacher is given prompt and response whole (its max_model_len)",
             "response_length": "the teacher is given prompt and response whole (its max_model_len)",
             "nnodes": "the teacher's GPUs (the GPU split)", "n_gpus_per_node": "the teacher's GPUs (the GPU split)",
             "_target_": "the config class veRL builds the section as"}


def map_distillation(d: Draft) -> str | None:
    """algorithm_type on_policy_distill with advantage_fn_args.kl_coef 1.0 (veRL's weight without task rewards),
    policy_loss_fn ppo with the distillation section's clip ratios and clip_ratio_c 3.0; the actor's loss keys are
    not read. RFTC339 names each difference where veRL's distillation trains otherwise; RFTC313 where it has no
    teacher path (veRL's check_configured stops). Returns on_policy_distill, or None."""
    differs = differences(d)
    if differs:
        d.report("RFTC339", "distillation.enabled=True trains the student on a teacher's log-probs (veRL's on-policy "
                 "distillation); Trinity-RFT 0.6's on_policy_distill takes teacher minus student log-prob of each "
                 "sampled token, from the policy a step trains, as the advantage of a PPO loss, with no task "
                 f"rewards and no clamps: this launch's differs: {'; '.join(differs)}", "distillation.enabled",
                 extra_keys=d.user_keys_under(DIST),
                 hint="train the job in veRL, or write the Trinity config by hand with algorithm_type "
                 "on_policy_distill, the teacher in explorer.auxiliary_models and a distillation workflow")
        return None
    path = f"{TEACHER}.model_path"
    if not d.val(path):
        d.report("RFTC313", "distillation.enabled is true but the teacher has no model_path (veRL's "
                 "check_configured stops at start)", path if d.user(path) else f"{DIST}.enabled")
        return None
    keys = [f"{DIST}.enabled", *(f"{LOSS}.{k}" for k in ("loss_mode", "use_policy_gradient", "use_task_rewards"))]
    d.set("algorithm.algorithm_type", "on_policy_distill", *keys,
          note="the reverse KL k1 of each sampled token as the advantage, no task rewards")
    d.set("algorithm.advantage_fn_args.kl_coef", 1.0, f"{LOSS}.use_task_rewards",
          note="veRL weighs the distillation loss 1 without task rewards")
    d.set("algorithm.policy_loss_fn", "ppo", f"{LOSS}.policy_loss_mode",
          note="" if d.user(f"{LOSS}.policy_loss_mode") else "veRL's vanilla PPO loss")
    low, high = clip(d.val)
    for side, value in (("low", low), ("high", high)):
        own = f"{LOSS}.clip_ratio_{side}"
        src = own if d.val(own) is not None else f"{LOSS}.clip_ratio"
        d.set(f"{ARGS}.clip_range_{side}", value, src, note="" if d.user(src) else "veRL default")
    d.set(f"{ARGS}.clip_ratio_c", CLIP_RATIO_C, note="veRL's vanilla loss default: the distillation section has none")
    for k in ("clip_ratio_low", "clip_ratio_high", "clip_ratio"):
        if d.user(f"{LOSS}.{k}") and not d.done(f"{LOSS}.{k}"):
            d.implied(f"{LOSS}.{k}", "clip_ratio_low and clip_ratio_high are set")
    for fn in ("kl_loss_fn", "entropy_loss_fn", "kl_penalty_fn"):
        d.set(f"algorithm.{fn}", "none", f"{LOSS}.use_task_rewards",
              note="the task rewards' loss and reward terms are dropped (on_policy_distill's default)")
    for prefix in TASK_LOSS:
        for k in d.user_keys_under(prefix):
            if not d.done(k):
                d.implied(k, DROPPED)
    return "on_policy_distill"


def map_teacher(d: Draft, tasksets: list[str]) -> tuple[tuple[int, int, str] | None, list[str]]:
    """The teacher as explorer.auxiliary_models[0] (model_path, dtype, tensor/data/pipeline parallel sizes,
    gpu_memory_utilization; max_model_len = the teacher's, else prompt + response + 1, the room veRL's check asks
    for and vLLM needs to score a whole sequence, where veRL's null is the model's own window; no prompt
    truncation: veRL's teacher is given prompt and response whole), and the training tasksets of ``tasksets`` run
    rftc's distillation workflow on veRL's chat messages, the teacher's log-probs at temperature 1.0.
    Returns (veRL's teacher GPUs, the teacher's engines, the key) for the GPU split, or None where the pool does
    not hold whole engines (RFTC313, as veRL stops), and the tasksets left to the reward workflow (evaluation)."""
    from rftc.plugins import DISTILL_WORKFLOW

    training = [t for t in tasksets if t.startswith(TRAINING)]
    evaluation = [t for t in tasksets if t not in training]
    at = "explorer.auxiliary_models[0]"
    d.set(f"{at}.model_path", d.val(f"{TEACHER}.model_path"), f"{TEACHER}.model_path")
    d.set(f"{at}.dtype", d.val(f"{INF}.dtype"), f"{INF}.dtype",
          note="" if d.user(f"{INF}.dtype") else "veRL's: the rollout's dtype")
    engine = 1
    for k, t in (("tensor_model_parallel_size", "tensor_parallel_size"), ("data_parallel_size", "data_parallel_size"),
                 ("pipeline_model_parallel_size", "pipeline_parallel_size")):
        key = f"{INF}.{k}"
        size = d.number(key, positive=True) if d.cfg.has(key) else 1
        if size is None:
            return None, evaluation
        engine *= size
        if size != 1 or t == "tensor_parallel_size":
            d.set(f"{at}.{t}", size, key, note="" if d.user(key) else "veRL default")
    mem = f"{INF}.gpu_memory_utilization"
    d.set(f"{at}.gpu_memory_utilization", d.val(mem), mem, note="" if d.user(mem) else "veRL default")
    ml = f"{INF}.max_model_len"
    if d.val(ml) is not None:
        d.set(f"{at}.max_model_len", d.val(ml), ml)
    else:
        p, r = (d.number(f"{INF}.{k}", positive=True) for k in ("prompt_length", "response_length"))
        if p is not None and r is not None:
            d.set(f"{at}.max_model_len", p + r + 1, f"{INF}.prompt_length", f"{INF}.response_length",
                  note=f"{p}+{r}+1: the whole sequence and one token (veRL's null is the model's own window)")
    d.set(f"{at}.enable_prompt_truncation", False, f"{DIST}.enabled",
          note="veRL's teacher scores prompt and response whole")
    for at_ts in training:
        d.set(f"{at_ts}.default_workflow_type", DISTILL_WORKFLOW, f"{DIST}.enabled",
              note="Trinity's on_policy_distill_workflow on veRL's chat messages")
        d.set(f"{at_ts}.workflow_args.temperature", TEACHER_TEMPERATURE, f"{INF}.temperature",
              note="veRL's teacher gives log-probs at temperature 1.0")
    nodes, gpn = (d.number(f"{DIST}.{k}", positive=True) for k in ("nnodes", "n_gpus_per_node"))
    if nodes is None or gpn is None:
        return None, evaluation
    pool = nodes * gpn
    if pool % engine:
        d.report("RFTC313", f"the teacher's {pool} GPUs (distillation.nnodes x n_gpus_per_node) do not hold whole "
                 f"engines of {engine} (veRL stops at start)", f"{DIST}.n_gpus_per_node")
        return None, evaluation
    for k in d.user_keys_under(DIST):
        if not d.done(k):
            last = k.rsplit(".", 1)[-1]
            d.implied(k, UNWRITTEN.get(last, "tunes the teacher's inference engine"))
    return (pool, pool // engine, f"{TEACHER}.model_path"), evaluation
