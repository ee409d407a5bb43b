"""`rftc diff` names the optimizer, LoRA, advantage normalisation, KL controller and sampling quantities a change
trains differently by, on both sides: a plain GRPO launch of verl 0.9.1 with one override changed at a time, a
Trinity-RFT config with one field changed at a time, and the release rules veRL's code follows (which key clips the
actor's gradient, which rollouts read do_sample, which trainers filter groups). A LoRA target list and the
expression PEFT matches the same modules with are one value."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from rftc.mapping import lora
from support.cli import launch, rftc

BASE = ("algorithm.adv_estimator=grpo", "data.train_files=/d/train.parquet", "data.train_batch_size=8",
        "actor_rollout_ref.model.path=/m", "actor_rollout_ref.rollout.name=vllm",
        "actor_rollout_ref.actor.ppo_mini_batch_size=4", "actor_rollout_ref.rollout.n=4",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1",
        "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1", "trainer.total_training_steps=10",
        "trainer.n_gpus_per_node=2", "trainer.nnodes=1")
A, R, O = "actor_rollout_ref.actor", "actor_rollout_ref.rollout", "actor_rollout_ref.actor.optim"


def _differences(tmp_path, a: tuple, b: tuple, *options: str, ext: str = ".sh") -> set[str]:
    """The quantities `rftc diff` reports between two launches (or two Trinity configs) made of ``a`` and ``b``."""
    return {d["quantity"] for d in report(tmp_path, a, b, *options, ext=ext)}


def report(tmp_path, a: tuple, b: tuple, *options: str, ext: str = ".sh") -> list[dict]:
    """The differences `rftc diff --format json` reports between the launches (or configs) ``a`` and ``b``."""
    sides = []
    for name, content in (("a", a), ("b", b)):
        folder = tmp_path / name
        folder.mkdir(parents=True)
        if ext == ".sh":  # Hydra's options (--config-name) before the overrides, as its command line takes them
            words = (*BASE, *content)
            sides.append(launch(folder, *sorted(words, key=lambda w: not w.startswith("--"))))
        else:
            path = folder / "config.yaml"
            path.write_text(yaml.safe_dump(content))
            sides.append(path)
    done = rftc("diff", *sides, "--format", "json", *options)
    assert done.returncode in (0, 1), done.stderr
    out = json.loads(done.stdout)
    assert out["compared"], done.stderr
    return out["differences"]


@pytest.mark.parametrize("base, changed, quantities", [
    ((), (f"{O}.betas=[0.9,0.95]",), {"betas"}),
    ((), (f"{O}.clip_grad=0.5",), {"clip_grad"}),
    ((), ("actor_rollout_ref.actor.optim.override_optimizer_config={eps:1e-6}",), {"eps"}),
    ((), (f"{O}.optimizer=SGD",), {"optimizer", "betas", "eps"}),
    ((f"{O}.lr_scheduler_type=cosine",), (f"{O}.lr_scheduler_type=cosine", f"{O}.min_lr_ratio=0.1"),
     {"min_lr_ratio"}),
    ((f"{O}.lr_scheduler_type=cosine",), (f"{O}.lr_scheduler_type=cosine", f"{O}.num_cycles=1.0"), {"lr_cycles"}),
    ((), ("actor_rollout_ref.model.lora_rank=8",), {"lora"}),
    (("actor_rollout_ref.model.lora_rank=8",), ("actor_rollout_ref.model.lora_rank=8",
                                                "actor_rollout_ref.model.target_modules=[q_proj,v_proj]"), {"lora"}),
    ((), ("algorithm.norm_adv_by_std_in_grpo=False",), {"norm_adv_by_std"}),
    (("algorithm.use_kl_in_reward=True",), ("algorithm.use_kl_in_reward=True", "algorithm.kl_ctrl.type=adaptive",
                                            "algorithm.kl_ctrl.target_kl=0.1", "algorithm.kl_ctrl.horizon=1000"),
     {"kl_in_reward_ctrl"}),
    ((), ("algorithm.filter_groups.enable=True",), {"dynamic_sampling", "group_refill"}),
    ((), (f"{R}.temperature=0",), {"temperature", "do_sample"}),
    ((), (f"{R}.ignore_eos=True",), {"ignore_eos"}),
    ((), (f"{R}.seed=1",), {"sampling_seed"}),
], ids=lambda v: " ".join(v) if isinstance(v, tuple) else None)
def test_one_override_of_a_grpo_launch_is_its_quantity(tmp_path, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", "0.9.1") == quantities


def test_vllm_does_not_read_do_sample(tmp_path):
    """verl's vLLM and SGLang rollouts take do_sample from a validation batch only: the training rollout samples."""
    assert _differences(tmp_path, (), (f"{R}.do_sample=False",), "--verl-version", "0.9.1") == set()


