"""Batch sizes: veRL counts prompts per train batch and, from verl 0.2 on, per mini-batch (verl 0.1 counted
responses per mini-batch: rftc.verl.releases.semantics "actor_mini_unit"); Trinity counts tasks per explorer step
(buffer.batch_size) and experiences per trainer step (buffer.train_batch_size)."""

from __future__ import annotations

from dataclasses import dataclass
from math import isqrt, lcm

from rftc.mapping.draft import Draft
from rftc.trinity.registry import ALGORITHMS
from rftc.verl.checkout.trainer_code import validation_code
from rftc.verl.trainers import is_dapo

B, MINI, N = "data.train_batch_size", "actor_rollout_ref.actor.ppo_mini_batch_size", "actor_rollout_ref.rollout.n"
GEN, FILTER = "data.gen_batch_size", "algorithm.filter_groups.enable"


@dataclass(frozen=True)
class Batch:
    train_batch: int  # veRL data.train_batch_size (prompts per veRL step)
    experiences: int  # buffer.train_batch_size: responses per optimizer step (Trinity trainer step)
    sync_interval: int  # trainer steps per veRL step
    explorer_sync_interval: int  # explorer steps per veRL step (= sync_interval unless a mini-batch splits groups)
    loader_batch: int | None = None  # prompts a dataloader batch, when not train_batch (DAPO's gen_batch_size)


def sync_interval(train_batch: int, mini: int) -> int | None:
    """``synchronizer.sync_interval = data.train_batch_size / ppo_mini_batch_size``; None if not a whole number."""
    return train_batch // mini if train_batch % mini == 0 else None


