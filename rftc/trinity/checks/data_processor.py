"""Data processor rules (BufferConfigValidator's data-processor step): a task pipeline's output."""

from __future__ import annotations

import os

from rftc.trinity import registry

TP = ("data_processor", "task_pipeline")


def check(ctx, cfg, d) -> None:
    tp = cfg.data_processor.task_pipeline
    if tp is None:
        return
    offline = d.algorithm is not None and d.algorithm.name in registry.OFFLINE_ALGORITHMS
    if tp.output is None:
        # default: the first training taskset; in train mode with sft/dpo the experience buffer; else nothing
        if cfg.mode == "train" and not offline:
            ctx.add("RFTC457", "`data_processor.task_pipeline.output` is missing.", TP,
                    hint="set data_processor.task_pipeline.output (a taskset with name and path)")
        return
    path = tp.output.path
    if path and ctx.options.path_checks and TP + ("output", "path") not in ctx.unresolved:
        base = ctx.options.base_dir or os.getcwd()
        if os.path.exists(os.path.join(base, os.path.expanduser(path))):
            ctx.add("RFTC457", f"Task pipeline output path {path} already exists.", TP + ("output", "path"),
                    hint="write the processed tasks to a new path")
