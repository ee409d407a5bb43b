"""Synchronizer and interval rules (SynchronizerConfigValidator, IntervalValidator)."""

from __future__ import annotations

from rftc.trinity import registry
from rftc.trinity.checks._util import first_set

S = ("synchronizer",)


def check(ctx, cfg, d) -> None:
    s = cfg.synchronizer
    offline = d.algorithm is not None and d.algorithm.name in registry.OFFLINE_ALGORITHMS
    if ctx.is_set(S + ("sync_method",)) and s.sync_method == "nccl" and not offline and d.sync_method != "nccl":
        why = (f"mode {cfg.mode}" if cfg.mode != "both" else "LoRA adapters are configured")
        ctx.add("RFTC416", f"Trinity replaces `sync_method: nccl` with {d.sync_method} ({why})",
                S + ("sync_method",), hint=f"write `sync_method: {d.sync_method}`")
    if not offline and s.sync_interval <= 0:
        ctx.add("RFTC440", "`sync_interval` must be positive.", S + ("sync_interval",))
    if d.eval_interval != cfg.explorer.eval_interval:
        ctx.add("RFTC441", f"Trinity rounds `explorer.eval_interval` {cfg.explorer.eval_interval} down to "
                f"{d.eval_interval}, a multiple of the explorer sync interval {d.explorer_sync_interval}",
                first_set(ctx, ("explorer", "eval_interval"), S + ("sync_interval",)),
                hint=f"write `eval_interval: {d.eval_interval}`")
