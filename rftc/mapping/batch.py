"""Batch sizes: veRL counts prompts per train batch and per mini-batch; Trinity counts tasks per explorer step
(buffer.batch_size) and experiences per trainer step (buffer.train_batch_size)."""

from __future__ import annotations

from dataclasses import dataclass

from rftc.mapping.draft import Draft

B, MINI, N = "data.train_batch_size", "actor_rollout_ref.actor.ppo_mini_batch_size", "actor_rollout_ref.rollout.n"


@dataclass(frozen=True)
class Batch:
    train_batch: int  # veRL data.train_batch_size (prompts per veRL step)
    mini: int  # veRL ppo_mini_batch_size (prompts per optimizer step)
    n: int  # rollout.n
    sync_interval: int  # mini-batches (Trinity steps) per veRL step

    @property
    def experiences(self) -> int:
        return self.mini * self.n


def sync_interval(train_batch: int, mini: int) -> int | None:
    """``synchronizer.sync_interval = data.train_batch_size / ppo_mini_batch_size``; None if not a whole number."""
    return train_batch // mini if train_batch % mini == 0 else None


def nearest_divisible(train_batch: int, mini: int) -> tuple[list[int], list[int]]:
    """The nearest valid choices when ``train_batch % mini != 0``: train batch sizes (multiples of mini, one
    below and one above) and mini-batch sizes (the divisors of train_batch closest to mini)."""
    below = (train_batch // mini) * mini
    batches = [b for b in (below, below + mini) if b > 0]
    divisors = [x for x in range(1, train_batch + 1) if train_batch % x == 0]
    lower = [x for x in divisors if x < mini]
    upper = [x for x in divisors if x > mini]
    minis = ([lower[-1]] if lower else []) + ([upper[0]] if upper else [])
    return batches, minis


def map_batch(d: Draft) -> Batch | None:
    """buffer.batch_size = ppo_mini_batch_size (m); algorithm.repeat_times = rollout.n (n);
    buffer.train_batch_size = m x n; synchronizer.sync_interval = data.train_batch_size / m (must divide).

    One Trinity explorer step explores m tasks and one trainer step trains on their m x n experiences, which
    is one veRL optimizer step; syncing weights every B/m steps reproduces veRL's one rollout per B prompts.
    """
    tb = d.number(B, positive=True)
    mini = d.number(MINI, positive=True)
    n = d.number(N, positive=True)
    if tb is None or mini is None or n is None:
        return None
    si = sync_interval(tb, mini)
    if si is None:
        batches, minis = nearest_divisible(tb, mini)
        choices = [f"{B}={b}" for b in batches] + [f"{MINI}={m}" for m in minis]
        d.report("RFTC302", f"{B} ({tb}) is not a multiple of {MINI} ({mini}): {tb}/{mini} = {tb / mini:.4g} "
                 "mini-batches per step", B, hint="nearest valid choices: " + ", ".join(choices),
                 extra_keys=(MINI,))
        return None
    d.set("algorithm.repeat_times", n, N, note="" if d.user(N) else "veRL default")
    d.set("buffer.batch_size", mini, MINI)
    d.set("buffer.train_batch_size", mini * n, MINI, N, note=f"{mini}*{n}")
    d.set("synchronizer.sync_interval", si, B, MINI, note=f"{tb}/{mini}")
    return Batch(tb, mini, n, si)
