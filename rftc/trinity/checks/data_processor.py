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
    if tp.output is not None:
        _check_new_path(ctx, tp.output.path, TP + ("output", "path"))
        return
    # default output: in train mode with sft/dpo the experience buffer, in train mode otherwise nothing
    # (an error), else the first training taskset, whose path must not exist yet either
    if cfg.mode == "train":
        if not offline:
            ctx.add("RFTC457", "`data_processor.task_pipeline.output` is missing.", TP,
                    hint="set data_processor.task_pipeline.output (a taskset with name and path)")
        return
    inputs = cfg.buffer.explorer_input
    if inputs.taskset is not None:
        _check_new_path(ctx, inputs.taskset.path, ("buffer", "explorer_input", "taskset", "path"))
    elif inputs.tasksets:
        _check_new_path(ctx, inputs.tasksets[0].path, ("buffer", "explorer_input", "tasksets", 0, "path"))


def _check_new_path(ctx, path, key) -> None:
    if path and ctx.options.path_checks and key not in ctx.unresolved:
        base = ctx.options.base_dir or os.getcwd()
        if os.path.exists(os.path.join(base, os.path.expanduser(path))):
            ctx.add("RFTC457", f"Task pipeline output path {path} already exists.", key,
                    hint="write the processed tasks to a new path (data_processor.task_pipeline.output)")
