"""The semantic model of a Trinity-RFT 0.6.0 config, read from Trinity's expansion of it: what its validator fills
in (rftc.trinity.expand, derive) and the veRL worker config its trainer builds (rftc.trinity.workers,
trinity-0.6.md §3.2). ``view`` writes that expansion as flat keys, the validator's under their Trinity names and
the veRL config's under ``verl.``, as Trinity's own expansion reports them (tests/trinity_ref), so the model can be
computed from either; ``from_trinity`` computes it. A config with stages is never trained as written: ``stage_view`` is
the view of one stage as Trinity runs it."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from rftc.mapping.algorithm import NO_DUAL_CLIP, NORM_READERS
from rftc.mapping.data import WHOLE
from rftc.mapping.lora import megatron_lora
from rftc.mapping.models import MEGATRON_OFFLOAD, MEGATRON_PARALLEL, SCHEDULERS
from rftc.mapping.sampling import group_filter_operator
from rftc.mapping.schedule import schedule_args, warms_up
from rftc.plugins import ADVANTAGE_FN, FILTER_GROUPS, GPG_LOSS_FN, WORKFLOW
from rftc.semantics.buffer import buffer_view, explorer_pace, weight_version
from rftc.semantics.buffer import trinity_fields as buffer_fields
from rftc.semantics.distill import distill_view, trinity_distilled
from rftc.semantics.distill import trinity_fields as distill_fields
from rftc.semantics.data_trinity import trinity_data_fields, view_data
from rftc.semantics.minibatch import CriticSteps, trinity_order
from rftc.semantics.model import SftRun, TrainingRun, Value
from rftc.semantics.model_settings import trinity_fields, trinity_lora, trinity_view
from rftc.semantics.offpol import offpol_trinity, offpol_view
from rftc.semantics.optim import critic_optimizer, optimizer
from rftc.semantics.loss import trinity_fields as loss_fields, view as loss_view
from rftc.semantics.micro import trinity_fields as micro_fields, view as micro_view
from rftc.semantics.precision import precision_view, trinity_precision_fields
from rftc.semantics.reward import trinity_fields as reward_fields, view as reward_view
from rftc.semantics.seeds import seed_view, trinity_seed
from rftc.semantics.sft_trinity import from_trinity_sft, sft_view
from rftc.semantics.trinity_inputs import TASKSETS, inputs, per_taskset, view_inputs
from rftc.trinity import workers
from rftc.trinity.derive import derive
from rftc.trinity.document import Document
from rftc.trinity.expand import expand, stage_configs, stage_data, with_model_path
from rftc.trinity.schema import TrinityConfig

TS = "buffer.explorer_input.tasksets.0"
RM = "explorer.rollout_model"
FUNCTIONS = ("policy_loss_fn", "kl_loss_fn", "kl_penalty_fn", "entropy_loss_fn", "advantage_fn")
# the discounting advantages, their args
TRAINER_ADVANTAGES = {"ppo": ("gamma", "lam"), "reinforceplusplus": ("gamma",), "gigpo": ("gamma",)}
OPERATORS = "data_processor.experience_pipeline.operators"
# the actor optim keys the model reads, and the algorithm.optimizer field Trinity writes each from
OPTIM_KEYS = ("optimizer", "optimizer_impl", "betas", "clip_grad", "grad_clip", "min_lr_ratio", "min_lr", "num_cycles",
              "override_optimizer_config", "zero_indexed_step", "lr_warmup_init", "lr_decay_steps",
              "lr_wsd_decay_style", "lr_wsd_decay_steps")
CRITIC_OPTIM_KEYS = ("clip_grad", "grad_clip", "betas", "weight_decay", "lr_scheduler_type", "warmup_style",
                     "lr_decay_style", "lr_warmup_steps_ratio", "lr_warmup_steps", "min_lr", "zero_indexed_step",
                     "lr_warmup_init", "lr_decay_steps", "lr_wsd_decay_style", "lr_wsd_decay_steps")
OPTIM_FIELDS = {"optimizer": "optimizer_type", "betas": "betas", "clip_grad": "clip_grad",
                "min_lr_ratio": "min_lr_ratio", "min_lr": "min_lr_ratio"}
VERL_KEYS = {  # verl.* key of Trinity's veRL config -> the Trinity field it comes from (trinity-0.6.md §3.2)
    "verl.actor.ppo_mini_batch_size": "buffer.train_batch_size",
    "verl.actor.optim.lr": "algorithm.optimizer.lr",
    "verl.actor.optim.lr_warmup_steps": "algorithm.optimizer.lr_warmup_steps",
    "verl.actor.optim.lr_warmup_steps_ratio": "algorithm.optimizer.lr_warmup_steps_ratio",
    "verl.actor.optim.lr_scheduler_type": "algorithm.optimizer.lr_scheduler_type",
    "verl.actor.optim.weight_decay": "algorithm.optimizer.weight_decay",
    "verl.rollout.n": "algorithm.repeat_times",
}


def view(cfg: TrinityConfig, doc: Document | None = None) -> dict[str, Value]:
    """Trinity's expansion of ``cfg`` (the config as loaded; ``doc`` its file, for the lines values came from)."""
    x = expand(cfg)
    where = where_set(cfg, doc)
    out: dict[str, Value] = {}

    def put(key: str, value, source: str | None = None):
        out[key] = Value(value, source or where(key))

    for f in FUNCTIONS:
        put(f"algorithm.{f}", getattr(x.algorithm, f))
        put(f"algorithm.{f}_args", getattr(x.algorithm, f"{f}_args"))
    put("algorithm.loss_agg_mode", x.algorithm.loss_agg_mode)
    put("algorithm.bypass_old_logprobs", x.algorithm.bypass_old_logprobs)
    s = x.synchronizer
    for k in ("sync_style", "sync_offset", "trainer_sync_interval", "explorer_sync_interval"):
        put(f"synchronizer.{k}", getattr(s, k), where("synchronizer.sync_interval") if "interval" in k else None)
    put("buffer.batch_size", x.buffer.batch_size)
    gpus = derive(cfg).gpus  # Trinity's cluster validator: the explorer's rollout engines, the trainer the rest
    cluster = where("cluster.node_num") + ", " + where("cluster.gpu_per_node")
    put("cluster.rollout_gpu_num", gpus and gpus.rollout_gpu_num, where("explorer.rollout_model.engine_num"))
    put("cluster.trainer_gpu_num", gpus and gpus.trainer_gpu_num, cluster)
    put("buffer.total_epochs", x.buffer.total_epochs)
    put("buffer.total_steps", x.buffer.total_steps)
    put("model.max_prompt_tokens", x.model.max_prompt_tokens)
    put("model.max_response_tokens", x.model.max_response_tokens)
    put("model.max_model_len", x.model.max_model_len)
    put("model.enable_prompt_truncation", x.model.enable_prompt_truncation)
    put("mode", x.mode)
    ts = x.buffer.explorer_input.tasksets[0] if x.buffer.explorer_input.tasksets else None
    if ts is not None:
        for k in ("top_k", "top_p", "temperature"):
            model_key = f"model.{k}" if k != "top_k" else f"{TS}.rollout_args.top_k"
            put(f"{TS}.rollout_args.{k}", getattr(ts.rollout_args, k),
                where(f"{TS}.rollout_args.{k}") if _set(cfg, doc, f"{TS}.rollout_args.{k}") else where(model_key))
        put(f"{TS}.default_workflow_type", ts.default_workflow_type)
        put(f"{TS}.default_reward_fn_type", ts.default_reward_fn_type)
        put(f"{TS}.workflow_args", ts.workflow_args)
    for key, field in VERL_KEYS.items():
        put(key, _dotted(x, field), where(field))
    put("verl.rollout.temperature", ts.rollout_args.temperature if ts and ts.rollout_args.temperature is not None
        else 1.0, where(f"{TS}.rollout_args.temperature"))
    tc = "trainer.trainer_config.actor_rollout_ref.actor.ppo_epochs"
    put("verl.actor.ppo_epochs", workers.actor(x).ppo_epochs, where(tc))
    put("verl.actor.optim.total_training_steps", x.trainer.total_steps if x.trainer.total_steps else sys.maxsize,
        where("trainer.total_steps"))
    critic = workers.critic(x)
    put("verl.critic.optim.lr", critic.optimizer.lr, where("trainer.trainer_config.critic.optim.lr"))
    put("verl.critic.cliprange_value", critic.cliprange_value, where("trainer.trainer_config.critic.cliprange_value"))
    put("verl.critic.ppo_epochs", critic.ppo_epochs, where("trainer.trainer_config.critic.ppo_epochs"))
    put("algorithm.algorithm_type", x.algorithm.algorithm_type)
    view_inputs(x, put, where)
    trinity_view(x, put, where)
    reward_view(x, put, where)
    buffer_view(x, put, where)
    view_data(x, put, where)
    _optimizer_and_sampling_view(x, put, where)
    seed_view(x, put, where)
    offpol_view(x, put, where)
    precision_view(x, put, where)
    loss_view(x, put, where)
    distill_view(x, put, where)
    micro_view(x, put, where)
    if x.algorithm.algorithm_type == "sft":
        sft_view(x, put, where)
    for k in MEGATRON_PARALLEL:  # the parallel sizes Trinity gives a Megatron trainer's actor, reference and critic
        put(f"trainer.megatron.{k}", getattr(x.trainer.megatron, k))
    for k in MEGATRON_OFFLOAD.values():
        put(k, _dotted(x, k))
    return out


