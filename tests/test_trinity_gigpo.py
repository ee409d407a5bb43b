"""veRL-agent's gigpo estimator (a fork's: its config's algorithm.gigpo section, its core_algos function) converts to
Trinity-RFT 0.6's own gigpo algorithm: omega = step_advantage_w, gamma = algorithm.gamma, fnorm none for mode
mean_norm and std for mean_std_norm, with RFTC338 saying that the workflow writes each step's anchor state and
reward. Given those, the fork's function (FORK_CODE: the fork's core_algos.py of RFTC338's golden case,
veRL-agent's formula as the fork in ../shared/repro ships it) and Trinity's GiGPOAdvantageFn built from the converted
config (load_config + check_and_update and its registry in .venv-trinity: tests/trinity_ref/gigpo.py) give the same
advantages on random multi-step groups, in both modes. rftc diff sees the quantities: the step weight and the normalisation."""

from __future__ import annotations

import json
import random
import types

import pytest
import yaml

from support.cli import convert, rftc
from support.paths import ROOT
from trinity_ref import reference
from verl_checkout import write_checkout

FORK_CODE = (ROOT / "golden" / "diagnostics" / "RFTC338" / "verl" / "trainer" / "ppo" / "core_algos.py").read_text()
GAMMA, WEIGHT, N = 0.9, 0.7, 4


def _fork_launch(tmp_path, mode: str):
    """A fork of verl 0.5.0 whose config has the gigpo section and whose core_algos has the function; a launch of
    its main_ppo with gigpo."""
    package = write_checkout(tmp_path / "repo", version="0.5.0", release="0.5.0", fork=False)
    config = package / "trainer" / "config" / "ppo_trainer.yaml"
    tree = yaml.safe_load(config.read_text())
    tree["algorithm"]["gigpo"] = {"step_advantage_w": 1.0, "mode": "mean_norm"}
    config.write_text(yaml.safe_dump(tree, sort_keys=False))
    (package / "trainer" / "ppo").mkdir(parents=True)
    (package / "trainer" / "ppo" / "core_algos.py").write_text(FORK_CODE)
    script = tmp_path / "repo" / "run.sh"
    script.write_text(" ".join(["python3 -m verl.trainer.main_ppo", *reference.LAUNCH, "algorithm.adv_estimator=gigpo",
                                f"algorithm.gamma={GAMMA}", f"algorithm.gigpo.step_advantage_w={WEIGHT}",
                                f"algorithm.gigpo.mode={mode}", f"actor_rollout_ref.rollout.n={N}",
                                "data.train_files=/d/alfworld/train.parquet"]) + "\n")
    return script


@pytest.mark.parametrize("mode, fnorm", [("mean_norm", "none"), ("mean_std_norm", "std")])
def test_the_forks_gigpo_converts_to_trinitys(tmp_path, mode, fnorm):
    script = _fork_launch(tmp_path, mode)
    done = convert(script, out=tmp_path / "out", cwd=script.parent)
    a = done.config["algorithm"]
    assert (a["algorithm_type"], a["advantage_fn"], a["repeat_times"]) == ("gigpo", "gigpo", N)
    assert a["advantage_fn_args"] == {"omega": WEIGHT, "fnorm": fnorm, "gamma": GAMMA}
    (w,) = [d for d in done.diagnostics if d["code"] == "RFTC338"]
    assert w["severity"] == "warning" and "env_state_hash" in w["message"] and "step_reward" in w["message"]
    assert not [d for d in done.diagnostics if d["code"] in ("RFTC304", "RFTC327")]

    # rftc diff compares the step weight, the normalisation and the other arguments (epsilon): the converted config
    # trains as the launch but for the micro-batches whose losses Trinity adds up (RFTC305: tests/test_diff_micro.py)
    got = rftc("diff", script, done.configs[0], "--format", "json", cwd=script.parent)
    assert [d["quantity"] for d in json.loads(got.stdout)["differences"]] == ["microbatch_loss"], got.stdout
    # ... and a config with another weight or normalisation does not
    text = done.configs[0].read_text()
    other = tmp_path / "other.yaml"
    other.write_text(text.replace(f"omega: {WEIGHT}", "omega: 0.5").replace(
        f"fnorm: {fnorm}", f"fnorm: {'std' if fnorm == 'none' else 'none'}"))
    got = rftc("diff", script, other, "--format", "json", cwd=script.parent)
    labels = {d["quantity"] for d in json.loads(got.stdout)["differences"]}
    assert {"step_advantage_w", "norm_adv_by_std"} <= labels, got.stdout


def _steps(rng: random.Random) -> list[dict]:
    """Random multi-step trajectories: 3 prompt groups of N, 1 to 5 steps each, states drawn from a few so that
    anchor groups form, step rewards sparse and dense."""
    steps = []
    for group in range(3):
        for traj in range(N):
            for t in range(rng.randint(1, 5)):
                steps.append({"group": group, "traj": traj, "t": t, "state": rng.randint(0, 3),
                              "reward": rng.choice([0.0, 0.0, 1.0, rng.uniform(-1, 1)])})
    rng.shuffle(steps)
    return steps


@pytest.mark.skipif(not reference.available(), reason=reference.MISSING)
@pytest.mark.parametrize("mode", ["mean_norm", "mean_std_norm"])
def test_trinitys_gigpo_computes_the_forks_advantages(tmp_path, mode):
    script = _fork_launch(tmp_path, mode)
    (config,) = convert(script, out=tmp_path / "out", cwd=script.parent).configs
    fork = types.ModuleType("core_algos")
    exec(FORK_CODE, fork.__dict__)
    batches = [_steps(random.Random(seed)) for seed in range(5)]
    (tmp_path / "batches.json").write_text(json.dumps(batches))
    got = reference.harness("gigpo.py", str(config), str(tmp_path / "batches.json"), cwd=tmp_path)
    assert got["algorithm_type"] == "gigpo"
    for steps, ours in zip(batches, got["advantages"], strict=True):
        want = fork.gigpo_advantages([dict(s) for s in steps], gamma=GAMMA, step_advantage_w=WEIGHT, mode=mode)
        assert any(abs(v) > 0.1 for v in want)
        assert ours == pytest.approx(want, rel=1e-5, abs=1e-5)
