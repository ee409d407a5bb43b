"""Runs inside .venv-trinity: a converted config's gigpo advantage as Trinity-RFT 0.6.0 builds it (load_config +
check_and_update, then its ADVANTAGE_FN registry with the config's advantage_fn_args) applied to multi-step
experiences shaped as a step-wise workflow writes them: eid task, run and step, and in info the step's anchor state
(env_state_hash) and its own reward (step_reward). Prints one JSON record: the algorithm type and each step's
advantage, in the order of the steps given, for each batch.

    python gigpo.py CONFIG.yaml BATCHES.json     # BATCHES: [[{"group", "traj", "t", "state", "reward"}, ...], ...]
"""

from __future__ import annotations

import json
import sys

import torch


def main(config_path: str, steps_path: str) -> None:
    from trinity.algorithm import ADVANTAGE_FN
    from trinity.common.config import load_config
    from trinity.common.experience import EID, Experience

    config = load_config(config_path)
    config.check_and_update()
    a = config.algorithm
    advantages = []
    for steps in json.loads(open(steps_path, encoding="utf-8").read()):
        exps = [Experience(eid=EID(batch=0, task=s["group"], run=s["traj"], step=s["t"]), tokens=torch.zeros(4),
                           prompt_length=2, action_mask=torch.ones(2), reward=0.0,
                           info={"env_state_hash": f"{s['group']}/{s['state']}", "step_reward": s["reward"]})
                for s in steps]
        done, _ = ADVANTAGE_FN.get(a.advantage_fn)(**a.advantage_fn_args)(exps)
        by_id = {id(e): e for e in done}
        advantages.append([float(by_id[id(e)].advantages[0]) for e in exps])
    print(json.dumps({"algorithm_type": a.algorithm_type, "advantages": advantages}))


if __name__ == "__main__":
    main(*sys.argv[1:])
