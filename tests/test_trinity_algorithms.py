"""veRL estimators Trinity-RFT 0.6 lacks (gpg, reinforce_plus_plus_baseline, opo, grpo_passk) and veRL's gpg
policy loss, as a converted config runs them in Trinity and in `rftc run`: the config goes through Trinity's
load_config + check_and_update and its registries build rftc's advantage and loss classes
(tests/trinity_ref/algorithms.py in .venv-trinity, with Trinity's verl 0.8.0); their advantages and loss on one
batch must equal the runtime's: veRL's own compute_advantage and ppo_loss (verl 0.9.1 here)."""

from __future__ import annotations

import pytest

from runtime_support import require, verl_ppo_loss
from trinity_ref import reference

require("verl", "torch")

import torch  # noqa: E402
import yaml  # noqa: E402

from rftc.plugins import VERL_ESTIMATORS  # noqa: E402
from rftc_runtime import algorithm  # noqa: E402
from runtime_support import settings  # noqa: E402
from trinity_ref.algorithms import batch  # noqa: E402

pytestmark = pytest.mark.skipif(not reference.available(), reason=reference.MISSING)


def _convert(tmp_path, estimator: str) -> dict:
    gpg = ["actor_rollout_ref.actor.policy_loss.loss_mode=gpg"] if estimator == "gpg" else []
    out = reference.convert_launch(tmp_path, f"algorithm.adv_estimator={estimator}", "actor_rollout_ref.rollout.n=5",
                                   "data.train_files=/d/gsm8k/train.parquet",
                                   "actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-mean", *gpg)
    return {"trinity": reference.harness("algorithms.py", str(out), cwd=tmp_path),
            "config": yaml.safe_load(out.read_text())}


@pytest.mark.parametrize("estimator", VERL_ESTIMATORS)
def test_verl_estimator_runs_in_trinity_as_in_the_runtime(tmp_path, estimator):
    got = _convert(tmp_path, estimator)
    trinity = got["trinity"]
    # an algorithm type whose advantages Trinity computes in the trainer, on the whole batch, as veRL does
    assert trinity["algorithm_type"] == "reinforceplusplus" and trinity["in_trainer"]
    assert trinity["loss_agg_mode"] == "seq-mean-token-mean"

    alg = settings(got["config"]).algorithm
    bound = algorithm.bind(alg, mini_batch_size=20, micro_batch_size=20, grad_clip=1.0)
    data, log_prob = batch()
    data.batch["token_level_scores"] = data.batch.pop("token_level_rewards")
    algorithm.advantages(bound, data)
    ours = torch.tensor(trinity["advantages"])
    assert ours.abs().sum() > 0
    assert torch.allclose(ours, data.batch["advantages"], atol=1e-5), (ours, data.batch["advantages"])

    loss, _ = verl_ppo_loss(bound.actor_config, log_prob, log_prob.detach(), data.batch["advantages"],
                            data.batch["response_mask"])
    assert trinity["loss"] == pytest.approx(float(loss), abs=1e-5)