@pytest.mark.parametrize("release, changed, differs", [
    ("0.7.1", (f"{A}.grad_clip=0.5",), True),  # the legacy FSDP actor: DataParallelPPOActor clips at grad_clip
    ("0.7.1", (f"{O}.clip_grad=0.5",), False),
    ("0.7.1", ("trainer.use_legacy_worker_impl=disable", f"{O}.clip_grad=0.5"), True),  # the engine workers
    ("0.9.1", (f"{A}.grad_clip=0.5",), False),  # no legacy workers: the engine clips at optim.clip_grad
    ("0.9.1", (f"{O}.clip_grad=0.5",), True),
])
def test_the_clip_is_the_key_the_releases_actor_reads(tmp_path, release, changed, differs):
    base = ("trainer.use_legacy_worker_impl=disable",) if "trainer.use_legacy_worker_impl=disable" in changed else ()
    got = _differences(tmp_path, base, changed, "--verl-version", release)
    assert got == ({"clip_grad"} if differs else set())


def test_main_ppo_without_v1_does_not_filter_groups(tmp_path):
    assert _differences(tmp_path, ("trainer.use_v1=False",), ("trainer.use_v1=False",
                                                             "algorithm.filter_groups.enable=True"),
                        "--verl-version", "0.9.1") == set()


TRINITY = {"mode": "both", "project": "p", "name": "n", "checkpoint_root_dir": "/tmp/ck",
           "model": {"model_path": "/m", "max_response_tokens": 100, "max_model_len": 300},
           "cluster": {"node_num": 1, "gpu_per_node": 2},
           "algorithm": {"algorithm_type": "grpo", "repeat_times": 4},
           "buffer": {"batch_size": 2, "total_steps": 10,
                      "explorer_input": {"taskset": {"name": "t", "storage_type": "file", "path": "/d"}}},
           "synchronizer": {"sync_interval": 1}}


def _with(**sections) -> dict:
    out = json.loads(json.dumps(TRINITY))
    for section, fields in sections.items():
        out.setdefault(section, {}).update(fields)
    return out


