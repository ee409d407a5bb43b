"""Where a run's actors go on a Ray cluster of several nodes (``rftc run --address`` with ``cluster.node_num`` > 1).

Trinity-RFT splits ``cluster.node_num`` x ``gpu_per_node`` slots: the explorer's engines take the first
``engine_num`` x ``tensor_parallel_size``, the trainer the rest (whole nodes, or part of one node when it needs no
more than ``gpu_per_node``). Read slot by slot, that is one rule: slot i is on node i // gpu_per_node; an engine
runs on the node of its first slot, each trainer rank on the node of its slot. A slot is a GPU, or on a cluster
without GPUs one CPU worker (a trainer rank or an engine). The nodes are the cluster's first ``node_num`` alive
ones that have GPUs (every alive node on a CPU cluster), the head first. Stdlib only: ``--dry-run`` imports no Ray.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Node:
    id: str  # Ray's node id
    address: str
    cpus: float
    gpus: float
    head: bool = False

    def words(self) -> str:
        return f"node {self.id[:8]} ({self.address}{', head' if self.head else ''})"


@dataclass(frozen=True)
class Placement:
    explorers: tuple  # the Node of each engine, in engine order
    trainer: tuple  # (Node, ranks) in rank order: veRL's process_on_nodes, node by node

    def nodes(self) -> list[Node]:
        seen = {n.id: n for n in (*self.explorers, *(n for n, _ in self.trainer))}
        return list(seen.values())

    def lines(self) -> list[str]:
        out = [f"  explorer_{i}  on {n.words()}" for i, n in enumerate(self.explorers)]
        rank = 0
        for node, ranks in self.trainer:
            out.append(f"  trainer     rank(s) {rank}-{rank + ranks - 1} on {node.words()}" if ranks > 1
                       else f"  trainer     rank {rank} on {node.words()}")
            rank += ranks
        return out


def node_id() -> str | None:
    """The Ray node this process runs on (an actor's or a worker's); None outside Ray, whose runtime context
    would start a local Ray instance to answer."""
    import ray

    return ray.get_runtime_context().get_node_id() if ray.is_initialized() else None


def alive_nodes(ray) -> list[Node]:
    """The cluster's alive nodes, the head first (Ray's order otherwise)."""
    nodes = []
    for n in ray.nodes():
        if n.get("Alive"):
            res = n.get("Resources", {})
            nodes.append(Node(n["NodeID"], n.get("NodeManagerAddress", "?"), float(res.get("CPU", 0)),
                              float(res.get("GPU", 0)), "node:__internal_head__" in res))
    return sorted(nodes, key=lambda n: not n.head)


def assign(nodes: list[Node], node_num: int, per_node: int, engines: int, tp: int, use_gpu: bool,
           address: str) -> tuple[Placement | None, list]:
    """The placement of ``engines`` engines of ``tp`` slots and the trainer's ranks on ``node_num`` nodes of
    ``per_node`` slots, or the problems that prevent it as (code, message, hint, key)."""
    candidates = [n for n in nodes if n.gpus > 0] if use_gpu else list(nodes)
    kind = "GPU" if use_gpu else "CPU"
    if len(candidates) < node_num:
        return None, [("RFTC509", f"cluster.node_num is {node_num}, and the Ray cluster at {address} has "
                       f"{len(candidates)} alive node(s){' with GPUs' if use_gpu else ''}",
                       "start the missing nodes (ray start --address ...) or lower cluster.node_num",
                       "cluster.node_num")]
    chosen = candidates[:node_num]
    slots = node_num * per_node
    first_trainer_slot = engines * tp
    explorers = tuple(chosen[(i * tp) // per_node] for i in range(engines))
    trainer: list = []
    for slot in range(first_trainer_slot, slots):
        node = chosen[slot // per_node]
        if trainer and trainer[-1][0] is node:
            trainer[-1][1] += 1
        else:
            trainer.append([node, 1])
    errors = []
    for node in chosen:
        engines_here = sum(1 for n in explorers if n is node)
        ranks_here = sum(r for n, r in trainer if n is node)
        gpus_needed = per_node if use_gpu else 0
        cpus_needed = engines_here + ranks_here  # one CPU per actor and per rank (veRL's bundle)
        if node.gpus < gpus_needed or node.cpus < cpus_needed:
            have = f"{node.gpus:g} GPU(s) and {node.cpus:g} CPU(s)" if use_gpu else f"{node.cpus:g} CPU(s)"
            need = (f"{gpus_needed} GPU(s) and " if use_gpu else "") + (
                f"{cpus_needed} CPU(s) ({engines_here} engine(s), {ranks_here} trainer rank(s))")
            errors.append(("RFTC509", f"{node.words()} of the Ray cluster at {address} has {have}; the config "
                           f"places {need} on it", f"give each node {per_node} {kind}(s) (cluster.gpu_per_node)",
                           "cluster.gpu_per_node"))
    if errors:
        return None, errors
    return Placement(explorers, tuple((n, r) for n, r in trainer)), []