def nearest_divisible(train_batch: int, mini: int) -> tuple[list[int], list[int]]:
    """The nearest valid choices when ``train_batch % mini != 0``: train batch sizes (multiples of mini, one
    below and one above) and mini-batch sizes (the divisors of train_batch closest to mini)."""
    below = (train_batch // mini) * mini
    batches = [b for b in (below, below + mini) if b > 0]
    found = divisors(train_batch)
    lower = [x for x in found if x < mini]
    upper = [x for x in found if x > mini]
    minis = ([lower[-1]] if lower else []) + ([upper[0]] if upper else [])
    return batches, minis


TRIAL_DIVISORS = 10**5  # every divisor of a batch up to 10**10 is found; a larger one costs no more time


def divisors(n: int) -> list[int]:
    """The divisors of ``n`` > 0, ascending, by trial division up to min(sqrt(n), TRIAL_DIVISORS) with each
    divisor's cofactor: all of them for n up to 10**10, and for a larger n those up to 10**5 and their cofactors,
    so that a batch size from the script never costs time in proportion to it."""
    small = [x for x in range(1, min(isqrt(n), TRIAL_DIVISORS) + 1) if n % x == 0]
    return sorted(set(small + [n // x for x in small]))


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


def map_batch(d: Draft, algo: str | None, step: tuple[int, str, str] | None = None) -> Batch | None:
    """r = the responses one optimizer step takes (ppo_mini_batch_size x n, or ppo_mini_batch_size where the
    release counts it in responses: verl 0.1, and the Megatron worker before 0.3.0.post0);
    buffer.train_batch_size = r; algorithm.repeat_times = rollout.n (n);
    buffer.batch_size = t = lcm(n, r) / n, the fewest tasks whose responses fill whole trainer steps
    (ppo_mini_batch_size prompts when r is a multiple of n);
    synchronizer.sync_interval = data.train_batch_size x n / r (must divide), and, when t x n != r,
    synchronizer.explorer_sync_interval = data.train_batch_size / t.

    One trainer step trains on r experiences, which is one veRL optimizer step, and syncing weights after the
    trainer steps and explorer steps of one veRL batch reproduces veRL's one rollout per data.train_batch_size
    prompts. A mini-batch counted in responses that is not a multiple of n splits a prompt's responses over
    two optimizer steps, as veRL does (it computes advantages on the whole batch first); Trinity then explores
    t tasks a step, and the algorithm must compute advantages per task in the explorer (RFTC329), not on each
    trainer step's experiences. A mini-batch larger than the batch, where the release accepts one (before its
    startup check, or with dynamic batch sizes), holds the whole batch (RFTC325).

    ``step``: (prompts, key, formula) of a veRL step where the trainer loop does not read data.train_batch_size
    (veRL's fully async trainer takes ppo_mini_batch_size x async_training.require_batches prompts a step).
    """
    bk = prompts_key(d) if step is None else step[1]
    tb = d.number(bk, positive=True) if step is None else step[0]
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
    if total % responses:
        _not_divisible(d, bk, tb, mini, n, unit, responses, total)
        return None
    tasks = lcm(n, responses) // n
    si, esi = total // responses, tb // tasks
    if tasks * n != responses and not _splits_groups(d, algo, mini, n, responses, tasks, si, esi):
        return None
    _doubt(d, fact, tb, mini, n, responses)
    d.set("algorithm.repeat_times", n, N, note="" if d.user(N) else "veRL default")
    if tasks * n == responses:
        note = "" if unit == "prompts" and responses == mini * n else \
            (f"{responses} responses / n={n} ({counted})" if unit == "responses" else f"the whole batch: {tb}")
        d.set("buffer.batch_size", tasks, MINI, note=note)
        d.set("buffer.train_batch_size", responses, MINI, N, note=f"{tasks}*{n}")
        d.set("synchronizer.sync_interval", si, bk, MINI,
              note=f"{tb}/{tasks}" + (f", {tb} = {step[2]}" if step is not None else ""))
    else:
        d.set("buffer.batch_size", tasks, MINI, N,
              note=f"lcm({n}, {responses})/{n}: the fewest tasks whose responses fill whole trainer steps")
        d.set("buffer.train_batch_size", responses, MINI, note=counted)
        d.set("synchronizer.sync_interval", si, bk, MINI, N, note=f"{tb}*{n}/{responses}: trainer steps per veRL step")
        d.set("synchronizer.explorer_sync_interval", esi, bk, MINI, N,
              note=f"{tb}/{tasks}: explorer steps per veRL step")
    return Batch(tb, responses, si, esi)


def _not_divisible(d: Draft, bk: str, tb: int, mini: int, n: int, unit: str, responses: int,
                   total: int) -> None:
    what = "" if unit == "prompts" else \
        f" (verl {d.sem.release} counts it in responses: {bk} x {N} = {total} responses)"
    base, step = (tb, mini) if unit == "prompts" else (total, responses)
    batches, minis = nearest_divisible(base, step)
    choices = ([f"{bk}={b}" for b in batches] if unit == "prompts" else []) + [f"{MINI}={x}" for x in minis]
    full, rest = divmod(base, step)
    actor = f"verl {d.sem.release}'s actor"
    fork = validation_code(d.cfg.source) if d.cfg.source else None
    runs = (f"what the veRL fork's trainer makes of the batch is known only from its code ({fork.shown()})"
            if fork is not None and not fork.reads(MINI) else
            f"{actor} splits a batch into {full} mini-batch(es) of {step} and a last, smaller one of {rest}"
            if d.sem.value("train_mini_remainder") == "smaller_last" else
            f"{actor} asserts that a batch divides into mini-batches: it fails at the first update")
    d.report("RFTC302", f"{bk} ({tb}) is not a multiple of {MINI} ({mini}){what}: {base}/{step} = "
             f"{base / step:.4g} mini-batches per step; {runs}, and Trinity's trainer steps are all of one size",
             bk, hint="nearest valid choices: " + ", ".join(choices), extra_keys=(MINI,))


def _splits_groups(d: Draft, algo: str | None, mini: int, n: int, responses: int, tasks: int, si: int,
                   esi: int) -> bool:
    """A mini-batch of ``responses`` (counted in responses) that is not a multiple of n, explored ``tasks`` at a
    time and synced after ``esi`` explorer and ``si`` trainer steps: RFTC329 where Trinity computes the
    algorithm's advantages per task in the explorer, RFTC302 where it computes them in the trainer on each
    step's experiences (veRL computes them on the whole batch)."""
    if algo is None:  # the estimator is reported already
        return False
    rel = d.sem.release
    total = si * responses
    if not ALGORITHMS[algo].advantage_in_trainer:
        d.report("RFTC329", f"{MINI}={mini}: verl {rel} counts it in responses, so an optimizer step takes part of "
                 f"a prompt's {n} responses; Trinity explores {tasks} task(s) a step ({tasks * n} responses, "
                 f"{tasks * n // responses} trainer step(s) of {responses}) and syncs after {esi} explorer and "
                 f"{si} trainer steps, one veRL batch", MINI, extra_keys=(N,),
                 notes=(f"the {algo} algorithm computes advantages per task in the explorer, before the experiences "
                        "are split, as veRL computes them on the whole batch",))
        return True
    near = sorted({x for x in (mini - mini % n, mini - mini % n + n) if x >= n and total % x == 0})
    doubt = d.sem.doubt(unit_fact(d))
    other = () if doubt is None else (f"{doubt.describe()}; counted in {doubt.other}, as there, {MINI}={mini} "
                                      f"takes {responses_per_step(mini, n, doubt.other)} responses per step "
                                      f"(--verl-version {doubt.change.since} reads it so)",)
    d.report("RFTC302", f"{MINI} ({mini}) is not a multiple of {N} ({n}): verl {rel} counts it in responses, so "
             f"an optimizer step takes part of a prompt's responses, and Trinity's {algo} algorithm computes "
             "advantages on each trainer step's experiences (veRL on the whole batch)", MINI,
             hint=" or ".join(f"{MINI}={x}" for x in near) + f" (multiples of {n})" if near
             else f"a multiple of {n} that divides {total}", notes=other, extra_keys=(N,))
    return False


def _doubt(d: Draft, fact: str, tb: int, mini: int, n: int, responses: int) -> None:
    """RFTC326 when the config's release is a development snapshot that may count ppo_mini_batch_size the
    other way, and that would convert to another mini-batch."""
    doubt = d.sem.doubt(fact)
    if doubt is None:
        return
    other = responses_per_step(mini, n, doubt.other)
    other = min(other, tb * n)
    if other == responses:
        return
    d.report("RFTC326", f"{MINI}={mini}: {doubt.describe()}; rftc follows verl {d.sem.release}, where it counts "
             f"{doubt.value} (Trinity trains {responses} experiences per step); counted in {doubt.other} it would "
             f"be {other}", MINI, settles=False,
             hint=f"read the worker code the message names in the checkout; --verl-version {doubt.change.since} "
             f"converts with verl {doubt.change.since}'s config and behaviour instead")
