"""veRL's dynamic-sampling rule (the DAPO recipe's RayDAPOTrainer, algorithm.filter_groups): which prompt groups
a training batch keeps, on which metric. Shared by rftc's Trinity operator (rftc/plugins/operators.py) and
its tests; no Trinity or veRL import."""

from __future__ import annotations

# metrics RayDAPOTrainer computes from the batch: the sum of token_level_scores (the reward manager's reward)
# and of token_level_rewards (after the KL penalty in the reward); any other name is a reward_extra_info entry
SEQUENCE_METRICS = ("seq_reward", "seq_final_reward")


def metric_value(metric: str, reward: float | None, metrics: dict | None) -> float:
    """One response's value of ``metric``: its reward for the sequence metrics (rftc maps seq_final_reward only
    without a KL penalty in the reward, where the two are equal), else the reward function's entry."""
    if metric in SEQUENCE_METRICS:
        if reward is None:
            raise ValueError(f"filter_groups metric {metric}: the experience has no reward")
        return float(reward)
    if not metrics or metric not in metrics:
        raise ValueError(f"filter_groups metric {metric!r} is not among the reward's entries "
                         f"({', '.join(sorted(metrics or {})) or 'none'}): veRL reads it from reward_extra_info, "
                         "which holds what the reward function's dict returns")
    return float(metrics[metric])


def keeps(values: list[float]) -> bool:
    """RayDAPOTrainer: a prompt stays when np.std of its responses' metric is > 0, or it has one response. numpy's
    own std, as veRL computes it: equal values may leave a rounding residue above 0, and NaN drops the group."""
    import numpy as np

    return len(values) == 1 or bool(np.std(values) > 0)
