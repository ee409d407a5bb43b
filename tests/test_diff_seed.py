"""`rftc diff` names the trainer's seed (rftc.mapping.seeds: the seed set last in a trainer worker's process) where a
change seeds it otherwise, on both sides: a launch with one override changed at a time under the releases whose
workers differ (the legacy FSDP workers seed nothing; the engine workers' FSDP engine seeds only with
full_determinism; Megatron's always, with its release's default), a Trinity-RFT config with one field changed at a
time, the same run written two ways, a launch and its own conversion, and veRL's engine SFT trainer."""

from __future__ import annotations

import json

import pytest
import yaml

from support.cli import launch, rftc
from test_diff_optimizer import BASE, GAE, _differences, _with

A, REF = "actor_rollout_ref.actor", "actor_rollout_ref.ref"
MEGATRON = ("--config-name=ppo_megatron_trainer",)  # last: Hydra's command line takes no override after it
DETERMINISM = f"{A}.fsdp_config.full_determinism=True"


@pytest.mark.parametrize("release, base, changed, quantities", [
    ("0.9.1", (), (DETERMINISM,), {"trainer_seed"}),  # the FSDP engine seeds with fsdp_config.seed (42)
    ("0.9.1", (), (f"{A}.fsdp_config.seed=7",), set()),  # not read without full_determinism
    ("0.9.1", (DETERMINISM,), (DETERMINISM, f"{A}.fsdp_config.seed=7"), {"trainer_seed"}),
    ("0.9.1", (DETERMINISM,), (DETERMINISM, f"{A}.fsdp_config.seed=42"), set()),  # the default spelled out
    ("0.7.1", (), (DETERMINISM,), set()),  # the legacy FSDP workers seed nothing
    # (the engine actor normalises by the mini-batch, where the legacy one averages its micro-batches' means)
    ("0.7.1", (DETERMINISM,), (DETERMINISM, "trainer.use_legacy_worker_impl=disable"), {"trainer_seed",
                                                                                       "microbatch_loss"}),
    # a reference built in the actor's worker seeds it where the actor's engine does not
    ("0.9.1", (f"{A}.use_kl_loss=True",), (f"{A}.use_kl_loss=True", f"{REF}.fsdp_config.full_determinism=True"),
     {"trainer_seed"}),
    ("0.9.1", (f"{A}.use_kl_loss=True", "actor_rollout_ref.model.lora_rank=8"),
     (f"{A}.use_kl_loss=True", "actor_rollout_ref.model.lora_rank=8", f"{REF}.fsdp_config.full_determinism=True"),
     set()),  # LoRA keeps the reference in the actor: no reference engine
    ("0.9.1", (), (f"{REF}.fsdp_config.full_determinism=True",), set()),  # no KL: no reference
    ("0.9.1", MEGATRON, (f"{A}.megatron.seed=7", *MEGATRON), {"trainer_seed"}),
    ("0.9.1", (f"{A}.use_kl_loss=True", *MEGATRON), (f"{A}.use_kl_loss=True", f"{REF}.megatron.seed=7", *MEGATRON),
     set()),  # the actor's engine, built after the reference's, seeds last
    ("0.3.0.post1", MEGATRON, (f"{A}.megatron.seed=1", *MEGATRON), set()),  # verl 0.1-0.3's default
    ("0.3.0.post1", MEGATRON, (f"{A}.megatron.seed=42", *MEGATRON), {"trainer_seed"}),
    ("0.9.1", GAE, (*GAE, "critic.fsdp.full_determinism=True"), {"trainer_seed"}),
    ("0.9.1", (), ("critic.fsdp.full_determinism=True",), set()),  # no critic
])
def test_one_override_is_the_trainer_seed(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


def _trainer_config(strategy: str = "fsdp", **tc) -> dict:
    """The Trinity config with ``strategy`` and ``tc`` as its trainer_config."""
    return _with(trainer={"trainer_strategy": strategy, **({"trainer_config": tc} if tc else {})})


FSDP_DETERMINISM = {"actor_rollout_ref": {"actor": {"fsdp_config": {"full_determinism": True}}}}


@pytest.mark.parametrize("a, b, quantities", [
    (_trainer_config(), _trainer_config(**FSDP_DETERMINISM), {"trainer_seed"}),
    (_trainer_config(**FSDP_DETERMINISM), _trainer_config(actor_rollout_ref={"actor": {"fsdp_config": {
        "full_determinism": True, "seed": 42}}}), set()),  # veRL's engine default spelled out
    (_trainer_config(), _trainer_config(actor_rollout_ref={"actor": {"fsdp_config": {"seed": 7}}}), set()),
    # Megatron's engine always seeds (and its optimizer and precision are Megatron's)
    (_trainer_config(), _trainer_config("megatron"), {"trainer_seed", "optimizer", "precision"}),
    (_trainer_config("megatron"), _trainer_config("megatron", actor_rollout_ref={"actor": {"megatron": {
        "seed": 42}}}), set()),
    (_trainer_config("megatron"), _trainer_config("megatron", actor_rollout_ref={"actor": {"megatron": {
        "seed": 7}}}), {"trainer_seed"}),
])
def test_one_field_of_a_trinity_config_is_the_trainer_seed(tmp_path, a, b, quantities):
    assert _differences(tmp_path, a, b, ext=".yaml") == quantities


@pytest.mark.parametrize("release, changed, written", [
    ("0.9.1", (DETERMINISM, f"{A}.fsdp_config.seed=7"), {"full_determinism": True, "seed": 7}),
    ("0.7.1", (DETERMINISM,), None),  # unread by the legacy workers: left out
])
def test_a_launch_and_its_conversion_seed_alike(tmp_path, release, changed, written):
    script = launch(tmp_path, *BASE, *changed)
    done = rftc("convert", script, "--verl-version", release, "-o", tmp_path / "out.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    tc = yaml.safe_load((tmp_path / "out.yaml").read_text())["trainer"].get("trainer_config") or {}
    assert (tc.get("actor_rollout_ref", {}).get("actor", {}).get("fsdp_config")) == written
    diff = rftc("diff", script, tmp_path / "out.yaml", "--verl-version", release, "--format", "json", cwd=tmp_path)
    assert "trainer_seed" not in {d["quantity"] for d in json.loads(diff.stdout)["differences"]}


def test_a_megatron_launch_of_verl_0_3_keeps_its_seed(tmp_path):
    """verl 0.1-0.3's Megatron workers seed with 1 by default; the conversion writes it over Trinity's 42."""
    overrides = (*(o.replace("n_gpus_per_node=2", "n_gpus_per_node=8") for o in BASE),
                 f"{A}.megatron.tensor_model_parallel_size=1", "actor_rollout_ref.rollout.tensor_model_parallel_size=1",
                 *MEGATRON)
    script = launch(tmp_path, *overrides)
    done = rftc("convert", script, "--verl-version", "0.3.0.post1", "-o", tmp_path / "out.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    tc = yaml.safe_load((tmp_path / "out.yaml").read_text())["trainer"]["trainer_config"]
    assert tc["actor_rollout_ref"]["actor"]["megatron"]["seed"] == 1
    diff = rftc("diff", script, tmp_path / "out.yaml", "--verl-version", "0.3.0.post1", "--format", "json",
                cwd=tmp_path)
    assert "trainer_seed" not in {d["quantity"] for d in json.loads(diff.stdout)["differences"]}


SFT = ("data.train_files=/d/train.parquet", "data.train_batch_size=16", "data.micro_batch_size_per_gpu=2",
       "trainer.total_training_steps=10", "model.path=/m", "trainer.nnodes=1", "trainer.n_gpus_per_node=8",
       "data.messages_key=messages")


def test_the_engine_sft_trainer_seeds_under_full_determinism(tmp_path):
    """veRL's engine SFT trainer seeds as the RL workers' FSDP engine does; its conversion carries the seed."""
    sides = []
    for name, extra in (("a", ()), ("b", ("engine.full_determinism=True", "engine.seed=7"))):
        (tmp_path / name).mkdir()
        sides.append(launch(tmp_path / name, *SFT, *extra, module="verl.trainer.sft_trainer"))
    diff = rftc("diff", *sides, "--verl-version", "0.9.1", "--format", "json")
    assert {d["quantity"] for d in json.loads(diff.stdout)["differences"]} == {"trainer_seed"}, diff.stderr
    done = rftc("convert", sides[1], "--verl-version", "0.9.1", "-o", tmp_path / "out.yaml")
    assert done.returncode == 0, done.stderr
    diff = rftc("diff", sides[1], tmp_path / "out.yaml", "--verl-version", "0.9.1", "--format", "json")
    assert "trainer_seed" not in {d["quantity"] for d in json.loads(diff.stdout)["differences"]}