@pytest.mark.parametrize("changed, quantities", [
    (dict(algorithm={**TRINITY["algorithm"], "optimizer": {"betas": [0.9, 0.95]}}), {"betas"}),
    (dict(algorithm={**TRINITY["algorithm"], "optimizer": {"clip_grad": 0.5}}), {"clip_grad"}),
    (dict(algorithm={**TRINITY["algorithm"], "optimizer": {"optimizer_type": "sgd"}}), {"optimizer", "betas", "eps"}),
    # trainer_config's actor optim keys are merged over algorithm.optimizer (none is frozen)
    (dict(trainer={"trainer_config": {"actor_rollout_ref": {"actor": {"optim": {"clip_grad": 0.5}}}}}),
     {"clip_grad"}),
    (dict(trainer={"trainer_config": {"actor_rollout_ref": {"actor": {"optim": {"grad_clip": 0.5}}}}}),
     {"clip_grad"}),  # veRL's optimizer config takes the deprecated name over clip_grad
    (dict(trainer={"grad_clip": 0.5}), set()),  # the actor's grad_clip: no worker of verl 0.8 reads it
    # a starting adapter is the LoRA trained, and with LoRA the reference is the actor without its adapter (the
    # precision's reference); a group filter refills its batch
    (dict(model={**TRINITY["model"], "lora_configs": [{"lora_rank": 8, "path": "/a"}]}), {"lora", "precision"}),
    # the arguments given replace grpo's default ones: its epsilon stays the constructor's (advantage_args)
    (dict(algorithm={**TRINITY["algorithm"], "advantage_fn_args": {"std_cal_level": "batch"}}),
     {"norm_adv_by_std"}),
    (dict(data_processor={"experience_pipeline": {"operators": [
        {"name": "rftc.trinity.verl_operators.VerlFilterGroups", "args": {"metric": "acc"}}]}}),
     {"dynamic_sampling", "group_refill"}),
    (dict(explorer={"rollout_model": {"ignore_eos": True}}), {"ignore_eos"}),
    (dict(explorer={"rollout_model": {"seed": 7}}), {"sampling_seed"}),
    (dict(model={**TRINITY["model"], "temperature": 0.0}), {"temperature", "do_sample"}),
    (dict(model={**TRINITY["model"], "repetition_penalty": 1.1}), {"repetition_penalty"}),
    (dict(explorer={"rollout_model": {"min_response_tokens": 5}}), {"min_response_length"}),
], ids=lambda v: json.dumps(v) if isinstance(v, dict) else None)
def test_one_field_of_a_trinity_config_is_its_quantity(tmp_path, changed, quantities):
    assert _differences(tmp_path, TRINITY, _with(**changed), ext=".yaml") == quantities


def test_the_adaptive_kl_controller(tmp_path):
    kl = {**TRINITY["algorithm"], "kl_penalty_fn": "k1", "kl_penalty_fn_args": {"kl_coef": 0.01}}
    adaptive = {**kl, "kl_penalty_fn_args": {"kl_coef": 0.01, "adaptive": True, "target_kl": 0.1, "horizon": 100}}
    assert _differences(tmp_path, _with(algorithm=kl), _with(algorithm=adaptive), ext=".yaml") == \
        {"kl_in_reward_ctrl"}


def test_a_target_list_and_its_expression_are_one_value():
    expr = lora.regex(["v_proj", "q_proj"])
    assert lora.targets(expr) == lora.targets(["q_proj", "v_proj"]) == "[q_proj, v_proj]"
    # PEFT matches a list by name or dotted suffix, a string by re.fullmatch: the expression matches the same
    for name, hit in (("model.layers.0.self_attn.q_proj", True), ("q_proj", True), ("x.qq_proj", False),
                      ("x.q_proj.lora_A", False)):
        assert bool(re.fullmatch(expr, name)) is hit
    assert lora.targets("q_proj") == "q_proj"  # a string is an expression: it matches only the top-level module
    assert lora.lora(0, 16, "all-linear") == lora.NONE