def _optimizer_and_sampling_view(x: TrinityConfig, put, where) -> None:
    """The actor's optim section and LoRA of Trinity's veRL config (flattened as its expansion reports them), the
    experience operators and the rollout engine's ignore_eos and seed."""
    optim = workers.actor_optim(x)
    src = "trainer.trainer_config.actor_rollout_ref.actor.optim"
    for k in OPTIM_KEYS:
        if k in optim:
            field = OPTIM_FIELDS.get(k)
            source = where(f"algorithm.optimizer.{field}") if field else where(f"{src}.{k}")
            value = optim[k]
            if isinstance(value, dict) and value:  # the expansion reports a section key by key
                for sub, v in value.items():
                    put(f"verl.actor.optim.{k}.{sub}", v, where(f"{src}.{k}.{sub}"))
            else:
                put(f"verl.actor.optim.{k}", value, source)
    critic, src = workers.critic_optim(x), "trainer.trainer_config.critic.optim"
    for k in CRITIC_OPTIM_KEYS:
        if k in critic:
            put(f"verl.critic.optim.{k}", critic[k], where(f"{src}.{k}"))
    lora = x.model.lora_configs[0] if x.model.lora_configs else None
    for k, default in (("lora_rank", 0), ("lora_alpha", 16), ("target_modules", "all-linear"),
                       ("exclude_modules", None)):
        put(f"verl.model.{k}", getattr(lora, k) if lora is not None else default, where("model.lora_configs"))
    tc = x.trainer.trainer_config or {}
    arr = tc.get("actor_rollout_ref")
    model = arr.get("model") if isinstance(arr, dict) and "model" in arr else tc.get("model")
    megatron_lora = (model or {}).get("lora") if isinstance(model, dict) else None
    for k, v in (megatron_lora.items() if isinstance(megatron_lora, dict) else ()):  # not frozen: merged
        put(f"verl.model.lora.{k}", v, where(f"trainer.trainer_config.actor_rollout_ref.model.lora.{k}"))
    put("trainer.trainer_strategy", x.trainer.trainer_strategy)
    put(OPERATORS, [{"name": op.name, "args": dict(op.args)} for op in x.data_processor.experience_pipeline.operators])
    rm = x.explorer.rollout_model
    for k in ("ignore_eos", "seed"):
        put(f"explorer.rollout_model.{k}", getattr(rm, k))
    for k in ("repetition_penalty", "min_response_tokens"):  # the validator's: the model's unless the engine's set
        own = getattr(rm, k)
        put(f"explorer.rollout_model.{k}", getattr(x.model, k) if own is None else own,
            where(f"explorer.rollout_model.{k}") if own is not None else where(f"model.{k}"))


