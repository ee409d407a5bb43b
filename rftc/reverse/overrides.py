"""Trinity's expansion -> veRL main_ppo overrides for one release: the inverse of rftc.mapping's formulas, read from
the same view the semantic model reads (rftc.semantics.trinity.view), so each override names the Trinity keys (and
file:line) its value came from."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rftc.dotted import get
from rftc.mapping import lora
from rftc.mapping.algorithm import ESTIMATORS, LOSS_MODES
from rftc.mapping.correction import LOGPROBS
from rftc.mapping.distill import INF, LOSS, TEACHER
from rftc.mapping.models import MEGATRON_OFFLOAD, MEGATRON_PARALLEL, ROLLOUT_SEED, clip_key, reads_sampling_key
from rftc.mapping.precision import short_dtype
from rftc.mapping.schedule import warms_up
from rftc.mapping.sampling import V1_REWARD
from rftc.plugins import ADVANTAGE_FN, FILTER_GROUPS
from rftc.plugins.groups import SEQUENCE_METRICS
from rftc.semantics.data import KWARGS
from rftc.semantics.model import Value
from rftc.semantics.inputs import taskset_file
from rftc.semantics.optim import ADAM_BETAS
from rftc.semantics.trinity import OPERATORS, TS
from rftc.trinity.checks.trainer_config import ENGINE_BLOCKS, FROZEN, sections
from rftc.trinity.derive import derive
from rftc.trinity.expand import expand
from rftc.trinity.registry import TEACHER_ADVANTAGE_FNS
from rftc.trinity.schema import TrinityConfig
from rftc.verl.overrides.apply import leaves
from rftc.verl.releases.schema import leaf_paths
from rftc.verl.releases.semantics import resolve

A, R, O = "actor_rollout_ref.actor", "actor_rollout_ref.rollout", "actor_rollout_ref.actor.optim"
EI = "buffer.explorer_input"
ADVANTAGES = {adv: est for est, (adv, _) in reversed(ESTIMATORS.items()) if adv != ADVANTAGE_FN}
LOSSES = {fn: mode for mode, (fn, _) in LOSS_MODES.items()}
BYPASS = "algorithm.rollout_correction.bypass_mode"
KL_NAMES = {"k1": "kl", "k2": "mse", "low_var_kl": "low_var_kl", "abs": "abs"}  # Trinity's -> veRL's estimator
SECTIONS = {"actor": A, "ref": "actor_rollout_ref.ref", "rollout": R, "model": "actor_rollout_ref.model",
            "critic": "critic"}  # trainer_config's sections (Trinity's names) -> veRL's


@dataclass(frozen=True)
class Override:
    key: str
    value: object
    source: str  # the Trinity keys it came from (file:line key, ...)
    formula: str = ""


def primary(x: TrinityConfig) -> str:
    """The config main_ppo composes for the config's trainer: veRL's Megatron one for trainer_strategy megatron."""
    return "ppo_megatron_trainer" if x.trainer.trainer_strategy == "megatron" else "ppo_trainer"


def overrides(x: TrinityConfig, v: dict[str, Value], release: str, raw: dict | None = None
              ) -> tuple[list[Override], list[Override]]:
    """The overrides of a main_ppo launch of ``release`` (composing ``primary(x)``) that trains what ``v``
    (view(x)) describes, and those whose key the release lacks; paths as the file ``raw`` writes them
    (${oc.env:...} kept for the launch's environment)."""
    keys = leaf_paths(release, primary(x))
    megatron = x.trainer.trainer_strategy == "megatron"
    # what one ppo_mini_batch_size counts under the release, for the launch's engine
    unit = resolve(release, snapshot=False).value("megatron_actor_mini_unit" if megatron else "actor_mini_unit")
    out: dict[str, Override] = {}

    def val(key, default=None):
        got = v.get(key)
        return default if got is None or got.value is None else got.value

    def put(key, value, *trinity_keys, formula="", source=None):
        if value is None:
            return
        src = source or ", ".join(v[k].source for k in trinity_keys if k in v)
        out[key] = Override(key, value, src, formula)

    def first(*names):
        return next((k for k in names if k in keys), names[0])

    n, T = val("verl.rollout.n", 1), val("verl.actor.ppo_mini_batch_size")
    tsi, epochs = val("synchronizer.trainer_sync_interval", 1), val("verl.actor.ppo_epochs", 1)
    put(f"{R}.n", n, "verl.rollout.n")
    n = n if f"{R}.n" in keys else 1  # a release without rollout.n (0.1) samples one response a prompt
    prompts = max(T // n, 1)
    mini = T if unit == "responses" else prompts
    put("algorithm.adv_estimator", _estimator(val("algorithm.advantage_fn"), val("algorithm.advantage_fn_args", {})),
        "algorithm.advantage_fn")
    put(f"{A}.ppo_mini_batch_size", mini, "verl.actor.ppo_mini_batch_size", "verl.rollout.n",
        formula=f"buffer.train_batch_size, in responses as verl {release} counts it" if unit == "responses"
        else f"buffer.train_batch_size / repeat_times = {T}/{n} prompts")
    if T * tsi % n == 0:  # the experiences between weight updates are whole groups: as many prompts a veRL step
        put("data.train_batch_size", T * tsi // n, "verl.actor.ppo_mini_batch_size",
            "synchronizer.trainer_sync_interval", "verl.rollout.n",
            formula=f"buffer.train_batch_size x trainer_sync_interval / responses a prompt = {T}x{tsi}/{n}")
    else:
        put("data.train_batch_size", prompts * tsi, "verl.actor.ppo_mini_batch_size",
            "synchronizer.trainer_sync_interval", formula=f"mini-batch x trainer_sync_interval = {prompts}x{tsi}")
    put(f"{A}.ppo_epochs", epochs, "verl.actor.ppo_epochs")
    put("trainer.total_epochs", val("buffer.total_epochs"), "buffer.total_epochs")
    total = val("buffer.total_steps")
    if total:
        esi = val("synchronizer.explorer_sync_interval", tsi)
        put("trainer.total_training_steps", max(total // esi, 1), "buffer.total_steps",
            formula=f"explorer steps / explorer_sync_interval = {total}/{esi}")
    _optimizer(put, val, first, tsi)
    _loss(put, val)
    _warmup_and_schedule(put, val, tsi, release, keys if megatron else None)
    _distillation(put, val, out, x)
    if val("algorithm.bypass_old_logprobs", True) and BYPASS in keys and \
            LOSSES.get(val("algorithm.policy_loss_fn")) == "vanilla":
        # veRL's bypass mode replaces the loss with its own, which for the default loss_type ppo_clip (0.6.1:
        # use_policy_gradient false) is the vanilla PPO loss (verl/trainer/ppo/rollout_corr_helper.py
        # apply_bypass_mode, core_algos.py compute_policy_loss_bypass_mode): Trinity's ppo loss on the rollout
        # engine's log-probs. Elsewhere RFTC601 reports the old log-probs veRL recomputes.
        put(BYPASS, True, "algorithm.bypass_old_logprobs",
            formula="the rollout's log-probs are the old ones: veRL's bypass mode, its ppo_clip loss the vanilla loss")
        _rollout_logprobs(put, release, primary(x))
    if val("mode") == "bench":  # main_ppo's RayPPOTrainer returns after its first validation (val_before_train's)
        put("trainer.val_only", True, "mode", formula="mode bench: evaluates only")
        put("trainer.val_before_train", True, "mode", formula="val_only returns after this validation")
    _sampling(put, val)
    _template(put, val)
    _in_batch_order(put, release, primary(x))
    _optimizer_and_sampling(put, val, keys, release, megatron)
    _data(put, first, keys, x, raw or {})
    _cluster(put, x, val, raw or {})
    _passthrough(put, x, out)
    _precision(put, out, val, keys, release, megatron)
    _world(put, out, x, n)
    if megatron:
        _megatron(put, val, val("algorithm.advantage_fn") == "ppo")
        _router_replay(put, val, release)
    _micro(out, put, keys, x)
    micro = out.get(f"{A}.ppo_micro_batch_size")
    if tsi == 1 and micro and isinstance(micro.value, int) and micro.value > 0 and mini % micro.value:
        # one mini-batch is the whole batch: veRL treats any ppo_mini_batch_size >= train_batch_size alike, and its
        # workers want one the global micro-batch size divides
        whole = -(-mini // micro.value) * micro.value
        put(f"{A}.ppo_mini_batch_size", whole, "verl.actor.ppo_mini_batch_size", source=None,
            formula=f"the whole batch of {mini} {unit}, as a multiple of ppo_micro_batch_size {micro.value}")
    def has(key: str) -> bool:  # a '+' key adds to a mapping the release has
        return key in keys or key.startswith("+") and key[1:].rsplit(".", 1)[0] in keys

    return [o for o in out.values() if has(o.key)], [o for o in out.values() if not has(o.key)]


def _estimator(adv: str | None, args: dict) -> str | None:
    return args.get("estimator") if adv == ADVANTAGE_FN else ADVANTAGES.get(adv, adv)


def _optimizer(put, val, first, tsi: int) -> None:
    put(f"{O}.lr", val("verl.actor.optim.lr"), "verl.actor.optim.lr")
    put(f"{O}.weight_decay", val("verl.actor.optim.weight_decay"), "verl.actor.optim.weight_decay")
    sched = val("verl.actor.optim.lr_scheduler_type")
    put(first(f"{O}.lr_scheduler_type", f"{O}.warmup_style"), sched, "verl.actor.optim.lr_scheduler_type")
    warmup = val("verl.actor.optim.lr_warmup_steps")
    if isinstance(warmup, int) and warmup > 0:
        put(f"{O}.lr_warmup_steps", max(warmup // tsi, 1), "verl.actor.optim.lr_warmup_steps",
            formula=f"trainer steps / trainer_sync_interval = {warmup}/{tsi}")
    put(f"{O}.lr_warmup_steps_ratio", val("verl.actor.optim.lr_warmup_steps_ratio"),
        "verl.actor.optim.lr_warmup_steps_ratio")


def _loss(put, val) -> None:
    kl = val("algorithm.kl_loss_fn", "none")
    put(f"{A}.use_kl_loss", kl != "none", "algorithm.kl_loss_fn")
    if kl != "none":
        put(f"{A}.kl_loss_type", KL_NAMES.get(kl, kl), "algorithm.kl_loss_fn")
        put(f"{A}.kl_loss_coef", val("algorithm.kl_loss_fn_args", {}).get("kl_coef"), "algorithm.kl_loss_fn_args")
    pen = val("algorithm.kl_penalty_fn", "none")
    put("algorithm.use_kl_in_reward", pen != "none", "algorithm.kl_penalty_fn")
    if pen != "none":
        put("algorithm.kl_penalty", KL_NAMES.get(pen, pen), "algorithm.kl_penalty_fn")
        put("algorithm.kl_ctrl.kl_coef", val("algorithm.kl_penalty_fn_args", {}).get("kl_coef"),
            "algorithm.kl_penalty_fn_args")
    loss, args = val("algorithm.policy_loss_fn"), val("algorithm.policy_loss_fn_args", {})
    la = "algorithm.policy_loss_fn_args"
    put(f"{A}.policy_loss.loss_mode", LOSSES.get(loss, loss), "algorithm.policy_loss_fn")
    clip = args.get("clip_range")
    for side in ("low", "high"):
        bound = args.get(f"clip_range_{side}")
        put(f"{A}.clip_ratio_{side}", bound if bound is not None else clip, la)
    put(f"{A}.clip_ratio_c", args.get("clip_ratio_c"), la)
    put(f"{A}.tau_pos", args.get("tau_pos"), la)
    put(f"{A}.tau_neg", args.get("tau_neg"), la)
    entropy = 0.0 if val("algorithm.entropy_loss_fn") == "none" else \
        val("algorithm.entropy_loss_fn_args", {}).get("entropy_coef", 0.0)
    put(f"{A}.entropy_coeff", entropy, "algorithm.entropy_loss_fn", "algorithm.entropy_loss_fn_args")
    put(f"{A}.loss_agg_mode", args.get("loss_agg_mode", val("algorithm.loss_agg_mode")), "algorithm.loss_agg_mode")
    adv_args = val("algorithm.advantage_fn_args", {})
    put("algorithm.gamma", adv_args.get("gamma"), "algorithm.advantage_fn_args")
    put("algorithm.lam", adv_args.get("lam"), "algorithm.advantage_fn_args")
    if val("algorithm.advantage_fn") == "ppo":
        put("critic.optim.lr", val("verl.critic.optim.lr"), "verl.critic.optim.lr")


def _warmup_and_schedule(put, val, tsi: int, release: str, megatron_keys) -> None:
    """trainer.critic_warmup: Trinity holds the actor back critic_warmup - 1 trainer steps, veRL critic_warmup -
    its first step's number (rftc.semantics.loss), a veRL step being trainer_sync_interval trainer steps; a Megatron
    optimizer's warmup start where it warms up (Trinity's default, min_lr_ratio x lr, is not veRL's 0), and the
    decay steps trainer_config sets, in veRL's scheduler steps (one a veRL step); ``megatron_keys``: the release's
    keys, for a Megatron trainer (None otherwise). Elsewhere RFTC601 reports the schedule veRL cannot express."""
    w = val("trainer.critic_warmup", 0)
    if w > 1:
        first = resolve(release, snapshot=False).value("first_trainer_step")
        put("trainer.critic_warmup", -(-(w - 1) // tsi) + first, "trainer.critic_warmup",
            formula=f"(critic_warmup - 1) / trainer_sync_interval + verl {release}'s first step = "
            f"({w}-1)/{tsi}+{first}")
    if megatron_keys is None:
        return
    o = "verl.actor.optim"
    if warms_up(lambda k: val(f"{o}.{k}")) and val(f"{o}.lr_warmup_init") and f"{O}.lr_warmup_init" in megatron_keys:
        put(f"{O}.lr_warmup_init", val(f"{o}.lr_warmup_init"), f"{o}.lr_warmup_init",
            formula="Trinity's Megatron warmup start, min_lr_ratio x lr")
    for section, optim in ((O, o), ("critic.optim", "verl.critic.optim")):
        steps = val(f"{optim}.lr_decay_steps")
        if isinstance(steps, int) and steps != val(f"{o}.total_training_steps") and \
                f"{section}.lr_decay_steps" in megatron_keys:
            put(f"{section}.lr_decay_steps", max(steps // tsi, 1), f"{optim}.lr_decay_steps",
                formula=f"trainer steps / trainer_sync_interval = {steps}/{tsi}")


def _distillation(put, val, out: dict, x: TrinityConfig) -> None:
    """Trinity's on_policy_distill as veRL's on-policy distillation (rftc.mapping.distill): the reverse KL k1 as the
    advantage of the vanilla PPO loss with the config's clip bounds (the distillation section's own), no task
    rewards; the teacher is the first auxiliary model (its path, dtype, engine sizes and window, its engines' GPUs a
    pool of their own), and any estimator but gae (which trains a critic) for the advantage the loss does not read.
    What veRL cannot express (kl_coef other than 1, the student's log-prob from the rollout or a trainer step's
    start, a teacher temperature other than 1) is RFTC601, from the semantic model."""
    if val("algorithm.advantage_fn") not in TEACHER_ADVANTAGE_FNS:
        return
    fn = "algorithm.advantage_fn"
    put("algorithm.adv_estimator", "grpo", fn, formula="the distillation loss reads no task advantage; grpo trains no "
        "critic (veRL's default gae would)")
    put("distillation.enabled", True, fn)
    for k, value in (("loss_mode", "k1"), ("use_policy_gradient", True), ("use_task_rewards", False)):
        put(f"{LOSS}.{k}", value, fn, "algorithm.advantage_fn_args",
            formula="kl_coef x (teacher - student log-prob) as the advantage, no task rewards")
    for side in ("low", "high"):  # the distillation's policy loss clips with its own bounds, not the actor's
        got = out.pop(f"{A}.clip_ratio_{side}", None)
        if got is not None:
            put(f"{LOSS}.clip_ratio_{side}", got.value, source=got.source)
    for k in (f"{A}.clip_ratio_c", f"{A}.entropy_coeff", f"{A}.use_kl_loss", "algorithm.use_kl_in_reward"):
        out.pop(k, None)  # not read without task rewards (the distillation section has no clip_ratio_c: 3.0)
    teachers = x.explorer.auxiliary_models
    if not teachers:
        return
    t, at = teachers[0], "explorer.auxiliary_models"
    put(f"{TEACHER}.model_path", t.model_path, source=f"{at}.0.model_path")
    put(f"{INF}.dtype", t.dtype, source=f"{at}.0.dtype")
    for mine, theirs in (("tensor_model_parallel_size", "tensor_parallel_size"),
                         ("data_parallel_size", "data_parallel_size"),
                         ("pipeline_model_parallel_size", "pipeline_parallel_size")):
        put(f"{INF}.{mine}", getattr(t, theirs), source=f"{at}.0.{theirs}")
    put(f"{INF}.gpu_memory_utilization", t.gpu_memory_utilization, source=f"{at}.0.gpu_memory_utilization")
    if t.max_model_len is not None:
        put(f"{INF}.max_model_len", t.max_model_len, source=f"{at}.0.max_model_len")
    gpus = t.engine_num * t.tensor_parallel_size * t.data_parallel_size * t.pipeline_parallel_size
    per_node = x.cluster.gpu_per_node or gpus
    nodes, per_node = (1, gpus) if gpus <= per_node or gpus % per_node else (gpus // per_node, per_node)
    put("distillation.nnodes", nodes, source=f"{at}.0.engine_num, cluster.gpu_per_node",
        formula=f"the teacher's {gpus} GPUs (engine_num x GPUs an engine), on nodes of {per_node}")
    put("distillation.n_gpus_per_node", per_node, source=f"{at}.0.engine_num, cluster.gpu_per_node",
        formula=f"the teacher's {gpus} GPUs (engine_num x GPUs an engine), on nodes of {per_node}")


def _template(put, val) -> None:
    """The chat template (model.custom_chat_template, or the file model.chat_template_path names, as Trinity's
    validator reads it) and the thinking switch, which the release's datasets and agent loops take from
    data.apply_chat_template_kwargs (a free-form mapping: a new key; 0.6.0 on, else RFTC602)."""
    put("actor_rollout_ref.model.custom_chat_template", val("model.custom_chat_template"), "model.custom_chat_template")
    put(f"+{KWARGS}.enable_thinking", val("model.enable_thinking"), "model.enable_thinking")


def _sampling(put, val) -> None:
    put(f"{R}.temperature", val("verl.rollout.temperature"), "verl.rollout.temperature")
    put(f"{R}.top_p", val(f"{TS}.rollout_args.top_p"), f"{TS}.rollout_args.top_p")
    put(f"{R}.top_k", val(f"{TS}.rollout_args.top_k"), f"{TS}.rollout_args.top_k")
    put("data.max_prompt_length", val("model.max_prompt_tokens"), "model.max_prompt_tokens")
    cap = f"{TS}.rollout_args.max_tokens" if val(f"{TS}.rollout_args.max_tokens") is not None else \
        "model.max_response_tokens"
    put("data.max_response_length", val(cap), cap)  # the workflow's cap: the taskset's max_tokens
    put("data.filter_overlong_prompts", bool(val("model.enable_prompt_truncation")), "model.enable_prompt_truncation")


def _rollout_logprobs(put, release: str, config: str) -> None:
    """Bypass mode stops at its first step without the rollout's log-probs (rftc.mapping.correction.bypass_stops):
    where the release's rollout computes none by default (rollout.calculate_log_probs false before verl 0.9.0),
    the launch asks for them, as Trinity's explorer returns them."""
    from rftc.verl.releases import schema

    if get(schema.load(release).tree(config) or {}, tuple(LOGPROBS.split("."))) is not True:
        put(LOGPROBS, True, "algorithm.bypass_old_logprobs",
            formula="bypass mode reads the rollout's log-probs, which Trinity's explorer returns")


def _in_batch_order(put, release: str, config: str) -> None:
    """Trinity trains its mini-batches in the order the explorer hands them over: where the release's actor worker
    shuffles them by default (verl 0.1's, Megatron's of 0.2 and 0.3: rftc.mapping.minibatch), shuffle=False
    trains them in order too (the critic's shuffle follows the actor's)."""
    from rftc.mapping.minibatch import shuffle_reader
    from rftc.verl.releases import schema

    tree = schema.load(release).tree(config) or {}

    def default(key: str):
        return get(tree, tuple(key.split(".")))

    if default(f"{A}.shuffle") is True and shuffle_reader(default, resolve(release, snapshot=False), "actor"):
        put(f"{A}.shuffle", False, "synchronizer.trainer_sync_interval",
            formula="Trinity trains one mini-batch a trainer step, in the explorer's order")


def _optimizer_and_sampling(put, val, keys, release: str, megatron: bool) -> None:
    """The quantities rftc.semantics.trinity._optimizer_fields and _loss_and_sampling_fields read, where they are
    not veRL's defaults: the optimizer, betas, the clip at the key the release's actor reads, the cosine floor
    and cycles, LoRA (a target expression rftc.semantics.lora reads as a list goes back as that list), the
    adaptive KL controller, std normalisation of rftc's veRL advantage, the group filter, ignore_eos and the
    seed (where the release has rollout.seed)."""
    o, sem = "verl.actor.optim", resolve(release, snapshot=False)
    if not megatron and val(f"{o}.optimizer") not in (None, "AdamW"):
        put(f"{O}.optimizer", val(f"{o}.optimizer"), f"{o}.optimizer")
    if val(f"{o}.betas") not in (None, ADAM_BETAS):
        put(f"{O}.betas", val(f"{o}.betas"), f"{o}.betas")
    clip = val(f"{o}.clip_grad")
    if clip not in (None, 1.0):
        put(clip_key(lambda k: True if k in keys else None, sem, megatron), clip,
            f"{o}.clip_grad")
    if val(f"{o}.lr_scheduler_type") == "cosine":
        put(f"{O}.min_lr_ratio", val(f"{o}.min_lr_ratio"), f"{o}.min_lr_ratio")
        if val(f"{o}.num_cycles") not in (None, 0.5):
            put(f"{O}.num_cycles", val(f"{o}.num_cycles"), f"{o}.num_cycles")
    critic_clip = val("verl.critic.optim.grad_clip", val("verl.critic.optim.clip_grad"))
    if val("algorithm.advantage_fn") == "ppo" and critic_clip not in (None, 1.0):
        put(clip_key(lambda k: True if k in keys else None, sem, megatron, "critic"),
            critic_clip, "verl.critic.optim.clip_grad")
    rank = val("verl.model.lora_rank", 0)
    if rank:
        m = "actor_rollout_ref.model"
        put(f"{m}.lora_rank", rank, "verl.model.lora_rank")
        put(f"{m}.lora_alpha", val("verl.model.lora_alpha"), "verl.model.lora_alpha")
        for k in ("target_modules", "exclude_modules"):
            got = val(f"verl.model.{k}")
            names = lora.targets(got) if got is not None else None
            put(f"{m}.{k}", names[1:-1].split(", ") if names and names != got else got, f"verl.model.{k}")
        put(f"{m}.lora_adapter_path", val("verl.model.lora_adapter_path"), "verl.model.lora_adapter_path")
    kl_args = val("algorithm.kl_penalty_fn_args", {})
    if val("algorithm.kl_penalty_fn", "none") != "none" and kl_args.get("adaptive"):
        put("algorithm.kl_ctrl.type", "adaptive", "algorithm.kl_penalty_fn_args")
        put("algorithm.kl_ctrl.target_kl", kl_args.get("target_kl"), "algorithm.kl_penalty_fn_args")
        put("algorithm.kl_ctrl.horizon", kl_args.get("horizon"), "algorithm.kl_penalty_fn_args")
    adv_args = val("algorithm.advantage_fn_args", {})
    if val("algorithm.advantage_fn") == ADVANTAGE_FN and "norm_adv_by_std_in_grpo" in adv_args:
        put("algorithm.norm_adv_by_std_in_grpo", adv_args["norm_adv_by_std_in_grpo"], "algorithm.advantage_fn_args")
    ops = [op for op in val(OPERATORS, []) if op["name"] == FILTER_GROUPS]
    if ops:
        metric = ops[0]["args"].get("metric")
        put("algorithm.filter_groups.enable", True, OPERATORS)
        put("algorithm.filter_groups.metric", V1_REWARD if metric in SEQUENCE_METRICS else metric, OPERATORS)
    if val("explorer.rollout_model.ignore_eos") and reads_sampling_key(lambda k: None, sem, "ignore_eos"):
        put(f"{R}.ignore_eos", True, "explorer.rollout_model.ignore_eos")  # else RFTC601 reports it
    if f"{R}.seed" in keys and val("explorer.rollout_model.seed") != ROLLOUT_SEED:
        put(f"{R}.seed", val("explorer.rollout_model.seed"), "explorer.rollout_model.seed")


def as_written(raw: dict, key: str, value):
    """The file's own text for ``key`` where it reads the environment, else ``value``."""
    written = get(raw, tuple(int(p) if p.isdigit() else p for p in key.split(".")))
    return written if isinstance(written, str) and "${oc.env:" in written else value


def _data(put, first, keys, x: TrinityConfig, raw: dict) -> None:
    """Every training taskset's file, in order, as data.train_files (a list where there are several: veRL
    concatenates them); the first eval taskset's as data.val_files; the first training taskset's columns and
    reward (a taskset that differs from it is reported: unlike_first)."""
    ei = x.buffer.explorer_input
    train = ([ei.taskset] if ei.taskset is not None else []) + list(ei.tasksets)
    files = [(taskset_file(as_written(raw, f"{EI}.tasksets.{i}.path", ts.path), ts.split), ts)
             for i, ts in enumerate(train) if ts.path]
    if files:
        put("data.train_files", files[0][0] if len(files) == 1 else [f for f, _ in files],
            source=", ".join(f"{EI}.tasksets.{i}.path, split" for i in range(len(files))),
            formula="; ".join(_under(f, ts) for f, ts in files))
    evals = ei.eval_tasksets
    if evals and evals[0].path:
        put("data.val_files", taskset_file(as_written(raw, f"{EI}.eval_tasksets.0.path", evals[0].path),
                                           evals[0].split),
            source=f"{EI}.eval_tasksets.0.path, split", formula=_under(evals[0].path, evals[0]))
    if train:
        put("data.prompt_key", train[0].format.prompt_key, source=f"{TS}.format.prompt_key")
        _order(put, keys, train[0], raw)
        _reward(put, first, train[0].workflow_args or {}, raw)


def _order(put, keys, ts, raw: dict) -> None:
    """The first taskset's selector: shuffle as data.shuffle, sequential as its absence; the seed where the file
    sets one (a release whose config lacks data.seed reads it as a new key, '+'). Another selector, or tasksets in
    orders of their own, veRL cannot express (RFTC601, data order)."""
    sel = ts.data_selector
    put("data.shuffle", sel.selector_type == "shuffle", source=f"{TS}.data_selector.selector_type",
        formula=f"{sel.selector_type}: " + ("shuffled every epoch" if sel.selector_type == "shuffle" else
                                            "in file order" if sel.selector_type == "sequential" else "not veRL's"))
    if sel.selector_type == "shuffle" and get(raw, ("buffer", "explorer_input", "tasksets", 0, "data_selector",
                                                     "seed")) is not None:
        put("data.seed" if "data.seed" in keys else "+data.seed", sel.seed, source=f"{TS}.data_selector.seed")


def _under(file: str, ts) -> str:
    return f"the {ts.split} split's parquet file under {ts.path}" if file != ts.path else "the file itself"


def _reward(put, first, args: dict, raw: dict) -> None:
    """rftc's veRL reward workflow's workflow_args as the release's reward keys: the custom function (its path as
    the file writes it, and its reward_kwargs), the reward manager and its overlong-buffer kwargs (free-form
    mappings: new keys, '+')."""
    wf = args.get("custom_reward_function") or {}
    crf = first("reward.custom_reward_function.path", "custom_reward_function.path").rsplit(".", 1)[0]
    put(f"{crf}.path", as_written(raw, f"{TS}.workflow_args.custom_reward_function.path", wf.get("path")),
        f"{TS}.workflow_args")
    put(f"{crf}.name", wf.get("name"), f"{TS}.workflow_args")
    if wf.get("path") and wf.get("reward_kwargs"):
        put(f"+{crf}.reward_kwargs", dict(wf["reward_kwargs"]), f"{TS}.workflow_args")
    if args.get("reward_manager"):
        manager = first("reward.reward_manager.name", "reward_model.reward_manager")
        put(manager, args["reward_manager"], f"{TS}.workflow_args")
        kwargs = {k: args[k] for k in ("overlong_buffer_cfg", "max_resp_len") if k in args}
        if kwargs:
            section = "reward" if manager.startswith("reward.") else "reward_model"
            put(f"+{section}.reward_kwargs", kwargs, f"{TS}.workflow_args")


def unlike_first(x: TrinityConfig) -> list[tuple[int, str, list[str]]]:
    """The training tasksets after the first whose rollout args differ from the first's: veRL samples every
    prompt alike. (index, name, the fields that differ); the other per-taskset settings (columns, workflow and
    reward) are quantities of the model (rftc.semantics.trinity_inputs)."""
    train = expand(x).buffer.explorer_input.tasksets  # as Trinity completes them from the model's sampling
    out = []
    for i, ts in enumerate(train[1:], 1):
        mine, theirs = ts.rollout_args.model_dump(), train[0].rollout_args.model_dump()
        fields = [f"rollout_args.{k}" for k in mine if mine[k] != theirs.get(k)]
        if fields:
            out.append((i, ts.name, fields))
    return out


def _cluster(put, x: TrinityConfig, val, raw: dict) -> None:
    m = x.model
    put("actor_rollout_ref.model.path", as_written(raw, "model.model_path", m.model_path), source="model.model_path")
    if val("algorithm.advantage_fn") == "ppo":
        key = "model.critic_model_path" if get(raw, ("model", "critic_model_path")) else "model.model_path"
        put("critic.model.path", as_written(raw, key, m.critic_model_path or m.model_path),
            source="model.critic_model_path")
    rm, gpus = x.explorer.rollout_model, derive(x).gpus
    if gpus is not None and gpus.trainer_node_num:  # training's world size stays the trainer's; veRL colocates
        split = (f"the trainer's share of {gpus.node_num}x{gpus.gpu_per_node} GPUs ({gpus.explorer_gpu_num} go to "
                 "Trinity's explorer; veRL rolls out on the training GPUs)")
        put("trainer.nnodes", gpus.trainer_node_num, source="cluster.node_num, cluster.gpu_per_node", formula=split)
        put("trainer.n_gpus_per_node", gpus.trainer_gpu_num_per_node, source="cluster.gpu_per_node", formula=split)
    else:  # no GPUs left to Trinity's trainer (its checks say so): the whole cluster, rollout colocated
        put("trainer.nnodes", x.cluster.node_num or None, source="cluster.node_num")
        put("trainer.n_gpus_per_node", x.cluster.gpu_per_node or None, source="cluster.gpu_per_node")
    put(f"{R}.name", rm.engine_type.split("_")[0], source="explorer.rollout_model.engine_type")
    put(f"{R}.tensor_model_parallel_size", rm.tensor_parallel_size,
        source="explorer.rollout_model.tensor_parallel_size")
    put(f"{R}.gpu_memory_utilization", rm.gpu_memory_utilization,
        source="explorer.rollout_model.gpu_memory_utilization")
    t = x.trainer
    put(f"{A}.use_dynamic_bsz", t.use_dynamic_bsz, source="trainer.use_dynamic_bsz")
    if t.use_dynamic_bsz:
        put(f"{A}.ppo_max_token_len_per_gpu", derive(x).max_token_len_per_gpu, source="trainer.max_token_len_per_gpu",
            formula="Trinity's default: ceil(2 x max_model_len / sequence parallel)")
    put(f"{A}.ulysses_sequence_parallel_size", t.ulysses_sequence_parallel_size,
        source="trainer.ulysses_sequence_parallel_size")
    put("actor_rollout_ref.model.use_remove_padding", t.use_remove_padding, source="trainer.use_remove_padding")
    put("trainer.project_name", x.project, source="project")
    put("trainer.experiment_name", x.name, source="name")


def _passthrough(put, x: TrinityConfig, out) -> None:
    """trainer.trainer_config's worker sections, which Trinity merges into the veRL config it builds, under veRL's
    own names; what Trinity drops, freezes or strips is left out, as Trinity leaves it out."""
    megatron = x.trainer.trainer_strategy == "megatron"
    for section, _, body in sections(x.trainer.trainer_config or {}):
        for key, value in body.items():
            if key in FROZEN.get(section, {}) or (key in ENGINE_BLOCKS and section != "model"
                                                  and (ENGINE_BLOCKS[key] == "megatron") != megatron):
                continue  # Trinity's own field decides it, or Trinity strips the other strategy's engine block
            for sub, leaf in leaves(value, key):
                target = f"{SECTIONS[section]}.{sub}"
                if target not in out and leaf is not None:
                    put(target, leaf, source=f"trainer.trainer_config {section}.{sub}", formula="passed through")
    if not x.trainer.use_dynamic_bsz:  # veRL needs micro-batch sizes; Trinity's legacy default is 1
        for key in (f"{A}.ppo_micro_batch_size", f"{R}.log_prob_micro_batch_size",
                    "actor_rollout_ref.ref.log_prob_micro_batch_size"):
            if key not in out and f"{key}_per_gpu" not in out:
                put(f"{key}_per_gpu", 1, source="trainer.use_dynamic_bsz", formula="Trinity's default micro-batch size")


# veRL's micro-batch sizes: the deprecated global form (divided by the data-parallel size at startup) and its
# per-GPU form, which verl 0.1 lacks
MICRO = (f"{A}.ppo_micro_batch_size", f"{R}.log_prob_micro_batch_size",
         "actor_rollout_ref.ref.log_prob_micro_batch_size", "critic.ppo_micro_batch_size",
         "critic.forward_micro_batch_size")


def model_parallel(x: TrinityConfig, keys=None) -> int:
    """The GPUs of one model-parallel group, which veRL's workers divide the GPUs by for the data-parallel ranks a
    global micro-batch size is divided by: Ulysses SP (FSDP) or TP x PP x CP (Megatron); with ``keys``, only the
    sizes a release has keys for (one without, verl 0.1's SP or context parallelism before 0.4.0, runs without)."""
    m, t = x.trainer.megatron, x.trainer
    if t.trainer_strategy != "megatron":
        sizes = {f"{A}.ulysses_sequence_parallel_size": t.ulysses_sequence_parallel_size}
    else:
        sizes = {f"{A}.megatron.{k}": getattr(m, k) for k in
                 ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size")}
    return max(math.prod(v for k, v in sizes.items() if keys is None or k in keys), 1)


def _world(put, out: dict, x: TrinityConfig, n: int) -> None:
    """veRL splits each step's responses over all its GPUs (its startup check refuses a batch they do not divide):
    where the trainer's GPUs do not divide them, the most GPUs up to that many that do, in whole model-parallel
    groups (whole nodes, or part of one); rftc.compare.to_verl reports the smaller world (RFTC610)."""
    nodes, per_node, batch = (out.get(k) for k in ("trainer.nnodes", "trainer.n_gpus_per_node",
                                                   "data.train_batch_size"))
    if not (nodes and per_node and batch) or not all(isinstance(o.value, int) for o in (nodes, per_node, batch)):
        return
    responses, share = batch.value * n, nodes.value * per_node.value
    group = model_parallel(x)
    worlds = [(k, per_node.value) for k in range(nodes.value, 0, -1)] + \
        [(1, g) for g in range(per_node.value - 1, 0, -1)]
    k, g = next(((k, g) for k, g in worlds if responses % (k * g) == 0 and (k * g) % group == 0), (0, 0))
    if (k, g) in ((0, 0), (nodes.value, per_node.value)):
        return
    why = f"the most GPUs up to the trainer's {share} that split the {responses} responses of a step evenly"
    put("trainer.nnodes", k, source=nodes.source, formula=why)
    put("trainer.n_gpus_per_node", g, source=per_node.source, formula=why)


def _micro(out: dict, put, keys: set, x: TrinityConfig) -> None:
    """Each micro-batch size as the release reads it, for the per-GPU size Trinity's trainer takes: trainer_config's
    per-GPU key, else its global one (a hand-written config's: rftc convert writes per-GPU sizes, and rftc check
    reports a global one, RFTC466) divided by the trainer's data-parallel ranks as veRL's workers divide it. The
    launch writes the per-GPU key where the release has it, else the global size of its own data-parallel ranks."""
    gpus = derive(x).gpus
    trainer = max(gpus.trainer_gpu_num // model_parallel(x), 1) if gpus is not None and gpus.trainer_gpu_num > 0 \
        else None
    nodes, per_node = out.get("trainer.nnodes"), out.get("trainer.n_gpus_per_node")
    launch = max(nodes.value * per_node.value // model_parallel(x, keys), 1) if nodes and per_node else None
    for glob in MICRO:
        per = f"{glob}_per_gpu"
        g, p = out.pop(glob, None), out.pop(per, None)
        if p is None and g is not None and isinstance(g.value, int) and trainer:
            size = max(g.value // trainer, 1)
            p = Override(per, size, g.source,
                         f"Trinity's trainer divides {g.value} by its {trainer} data-parallel ranks: {size} a GPU")
        if p is None:  # not a size veRL divides (null): as it is
            if g is not None:
                out[glob] = g
        elif per in keys or glob not in keys or launch is None or not isinstance(p.value, int):
            out[per] = p
        else:
            put(glob, p.value * launch, source=p.source,
                formula=f"{p.value} per GPU x the launch's {launch} data-parallel ranks (the release's global size)")


def _router_replay(put, val, release: str) -> None:
    """The actor's MoE routing replay of a Megatron config (R3 under algorithm.enable_router_replay, trainer_config's
    mode over it) at the key the release's actor reads (the legacy Megatron worker's actor.router_replay.mode, the
    engine's actor.megatron.router_replay.mode: rftc.mapping.model_keys), and the rollout returning its routing."""
    mode = val("verl.actor.megatron.router_replay.mode")
    if mode in (None, "disabled"):
        return
    engine = resolve(release, snapshot=False).value("actor_clip") == "optim"
    put(f"{A}.megatron.router_replay.mode" if engine else f"{A}.router_replay.mode", mode,
        "verl.actor.megatron.router_replay.mode")
    if val("algorithm.enable_router_replay"):
        put(f"{R}.enable_rollout_routing_replay", True, "algorithm.enable_router_replay")


def _megatron(put, val, critic: bool) -> None:
    """trainer.megatron's parallel sizes and trainer's offload flags, which Trinity gives the actor, the reference
    model and the critic (trinity-0.6.md §3.2), as veRL's Megatron keys of each."""
    for role in (A, "actor_rollout_ref.ref", *(["critic"] if critic else [])):
        for k in MEGATRON_PARALLEL:
            put(f"{role}.megatron.{k}", val(f"trainer.megatron.{k}"), f"trainer.megatron.{k}")
        for k, field in MEGATRON_OFFLOAD.items():
            if role != "actor_rollout_ref.ref" or k == "param_offload":
                put(f"{role}.megatron.{k}", val(field), field)


def _precision(put, out: dict, val, keys, release: str, megatron: bool) -> None:
    """What the trainer's roles train in, where the release reads it elsewhere than Trinity's engine
    (rftc.mapping.precision): an FSDP section's model_dtype the release has no key for (before 0.6.0, whose legacy
    reference loads in bf16 where it is unset) as a new key ('+'), where Trinity's differs from that default;
    0.7.1's legacy FSDP actor trains with QAT from actor.qat, not fsdp_config.qat."""
    if megatron:
        return
    critic = "critic.fsdp" if "critic.fsdp" in keys else "critic.model.fsdp_config"
    kl = any(val(k) not in (None, "none") for k in ("algorithm.kl_loss_fn", "algorithm.kl_penalty_fn"))
    roles = {"actor": True, "reference": kl, "critic": val("algorithm.advantage_fn") == "ppo"}
    for role, sec, view in (("actor", f"{A}.fsdp_config", "verl.actor.fsdp_config"),
                            ("reference", "actor_rollout_ref.ref.fsdp_config", "verl.ref.fsdp_config"),
                            ("critic", critic, "verl.critic.fsdp")):
        key = f"{sec}.model_dtype"
        if key in keys or sec not in keys or not roles[role]:
            continue
        for passed in (key, "critic.fsdp.model_dtype" if role == "critic" else key):
            out.pop(passed, None)  # the passthrough's key, which the release lacks
        weights = val(f"{view}.model_dtype")
        default = "bf16" if role == "reference" else "fp32"
        if short_dtype(weights) != default:
            put(f"+{key}", weights, f"{view}.model_dtype",
                formula=f"verl {release}'s legacy worker loads the {role} in {default} where it is unset")
    legacy = resolve(release, snapshot=False).value("actor_clip") != "optim"
    if legacy and f"{A}.qat.enable" in keys:
        for key, o in list(out.items()):
            if key.startswith(f"{A}.fsdp_config.qat."):
                put(f"{A}.qat.{key.rsplit('.', 1)[1]}", o.value, source=o.source,
                    formula="verl 0.7.1's legacy FSDP actor trains with QAT from actor.qat")
