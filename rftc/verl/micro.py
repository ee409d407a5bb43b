"""veRL's deprecated global micro-batch sizes and the per-GPU size a release's workers make of them.

Up to 0.7.x the legacy workers divide each global size by their data-parallel ranks when they start
(ActorRolloutRefWorker / CriticWorker.__init__ in fsdp_workers.py: the world size over the Ulysses sequence-parallel
size, verl 0.1 having no sequence parallelism; megatron_workers.py: mpu.get_data_parallel_world_size(), the world
over TP x PP x CP), flooring, and train with the result as ``*_per_gpu``. From 0.8.0 the engine workers read only
the per-GPU keys (engine_workers.py asserts the actor's and the rollout's are set). Semantics fact: global_micro.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

A, REF, R = "actor_rollout_ref.actor", "actor_rollout_ref.ref", "actor_rollout_ref.rollout"
# global key -> the section whose worker divides it (its parallel sizes)
GLOBAL = {f"{A}.ppo_micro_batch_size": A, f"{R}.log_prob_micro_batch_size": A,
          f"{REF}.log_prob_micro_batch_size": A, "critic.ppo_micro_batch_size": "critic",
          "critic.forward_micro_batch_size": "critic"}
MEGATRON_SIZES = ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size")


@dataclass(frozen=True)
class Share:
    size: int  # the per-GPU micro-batch size (global // ranks)
    ranks: int  # the data-parallel ranks the global size is divided by
    formula: str  # "8 / (8 GPUs / SP 1) = 1"


def count(v) -> int | None:
    """``v`` where it is a known positive integer (a bool is not one), else None."""
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None


def megatron(get: Callable[[str], Any]) -> bool:
    """Whether the launch trains with Megatron: the actor's strategy, or the engine workers' model_engine."""
    return get(f"{A}.strategy") == "megatron" or get("model_engine") == "megatron"


def megatron_sizes(get: Callable[[str], Any], prefix: str) -> tuple[int, int, int]:
    """TP, PP and CP under ``prefix`` (``prefix.tensor_model_parallel_size``, ...), 1 where unset or not known."""
    tp, pp, cp = (count(get(f"{prefix}.{k}")) or 1 for k in MEGATRON_SIZES)
    return tp, pp, cp


def share(get: Callable[[str], Any], key: str) -> Share | None:
    """The per-GPU size the workers of a release that divides (global_micro: divided) make of the global ``key``,
    reading the launch's values through ``get``; None where a value is not a known positive integer."""
    size, dp = count(get(key)), data_parallel(get, GLOBAL[key])
    if size is None or dp is None:
        return None
    ranks, how = dp
    return Share(size // ranks, ranks, f"{size} / ({how}) = {size // ranks}")


def data_parallel(get: Callable[[str], Any], section: str, sp_key: str | None = None) -> tuple[int, str] | None:
    """(the data-parallel ranks of ``section``'s worker, how they are counted): the trainer's GPUs
    (trainer.nnodes x n_gpus_per_node) over the Ulysses sequence-parallel size (``section``'s, or the key
    ``sp_key`` an engine reads), or over TP x PP x CP for Megatron; None where the GPU counts are not known positive
    integers."""
    nodes, per_node = count(get("trainer.nnodes")), count(get("trainer.n_gpus_per_node"))
    if None in (nodes, per_node):
        return None
    world = nodes * per_node
    if megatron(get):
        tp, pp, cp = megatron_sizes(get, f"{section}.megatron")
        group = tp * pp * cp
        how = f"{world} GPUs / (TP {tp} x PP {pp} x CP {cp})"
    else:
        group = count(get(sp_key or f"{section}.ulysses_sequence_parallel_size")) or 1
        how = f"{world} GPUs / SP {group}"
    return max(world // group, 1), how
