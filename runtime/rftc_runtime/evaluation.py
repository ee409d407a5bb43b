"""Evaluation on the eval tasksets: the explorer samples each taskset's ``repeat_times`` responses per task with
its own rollout_args and the current weights; nothing goes to the trainer. Metrics follow Trinity's
``eval/<taskset>/...`` naming.
"""

from __future__ import annotations

from collections import defaultdict


def eval_metrics(name: str, rewards_by_task: dict[int, list[float]]) -> dict:
    """Mean reward and pass@k of one eval taskset, k = the responses sampled per task.

    A response passes when it earns the full reward (>= 1, what the rule-based rewards give a correct answer);
    a task passes at k when any of its k responses does.
    """
    flat = [r for rs in rewards_by_task.values() for r in rs]
    tasks = len(rewards_by_task)
    k = max((len(rs) for rs in rewards_by_task.values()), default=0)
    prefix = f"eval/{name}"
    return {
        f"{prefix}/reward_mean": sum(flat) / max(1, len(flat)),
        f"{prefix}/accuracy": sum(r >= 1.0 for r in flat) / max(1, len(flat)),
        f"{prefix}/pass@{k}": sum(any(r >= 1.0 for r in rs) for rs in rewards_by_task.values()) / max(1, tasks),
        f"{prefix}/tasks": tasks,
    }


def group_rewards(experiences) -> dict[int, list[float]]:
    out: dict[int, list[float]] = defaultdict(list)
    for e in experiences:
        out[e.task_index].append(e.reward)
    return dict(out)
