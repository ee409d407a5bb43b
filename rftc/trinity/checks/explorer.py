"""Explorer rules (ExplorerConfigValidator): parallel sizes, auxiliary models, over-rollout, concurrency."""

from __future__ import annotations

from rftc.trinity import registry
from rftc.trinity.checks._util import first_set, suggest

E = ("explorer",)


def check(ctx, cfg, d) -> None:
    ex = cfg.explorer
    rm = ex.rollout_model
    models = [("rollout_model", E + ("rollout_model",), rm)]
    models += [("auxiliary_model", E + ("auxiliary_models", i), m) for i, m in enumerate(ex.auxiliary_models)]
    for label, path, m in models:
        if label == "auxiliary_model" and not m.model_path:
            ctx.add("RFTC437", "auxiliary model's model_path is required.", path)
        for key in ("tensor_parallel_size", "data_parallel_size", "pipeline_parallel_size"):
            v = getattr(m, key)
            if v < 1:
                ctx.add("RFTC436", f"`{label}.{key}` must be >= 1, but got {v}.", path + (key,))
    o = ex.over_rollout
    if o.ratio > 0 or o.return_partial_tasks:
        where = first_set(ctx, E + ("over_rollout", "ratio"), E + ("over_rollout",))
        if not 0.0 <= o.ratio < 1.0:
            ctx.add("RFTC442", "over_rollout_ratio should be in [0.0, 1.0)", where)
        if cfg.synchronizer.sync_style == "fixed":
            ctx.add("RFTC443", "over_rollout is not compatible with fixed sync_style, please set "
                    "`synchronizer.sync_style` to `explorer_driven` or `trainer_driven`.", where)
    if ex.concurrent_mode not in registry.CONCURRENT_MODES:
        ctx.add("RFTC444", f"Invalid explorer.concurrent_mode: {ex.concurrent_mode}", E + ("concurrent_mode",),
                hint=suggest(ex.concurrent_mode, registry.CONCURRENT_MODES, "one of " + ", ".join(registry.CONCURRENT_MODES)))
