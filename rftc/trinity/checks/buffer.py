"""Buffer rules (BufferConfigValidator): train_batch_size, tasksets, selectors, trainer input."""

from __future__ import annotations

from rftc.trinity import registry
from rftc.trinity.checks._util import first_set, lookup

B = ("buffer",)
EI = B + ("explorer_input",)
TI = B + ("trainer_input",)


def check(ctx, cfg, d) -> None:
    if d.train_batch_size is None:
        ctx.add("RFTC450", "`buffer.train_batch_size` is required when `mode` is 'train' or "
                "`algorithm.algorithm_type` is 'sft' or 'dpo'", first_set(ctx, B + ("train_batch_size",), B, ("mode",)),
                hint="experiences per trainer step (batch_size x repeat_times for online algorithms)")
    if cfg.mode not in ("train", "serve"):
        _explorer_input(ctx, cfg, d)
    if cfg.mode != "bench":
        _trainer_input(ctx, cfg)


def _explorer_input(ctx, cfg, d) -> None:
    ei = cfg.buffer.explorer_input
    if ei.taskset is not None and ei.tasksets:
        ctx.add("RFTC451", "Do not support setting `taskset` and `tasksets` simultaneously!", EI + ("tasksets",))
    elif ei.taskset is None and not ei.tasksets and cfg.mode != "bench":
        ctx.add("RFTC452", "At least one taskset should be provided in explorer_input!",
                first_set(ctx, EI, B, ("mode",)))
    if cfg.synchronizer.sync_style == "fully_async" and ei.eval_tasksets:
        ctx.add("RFTC456", "Eval tasksets are not supported in fully asynchronous synchronization style.",
                EI + ("eval_tasksets",))
    train = [(EI + ("taskset",), ei.taskset)] if ei.taskset is not None else []
    train += [(EI + ("tasksets", i), t) for i, t in enumerate(ei.tasksets)]
    evals = [(EI + ("eval_tasksets", i), t) for i, t in enumerate(ei.eval_tasksets)]
    for kind, items in (("Train", train), ("Eval", evals)):
        for path, t in items:
            if not t.path:
                ctx.add("RFTC453", f"{kind} taskset [{t.name}]'s path is not configured.", path)
            index = path[-1] if isinstance(path[-1], int) else 0
            _selector(ctx, t, path, t.name or ("taskset" if kind == "Train" else "eval_taskset") + f"_{index}")


def _selector(ctx, t, path, name) -> None:
    for field in ("data_selector", "task_selector"):
        sel = getattr(t, field, None)
        if sel is None:
            continue
        lookup(ctx, "RFTC454", sel.selector_type, registry.SELECTORS,
               first_set(ctx, path + (field, "selector_type"), path), "selectors: " + ", ".join(registry.SELECTORS),
               notes=[f"data selector of {name}"])


def _trainer_input(ctx, cfg) -> None:
    ti = cfg.buffer.trainer_input
    eb = ti.experience_buffer
    if eb is not None:
        if eb.storage_type == "file" and cfg.mode in ("both", "colocate"):
            ctx.add("RFTC416", f"Trinity replaces the experience buffer's `storage_type: file` with queue in mode "
                    f"{cfg.mode}", TI + ("experience_buffer", "storage_type"))
        _selector(ctx, eb, TI + ("experience_buffer",), eb.name or "experience_buffer")
    for name, aux in ti.auxiliary_buffers.items():
        path = TI + ("auxiliary_buffers", name)
        if not aux.path:
            ctx.add("RFTC455", f"`buffer.trainer_input.auxiliary_buffers[{name}].path` is required", path)
        _selector(ctx, aux, path, aux.name or name)
