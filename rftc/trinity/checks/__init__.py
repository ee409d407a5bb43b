"""Checks over the IR, one module per group, run in Trinity's validator order (trinity-0.6.md §2), then the
traps Trinity lets through. Each module exposes ``check(ctx, cfg, derived)``."""

from __future__ import annotations


def run_all(ctx, cfg) -> None:
    from rftc.trinity.checks import (algorithm, buffer, cluster_gpu, explorer, model_len, paths, sync, trainer,
                                     trainer_config, traps)
    from rftc.trinity.derive import derive

    d = derive(cfg, nodes=ctx.options.nodes, gpus_per_node=ctx.options.gpus_per_node)
    for module in (algorithm, model_len, cluster_gpu, sync, explorer, buffer, trainer, trainer_config, traps,
                   paths):
        module.check(ctx, cfg, d)
