"""The Trinity-RFT 0.6.0 reference environment works: it accepts good configs (the guide's examples where
golden/check/valid has them, a GRPO and a PPO config of ours) and rejects broken ones with Trinity's own
messages. Without this, a broken reference (say, an import error that fails every config) could make the
agreement test in test_trinity_agreement.py agree with rftc for the wrong reason."""

from __future__ import annotations

import pytest

from trinity_ref import reference

GOOD = ["golden/check/negative/_base_grpo.yaml",                       # GRPO
        "golden/check/traps/warmup_ratio_without_total_steps.yaml"]     # PPO: critic, imports verl
GUIDE = sorted(str(p.relative_to(reference.REPO))
               for p in (reference.REPO / "golden/check/valid").glob("*_example.yaml"))
BAD = {"golden/check/negative/mode_invalid.yaml": ("ValueError", "Invalid mode: training"),
       "golden/check/negative/unknown_top_level_key.yaml": ("ValueError", "Key 'projcet' not in 'Config'"),
       "golden/check/negative/gpu_not_enough_for_trainer.yaml": ("ValueError", "Not enough GPUs for trainer")}

pytestmark = pytest.mark.skipif(not reference.available(), reason=reference.MISSING)


@pytest.fixture(scope="module")
def verdicts():
    return reference.run(GOOD + GUIDE + list(BAD), expand=True, timeout=300)


@pytest.mark.parametrize("path", GOOD + GUIDE)
def test_accepts_good_config(verdicts, path):
    r = verdicts[path]
    assert r["ok"], f"{path}: {r['error_type']}: {r['message']}"
    assert not r["undecided"]
    assert r["trainer_start"]["ok"], r["trainer_start"]


@pytest.mark.parametrize("path", list(BAD))
def test_rejects_broken_config(verdicts, path):
    error_type, message = BAD[path]
    r = verdicts[path]
    assert not r["ok"]
    assert r["error_type"] == error_type and message in r["message"], r


def test_expands_to_the_verl_config_trinity_runs(verdicts):
    grpo = verdicts[GOOD[0]]
    assert grpo["derived"]["buffer.train_batch_size"] == 2048
    assert grpo["derived"]["cluster.trainer_gpu_num"] == 4
    assert grpo["verl"]["rollout.n"] == 8
    assert grpo["verl"]["actor.ppo_mini_batch_size"] == 2048  # Trinity's train_batch_size, in experiences
    assert grpo["verl"]["critic.enable"] is False
    ppo = verdicts[GOOD[1]]
    assert ppo["verl"]["critic.enable"] is True
