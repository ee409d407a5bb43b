"""The optimizer a veRL actor builds from its optim section, read the same way from a launch's config and from the
one Trinity's trainer builds: FSDP's build_optimizer (verl/workers/config/optimizer.py: ``optimizer_impl``.
``optimizer``, betas for the Adam family, override_optimizer_config over both; torch.optim.AdamW where a release
has no choice) and Megatron's (verl/utils/megatron/optimizer.py init_megatron_optim_config: Megatron's own Adam
betas and eps unless override_optimizer_config sets adam_beta1/adam_beta2/adam_eps)."""

from __future__ import annotations

ADAM_BETAS, ADAM_EPS = [0.9, 0.999], 1e-8  # torch.optim.AdamW's and Megatron's defaults


def adam_family(name) -> bool:
    low = str(name).lower()
    return "adam" in low or "ademamix" in low


def optimizer(get, *, megatron: bool) -> tuple[str, list | None, float | None]:
    """(optimizer, betas, eps) of an optim section; ``get(name)`` reads its key (None where unset or absent)."""
    override = get("override_optimizer_config") or {}
    if megatron:
        name = get("optimizer") or "adam"
        if not adam_family(name):
            return f"megatron {name}", None, None
        return (f"megatron {name}", [float(override.get("adam_beta1", ADAM_BETAS[0])),
                                     float(override.get("adam_beta2", ADAM_BETAS[1]))],
                float(override.get("adam_eps", ADAM_EPS)))
    name = f"{get('optimizer_impl') or 'torch.optim'}.{get('optimizer')}" if get("optimizer") else \
        "torch.optim.AdamW"
    if not adam_family(name):
        return name, None, None
    betas = override.get("betas", get("betas") or ADAM_BETAS)
    return name, [float(b) for b in betas], float(override.get("eps", ADAM_EPS))