def stage_index(cfg: TrinityConfig, stage: str) -> int | None:
    """The index of the stage named ``stage`` (else the 1-based position ``stage`` names); None for neither."""
    names = [s.stage_name for s in cfg.stages]
    if stage in names:
        return names.index(stage)
    return int(stage) - 1 if stage.isdigit() and 1 <= int(stage) <= len(names) else None


def stage_view(cfg: TrinityConfig, doc: Document | None, index: int) -> dict[str, Value]:
    """``view`` of stage ``index`` as Trinity runs it (rftc.trinity.expand.stage_configs): values come from the
    stage's keys where it sets the section. A stage after the first starts from the Hugging Face checkpoint the
    previous stage saves last (Trinity's launcher sets model.model_path to it): a path only the run knows."""
    name, x = stage_configs(cfg)[index]
    sub = stage_document(doc, index) if doc is not None else None
    if index == 0:
        return view(x, sub)
    before = cfg.stages[index - 1].stage_name or f"stage {index}"
    out = view(with_model_path(x, f"the last Hugging Face checkpoint of stage {before} (known when it has run)"),
               sub)
    if "model.model_path" in out:
        at = doc.locate(("stages", index)) if doc is not None else None
        out["model.model_path"] = Value(out["model.model_path"].value, f"{os.path.basename(at.file)}:{at.line} "
                                        f"stages.{index} (Trinity's stage order)" if at else "Trinity's stage order")
    return out


