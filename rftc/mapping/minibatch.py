"""The order veRL trains a rollout batch's mini-batches in, where Trinity-RFT 0.6 cannot follow it
(rftc.semantics.minibatch): its trainer trains one mini-batch a trainer step, its epochs in a row, in the order the
explorer hands the experiences over. veRL's reshuffled mini-batches, and its epochs over the whole batch, are
RFTC305 (the keys are still mapped)."""

from __future__ import annotations

from rftc.mapping.batch import Batch
from rftc.mapping.draft import Draft
from rftc.semantics.inputs import SHUFFLED
from rftc.semantics.minibatch import EPOCH_BY_EPOCH, SECTIONS, minibatch_responses, verl_order


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
        order = verl_order(d.val, d.sem, role, minibatches, epochs)
        if order is None:
            continue
        if order.kind == SHUFFLED:
            default = "" if d.user(f"{section}.shuffle") else f" (verl {d.sem.release}'s default)"
            d.report("RFTC305", f"{section}.shuffle=True{default}: verl {d.sem.release}'s {role} reshuffles the rollout "
                     f"batch's responses into its {minibatches} mini-batches every epoch; Trinity-RFT 0.6 trains one "
                     "mini-batch a trainer step in the order the explorer hands them over (its shuffle reorders "
                     "that one mini-batch only)", f"{section}.shuffle", settles=False)
        elif order.kind == EPOCH_BY_EPOCH:
            d.report("RFTC305", f"{section}.ppo_epochs={epochs}: veRL's {role} passes over the rollout batch's "
                     f"{minibatches} mini-batches once an epoch; Trinity-RFT 0.6 trains one mini-batch a trainer "
                     f"step, its {epochs} epochs in a row", f"{section}.ppo_epochs", settles=False)
