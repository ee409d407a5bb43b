"""The order veRL trains a rollout batch's mini-batches in, read from the release's workers, and where Trinity-RFT 0.6
cannot follow it. veRL's workers split the batch into mini-batches and pass over all of them once per epoch,
shuffling the responses into mini-batches every epoch where the worker reads its role's ``shuffle``: the engine
workers (rftc.mapping.models.engine_worker), seeded with ``data_loader_seed``; of the legacy workers verl 0.1's, and
Megatron's after it (seeded from 0.4.0: rftc.verl.releases.semantics "legacy_shuffle"); the legacy FSDP workers of
0.2 on split it in order. Trinity's trainer trains one mini-batch a trainer step, its epochs in a row, in the order
the explorer hands the experiences over (rftc.semantics.minibatch compares the two): veRL's reshuffled
mini-batches, and its epochs over the whole batch, are RFTC305 (the keys are still mapped)."""

from __future__ import annotations

from rftc.mapping.batch import Batch, responses_per_step
from rftc.mapping.draft import Draft
from rftc.mapping.models import MCORE, engine_worker

ENGINE_RNG = "veRL's engine workers' torch generator"
MEGATRON_RNG = "veRL's Megatron workers' torch generator"
UNSEEDED = "torch's global generator, unseeded"
SECTIONS = {"actor": "actor_rollout_ref.actor", "critic": "critic"}


def minibatch_responses(get, sem, role: str, batch: int, n: int) -> tuple[int | None, str]:
    """The responses of one of ``role``'s mini-batches (its ppo_mini_batch_size in the release's unit for the
    worker: prompts x n, or responses; at most the trainer step's ``batch`` prompts x ``n``; None where the sizes
    are not whole numbers), and the unit."""
    megatron = get(f"{SECTIONS[role]}.strategy") in MCORE
    unit = sem.value("critic_mini_unit" if role == "critic" else
                     "megatron_actor_mini_unit" if megatron else "actor_mini_unit")
    mini = get(f"{SECTIONS[role]}.ppo_mini_batch_size")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (mini, batch, n)):
        return None, unit
    return min(responses_per_step(mini, n, unit), batch * n), unit


def shuffle_reader(get, sem, role: str) -> str | None:
    """The generator the release's ``role`` worker shuffles mini-batches with where it reads ``shuffle``: the engine
    and Megatron workers' (seeded with data_loader_seed), or torch's global one; None where the worker splits the
    batch in order."""
    legacy = sem.value("legacy_shuffle")
    if engine_worker(get, sem, role):
        return ENGINE_RNG
    if get(f"{SECTIONS[role]}.strategy") in MCORE and legacy != "all_unseeded":
        return MEGATRON_RNG if legacy == "megatron_seeded" else UNSEEDED
    return UNSEEDED if legacy == "all_unseeded" else None


def reshuffles(get, sem, role: str, minibatches: int) -> str | None:
    """The generator ``role``'s worker reshuffles the batch's ``minibatches`` mini-batches with every epoch; None
    where it trains them in the batch's order."""
    rng = shuffle_reader(get, sem, role)
    return rng if minibatches > 1 and rng is not None and get(f"{SECTIONS[role]}.shuffle") else None


def map_order(d: Draft, b: Batch, critic: bool) -> None:
    """RFTC305 for the actor's (and a critic's) mini-batches that veRL shuffles or passes over epoch by epoch."""
    n = d.val("actor_rollout_ref.rollout.n") or 1
    for role in ("actor", "critic") if critic else ("actor",):
        section = SECTIONS[role]
        responses, _ = minibatch_responses(d.val, d.sem, role, b.train_batch, n)
        epochs = d.val(f"{section}.ppo_epochs") or 1
        if responses is None or not isinstance(epochs, int) or epochs < 1:
            continue  # the batch mapping reports the sizes
        minibatches = b.train_batch * n // responses
        if reshuffles(d.val, d.sem, role, minibatches) is not None:
            default = "" if d.user(f"{section}.shuffle") else f" (verl {d.sem.release}'s default)"
            d.report("RFTC305", f"{section}.shuffle=True{default}: verl {d.sem.release}'s {role} reshuffles the rollout "
                     f"batch's responses into its {minibatches} mini-batches every epoch; Trinity-RFT 0.6 trains one "
                     "mini-batch a trainer step in the order the explorer hands them over (its shuffle reorders "
                     "that one mini-batch only)", f"{section}.shuffle", settles=False)
        elif minibatches > 1 and epochs > 1:
            d.report("RFTC305", f"{section}.ppo_epochs={epochs}: veRL's {role} passes over the rollout batch's "
                     f"{minibatches} mini-batches once an epoch; Trinity-RFT 0.6 trains one mini-batch a trainer "
                     f"step, its {epochs} epochs in a row", f"{section}.ppo_epochs", settles=False)