def stage_document(doc: Document, index: int) -> Document:
    """The file as stage ``index`` reads it: the global sections with the stage's own laid over them, each key at
    its line."""
    data, own = stage_data(doc.data, index)
    mine = {p[2:]: m for p, m in doc.marks.items() if p[:2] == ("stages", index) and p[2:3] and p[2] in own}
    kept = {p: m for p, m in doc.marks.items() if p and p[0] not in own and p[0] != "stages"}
    return Document(doc.file, doc.text, data, {**kept, **mine})


def _dotted(obj, path: str):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _set(cfg: TrinityConfig, doc: Document | None, key: str) -> bool:
    if doc is None:
        return False
    data = doc.data
    for part in key.split("."):
        if isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        elif isinstance(data, dict) and part in data:
            data = data[part]
        else:
            return False
    return True


def where_set(cfg: TrinityConfig, doc: Document | None):
    """key -> "file:line key" where the file sets the key (or "key (Trinity's default)")."""
    def where(key: str) -> str:
        if doc is not None and _set(cfg, doc, key):
            span = doc.locate(tuple(int(p) if p.isdigit() else p for p in key.split(".")))
            if span is not None:
                return f"{os.path.basename(span.file)}:{span.line} {key}"
        return f"{key} (Trinity's default)"
    return where