def test_a_launchs_target_list_converts_to_the_expression(tmp_path):
    script = launch(tmp_path, *BASE, "actor_rollout_ref.model.lora_rank=8",
                    "actor_rollout_ref.model.target_modules=[q_proj,v_proj]")
    done = rftc("convert", script, "--verl-version", "0.9.1", "-o", tmp_path / "out.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    cfg = yaml.safe_load((tmp_path / "out.yaml").read_text())
    assert cfg["model"]["lora_configs"][0]["target_modules"] == r"(.*\.)?(q_proj|v_proj)"
    diff = rftc("diff", script, tmp_path / "out.yaml", "--verl-version", "0.9.1", "--format", "json", cwd=tmp_path)
    assert "lora" not in {d["quantity"] for d in json.loads(diff.stdout)["differences"]}


GAE = ("algorithm.adv_estimator=gae", "critic.model.path=/m", "critic.ppo_micro_batch_size_per_gpu=1")


@pytest.mark.parametrize("release, changed, differs", [
    ("0.7.1", ("critic.grad_clip=0.5",), True),  # the legacy critic: DataParallelPPOCritic clips at grad_clip
    ("0.7.1", ("critic.optim.clip_grad=0.5",), False),
    ("0.9.1", ("critic.grad_clip=0.5",), False),
    ("0.9.1", ("critic.optim.clip_grad=0.5",), True),
    ("0.9.1", ("critic.optim.betas=[0.9,0.95]",), True),
    ("0.9.1", ("critic.optim.lr_scheduler_type=cosine",), True),
])
def test_the_critics_optimizer(tmp_path, release, changed, differs):
    got = _differences(tmp_path, GAE, (*GAE, *changed), "--verl-version", release)
    assert got == ({"critic_optimizer"} if differs else set())


@pytest.mark.parametrize("critic, differs", [
    ({"optim": {"clip_grad": 0.5}}, True),
    ({"optim": {"grad_clip": 0.5}}, True),  # veRL's optimizer config takes the deprecated name over clip_grad
    ({"optim": {"warmup_style": "cosine"}}, True),  # and warmup_style over lr_scheduler_type
    ({"grad_clip": 0.5}, False),  # frozen: Trinity sets it from trainer.grad_clip, and no worker reads it
])
def test_trinitys_critic_optimizer(tmp_path, critic, differs):
    ppo = {**TRINITY["algorithm"], "algorithm_type": "ppo"}
    base = _with(algorithm=ppo, model={**TRINITY["model"], "critic_model_path": "/m"})
    changed = json.loads(json.dumps(base))
    changed["trainer"] = {"trainer_config": {"critic": critic}}
    assert _differences(tmp_path, base, changed, ext=".yaml") == ({"critic_optimizer"} if differs else set())


def test_megatron_trains_model_lora_not_lora_rank(tmp_path):
    """verl's Megatron engine takes its LoRA from model.lora (Megatron-Bridge): lora_rank changes nothing there
    (without a KL), and Trinity's model.lora_configs, which Trinity writes as lora_rank, trains every weight of a
    Megatron actor; its trainer computes the (grpo's KL) reference with the actor all the same (verl's ray_trainer.py
    ref_in_actor reads lora_rank)."""
    mega = ("--config-name=ppo_megatron_trainer", f"{A}.megatron.tensor_model_parallel_size=1")
    assert _differences(tmp_path / "1", mega, (*mega, "actor_rollout_ref.model.lora_rank=8"),
                        "--verl-version", "0.9.1") == set()
    assert _differences(tmp_path / "2", mega, (*mega, "actor_rollout_ref.model.lora.rank=8"),
                        "--verl-version", "0.9.1") == {"lora"}
    trainer = {"trainer_strategy": "megatron"}
    lora_configs = {**TRINITY["model"], "lora_configs": [{"lora_rank": 8, "path": "/a"}]}
    assert _differences(tmp_path / "3", _with(trainer=trainer), _with(trainer=trainer, model=lora_configs),
                        ext=".yaml") == {"precision"}


@pytest.mark.parametrize("release, base, differs", [
    ("0.6.1", (), True),  # the sync vLLM rollout: SamplingParams from the config's keys
    ("0.6.1", (f"{R}.mode=async",), False),  # the agent loop: fixed sampling params
    ("0.8.0", (), False),
    ("0.9.1", (), True),  # vLLM's async server reads it
])
def test_ignore_eos_where_the_rollout_reads_it(tmp_path, release, base, differs):
    got = _differences(tmp_path, base, (*base, f"{R}.ignore_eos=True"), "--verl-version", release)
    assert got == ({"ignore_eos"} if differs else set())


@pytest.mark.parametrize("release, differs", [("0.6.1", True), ("0.9.1", False)])
def test_repetition_penalty_where_the_rollout_reads_the_configs_keys(tmp_path, release, differs):
    """The sync vLLM rollout of 0.6 passes a config key naming a SamplingParams field; the agent loop samples with
    repetition_penalty 1.0 whatever the config says."""
    got = _differences(tmp_path, (), (f"+{R}.repetition_penalty=1.1",), "--verl-version", release)
    assert got == ({"repetition_penalty"} if differs else set())
