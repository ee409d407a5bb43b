"""What Trinity 0.6.0 accepts at validation but fails on later, or trains differently than the file suggests
(trinity-0.6.md §2.6 "not validated", §3.4, §4): names it resolves only at run time, ``*_args`` keys,
group algorithms with one rollout, an LR schedule without a horizon, the default KL loss, top_k inheritance."""

from __future__ import annotations

from rftc.trinity import registry
from rftc.trinity.checks._util import first_set, suggest

A = ("algorithm",)
EI = ("buffer", "explorer_input")


def check(ctx, cfg, d) -> None:
    _names(ctx, cfg)
    _args(ctx, cfg, d)
    a = cfg.algorithm
    adv = d.functions["advantage_fn"]
    if d.explores and adv in registry.GROUP_ADVANTAGE_FNS and d.repeat_times == 1:
        declared = f" (Trinity declares {d.algorithm.declared_repeat_times} for {d.algorithm.name} but never applies " \
                   "it)" if d.algorithm and d.algorithm.declared_repeat_times > 1 else ""
        ctx.add("RFTC478", f"advantage_fn `{adv}` normalises rewards within each task's group, but "
                f"algorithm.repeat_times is 1: every advantage is 0 and the policy does not learn{declared}",
                first_set(ctx, A + ("repeat_times",), A + ("algorithm_type",), A),
                hint="set algorithm.repeat_times (veRL rollout.n), e.g. `rftc check --fix --fix-repeat-times 8`")
    if d.explores and d.trains and d.algorithm is not None and d.algorithm.advantage_in_trainer \
            and adv in registry.GROUP_ADVANTAGE_FNS and d.train_batch_size and d.train_batch_size % d.repeat_times:
        ctx.add("RFTC487", f"{d.algorithm.name} computes `{adv}` advantages on each trainer step's experiences, "
                f"but buffer.train_batch_size ({d.train_batch_size}) is not a multiple of algorithm.repeat_times "
                f"({d.repeat_times}): steps hold parts of a task's group, and its advantages come from part of its "
                "rollouts", first_set(ctx, ("buffer", "train_batch_size"), A + ("repeat_times",), A),
                hint=f"make train_batch_size a multiple of {d.repeat_times}")
    if d.trains:
        _lr(ctx, cfg, d)
        if a.kl_loss_fn is None and d.functions["kl_loss_fn"] == "k2" and (d.algorithm is None or d.algorithm.name != "dpo"):
            ctx.add("RFTC480", f"algorithm.kl_loss_fn is unset: Trinity's default for {a.algorithm_type} is k2 "
                    "(coefficient 0.001); veRL's default is off (use_kl_loss=False)",
                    first_set(ctx, A + ("algorithm_type",), A), hint="write `kl_loss_fn: none` or the KL you want")
    if ctx.is_set(("model", "top_k")) and cfg.model.top_k != -1:
        missing = [t for _, t in _tasksets(cfg) if t.rollout_args.top_k == -1]
        if missing:
            ctx.add("RFTC483", f"model.top_k ({cfg.model.top_k}) is not copied into tasksets' rollout_args (their top_k "
                    "defaults to -1, not None): rollouts sample without top-k", ("model", "top_k"),
                    hint="set rollout_args.top_k on each taskset")
    ei = cfg.buffer.explorer_input
    train = [(EI + ("taskset",), ei.taskset)] if ei.taskset is not None else []
    train += [(EI + ("tasksets", i), t) for i, t in enumerate(ei.tasksets)]
    for path, t in train:
        if ctx.is_set(path + ("repeat_times",)) and t.repeat_times != d.repeat_times:
            ctx.add("RFTC484", f"a training taskset's repeat_times ({t.repeat_times}) is replaced by "
                    f"algorithm.repeat_times ({d.repeat_times})", path + ("repeat_times",),
                    hint="set algorithm.repeat_times")
    if d.functions["sample_strategy"] == "mix" and d.trains:
        args = a.sample_strategy_args or {}
        name = args.get("sft_dataset_name", "sft_dataset")
        if name not in cfg.buffer.trainer_input.auxiliary_buffers:
            ctx.add("RFTC485", f"sample_strategy mix reads expert data from "
                    f"buffer.trainer_input.auxiliary_buffers.{name}, which is not configured",
                    first_set(ctx, A + ("sample_strategy",), A + ("algorithm_type",), A))
    _policy_agg(ctx, cfg, d)