def from_trinity(v: Mapping[str, Value], *, dataset_rows: int | None = None, cwd: str | None = None
                 ) -> TrainingRun | SftRun:
    """The model of Trinity's expansion ``v`` (``view``'s keys): one trainer step is one optimizer step over
    buffer.train_batch_size experiences (Trinity sets actor.ppo_mini_batch_size to it and its workers do not
    multiply by n), ppo_epochs times; the scheduler steps once per trainer step. An SFT config's model is
    rftc.semantics.sft_trinity's (``dataset_rows``, ``cwd``: where its data's rows are read)."""
    if v.get("algorithm.algorithm_type") is not None and v["algorithm.algorithm_type"].value == "sft":
        return from_trinity_sft(v, dataset_rows=dataset_rows, cwd=cwd)
    def val(key, default=None):
        got = v.get(key)
        return default if got is None or got.value is None else got.value

    def of(value, *keys, formula=""):
        return Value(value, ", ".join(v[k].source for k in keys if k in v) if value is not None else "", formula)

    loss = val("algorithm.policy_loss_fn")
    args = val("algorithm.policy_loss_fn_args", {})
    la = "algorithm.policy_loss_fn_args"
    kl_loss, kl_reward = val("algorithm.kl_loss_fn"), val("algorithm.kl_penalty_fn")
    adv, adv_args = val("algorithm.advantage_fn"), val("algorithm.advantage_fn_args", {})
    entropy = val("algorithm.entropy_loss_fn")
    tsi, epochs = val("synchronizer.trainer_sync_interval"), val("verl.actor.ppo_epochs", 1)
    esi = val("synchronizer.explorer_sync_interval")
    warmup, ratio = val("verl.actor.optim.lr_warmup_steps"), val("verl.actor.optim.lr_warmup_steps_ratio", 0.0)
    warmup_set = isinstance(warmup, int) and warmup > 0
    sched_key = next((k for k in ("verl.actor.optim.lr_scheduler_type", "verl.actor.optim.lr_decay_style")
                      if val(k) is not None), "verl.actor.optim.lr_scheduler_type")
    sched = val(sched_key, "constant")
    megatron = str(val("trainer.trainer_strategy", "")).startswith("megatron")
    # Megatron's scheduler decays over lr_decay_steps (Trinity's: trainer.total_steps unless trainer_config sets it)
    horizon_key = next((k for k in ("verl.actor.optim.lr_decay_steps", "verl.actor.optim.total_training_steps")
                        [0 if megatron else 1:] if val(k) is not None), None)
    horizon = val(horizon_key) if horizon_key else None
    total = val("buffer.total_steps")
    fixed, (pace, pace_keys) = val("synchronizer.sync_style") == "fixed", explorer_pace(val)
    offset = val("synchronizer.sync_offset", 0)
    lag = (tsi + offset) * epochs - 1 if fixed else pace
    # the explorer on GPUs of its own (colocate shares the trainer's), running ahead of the trainer: the GPUs are
    # compared with those of a veRL rollout that runs beside its trainer (model.py: where both runs have them)
    beside = val("mode") == "both" and (offset > 0 or not fixed)
    clip = args.get("clip_range")
    low, high = args.get("clip_range_low"), args.get("clip_range_high")
    cap = f"{TS}.rollout_args.max_tokens" if f"{TS}.rollout_args.max_tokens" in v else "model.max_response_tokens"
    c = args.get("clip_ratio_c")
    return trinity_distilled(TrainingRun(
        responses_per_step=of(val("verl.actor.ppo_mini_batch_size"), "verl.actor.ppo_mini_batch_size",
                              formula="buffer.train_batch_size (experiences)"),
        steps_per_batch=of(tsi * epochs, "synchronizer.trainer_sync_interval", "verl.actor.ppo_epochs",
                           formula="trainer_sync_interval x ppo_epochs"),
        ppo_epochs=of(epochs, "verl.actor.ppo_epochs"),
        total_epochs=of(val("buffer.total_epochs"), "buffer.total_epochs"),
        total_steps=of(total * tsi // esi, "buffer.total_steps",
                       formula="explorer steps x trainer_sync_interval / explorer_sync_interval")
        if total else Value(None),
        lr=of(val("verl.actor.optim.lr"), "verl.actor.optim.lr"),
        lr_scheduler=of(sched, sched_key),
        warmup_steps=of(warmup, "verl.actor.optim.lr_warmup_steps") if warmup_set else Value(None),
        warmup_ratio=of(ratio, "verl.actor.optim.lr_warmup_steps_ratio"),
        lr_horizon=of("sys.maxsize" if horizon == sys.maxsize else horizon, horizon_key)
        if (ratio > 0 and not warmup_set) or sched != "constant" else Value(None),
        weight_decay=of(val("verl.actor.optim.weight_decay"), "verl.actor.optim.weight_decay"),
        kl_loss=of(kl_loss, "algorithm.kl_loss_fn"),
        kl_loss_coef=of(val("algorithm.kl_loss_fn_args", {}).get("kl_coef"), "algorithm.kl_loss_fn_args")
        if kl_loss != "none" else Value(None),
        kl_in_reward=of(kl_reward, "algorithm.kl_penalty_fn"),
        kl_in_reward_coef=of(val("algorithm.kl_penalty_fn_args", {}).get("kl_coef"), "algorithm.kl_penalty_fn_args")
        if kl_reward != "none" else Value(None),
        policy_loss=of(loss, "algorithm.policy_loss_fn"),
        clip_low=of(low if low is not None else clip, la) if loss not in ("sapo", GPG_LOSS_FN) else Value(None),
        clip_high=of(high if high is not None else clip, la) if loss not in ("sapo", GPG_LOSS_FN) else Value(None),
        clip_ratio_c=of(c if c < NO_DUAL_CLIP else "none", la) if loss == "ppo" else Value(None),
        sapo_tau=of((args.get("tau_pos"), args.get("tau_neg")), la) if loss == "sapo" else Value(None),
        entropy_coef=of(0.0 if entropy == "none" else val("algorithm.entropy_loss_fn_args", {}).get(
            "entropy_coef", 0.0), "algorithm.entropy_loss_fn", "algorithm.entropy_loss_fn_args"),
        loss_agg_mode=of(args.get("loss_agg_mode", val("algorithm.loss_agg_mode")), "algorithm.loss_agg_mode"),
        advantage=of(f"verl:{adv_args.get('estimator')}" if adv == ADVANTAGE_FN else adv, "algorithm.advantage_fn"),
        gamma=of(adv_args.get("gamma"), "algorithm.advantage_fn_args") if "gamma" in
        TRAINER_ADVANTAGES.get(adv, ()) else Value(None),
        lam=of(adv_args.get("lam"), "algorithm.advantage_fn_args") if "lam" in TRAINER_ADVANTAGES.get(adv, ())
        else Value(None),
        step_advantage_w=of(adv_args.get("omega"), "algorithm.advantage_fn_args") if adv == "gigpo"
        else Value(None),
        critic_lr=of(val("verl.critic.optim.lr"), "verl.critic.optim.lr") if adv == "ppo" else Value(None),
        value_clip=of(val("verl.critic.cliprange_value"), "verl.critic.cliprange_value") if adv == "ppo"
        else Value(None),
        trainer_seed=trinity_seed(v, val, critic=adv == "ppo"),
        **trinity_precision_fields(v, val, critic=adv == "ppo"),
        minibatch_order=of(trinity_order(tsi, epochs), "synchronizer.trainer_sync_interval", "verl.actor.ppo_epochs",
                           formula="one mini-batch (buffer.train_batch_size) a trainer step, ppo_epochs times"),
        critic_steps=_critic_steps(val, of, tsi) if adv == "ppo" else Value(None),
        n=of(val("verl.rollout.n"), "verl.rollout.n"),
        temperature=of(val("verl.rollout.temperature"), "verl.rollout.temperature"),
        top_p=of(val(f"{TS}.rollout_args.top_p", 1.0), f"{TS}.rollout_args.top_p"),
        top_k=of(val(f"{TS}.rollout_args.top_k", -1), f"{TS}.rollout_args.top_k"),
        max_prompt_length=of(val("model.max_prompt_tokens"), "model.max_prompt_tokens"),
        # the workflow's sampling cap: the taskset's, model.max_response_tokens where unset (Trinity's validator)
        max_response_length=of(val(cap), cap),
        # the rollout engine's (explorer.rollout_model's, the model's where unset); unset, Trinity's validator
        # fills the model's in (rftc.trinity.derive)
        context_length=of(val(f"{RM}.max_model_len"), f"{RM}.max_model_len",
                          formula="max_prompt_tokens + max_response_tokens"
                          if v.get(f"{RM}.max_model_len", Value(None)).source.endswith("(Trinity's default)")
                          else ""),
        overlong_prompts=of("left out" if val("model.enable_prompt_truncation") else "kept",
                            "model.enable_prompt_truncation"),
        prompt_truncation=Value(None) if val("model.enable_prompt_truncation")
        else of(WHOLE, "model.enable_prompt_truncation"),
        policy_lag=of(lag, "synchronizer.trainer_sync_interval", "synchronizer.sync_offset",
                      "synchronizer.sync_style", "verl.actor.ppo_epochs", *pace_keys,
                      formula="(trainer_sync_interval + sync_offset) x ppo_epochs - 1"),
        ahead=of(offset * val("buffer.batch_size") if fixed else pace, "synchronizer.sync_offset",
                 "buffer.batch_size", "synchronizer.sync_style", *pace_keys, formula="sync_offset x buffer.batch_size"),
        experiences_per_update=weight_version(val, of, tsi),
        rollout_gpus=of(val("cluster.rollout_gpu_num"), "cluster.rollout_gpu_num") if beside else Value(None),
        trainer_gpus=of(val("cluster.trainer_gpu_num"), "cluster.trainer_gpu_num") if beside else Value(None),
        logprob_source=of("rollout" if val("algorithm.bypass_old_logprobs", True) else "actor",
                          "algorithm.bypass_old_logprobs"),
        **_optimizer_fields(v, val, of, sched),
        critic_optimizer=_critic_optimizer(v, val, of) if adv == "ppo" else Value(None),
        **_loss_and_sampling_fields(val, of, adv, adv_args, kl_reward),
        reward=of(per_taskset(val(TASKSETS, []), _reward), f"{TS}.default_workflow_type", f"{TS}.workflow_args"),
        **inputs(v, val, of, reference=kl_reward != "none" or kl_loss != "none", critic=adv == "ppo"),
        **offpol_trinity(val, of),
        **trinity_fields(v, val, of, reference=kl_reward != "none" or kl_loss != "none", critic=adv == "ppo"),
        **reward_fields(val, of, val(TASKSETS, [])),
        **buffer_fields(val, of),
        **loss_fields(v, val, of, adv=adv, adv_args=adv_args, loss=loss, args=args, epochs=epochs, sched=sched),
        **distill_fields(v, val, of),
        **trinity_data_fields(val, of),
        **micro_fields(val, of, args=args, critic=adv == "ppo"),
    ), val, of)


