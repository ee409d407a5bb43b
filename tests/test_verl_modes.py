"""rftc.verl.releases.modes against the wheels it cites: each trainer loop's code first ships in the release the
table names, and each per-release fact reads as that release's source says (skipped where the wheels are absent:
scripts/setup-verl-ref.sh downloads them)."""

from __future__ import annotations

import re

import pytest

from rftc.verl.releases import modes, order
from verl_wheel_code import _wheel, source

RELEASES = ("0.7.1", "0.8.0", "0.9.0", "0.9.1")


def _need(*releases: str) -> None:
    if any(_wheel(r) is None for r in releases):
        pytest.skip("verl's wheels are not here: run scripts/setup-verl-ref.sh")


def _previous(release: str) -> str:
    known = sorted((r for r in RELEASES), key=order.key)
    return known[known.index(release) - 1]


@pytest.mark.parametrize("loop", [lp for lp in modes.LOOPS if lp.since != "0.1"], ids=lambda lp: lp.name)
def test_each_loop_ships_from_its_release(loop):
    path = re.match(r"(\S+\.py)", loop.where).group(1)
    path = path if path.startswith("verl/") else f"verl/trainer/ppo/v1/{path}"
    _need(loop.since, _previous(loop.since))
    assert source(loop.since, path) is not None, (loop.since, path)
    assert source(_previous(loop.since), path) is None, (_previous(loop.since), path)


def test_the_v1_details_per_release():
    _need("0.9.0", "0.9.1")
    v1 = "verl/trainer/ppo/v1/"
    assert "for _ in range(num_warmup_batches)" in source("0.9.0", v1 + "trainer_colocate_async.py")
    assert "math.floor(num_warmup_batches * self.config.data.train_batch_size / gen_batch_size)" in source(
        "0.9.1", v1 + "trainer_base.py")
    assert [modes.fact("fractional_warmup", r) for r in ("0.9.0", "0.9.1")] == [False, True]
    assert "None disables" not in source("0.9.0", v1 + "replay_buffer.py")
    assert "None disables" in source("0.9.1", v1 + "replay_buffer.py")
    assert "hybrid_rollout" not in source("0.9.0", v1 + "trainer_separate_async.py")
    assert "hybrid_rollout.enable_switch" in source("0.9.1", v1 + "trainer_separate_async.py")
    for r in ("0.9.0", "0.9.1"):  # the drop rule the mapping compares the lag with, and the separate_async assert
        assert "global_steps - prompt_global_steps.get(uid, global_steps) + 1 > self.max_off_policy_threshold" in \
            source(r, v1 + "replay_buffer.py")
        assert "train_batch_size == parameter_sync_step * ppo_mini_batch_size" in source(
            r, v1 + "trainer_separate_async.py")
        assert "get_trainer_cls(config.trainer.v1.trainer_mode)" in source(r, "verl/trainer/main_ppo.py")
    assert "use_v1" not in source("0.8.0", "verl/trainer/main_ppo.py")


@pytest.mark.parametrize("release", ["0.8.0", "0.9.0", "0.9.1"])
def test_the_fully_async_bound_and_rollout_keys(release):
    _need(release)
    folder = "verl/experimental/fully_async_policy/"
    rollouter = source(release, folder + "fully_async_rollouter.py")
    assert re.search(r"self\.required_samples\s*\*\s*\(self\.staleness_threshold \+ 1\)\s*\*\s*"
                     r"self\.config\.async_training\.trigger_parameter_sync_step", rollouter)
    assert re.search(r"self\.required_samples = (self\.)?config\.actor_rollout_ref\.actor\.ppo_mini_batch_size \* "
                     r"self\.require_batches", rollouter)
    assert 'assert self.config.data.train_batch_size == 0' in rollouter
    read = set()
    for name in ("fully_async_main.py", "fully_async_rollouter.py", "fully_async_trainer.py"):
        read |= set(re.findall(r"config\.rollout\.(\w+)", source(release, folder + name)))
    read |= set(re.findall(r"config\.rollout\.(\w+)",
                           source(release, "verl/experimental/one_step_off_policy/main_ppo.py")))
    assert read == set(modes.fact("fully_async_rollout_keys", release))
    trainer = source(release, folder + "fully_async_trainer.py")
    assert "self.current_param_version % self.config.trainer.test_freq" in trainer
    assert "self.current_param_version % self.config.trainer.save_freq" in trainer
