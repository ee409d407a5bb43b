"""The order a rollout batch is trained in, mini-batch by mini-batch, on both sides. veRL's workers split the batch
into mini-batches and pass over all of them once per epoch, shuffling the responses into mini-batches every epoch
where the worker reads its role's ``shuffle``: the engine workers (rftc.mapping.models.engine_worker), seeded with
``data_loader_seed``; of the legacy workers verl 0.1's, and Megatron's after it (seeded from 0.4.0:
rftc.verl.releases.semantics "legacy_shuffle"); the legacy FSDP workers of 0.2 on split it in order. Trinity's
trainer trains one mini-batch a trainer step (its actor's and critic's ppo_mini_batch_size is
buffer.train_batch_size), its epochs in a row, in the order the explorer hands the experiences over: its shuffle
reorders the one mini-batch only, which changes nothing."""

from __future__ import annotations

from dataclasses import dataclass

from rftc.mapping.batch import responses_per_step
from rftc.mapping.models import MCORE, engine_worker
from rftc.semantics.inputs import SHUFFLED, Order

IN_ORDER = "in the batch's order"
EPOCH_BY_EPOCH = "in the batch's order, every epoch over the whole batch"
STEP_BY_STEP = "in the batch's order, each mini-batch's epochs in a row"
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


def verl_order(get, sem, role: str, minibatches: int, epochs: int, steps: int = 1) -> Order | None:
    """The order of a trainer step's ``minibatches`` mini-batches over ``epochs`` epochs, ``steps`` trainer steps
    between weight updates; None for one mini-batch in all (nothing to order). A null data_loader_seed leaves the
    generator unseeded."""
    if minibatches * steps <= 1:
        return None
    section, rng = SECTIONS[role], shuffle_reader(get, sem, role)
    if minibatches > 1 and rng is not None and get(f"{section}.shuffle"):
        seed = None if rng == UNSEEDED else get(f"{section}.data_loader_seed")
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
