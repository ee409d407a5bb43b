"""The optimizer a veRL actor builds from its optim section, read the same way from a launch's config and from the
one Trinity's trainer builds: FSDP's build_optimizer (verl/workers/config/optimizer.py: ``optimizer_impl``.
``optimizer``, betas for the Adam family, override_optimizer_config over both; torch.optim.AdamW where a release
has no choice) and Megatron's (verl/utils/megatron/optimizer.py init_megatron_optim_config: Megatron's own Adam
betas and eps unless override_optimizer_config sets adam_beta1/adam_beta2/adam_eps; Muon's muon_* settings) and
the torchtitan engine's (verl/workers/engine/torchtitan/transformer_impl.py: optim.name with its eps and betas).
The override's other entries are arguments of the optimizer too, so they are part of its name."""

from __future__ import annotations

import math

ADAM_BETAS, ADAM_EPS = [0.9, 0.999], 1e-8  # torch.optim.AdamW's and Megatron's defaults
# the settings init_megatron_optim_config forwards to a Muon optimizer where set (_MUON_PASSTHROUGH_FIELDS less
# the distributed-optimizer layout)
MUON_ARGS = ("muon_momentum", "muon_nesterov", "muon_split_qkv", "muon_scale_mode", "muon_coefficient_type",
             "muon_num_ns_steps", "muon_tp_mode", "muon_fp32_matmul_prec", "muon_extra_scale_factor",
             "muon_scalar_optimizer")
# Megatron OptimizerConfig entries an override may set that place or store the optimizer's state rather than change
# its update (memory and offload; the precision-aware optimizer's state dtypes are the precision quantity's)
NOT_ARGS = ("optimizer_cpu_offload", "overlap_cpu_optimizer_d2h_h2d", "optimizer_offload_fraction",
            "use_precision_aware_optimizer")


def adam_family(name) -> bool:
    low = str(name).lower()
    return "adam" in low or "ademamix" in low


def optimizer(get, *, megatron: bool) -> tuple[str, list | None, float | None]:
    """(optimizer, betas, eps) of an optim section; ``get(name)`` reads its key (None where unset or absent)."""
    if get("name") is not None:  # the torchtitan engine's section: the optimizer by name, its eps and betas
        return f"torchtitan {get('name')}", [float(b) for b in get("betas") or ADAM_BETAS], float(get("eps"))
    override = dict(get("override_optimizer_config") or {})
    if megatron:
        name = get("optimizer") or "adam"
        if str(name).lower() == "muon":
            args = {k: get(k) for k in MUON_ARGS if get(k) is not None}
            if get("muon_match_adamw_update_rms"):  # the scale factor matching AdamW's update RMS, from beta1
                beta1 = float((get("betas") or ADAM_BETAS)[0])
                args["muon_extra_scale_factor"] = math.sqrt((1.0 - beta1) / (1.0 + beta1))
            return _named(f"megatron {name}", {**args, **override}), None, None
        if not adam_family(name):
            return _named(f"megatron {name}", override), None, None
        betas = [float(override.pop("adam_beta1", ADAM_BETAS[0])), float(override.pop("adam_beta2", ADAM_BETAS[1]))]
        eps = float(override.pop("adam_eps", ADAM_EPS))
        return _named(f"megatron {name}", override), betas, eps
    name = f"{get('optimizer_impl') or 'torch.optim'}.{get('optimizer')}" if get("optimizer") else \
        "torch.optim.AdamW"
    if not adam_family(name):
        return _named(name, override), None, None
    betas = override.pop("betas", get("betas") or ADAM_BETAS)
    eps = float(override.pop("eps", ADAM_EPS))
    return _named(name, override), [float(b) for b in betas], eps


def _named(name: str, args: dict) -> str:
    """The optimizer's name with the arguments it is built with besides lr, betas, eps and weight decay."""
    shown = sorted(k for k in args if k not in NOT_ARGS)
    return f"{name} ({', '.join(f'{k}={args[k]}' for k in shown)})" if shown else name


def critic_optimizer(get, *, megatron: bool, clip, sched: str, schedule: str) -> tuple:
    """(optimizer, clip, betas, eps, weight decay, schedule, warmup ratio, warmup steps, cosine floor and cycles,
    the schedule's other settings) of a critic's optim section; ``clip``: the value at the key its release clips
    at; ``sched``: its schedule; ``schedule``: its other settings (rftc.mapping.schedule.schedule_args). Megatron's
    cosine decays to min_lr (a ratio of lr here) in one half-cycle."""
    name, betas, eps = optimizer(get, megatron=megatron)
    warmup = get("lr_warmup_steps")
    lr, floor = get("lr"), get("min_lr")
    cosine = None if sched != "cosine" else (floor / lr if isinstance(floor, (int, float)) and lr else 0.0, 0.5) \
        if megatron else (get("min_lr_ratio") or 0.0, 0.5 if get("num_cycles") is None else get("num_cycles"))
    return (name, clip, betas, eps, 0.01 if get("weight_decay") is None else get("weight_decay"), sched,
            get("lr_warmup_steps_ratio") or 0.0, warmup if isinstance(warmup, int) and warmup > 0 else None, cosine,
            schedule)
