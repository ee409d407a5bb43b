"""Trinity-RFT 0.6.0's IntervalConfigValidator rule, shared by ``rftc check`` (rftc.trinity.derive) and
``rftc run``'s settings: pure arithmetic, no imports."""

from __future__ import annotations


def eval_interval(interval: int, explorer_sync_interval: int, mode: str, algorithm: str | None) -> int:
    """explorer.eval_interval as Trinity leaves it: evaluation happens at the explorer's sync points, so outside
    mode bench and the offline algorithms (dpo, sft) it is rounded down to a multiple of the explorer's sync
    interval (at least one)."""
    if mode == "bench" or algorithm in ("dpo", "sft") or explorer_sync_interval <= 0 \
            or interval % explorer_sync_interval == 0:
        return interval
    return max(interval // explorer_sync_interval, 1) * explorer_sync_interval