def _optimizer_fields(v: Mapping[str, Value], val, of, sched: str) -> dict[str, Value]:
    """As rftc.semantics.verl's, from the actor's optim section Trinity's trainer builds (its engine workers clip at
    optim.clip_grad; the actor's grad_clip, from trainer.grad_clip, is read by no worker of verl 0.8) and the
    model's LoRA keys."""
    o = "verl.actor.optim"
    over = f"{o}.override_optimizer_config."
    override = {k[len(over):]: got.value for k, got in v.items() if k.startswith(over)}
    megatron = str(val("trainer.trainer_strategy", "")).startswith("megatron")
    name, betas, eps = optimizer(lambda k: override if k == "override_optimizer_config" else val(f"{o}.{k}"),
                                 megatron=megatron)
    overrides = [k for k in v if k.startswith(over)]
    keys = [f"{o}.optimizer", *([f"{o}.optimizer_impl"] if not megatron else []), *overrides]
    cosine, lr = sched == "cosine", val(f"{o}.lr")
    # veRL's optimizer config takes the deprecated grad_clip (trainer_config may set it) over clip_grad
    clip = f"{o}.grad_clip" if val(f"{o}.grad_clip") is not None else f"{o}.clip_grad"
    lora_keys = [f"verl.model.{k}" for k in ("lora_rank", "lora_alpha", "target_modules", "exclude_modules")]
    return dict(
        optimizer=of(name, *keys),
        betas=of(betas, f"{o}.betas", *overrides) if betas is not None else Value(None),
        eps=of(eps, *overrides, formula="the optimizer's default unless override_optimizer_config sets it")
        if override else Value(eps, "the optimizer's default"),
        clip_grad=of(val(clip), clip),
        min_lr_ratio=(of(val(f"{o}.min_lr") / lr, f"{o}.min_lr", formula="min_lr / lr") if megatron else
                      of(val(f"{o}.min_lr_ratio"), f"{o}.min_lr_ratio")) if cosine else Value(None),
        lr_cycles=of(val(f"{o}.num_cycles"), f"{o}.num_cycles") if cosine and not megatron else Value(None),
        lora=of(megatron_lora(lambda k: val(f"verl.model.lora.{k}")), "trainer.trainer_strategy",
                *(k for k in v if k.startswith("verl.model.lora.")),
                formula="Megatron-Bridge's LoRA from model.lora: verl's Megatron engine reads no lora_rank, so "
                "model.lora_configs trains every weight") if megatron else trinity_lora(lora_keys, val, of),
    )


