"""`rftc diff` names the quantities of how a rollout batch is trained step by step, on both sides: the order of the
actor's mini-batches (shuffled where the release's worker reads actor.shuffle, epoch by epoch over the whole batch),
and the critic's steps and value clip. A launch with one override changed at a time, a Trinity-RFT config with one
field changed at a time, the same run written two ways (a default spelled out, a setting no worker reads, a launch
and its own conversion), and a run without a critic, where its quantities are none."""

from __future__ import annotations

import json

import pytest
import yaml

from support.cli import launch, records, rftc
from test_convert_equivalence import MICRO_WARNING
from test_diff_optimizer import BASE, GAE, TRINITY, _differences, _with

PPO = {**TRINITY["algorithm"], "algorithm_type": "ppo"}
PPO_CONFIG = _with(algorithm=PPO, model={**TRINITY["model"], "critic_model_path": "/m"})


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
    script = launch(tmp_path, *BASE, *GAE, *changed)
    done = rftc("convert", script, "--verl-version", "0.9.1", "-o", tmp_path / "out.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load((tmp_path / "out.yaml").read_text())["trainer"]["trainer_config"]["critic"][
        "cliprange_value"] == 0.2
    diff = rftc("diff", script, tmp_path / "out.yaml", "--verl-version", "0.9.1", "--format", "json", cwd=tmp_path)
    assert not {"value_clip"} & {d["quantity"] for d in json.loads(diff.stdout)["differences"]}


A = "actor_rollout_ref.actor"
ENGINE = ("trainer.use_legacy_worker_impl=disable",)  # verl 0.7's engine workers


@pytest.mark.parametrize("release, base, changed, quantities", [
    # the engine workers shuffle the batch's responses into mini-batches with a generator data_loader_seed seeds
    ("0.9.1", (), (f"{A}.shuffle=True",), {"minibatch_order"}),
    ("0.9.1", (f"{A}.shuffle=True",), (f"{A}.shuffle=True", f"{A}.data_loader_seed=1"), {"minibatch_order"}),
    ("0.9.1", (), (f"{A}.data_loader_seed=1",), set()),  # no shuffle: the seed draws nothing
    ("0.9.1", (), (f"{A}.shuffle=False",), set()),  # the default spelled out
    # verl 0.7's legacy FSDP actor splits the batch in order, whatever shuffle says; its engine workers do not
    ("0.7.1", (), (f"{A}.shuffle=True",), set()),
    ("0.7.1", ENGINE, (*ENGINE, f"{A}.shuffle=True"), {"minibatch_order"}),
    # one mini-batch a batch: nothing to order
    ("0.9.1", (f"{A}.ppo_mini_batch_size=8",), (f"{A}.ppo_mini_batch_size=8", f"{A}.shuffle=True"), set()),
    # the critic's mini-batches, epochs and order; its value clip
    ("0.9.1", GAE, (*GAE, "critic.ppo_epochs=2"), {"critic_steps"}),
    ("0.9.1", GAE, (*GAE, "critic.ppo_mini_batch_size=2"), {"critic_steps"}),
    ("0.9.1", GAE, (*GAE, "critic.shuffle=True"), {"critic_steps"}),
    ("0.7.1", GAE, (*GAE, "critic.shuffle=True"), set()),  # the legacy FSDP critic splits in order
    ("0.7.1", GAE, (*GAE, "critic.ppo_mini_batch_size=4"), set()),  # the actor's, which it follows
], ids=lambda v: " ".join(v) if isinstance(v, tuple) else None)
def test_the_mini_batches_a_launch_trains(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


def test_epochs_over_several_mini_batches_are_an_order(tmp_path):
    """veRL passes over all of a batch's mini-batches once an epoch: ppo_epochs changes their order too."""
    got = _differences(tmp_path, (), (f"{A}.ppo_epochs=2",), "--verl-version", "0.9.1")
    assert {"ppo_epochs", "steps_per_batch", "minibatch_order"} <= got


STEPS = {"synchronizer": {"sync_interval": 2}}  # two trainer steps (mini-batches) a weight version


def _trainer_config(config: dict, **sections) -> dict:
    out = json.loads(json.dumps(config))
    out["trainer"] = {"trainer_config": sections}
    return out


@pytest.mark.parametrize("sections, quantities", [
    # Trinity trains one mini-batch a trainer step: its actor's shuffle and seed reorder that one only
    (dict(actor_rollout_ref={"actor": {"shuffle": True, "data_loader_seed": 1}}), set()),
    (dict(actor_rollout_ref={"actor": {"ppo_epochs": 2}}), {"ppo_epochs", "steps_per_batch", "policy_lag",
                                                            "minibatch_order"}),
], ids=lambda v: json.dumps(v) if isinstance(v, dict) else None)
def test_the_mini_batches_a_trinity_config_trains(tmp_path, sections, quantities):
    base = _with(**STEPS)
    assert _differences(tmp_path, base, _trainer_config(base, **sections), ext=".yaml") == quantities


@pytest.mark.parametrize("critic, quantities", [
    (dict(ppo_epochs=2), {"critic_steps"}),  # 1 where unset, whatever the actor's
    (dict(ppo_epochs=1, shuffle=False), set()),  # its defaults' epochs; the shuffle of its one mini-batch
])
def test_the_critic_steps_of_a_trinity_ppo_config(tmp_path, critic, quantities):
    assert _differences(tmp_path, PPO_CONFIG, _critic(**critic), ext=".yaml") == quantities


@pytest.mark.parametrize("changed, warned", [
    ((), False),
    ((f"{A}.shuffle=True",), True),  # Trinity trains one mini-batch a trainer step: RFTC305
    ((f"{A}.ppo_epochs=2",), True),  # epoch by epoch over the batch against each mini-batch's epochs in a row
])
def test_a_conversion_warns_of_the_order_its_diff_reports(tmp_path, changed, warned):
    """Where Trinity cannot train veRL's mini-batch order, the conversion says so (RFTC305) and `rftc diff` of the
    launch and its conversion reports that order; where it can, neither does."""
    script = launch(tmp_path, *BASE, *changed)
    done = rftc("convert", script, "--verl-version", "0.9.1", "-o", tmp_path / "out.yaml", "--format", "json",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # the default truncation's RFTC305 aside, and the micro-batches' (tests/test_diff_micro.py)
    codes = {(d["code"], d["message"]) for d in records(done.stderr) if MICRO_WARNING not in d["message"]}
    assert any(code == "RFTC305" and not text.startswith("data.truncation") for code, text in codes) is warned, codes
    diff = rftc("diff", script, tmp_path / "out.yaml", "--verl-version", "0.9.1", "--format", "json", cwd=tmp_path)
    assert ("minibatch_order" in {d["quantity"] for d in json.loads(diff.stdout)["differences"]}) is warned