def _tasksets(cfg):
    ei = cfg.buffer.explorer_input
    out = [(EI + ("taskset",), ei.taskset)] if ei.taskset is not None else []
    out += [(EI + ("tasksets", i), t) for i, t in enumerate(ei.tasksets)]
    return out + [(EI + ("eval_tasksets", i), t) for i, t in enumerate(ei.eval_tasksets)]


def _unknown_name(ctx, code, kind, name, known, path):
    if name is None or name in known or registry.is_import_path(name):
        return
    ctx.add(code, f"unknown {kind} `{name}` (Trinity 0.6.0 checks it only at run time)", path,
            hint=suggest(name, known, f"{kind}s: " + ", ".join(known) if len(known) <= 12 else None))


def _names(ctx, cfg) -> None:
    ei = cfg.buffer.explorer_input
    for key in ("default_workflow_type", "default_eval_workflow_type"):
        _unknown_name(ctx, "RFTC470", "workflow", getattr(ei, key), registry.WORKFLOWS, EI + (key,))
    _unknown_name(ctx, "RFTC471", "reward function", ei.default_reward_fn_type, registry.REWARD_FNS,
                  EI + ("default_reward_fn_type",))
    for path, t in _tasksets(cfg):
        _unknown_name(ctx, "RFTC470", "workflow", t.default_workflow_type, registry.WORKFLOWS,
                      path + ("default_workflow_type",))
        _unknown_name(ctx, "RFTC471", "reward function", t.default_reward_fn_type, registry.REWARD_FNS,
                      path + ("default_reward_fn_type",))
        _unknown_name(ctx, "RFTC482", "storage type", t.storage_type, registry.STORAGE_TYPES, path + ("storage_type",))
    models = [(("explorer", "rollout_model"), cfg.explorer.rollout_model)] + [
        (("explorer", "auxiliary_models", i), m) for i, m in enumerate(cfg.explorer.auxiliary_models)]
    for path, m in models:
        if not m.engine_type.startswith(registry.ENGINE_TYPE_PREFIXES):
            ctx.add("RFTC472", f"Unsupported engine type `{m.engine_type}`: it must start with "
                    + ", ".join(registry.ENGINE_TYPE_PREFIXES) + " (Trinity checks it only when it creates the engine)", path + ("engine_type",),
                    hint=suggest(m.engine_type, registry.ENGINE_TYPE_PREFIXES))
    ti = cfg.buffer.trainer_input
    buffers = ([(("buffer", "trainer_input", "experience_buffer"), ti.experience_buffer)] if ti.experience_buffer else [])
    buffers += [(("buffer", "trainer_input", "auxiliary_buffers", k), v) for k, v in ti.auxiliary_buffers.items()]
    for path, b in buffers:
        _unknown_name(ctx, "RFTC482", "storage type", b.storage_type, registry.STORAGE_TYPES, path + ("storage_type",))
        _unknown_name(ctx, "RFTC482", "priority function", b.replay_buffer.priority_fn, registry.PRIORITY_FNS,
                      path + ("replay_buffer", "priority_fn"))
    _unknown_name(ctx, "RFTC482", "loss_agg_mode", cfg.algorithm.loss_agg_mode, registry.LOSS_AGG_MODES,
                  A + ("loss_agg_mode",))
    _unknown_name(ctx, "RFTC482", "trainer strategy", cfg.trainer.trainer_strategy, registry.TRAINER_STRATEGIES,
                  ("trainer", "trainer_strategy"))
    _unknown_name(ctx, "RFTC482", "lr scheduler", cfg.algorithm.optimizer.lr_scheduler_type, registry.LR_SCHEDULERS,
                  A + ("optimizer", "lr_scheduler_type"))
    ops = cfg.data_processor.experience_pipeline.operators
    for i, op in enumerate(ops):
        _unknown_name(ctx, "RFTC482", "experience operator", op.name, registry.EXPERIENCE_OPERATORS,
                      ("data_processor", "experience_pipeline", "operators", i, "name"))