def _critic_steps(val, of, tsi: int) -> Value:
    """Trinity's critic trains one mini-batch of buffer.train_batch_size experiences a trainer step (its
    ppo_mini_batch_size is frozen to it), trainer_config's critic ppo_epochs times (default 1, whatever the
    actor's)."""
    epochs = val("verl.critic.ppo_epochs", 1)
    return of(CriticSteps(val("verl.actor.ppo_mini_batch_size"), tsi * epochs, trinity_order(tsi, epochs)),
              "verl.actor.ppo_mini_batch_size", "synchronizer.trainer_sync_interval", "verl.critic.ppo_epochs",
              formula="buffer.train_batch_size; trainer_sync_interval x critic ppo_epochs")


def _critic_optimizer(v: Mapping[str, Value], val, of) -> Value:
    """As rftc.semantics.verl's, from the critic's optim section Trinity's trainer builds, read as veRL's optimizer
    config reads it (grad_clip over clip_grad, warmup_style over lr_scheduler_type)."""
    c = "verl.critic.optim"
    over = f"{c}.override_optimizer_config."
    override = {k[len(over):]: got.value for k, got in v.items() if k.startswith(over)}
    megatron = str(val("trainer.trainer_strategy", "")).startswith("megatron")
    clip = next(k for k in (f"{c}.grad_clip", f"{c}.clip_grad") if val(k) is not None or k.endswith("clip_grad"))
    sched = next((f"{c}.{k}" for k in SCHEDULERS if val(f"{c}.{k}") is not None), None)
    keys = [f"{c}.{k}" for k in ("optimizer", "betas", "weight_decay", "lr_warmup_steps_ratio", "lr_warmup_steps")]

    def get(k):
        return override if k == "override_optimizer_config" else val("verl.critic.optim.lr") if k == "lr" \
            else val(f"{c}.{k}")
    name = val(sched) if sched else "constant"
    schedule, schedule_keys = schedule_args(get, "megatron" if megatron else "fsdp engine", str(name).lower(),
                                            warms_up(get), decay=True,
                                            total=val("verl.actor.optim.total_training_steps"))
    return of(critic_optimizer(get, megatron=megatron, clip=val(clip), sched=name, schedule=schedule),
              clip, *keys, *(k for k in v if k.startswith(over)), *([sched] if sched else []),
              *(f"{c}.{k}" for k in schedule_keys))


