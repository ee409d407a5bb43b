"""How veRL's engines schedule the learning rate beyond the schedule's type, warmup, horizon, cosine floor and cycles
(the settings of an optim section each reads): the semantic model's lr_schedule_args and the critic's optimizer
(rftc.semantics.loss), the key classification's conditions (rftc.mapping.classes) and the conversion
(rftc.mapping.loss) read them here.

    verl_engine(get, sem, "actor")        # "fsdp engine", "fsdp legacy", "megatron", "torchtitan", "veomni"
    schedule_args(get, engine, sched, warmup)   # ("steps counted from 1", ["zero_indexed_step"])
"""

from __future__ import annotations

from rftc.mapping.models import MCORE, SCHEDULERS, engine_worker

A, C, O = "actor_rollout_ref.actor", "critic", "actor_rollout_ref.actor.optim"
NONE = "none"
MCORE_OPTIM = "verl.workers.config.McoreOptimizerConfig"  # Megatron's optim section (the engine SFT trainer's
# optim=megatron has no strategy key of its own)

# a role's optim section and the section whose strategy decides its engine
SECTIONS = {"actor": (O, A), "critic": (f"{C}.optim", C), "sft": ("optim", "engine")}


def verl_engine(get, sem, role: str) -> str:
    """The engine a release's ``role`` ("actor", "critic", "sft") schedules with: Megatron's (megatron, mindspeed),
    torchtitan's, veomni's, or an FSDP one: the engine workers' (verl/workers/engine/fsdp/transformer_impl.py
    _build_lr_scheduler, which reads zero_indexed_step; the engine SFT trainer's) or the legacy workers'
    (fsdp_workers.py, fsdp_sft_trainer.py, which do not)."""
    strategy = get(f"{SECTIONS[role][1]}.strategy")
    if strategy in MCORE or get(f"{SECTIONS[role][0]}._target_") == MCORE_OPTIM:
        return "megatron"
    if strategy in ("torchtitan", "veomni"):
        return strategy
    engine = get("model.partial_pretrain") is None if role == "sft" else engine_worker(get, sem, role)
    return "fsdp engine" if engine else "fsdp legacy"


def schedule_args(get, engine: str, sched: str, warmup: bool, *, decay: bool = False, total=None,
                  scale: int = 1) -> tuple[str, list]:
    """(the settings, the keys read) of an optim section (``get(name)``) that shape its schedule beyond its type,
    warmup, horizon, cosine floor and cycles: the FSDP engine's zero_indexed_step (its cosine schedule counts from
    1 where false: verl/utils/torch_functional.py get_cosine_schedule_with_warmup); Megatron's warmup start
    (lr_warmup_init, where it warms up), its wsd decay (lr_wsd_decay_style, lr_wsd_decay_steps) and, with
    ``decay`` (a critic, whose horizon is no quantity of its own), lr_decay_steps where it is not the run's
    ``total`` (verl/utils/megatron/optimizer.py get_megatron_optimizer_param_scheduler: start_wd = end_wd =
    weight_decay, so weight_decay_incr_style changes nothing); torchtitan's decay (decay_type, min_lr_factor:
    verl/workers/engine/torchtitan/transformer_impl.py) and veomni's (lr_start, lr_min, lr_decay_ratio:
    verl/workers/engine/veomni/transformer_impl.py). Step counts in optimizer steps: x ``scale``."""
    parts, keys = [], []
    if engine == "fsdp engine" and sched == "cosine" and get("zero_indexed_step") is False:
        parts.append("steps counted from 1")
        keys.append("zero_indexed_step")
    elif engine == "megatron":
        lr, init = get("lr"), get("lr_warmup_init")
        if warmup and init and isinstance(lr, (int, float)) and lr:
            parts.append(f"warmup from {init / lr:.6g} x lr")
            keys.append("lr_warmup_init")
        if sched == "wsd":
            steps = get("lr_wsd_decay_steps")
            parts.append(f"wsd decay {get('lr_wsd_decay_style')} over "
                         f"{steps * scale if isinstance(steps, int) else steps} steps")
            keys += ["lr_wsd_decay_style", "lr_wsd_decay_steps"]
        steps = get("lr_decay_steps")
        if decay and isinstance(steps, int) and steps not in (total, -1):
            parts.append(f"decay over {steps * scale} steps")
            keys.append("lr_decay_steps")
    elif engine == "torchtitan":
        parts.append(f"torchtitan decay {get('decay_type')} to {get('min_lr_factor')} x lr")
        keys += ["decay_type", "min_lr_factor"]
    elif engine == "veomni":
        parts.append(f"veomni from {get('lr_start')} to {get('lr_min')}, decay ratio {get('lr_decay_ratio')}")
        keys += ["lr_start", "lr_min", "lr_decay_ratio"]
    return "; ".join(parts) or NONE, keys


def warms_up(get) -> bool:
    """Whether an optim section (``get(name)``) warms up: lr_warmup_steps > 0, else a warmup ratio."""
    steps, ratio = get("lr_warmup_steps"), get("lr_warmup_steps_ratio")
    return (isinstance(steps, int) and steps > 0) or bool(ratio)


def schedule_name(get) -> str:
    """The schedule an optim section names (the first of SCHEDULERS set, lower case; constant where none is)."""
    key = next((k for k in SCHEDULERS if get(k) is not None), None)
    return str(get(key)).lower() if key else "constant"