# veRL's names for arguments Trinity's functions call differently
VERL_ARG_NAMES = {"clip_ratio": "clip_range", "clip_ratio_low": "clip_range_low", "clip_ratio_high": "clip_range_high",
                  "kl_loss_coef": "kl_coef", "kl_coeff": "kl_coef", "entropy_coeff": "entropy_coef"}


def _args(ctx, cfg, d) -> None:
    for field, table in registry.FUNCTION_FIELDS.items():
        args = getattr(cfg.algorithm, field + "_args")
        name = d.functions[field]
        unknown = [key for key in args or () if name in table and key not in table[name]]
        for key in unknown:
            known = table[name]
            takes = ", ".join(known) if known else "no arguments"
            ctx.add("RFTC473", f"`{field}_args.{key}` is not an argument of {field} `{name}` (it takes {takes}): "
                    "the constructor raises TypeError when the function is built", A + (field + "_args", key),
                    hint=(f"veRL's {key} is `{VERL_ARG_NAMES[key]}` here" if VERL_ARG_NAMES.get(key) in known
                          else suggest(key, known)))
        given = args if args is not None or d.algorithm is None else d.algorithm.default(f"{field}_args")
        refused = not unknown and registry.construction_error(field, name, registry.arguments(field, name, given))
        if refused:  # after the keyword arguments bind (an unknown one raises TypeError first)
            ctx.add("RFTC488", f"{field} `{name}` is built with {given if given is not None else 'default_args()'}: "
                    f"its constructor raises ({refused})", A + (field + "_args",) if args is not None else
                    first_set(ctx, A + (field,), A + ("algorithm_type",), A),
                    hint="set clip_range, or both clip_range_low and clip_range_high")


def _policy_agg(ctx, cfg, d) -> None:
    args = cfg.algorithm.policy_loss_fn_args or {}
    if "loss_agg_mode" in args and args["loss_agg_mode"] != d.loss_agg_mode:
        ctx.add("RFTC416", f"Trinity overwrites `policy_loss_fn_args.loss_agg_mode` ({args['loss_agg_mode']}) with "
                f"algorithm.loss_agg_mode ({d.loss_agg_mode})", A + ("policy_loss_fn_args", "loss_agg_mode"),
                hint="set algorithm.loss_agg_mode")


def _lr(ctx, cfg, d) -> None:
    if d.lr_horizon is not None:
        return
    o = cfg.algorithm.optimizer
    O = A + ("optimizer",)
    if o.lr_warmup_steps < 0 and o.lr_warmup_steps_ratio > 0:
        ctx.add("RFTC479", f"lr_warmup_steps_ratio {o.lr_warmup_steps_ratio} without trainer.total_steps: the warmup "
                "horizon is sys.maxsize steps, so the LR stays ~0 for the whole run", O + ("lr_warmup_steps_ratio",),
                hint="set trainer.total_steps (veRL total steps x sync_interval), or lr_warmup_steps")
    scheduler = o.warmup_style or o.lr_scheduler_type
    if scheduler == "cosine":
        ctx.add("RFTC479", "cosine LR schedule without trainer.total_steps: the horizon is sys.maxsize steps, so the "
                "LR never decays", first_set(ctx, O + ("warmup_style",), O + ("lr_scheduler_type",), O),
                hint="set trainer.total_steps")
