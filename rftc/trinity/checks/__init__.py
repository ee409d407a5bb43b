"""Checks over the IR, one module per group, run in Trinity's validator order (trinity-0.6.md §2), then the
traps Trinity lets through. Each module exposes ``check(ctx, cfg, derived)``.

A config with ``stages`` is validated the way Trinity runs it: each stage separately, its sections replacing
the global ones (the global config alone is never validated). Diagnostics point into the stage where the stage
sets the section, and name the stage.
"""

from __future__ import annotations

def run_all(ctx, cfg) -> None:
    if not cfg.stages:
        _run(ctx, cfg)
        return
    from dataclasses import replace

    from rftc.diagnostics.collector import Diagnostics
    from rftc.trinity.expand import stage_data
    from rftc.trinity.schema import TrinityConfig

    seen = {(d.code, d.message, d.span) for d in ctx.diags}
    for i, stage in enumerate(cfg.stages):
        data, own = stage_data(ctx.data, i)
        stage_cfg = TrinityConfig.model_validate(data)

        def locate(path, i=i, own=own):
            return ctx.locate(("stages", i) + tuple(path) if path and path[0] in own else path)

        sub = replace(ctx, data=data, locate=locate, diags=Diagnostics())
        _run(sub, stage_cfg)
        for d in sub.diags:
            if (d.code, d.message, d.span) not in seen:
                seen.add((d.code, d.message, d.span))
                ctx.diags.append(replace(d, notes=d.notes + (f"in stage {i} ({stage.stage_name})",)))


def _run(ctx, cfg) -> None:
    from rftc.trinity.checks import (algorithm, buffer, cluster_gpu, data_processor, explorer, model_len, paths,
                                     sync, trainer, trainer_config, traps)
    from rftc.trinity.derive import derive

    d = derive(cfg, nodes=ctx.options.nodes, gpus_per_node=ctx.options.gpus_per_node)
    for module in (algorithm, model_len, cluster_gpu, sync, explorer, buffer, data_processor, trainer, trainer_config,
                   traps, paths):
        module.check(ctx, cfg, d)
