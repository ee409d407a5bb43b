"""The order a rollout batch is trained in, mini-batch by mini-batch, on both sides: veRL's as its release's workers
pass over the mini-batches (rftc.mapping.minibatch). Trinity's trainer trains one mini-batch a trainer step (its
actor's and critic's ppo_mini_batch_size is buffer.train_batch_size), its epochs in a row, in the order the explorer
hands the experiences over: its shuffle reorders the one mini-batch only, which changes nothing."""

from __future__ import annotations

from dataclasses import dataclass

from rftc.mapping.minibatch import SECTIONS, UNSEEDED, reshuffles
from rftc.semantics.inputs import SHUFFLED, Order

IN_ORDER = "in the batch's order"
EPOCH_BY_EPOCH = "in the batch's order, every epoch over the whole batch"
STEP_BY_STEP = "in the batch's order, each mini-batch's epochs in a row"


def verl_order(get, sem, role: str, minibatches: int, epochs: int, steps: int = 1) -> Order | None:
    """The order of a trainer step's ``minibatches`` mini-batches over ``epochs`` epochs, ``steps`` trainer steps
    between weight updates; None for one mini-batch in all (nothing to order). A null data_loader_seed leaves the
    generator unseeded."""
    if minibatches * steps <= 1:
        return None
    rng = reshuffles(get, sem, role, minibatches)
    if rng is not None:
        seed = None if rng == UNSEEDED else get(f"{SECTIONS[role]}.data_loader_seed")
        return Order(SHUFFLED, UNSEEDED if seed is None else rng, seed)
    if epochs > 1:
        return Order(EPOCH_BY_EPOCH if minibatches > 1 else STEP_BY_STEP)
    return Order(IN_ORDER)


def trinity_order(minibatches: int, epochs: int) -> Order | None:
    """Trinity's order of ``minibatches`` trainer steps of ``epochs`` epochs each; None for one."""
    if minibatches <= 1:
        return None
    return Order(STEP_BY_STEP if epochs > 1 else IN_ORDER)


@dataclass(frozen=True)
class CriticSteps:
    """How the critic trains on a rollout batch: the responses of one of its optimizer steps, its steps per batch
    (mini-batches x epochs) and their order."""

    responses: int
    steps: int
    order: Order | None

    def __str__(self) -> str:
        return f"{self.responses} responses a step, {self.steps} steps a batch" + (
            f", {self.order}" if self.order is not None else "")
