"""`rftc diff` names the model's own settings on both sides: the configuration it is built with (veRL's
override_config as the release's worker applies it, hf_config_path where the engine workers read it; Trinity's
rope_theta and the rope settings its rollout engine gets), the modules the actor freezes, the multi-token-prediction
loss, MoE routing replay, the critic's LoRA and config, and what the rows naming a model's weights, reference,
adapter, tokenizer or rollout engine add to the model, reference model, LoRA, chat template and context length. A
launch with one override changed at a time (per release where veRL's workers read a key otherwise), a Trinity config
with one field changed, the defaults spelled out, and a launch and its own conversion, whose warnings name what
differs."""

from __future__ import annotations

import json

import pytest
import yaml

from support.cli import launch, rftc
from test_diff_optimizer import BASE, GAE, TRINITY, _with
from test_diff_prompts import _convert_and_diff
from test_diff_steps import PPO_CONFIG, _differences

A, M = "actor_rollout_ref.actor", "actor_rollout_ref.model"
REF, R = "actor_rollout_ref.ref", "actor_rollout_ref.rollout"
MEGATRON = ("--config-name=ppo_megatron_trainer",)
KL = (f"{A}.use_kl_loss=True",)
ROUTER = "moe_config.freeze_moe_router"


@pytest.mark.parametrize("release, base, changed, quantities", [
    # the model's config: the legacy FSDP worker applies all of override_config, the engine's HFModelConfig too
    ("0.6.1", (), (f"+{M}.override_config.rope_theta=5",), {"model_config"}),
    ("0.9.1", (), (f"+{M}.override_config.rope_theta=5",), {"model_config"}),
    ("0.9.1", (f"+{M}.override_config.rope_theta=5",), (f"+{M}.override_config.model_config.rope_theta=5",), set()),
    # the legacy Megatron workers of 0.4.0 to 0.7.x apply its model_config entry only
    ("0.7.1", MEGATRON, (*MEGATRON, f"+{M}.override_config.rope_theta=5"), set()),
    ("0.7.1", MEGATRON, (*MEGATRON, f"+{M}.override_config.model_config.rope_theta=5"), {"model_config"}),
    ("0.3.0.post1", MEGATRON, (*MEGATRON, f"+{M}.override_config.rope_theta=5"), {"model_config"}),
    # hf_config_path: read by the engine workers' HFModelConfig only; the model's own path is no other file
    ("0.6.1", (), (f"{M}.hf_config_path=/cfg",), set()),
    ("0.9.1", (), (f"{M}.hf_config_path=/cfg",), {"model_config"}),
    ("0.9.1", (), (f"{M}.hf_config_path=/m",), set()),
    # the tokenizer: every release with the key reads it; data.tokenizer none
    ("0.9.1", (), (f"{M}.tokenizer_path=/tok",), {"chat_template"}),
    ("0.9.1", (), (f"{M}.tokenizer_path=/m",), set()),
    ("0.9.1", (), ("data.tokenizer=/tok",), set()),
    # a reference of its own: the legacy FSDP worker from 0.6.0 reads ref.model.path (no LoRA)
    ("0.6.1", KL, (*KL, f"{REF}.model={{path:/ref}}"), {"reference_model"}),
    ("0.7.1", KL, (*KL, f"+{REF}.model.path=/ref"), {"reference_model"}),
    # the actor is the reference (without its adapter: the precision's reference part)
    ("0.7.1", KL, (*KL, f"+{REF}.model.path=/ref", f"{M}.lora_rank=8"), {"lora", "precision"}),
    ("0.5.0", KL, (*KL, f"+{REF}.model.path=/ref"), set()),
    ("0.9.1", KL, (*KL, f"+{REF}.model.path=/ref"), set()),
    # load_weight: read by the legacy Megatron workers only
    ("0.7.1", MEGATRON, (*MEGATRON, f"{A}.load_weight=False"), {"model"}),
    ("0.7.1", (*MEGATRON, *KL), (*MEGATRON, *KL, f"{REF}.load_weight=False"), {"reference_model"}),
    ("0.7.1", (*MEGATRON, *KL), (*MEGATRON, *KL, f"{A}.load_weight=False"), {"model", "reference_model"}),
    ("0.8.0", MEGATRON, (*MEGATRON, f"{A}.load_weight=False"), set()),  # the Megatron engine reads none
    # frozen modules: the legacy FSDP worker's vision tower, the Megatron router
    ("0.7.1", (), (f"{A}.freeze_vision_tower=True",), {"frozen_modules"}),
    ("0.9.1", (), (f"{A}.freeze_vision_tower=True",), set()),
    ("0.7.1", MEGATRON, (*MEGATRON, f"{M}.override_config.{ROUTER}=True"), {"frozen_modules"}),
    ("0.9.1", MEGATRON, (*MEGATRON, f"+{A}.megatron.override_mcore_model_config.{ROUTER}=True"), {"frozen_modules"}),
    # the MTP loss of a Megatron actor
    ("0.9.1", MEGATRON, (*MEGATRON, f"{M}.mtp.enable=True", f"{M}.mtp.enable_train=True"), {"mtp"}),
    ("0.9.1", MEGATRON, (*MEGATRON, f"{M}.mtp.enable=True", f"{M}.mtp.enable_rollout=True"), set()),
    ("0.9.1", (), (f"{M}.mtp.enable=True", f"{M}.mtp.enable_train=True"), set()),
    # MoE routing replay: the legacy Megatron actor's key (0.7), the engine's section; FSDP replays none
    ("0.7.1", MEGATRON, (*MEGATRON, f"{A}.router_replay.mode=R2"), {"moe_routing"}),
    ("0.9.0", MEGATRON, (*MEGATRON, f"{A}.router_replay.mode=R2"), set()),  # the engine's own section only
    ("0.9.1", MEGATRON, (*MEGATRON, f"{A}.megatron.router_replay.mode=R2"), {"moe_routing"}),
    ("0.9.1", (*MEGATRON, f"{A}.megatron.router_replay.mode=R3"),
     (*MEGATRON, f"{A}.megatron.router_replay.mode=R3", f"{R}.enable_rollout_routing_replay=True"), {"moe_routing"}),
    ("0.9.1", MEGATRON, (*MEGATRON, f"{R}.enable_rollout_routing_replay=True"), set()),
    ("0.9.1", (), (f"{R}.enable_rollout_routing_replay=True",), set()),  # the FSDP engine replays none
    # LoRA: the excluded modules and a starting adapter
    ("0.9.1", (f"{M}.lora_rank=8",), (f"{M}.lora_rank=8", f"{M}.exclude_modules=[lm_head]"), {"lora"}),
    ("0.9.1", (f"{M}.lora_rank=8",), (f"{M}.lora_rank=8", f"{M}.lora_adapter_path=/adapter"), {"lora"}),
    ("0.9.1", (f"{M}.lora_rank=8", f"{M}.lora_adapter_path=/adapter"),
     (f"{M}.lora_rank=16", f"{M}.lora_adapter_path=/adapter"), set()),  # the adapter's own rank
    ("0.7.1", (), (f"{M}.lora_adapter_path=/adapter",), {"lora"}),  # the legacy worker trains it at rank 0
    ("0.9.1", (), (f"{M}.lora_adapter_path=/adapter",), set()),  # the engine only at lora_rank > 0
    # Megatron-Bridge's LoRA: every setting it is given but how the rollout gets the weights
    ("0.9.1", (*MEGATRON, f"{M}.lora.rank=8"), (*MEGATRON, f"{M}.lora.rank=8", f"{M}.lora.dropout=0.1"), {"lora"}),
    ("0.9.1", (*MEGATRON, f"{M}.lora.rank=8"), (*MEGATRON, f"{M}.lora.rank=8", f"{M}.lora.exclude_modules=[a]"),
     {"lora"}),
    ("0.9.1", (*MEGATRON, f"{M}.lora.rank=8"), (*MEGATRON, f"{M}.lora.rank=8", f"{M}.lora.merge=True"), set()),
], ids=lambda v: " ".join(v) if isinstance(v, tuple) else None)
def test_one_override_is_its_quantity(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


@pytest.mark.parametrize("release, base, changed, quantities", [
    ("0.9.1", (), ("critic.model.lora_rank=8",), {"critic_lora"}),
    ("0.9.1", ("critic.model.lora_rank=8",), ("critic.model.lora_rank=8", "critic.model.lora_alpha=32"),
     {"critic_lora"}),
    ("0.9.1", MEGATRON, (*MEGATRON, "critic.model.lora.rank=8"), {"critic_lora"}),
    ("0.9.1", MEGATRON, (*MEGATRON, "critic.model.lora_rank=8"), set()),  # a Megatron critic reads model.lora
    ("0.9.1", (), ("+critic.model.override_config.rope_theta=5",), {"critic_model_config"}),
    ("0.9.1", (), ("critic.model.hf_config_path=/cfg",), {"critic_model_config"}),
    ("0.9.1", (), ("critic.model.custom_chat_template=x",), set()),  # the critic takes the rollout's tokens
    ("0.7.1", MEGATRON, (*MEGATRON, f"critic.model.override_config.{ROUTER}=True"), {"critic_model_config"}),
    ("0.7.1", MEGATRON, (*MEGATRON, "critic.load_weight=False"), {"critic_model"}),
])
def test_one_override_of_a_ppo_launch_is_its_quantity(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, (*GAE, *base), (*GAE, *changed), "--verl-version", release) == quantities


def test_without_a_critic_its_model_settings_train_nothing(tmp_path):
    assert _differences(tmp_path, (), ("critic.model.lora_rank=8", "+critic.model.override_config.rope_theta=5"),
                        "--verl-version", "0.9.1") == set()



def _model(**fields) -> dict:
    return _with(model={**TRINITY["model"], **fields})


MEGATRON_CONFIG = _with(trainer={"trainer_strategy": "megatron"})


@pytest.mark.parametrize("base, changed, quantities", [
    # rope_theta reaches the trainer's override_config and the rollout engine, rope_scaling the rollout engine only
    (TRINITY, _model(rope_theta=5.0), {"model_config"}),
    (TRINITY, _model(rope_scaling={"rope_type": "yarn", "factor": 2.0}), {"model_config"}),
    (_model(rope_theta=5.0), _with(model={**TRINITY["model"], "rope_theta": 5.0},
                                   explorer={"rollout_model": {"rope_theta": 5.0}}), set()),  # the model's, spelled out
    (TRINITY, _with(explorer={"rollout_model": {"rope_theta": 5.0}}), {"model_config"}),
    (TRINITY, _with(trainer={"trainer_config": {"actor_rollout_ref": {"model": {"override_config": {
        "rope_theta": 5.0}}}}}), {"model_config"}),
    # the rollout engine's own copies of the model's settings
    (TRINITY, _with(explorer={"rollout_model": {"max_model_len": 500}}), {"context_length"}),
    (TRINITY, _with(explorer={"rollout_model": {"max_model_len": 300}}), set()),  # the model's, spelled out
    (TRINITY, _with(explorer={"rollout_model": {"chat_template": "{{ x }}"}}), {"chat_template"}),
    (TRINITY, _with(explorer={"rollout_model": {"enable_thinking": False}}), {"chat_template"}),
    (TRINITY, _with(explorer={"rollout_model": {"model_path": "/other"}}), {"model", "chat_template"}),
    (TRINITY, _with(explorer={"rollout_model": {"model_path": "/m"}}), set()),
    # MoE routing replay and the frozen router: a Megatron trainer's
    (TRINITY, _with(algorithm={**TRINITY["algorithm"], "enable_router_replay": True}), set()),
    (MEGATRON_CONFIG, _with(trainer={"trainer_strategy": "megatron"},
                            algorithm={**TRINITY["algorithm"], "enable_router_replay": True}), {"moe_routing"}),
    (MEGATRON_CONFIG, _with(trainer={"trainer_strategy": "megatron", "trainer_config": {"actor_rollout_ref": {
        "actor": {"megatron": {"override_mcore_model_config": {"moe_config": {"freeze_moe_router": True}}}}}}}),
     {"frozen_modules"}),
    (MEGATRON_CONFIG, _with(trainer={"trainer_strategy": "megatron", "trainer_config": {"actor_rollout_ref": {
        "model": {"mtp": {"enable": True, "enable_train": True}}}}}), {"mtp"}),
    # a LoRA adapter to start from, and the validator's dummy one
    (_model(lora_configs=[{"lora_rank": 8}]), _model(lora_configs=[{"lora_rank": 8, "path": "/a"}]), {"lora"}),
    (_model(lora_configs=[{"lora_rank": 8}]), _model(lora_configs=[{"lora_rank": 8, "path": "/a", "is_dummy": True}]),
     set()),
    (_model(lora_configs=[{"lora_rank": 8}]), _model(lora_configs=[{"lora_rank": 8, "exclude_modules": "lm_head"}]),
     {"lora"}),
], ids=lambda v: json.dumps(v) if isinstance(v, dict) else None)
def test_one_field_of_a_trinity_config_is_its_quantity(tmp_path, base, changed, quantities):
    assert _differences(tmp_path, base, changed, ext=".yaml") == quantities


def test_trinitys_critic_takes_rope_theta_only(tmp_path):
    """trinity/trainer/verl/trainer.py builds the critic's model config from model.rope_theta; trainer_config's
    critic.model reaches no worker."""
    theta = _with(algorithm=PPO_CONFIG["algorithm"], model={**PPO_CONFIG["model"], "rope_theta": 5.0})
    assert {"critic_model_config"} <= _differences(tmp_path / "a", PPO_CONFIG, theta, ext=".yaml")
    ignored = _with(algorithm=PPO_CONFIG["algorithm"], model=PPO_CONFIG["model"],
                    trainer={"trainer_config": {"critic": {"model": {"lora_rank": 8}}}})
    assert _differences(tmp_path / "b", PPO_CONFIG, ignored, ext=".yaml") == set()


@pytest.mark.parametrize("release, overrides", [
    ("0.9.1", ()),
    ("0.9.1", (f"+{M}.override_config.rope_theta=5",)),  # passed through trainer_config
    ("0.9.1", (f"{M}.lora_rank=8", f"{M}.lora_adapter_path=/adapter", f"{M}.exclude_modules=[lm_head]")),
    ("0.7.1", (*MEGATRON, f"+{M}.override_config.rope_theta=5")),  # not read: implied, not passed
    ("0.7.1", (*MEGATRON, f"{M}.override_config.{ROUTER}=True")),  # the Megatron engine's key in Trinity
    ("0.9.1", (*MEGATRON, f"{M}.mtp.enable=True", f"{M}.mtp.enable_train=True")),  # trainer_config's model.mtp
])
def test_a_launch_and_its_conversion_build_one_model(tmp_path, release, overrides):
    stderr, _, quantities = _convert_and_diff(tmp_path, release, *overrides)
    assert not {"model_config", "frozen_modules", "mtp", "moe_routing", "lora", "model", "chat_template"} & \
        quantities, stderr


@pytest.mark.parametrize("release, overrides, warned, quantity", [
    ("0.9.1", (f"{M}.tokenizer_path=/tok",), f"{M}.tokenizer_path has no Trinity-RFT 0.6 equivalent",
     "chat_template"),
    ("0.7.1", (f"{A}.freeze_vision_tower=True",), f"{A}.freeze_vision_tower has no Trinity-RFT 0.6 equivalent",
     "frozen_modules"),
    ("0.7.1", (f"{M}.lora_adapter_path=/adapter",), "at lora_rank 0", "lora"),
])
def test_a_setting_trinity_cannot_carry_is_warned_and_differs(tmp_path, release, overrides, warned, quantity):
    stderr, _, quantities = _convert_and_diff(tmp_path, release, *overrides)
    assert warned in stderr, stderr
    assert quantity in quantities


def test_the_critics_lora_is_warned(tmp_path):
    """Trinity builds its critic without LoRA: the conversion warns rather than pass critic.model.lora_rank."""
    script = launch(tmp_path, *BASE, *GAE, "critic.model.lora_rank=8")
    done = rftc("convert", script, "--verl-version", "0.9.1", "--format", "concise", "-o", tmp_path / "out.yaml",
                cwd=tmp_path)
    assert done.returncode == 0 and "critic.model.lora_rank has no Trinity-RFT 0.6 equivalent" in done.stderr
    assert "lora_rank" not in str(yaml.safe_load((tmp_path / "out.yaml").read_text())["trainer"])
    diff = rftc("diff", script, tmp_path / "out.yaml", "--verl-version", "0.9.1", "--format", "json", cwd=tmp_path)
    assert "critic_lora" in {d["quantity"] for d in json.loads(diff.stdout)["differences"]}


SFT = ("data.train_files=/d/train.parquet", "data.train_batch_size=16", "data.micro_batch_size_per_gpu=2",
       "trainer.total_training_steps=10", "model.path=/m", "trainer.nnodes=1", "trainer.n_gpus_per_node=8",
       "data.messages_key=messages")


@pytest.mark.parametrize("changed, quantities", [
    (("+model.override_config.rope_theta=5",), {"model_config"}),
    (("model.hf_config_path=/cfg",), {"model_config"}),
    (("model.tokenizer_path=/tok",), {"chat_template"}),
    (("model.lora_rank=8", "model.lora_adapter_path=/adapter"), {"lora"}),
    # (a Megatron engine always seeds, the FSDP one under full_determinism only, and computes in megatron.dtype)
    (("engine.strategy=megatron", "model.mtp.enable=True", "model.mtp.enable_train=True"),
     {"mtp", "trainer_seed", "precision"}),
    (("model.mtp.enable=True", "model.mtp.enable_train=True"), set()),  # the FSDP engine trains no MTP layers
])
def test_one_override_of_the_engine_sft_trainer_is_its_quantity(tmp_path, changed, quantities):
    sides = []
    for name, extra in (("a", ()), ("b", changed)):
        (tmp_path / name).mkdir()
        sides.append(launch(tmp_path / name, *SFT, *extra, module="verl.trainer.sft_trainer"))
    diff = rftc("diff", *sides, "--verl-version", "0.9.1", "--format", "json")
    assert {d["quantity"] for d in json.loads(diff.stdout)["differences"]} == quantities, diff.stderr
