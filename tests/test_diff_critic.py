"""`rftc diff` names the critic's quantities a change trains differently by, on both sides: a PPO (gae) launch with
one override changed at a time, a Trinity-RFT ppo config with one field changed at a time, the same run written two
ways (a default spelled out, a launch and its own conversion), and a run without a critic, where they are none."""

from __future__ import annotations

import json

import pytest
import yaml

from support.cli import launch, rftc
from test_diff_optimizer import GAE, TRINITY, _with, report

PPO = {**TRINITY["algorithm"], "algorithm_type": "ppo"}
PPO_CONFIG = _with(algorithm=PPO, model={**TRINITY["model"], "critic_model_path": "/m"})


def _differences(tmp_path, a, b, *options: str, ext: str = ".sh") -> set[str]:
    """The quantities of the semantic model `rftc diff` reports between ``a`` and ``b``: none is a setting it
    compares key by key (RFTC605), as the names the model lacks are."""
    found = report(tmp_path, a, b, *options, ext=ext)
    assert not [d["label"] for d in found if d["label"].endswith("(not compared yet)")]
    return {d["quantity"] for d in found}


def _critic(**critic) -> dict:
    """The Trinity ppo config with ``critic`` as trainer_config's critic section."""
    out = json.loads(json.dumps(PPO_CONFIG))
    out["trainer"] = {"trainer_config": {"critic": critic}}
    return out


@pytest.mark.parametrize("release", ["0.3.0.post1", "0.7.1", "0.9.1"])
@pytest.mark.parametrize("base, changed, quantities", [
    ((), ("critic.cliprange_value=0.2",), {"value_clip"}),
    ((), ("critic.cliprange_value=0.5",), set()),  # the default of every release, spelled out
])
def test_one_override_of_a_ppo_launch_is_its_quantity(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, (*GAE, *base), (*GAE, *changed), "--verl-version", release) == quantities


def test_without_a_critic_its_settings_train_nothing(tmp_path):
    assert _differences(tmp_path, (), ("critic.cliprange_value=0.2",), "--verl-version", "0.9.1") == set()


@pytest.mark.parametrize("critic, quantities", [
    (dict(cliprange_value=0.2), {"value_clip"}),
    (dict(cliprange_value=0.5), set()),  # Trinity's critic config's own value
])
def test_one_field_of_a_trinity_ppo_config_is_its_quantity(tmp_path, critic, quantities):
    assert _differences(tmp_path, PPO_CONFIG, _critic(**critic), ext=".yaml") == quantities


def test_a_grpo_config_has_no_critic_to_clip(tmp_path):
    changed = _with(trainer={"trainer_config": {"critic": {"cliprange_value": 0.2}}})
    assert _differences(tmp_path, TRINITY, changed, ext=".yaml") == set()


@pytest.mark.parametrize("changed", [("critic.cliprange_value=0.2",)])
def test_a_launch_and_its_conversion_train_the_critic_alike(tmp_path, changed):
    """The conversion carries the critic's settings (trainer_config.critic), so its own diff does not name them."""
    from test_diff_optimizer import BASE

    script = launch(tmp_path, *BASE, *GAE, *changed)
    done = rftc("convert", script, "--verl-version", "0.9.1", "-o", tmp_path / "out.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load((tmp_path / "out.yaml").read_text())["trainer"]["trainer_config"]["critic"][
        "cliprange_value"] == 0.2
    diff = rftc("diff", script, tmp_path / "out.yaml", "--verl-version", "0.9.1", "--format", "json", cwd=tmp_path)
    assert not {"value_clip"} & {d["quantity"] for d in json.loads(diff.stdout)["differences"]}
