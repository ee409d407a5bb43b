"""Batch sizes: veRL counts prompts per train batch and, from verl 0.2 on, per mini-batch (verl 0.1 counted
responses per mini-batch: rftc.verl.semantics "actor_mini_unit"); Trinity counts tasks per explorer step
(buffer.batch_size) and experiences per trainer step (buffer.train_batch_size)."""

from __future__ import annotations

from dataclasses import dataclass

from rftc.mapping.draft import Draft
from rftc.verl.trainers import is_dapo

B, MINI, N = "data.train_batch_size", "actor_rollout_ref.actor.ppo_mini_batch_size", "actor_rollout_ref.rollout.n"
GEN, FILTER = "data.gen_batch_size", "algorithm.filter_groups.enable"


@dataclass(frozen=True)
class Batch:
    train_batch: int  # veRL data.train_batch_size (prompts per veRL step)
    mini: int  # prompts per optimizer step (Trinity tasks per step)
    n: int  # rollout.n
    sync_interval: int  # mini-batches (Trinity steps) per veRL step
    loader_batch: int | None = None  # prompts a dataloader batch, when not train_batch (DAPO's gen_batch_size)

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


def unit_fact(d: Draft) -> str:
    return "megatron_actor_mini_unit" if d.val("actor_rollout_ref.actor.strategy") == "megatron" else \
        "actor_mini_unit"


def responses_per_step(mini: int, n: int, unit: str) -> int:
    """The responses one optimizer step takes: ppo_mini_batch_size prompts x n, or responses as they are."""
    return mini * n if unit == "prompts" else mini


def prompts_key(d: Draft) -> str:
    """The key counting the prompts one veRL step trains on: data.train_batch_size, except under the DAPO recipe's
    trainer without dynamic sampling, which trains on each dataloader batch of data.gen_batch_size prompts
    (rftc.mapping.sampling)."""
    if is_dapo(d.cfg.invocation) and d.cfg.has(GEN) and d.val(GEN) != d.val(B) and d.flag(FILTER) is False:
        return GEN
    return B


def map_batch(d: Draft) -> Batch | None:
    """m = the prompts one optimizer step takes (ppo_mini_batch_size, or ppo_mini_batch_size / n where the release
    counts it in responses: verl 0.1, and the Megatron worker before 0.3.0.post0); buffer.batch_size = m;
    algorithm.repeat_times = rollout.n (n);
    buffer.train_batch_size = m x n; synchronizer.sync_interval = data.train_batch_size / m (must divide).

    One Trinity explorer step explores m tasks and one trainer step trains on their m x n experiences, which
    is one veRL optimizer step; syncing weights every B/m steps reproduces veRL's one rollout per B prompts.
    A mini-batch larger than the batch, where the release accepts one (before its startup check, or with
    dynamic batch sizes), holds the whole batch (RFTC325).
    """
    bk = prompts_key(d)
    tb = d.number(bk, positive=True)
    mini = d.number(MINI, positive=True)
    n = d.number(N, positive=True)
    if tb is None or mini is None or n is None:
        return None
    fact = unit_fact(d)
    unit = d.sem.value(fact)
    rel = d.sem.release
    counted = f"verl {rel} counts ppo_mini_batch_size in {unit}"
    responses, total = responses_per_step(mini, n, unit), tb * n
    if responses > total and not (d.sem.value("check_mini_within_batch")
                                  and d.flag("actor_rollout_ref.actor.use_dynamic_bsz") is False):
        d.report("RFTC325", f"{MINI}={mini} ({mini * n if unit == 'prompts' else mini} responses) exceeds the "
                 f"train batch ({bk}={tb} x {N}={n} = {total} responses): verl {rel} trains each batch as one "
                 f"mini-batch, so Trinity takes {total} experiences per trainer step", MINI, settles=False,
                 notes=("veRL divides each micro-batch's loss by the configured mini-batch's gradient accumulation "
                        f"steps, so its gradient is {total}/{responses} of Trinity's; Adam's update hardly depends "
                        "on that scale, gradient clipping does",),
                 extra_keys=(bk,))
        responses = total
    if total % responses or responses % n:
        _not_divisible(d, bk, tb, mini, n, unit, responses, total)
        return None
    m = responses // n
    si = total // responses
    _doubt(d, fact, tb, mini, n, m)
    note = "" if unit == "prompts" and responses == mini * n else \
        (f"{responses} responses / n={n} ({counted})" if unit == "responses" else f"the whole batch: {tb}")
    d.set("algorithm.repeat_times", n, N, note="" if d.user(N) else "veRL default")
    d.set("buffer.batch_size", m, MINI, note=note)
    d.set("buffer.train_batch_size", responses, MINI, N, note=f"{m}*{n}")
    d.set("synchronizer.sync_interval", si, bk, MINI, note=f"{tb}/{m}")
    return Batch(tb, m, n, si)


def _not_divisible(d: Draft, bk: str, tb: int, mini: int, n: int, unit: str, responses: int,
                   total: int) -> None:
    if unit == "prompts" or total % responses:
        what = "" if unit == "prompts" else \
            f" (verl {d.sem.release} counts it in responses: {bk} x {N} = {total} responses)"
        base, step = (tb, mini) if unit == "prompts" else (total, responses)
        batches, minis = nearest_divisible(base, step)
        choices = ([f"{bk}={b}" for b in batches] if unit == "prompts" else []) + [f"{MINI}={x}" for x in minis]
        d.report("RFTC302", f"{bk} ({tb}) is not a multiple of {MINI} ({mini}){what}: {base}/{step} = "
                 f"{base / step:.4g} mini-batches per step", bk, hint="nearest valid choices: " + ", ".join(choices),
                 extra_keys=(MINI,))
        return
    near = sorted({x for x in (mini - mini % n, mini - mini % n + n) if x >= n and total % x == 0})
    doubt = d.sem.doubt(unit_fact(d))
    other = () if doubt is None else (f"{doubt.describe()}; counted in {doubt.other}, as there, {MINI}={mini} "
                                      f"takes {responses_per_step(mini, n, doubt.other)} responses per step "
                                      f"(--verl-version {doubt.change.since} reads it so)",)
    d.report("RFTC302", f"{MINI} ({mini}) is not a multiple of {N} ({n}): verl {d.sem.release} counts it in "
             f"responses, and a mini-batch of {mini} would split a prompt's {n} responses, which Trinity explores "
             "as one task", MINI, hint=" or ".join(f"{MINI}={x}" for x in near) + f" (multiples of {n})" if near
             else f"a multiple of {n} that divides {total}", notes=other, extra_keys=(N,))


def _doubt(d: Draft, fact: str, tb: int, mini: int, n: int, m: int) -> None:
    """RFTC326 when the config's release is a development snapshot that may count ppo_mini_batch_size the
    other way, and that would convert to another mini-batch."""
    doubt = d.sem.doubt(fact)
    if doubt is None:
        return
    other = responses_per_step(mini, n, doubt.other)
    other = min(other, tb * n)
    if other == m * n:
        return
    d.report("RFTC326", f"{MINI}={mini}: {doubt.describe()}; rftc follows verl {d.sem.release}, where it counts "
             f"{doubt.value} (Trinity trains {m * n} experiences per step); counted in {doubt.other} it would be "
             f"{other}", MINI, settles=False,
             hint=f"read the worker code the message names in the checkout; --verl-version {doubt.change.since} "
             f"converts with verl {doubt.change.since}'s config and behaviour instead")
