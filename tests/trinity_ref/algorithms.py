"""Runs inside .venv-trinity: each config's algorithm section as Trinity-RFT 0.6.0 builds it (load_config +
check_and_update, then its registries: the algorithm type, the advantage and policy loss classes with the
config's arguments) applied to one seeded batch shaped as Trinity's trainer hands it over (token-level rewards,
response mask, each response's task id as ``uid``, the log-probs of the policy being trained and the older ones it
sampled with; :func:`batch`). Prints one JSON line, a record per config path: the algorithm type, whether it
computes advantages in the trainer, the clip bounds the loss is built with, the advantages, the policy loss and its
gradient in the log-probs, or what the loss's constructor raises. The tests compare them with veRL's
compute_advantage and policy loss on the same batch, in rftc's environment.

    python algorithms.py CONFIG.yaml...
"""

from __future__ import annotations

import json
import sys

import numpy as np
import torch


def batch(tasks: int = 4, n: int = 5, width: int = 7):
    """(data, log_prob, old_log_prob): the two log-probs differ by enough that ratios leave every clip range the
    tests set (0.2 to 0.3 around 1)."""
    from verl import DataProto

    g = torch.Generator().manual_seed(0)
    lengths = torch.randint(1, width + 1, (tasks * n,), generator=g)
    mask = (torch.arange(width)[None, :] < lengths[:, None]).float()
    rewards = torch.zeros(tasks * n, width)
    rewards[torch.arange(tasks * n), lengths - 1] = torch.rand(tasks * n, generator=g)
    data = DataProto.from_dict(tensors={"token_level_rewards": rewards, "response_mask": mask},
                               non_tensors={"uid": np.array([f"t{i // n}" for i in range(tasks * n)], dtype=object)})
    log_prob = torch.randn(tasks * n, width, generator=g) * 0.1 - 1.0
    return data, log_prob, log_prob + 0.4 * torch.randn(tasks * n, width, generator=g)


def _group_advantages(fn, data):
    """A group advantage (Trinity runs it on the explorer's experiences of each task): each response as a
    single-turn Experience of its task, its advantages padded back to the batch's width."""
    from trinity.common.experience import EID, Experience

    mask = data.batch["response_mask"]
    rewards = data.batch["token_level_rewards"].sum(-1)
    exps = [Experience(eid=EID(task=uid), tokens=[0] * (1 + int(m.sum())), reward=float(r))
            for uid, m, r in zip(data.non_tensor_batch["uid"], mask, rewards)]
    fn(exps)  # sets each experience's advantages
    adv = torch.zeros_like(mask)
    for i, e in enumerate(exps):
        adv[i, : len(e.advantages)] = e.advantages
    return adv


def run(config_path: str) -> dict:
    from trinity.algorithm import ADVANTAGE_FN, ALGORITHM_TYPE, POLICY_LOSS_FN
    from trinity.common.config import load_config

    config = load_config(config_path)
    config.check_and_update()
    a = config.algorithm
    data, log_prob, old_log_prob = batch()
    fn = ADVANTAGE_FN.get(a.advantage_fn)(**a.advantage_fn_args)
    adv = fn(data)[0].batch["advantages"] if fn.compute_in_trainer() else _group_advantages(fn, data)
    log_prob.requires_grad_()
    record = {"algorithm_type": a.algorithm_type, "loss_agg_mode": a.loss_agg_mode,
              "policy_loss_fn": a.policy_loss_fn, "policy_loss_fn_args": a.policy_loss_fn_args,
              "in_trainer": ALGORITHM_TYPE.get(a.algorithm_type).compute_advantage_in_trainer}
    try:
        loss_fn = POLICY_LOSS_FN.get(a.policy_loss_fn)(**a.policy_loss_fn_args)
    except (TypeError, ValueError, AssertionError) as e:  # what the trainer would raise building the loss
        return {**record, "raises": f"{type(e).__name__}: {e}"}
    loss, _ = loss_fn(logprob=log_prob, old_log_probs=old_log_prob, response_mask=data.batch["response_mask"],
                      advantages=adv)
    loss.backward()
    return {**record, "clip": [getattr(loss_fn, f"clip_range_{side}", None) for side in ("low", "high")],
            "advantages": adv.tolist(), "loss": loss.item(), "grad": log_prob.grad.tolist()}


if __name__ == "__main__":
    print(json.dumps({path: run(path) for path in sys.argv[1:]}))