def _loss_and_sampling_fields(val, of, adv, adv_args: dict, kl_reward) -> dict[str, Value]:
    """As rftc.semantics.verl's: Trinity's grpo advantage always divides by the std (of the group, or of the
    batch with std_cal_level batch); rftc's veRL advantage passes norm_adv_by_std_in_grpo to veRL's estimator."""
    kl_args = val("algorithm.kl_penalty_fn_args", {})
    filters = [op for op in val(OPERATORS, []) if group_filter_operator(op["name"])]
    t = val(f"{TS}.rollout_args.temperature", val("verl.rollout.temperature"))
    if adv == "grpo":
        norm = of(True if adv_args.get("std_cal_level", "group") == "group" else "batch std",
                  "algorithm.advantage_fn_args")
    elif adv == ADVANTAGE_FN and adv_args.get("estimator") in NORM_READERS:
        norm = of(adv_args.get("norm_adv_by_std_in_grpo", True), "algorithm.advantage_fn_args")
    elif adv == "gigpo":
        norm = of(adv_args.get("fnorm") == "std", "algorithm.advantage_fn_args")
    else:
        norm = Value(None)
    return dict(
        norm_adv_by_std=norm,
        kl_in_reward_ctrl=(of(("adaptive", kl_args.get("target_kl"), kl_args.get("horizon")),
                              "algorithm.kl_penalty_fn_args") if kl_args.get("adaptive")
                           else of("fixed", "algorithm.kl_penalty_fn_args")) if kl_reward != "none" else Value(None),
        dynamic_sampling=of("; ".join(f"groups whose {op['args'].get('metric')} varies" if op["name"] ==
                                      FILTER_GROUPS else f"{op['name']} {op['args']}" for op in filters) or "none",
                            OPERATORS),
        do_sample=of("greedy" if t == 0 else "sampled", f"{TS}.rollout_args.temperature"),
        ignore_eos=of(val("explorer.rollout_model.ignore_eos", False), "explorer.rollout_model.ignore_eos"),
        repetition_penalty=of(val("explorer.rollout_model.repetition_penalty", 1.0),
                              "explorer.rollout_model.repetition_penalty"),
        min_response_length=of(val("explorer.rollout_model.min_response_tokens", 0),
                               "explorer.rollout_model.min_response_tokens"),
        sampling_seed=of(val("explorer.rollout_model.seed"), "explorer.rollout_model.seed"),
    )


def _reward(t: dict) -> str:
    """A taskset's reward, in the vocabulary of rftc.semantics.verl._reward where the workflow is rftc's veRL reward
    workflow (which ignores the reward_fn). Trinity's task reader takes a row's workflow (and reward_fn) from the
    columns format.workflow_key and reward_fn_key name, where the row has a registered one, over the defaults."""
    workflow, wargs, reward_fn = (t.get("default_workflow_type"), t.get("workflow_args") or {},
                                  t.get("default_reward_fn_type"))
    fmt = t.get("format") or {}
    if workflow == WORKFLOW:
        crf = wargs.get("custom_reward_function") or {}
        fn = f"{crf['path']}:{crf.get('name') or 'compute_score'}" if crf.get("path") else "default_compute_score"
        manager = wargs.get("reward_manager") or "naive"
        text = fn if manager == "naive" else f"{fn} ({manager} manager)"
    else:
        text = f"workflow {workflow}" + (f", reward_fn {reward_fn}" if reward_fn else "")
        if fmt.get("reward_fn_key"):
            text += f" (a row's reward_fn from its column {fmt['reward_fn_key']})"
    if fmt.get("workflow_key"):
        text += f"; a row's workflow from its column {fmt['workflow_key']}"
    return text
