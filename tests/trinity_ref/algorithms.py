"""Runs inside .venv-trinity: a converted config's algorithm section as Trinity-RFT 0.6.0 builds it (load_config +
check_and_update, then its registries: the algorithm type, the advantage and policy loss classes with the
config's arguments) applied to one seeded batch shaped as Trinity's trainer hands it over (token-level rewards,
response mask, each response's task id as ``uid``; :func:`batch`). Prints one JSON record: the algorithm type,
whether it computes advantages in the trainer, the advantages and the policy loss. The test compares them with
veRL's compute_advantage and policy loss on the same batch, in rftc's environment.

    python algorithms.py CONFIG.yaml
"""

from __future__ import annotations

import json
import sys

import numpy as np
import torch


def batch(tasks: int = 4, n: int = 5, width: int = 7):
    from verl import DataProto

    g = torch.Generator().manual_seed(0)
    lengths = torch.randint(1, width + 1, (tasks * n,), generator=g)
    mask = (torch.arange(width)[None, :] < lengths[:, None]).float()
    rewards = torch.zeros(tasks * n, width)
    rewards[torch.arange(tasks * n), lengths - 1] = torch.rand(tasks * n, generator=g)
    data = DataProto.from_dict(tensors={"token_level_rewards": rewards, "response_mask": mask},
                               non_tensors={"uid": np.array([f"t{i // n}" for i in range(tasks * n)], dtype=object)})
    return data, torch.randn(tasks * n, width, generator=g) * 0.1 - 1.0


def main(config_path: str) -> None:
    from trinity.algorithm import ADVANTAGE_FN, ALGORITHM_TYPE, POLICY_LOSS_FN
    from trinity.common.config import load_config

    config = load_config(config_path)
    config.check_and_update()
    a = config.algorithm
    data, log_prob = batch()
    ours, _ = ADVANTAGE_FN.get(a.advantage_fn)(**a.advantage_fn_args)(data)
    adv = ours.batch["advantages"]
    loss, _ = POLICY_LOSS_FN.get(a.policy_loss_fn)(**a.policy_loss_fn_args)(
        logprob=log_prob, old_log_probs=log_prob.detach(), response_mask=data.batch["response_mask"],
        advantages=adv)
    print(json.dumps({"algorithm_type": a.algorithm_type, "loss_agg_mode": a.loss_agg_mode,
                      "in_trainer": ALGORITHM_TYPE.get(a.algorithm_type).compute_advantage_in_trainer,
                      "advantages": adv.tolist(), "loss": loss.item()}))


if __name__ == "__main__":
    main(sys.argv[1])
