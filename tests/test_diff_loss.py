"""`rftc diff` names the loss's and the schedule's own settings, on both sides: the actor optimizer steps
trainer.critic_warmup holds the actor back (veRL counts its steps from 0 under verl 0.1, from 1 after, as Trinity),
what a seq-mean-token-sum-norm loss divides by (veRL's loss_scale_factor where its engine workers read it, else
data.max_response_length; Trinity's longest response of each batch), the critic's loss aggregation, the policy
loss's and the advantage's other arguments, what Trinity's algorithm type adds (its sample strategy, its schema),
and the engine's own schedule settings (the FSDP engine's zero_indexed_step, Megatron's warmup start and decay
steps). A launch with one override changed at a time, a Trinity config with one field changed at a time, the same
run written two ways, a launch and its own conversion, and the off-on-both-sides case."""

from __future__ import annotations

import json

import pytest
import yaml

from support.cli import launch, rftc
from test_diff_optimizer import BASE, GAE, TRINITY, _differences, _with, report
from test_diff_prompts import _convert_and_diff

A, O = "actor_rollout_ref.actor", "actor_rollout_ref.actor.optim"
MEGATRON = ("--config-name=ppo_megatron_trainer",)
SUM_NORM = f"{A}.loss_agg_mode=seq-mean-token-sum-norm"
COSINE = f"{O}.lr_scheduler_type=cosine"
ENGINE = "trainer.use_legacy_worker_impl=disable"  # verl 0.7's engine workers in place of the legacy ones


def _values(tmp_path, a, b, quantity: str, *options: str, ext: str = ".sh") -> tuple:
    """Both sides' values of ``quantity`` where `rftc diff` reports it."""
    (found,) = [d for d in report(tmp_path, a, b, *options, ext=ext) if d["quantity"] == quantity]
    return found["a"]["value"], found["b"]["value"]


@pytest.mark.parametrize("release, base, changed, quantities", [
    # the actor waits critic_warmup - 1 trainer steps (2 optimizer steps each: 8 x 4 / 16 responses) from 0.2 on
    ("0.9.1", (), ("trainer.critic_warmup=3",), {"critic_warmup"}),
    ("0.9.1", (), ("trainer.critic_warmup=1",), set()),  # step 1 is the first: nothing held back, as 0
    ("0.2", (), ("trainer.critic_warmup=1",), set()),
    ("0.9.1", GAE, (*GAE, "trainer.critic_warmup=2"), {"critic_warmup"}),
    # a seq-mean-token-sum-norm loss divides by max_response_length, or loss_scale_factor where the engine workers
    # read it (0.7.0 on; 0.7's legacy workers do not)
    ("0.9.1", (SUM_NORM,), (SUM_NORM, f"{A}.loss_scale_factor=4096"), {"loss_scale"}),
    ("0.9.1", (SUM_NORM,), (SUM_NORM, f"{A}.loss_scale_factor=512"), set()),  # max_response_length spelled out
    ("0.9.1", (), (f"{A}.loss_scale_factor=4096",), set()),  # token-mean reads no factor
    ("0.7.1", (SUM_NORM,), (SUM_NORM, f"{A}.loss_scale_factor=4096"), set()),
    ("0.7.1", (SUM_NORM, ENGINE), (SUM_NORM, ENGINE, f"{A}.loss_scale_factor=4096"), {"loss_scale"}),
    ("0.9.1", (SUM_NORM,), (SUM_NORM, "data.max_response_length=2048"),
     {"loss_scale", "max_response_length", "context_length"}),
    # the critic's loss aggregation follows the actor's unless set; its seq-mean-token-sum-norm divisor from 0.9.0
    ("0.9.1", GAE, (*GAE, "critic.loss_agg_mode=seq-mean-token-mean"), {"critic_loss_agg_mode"}),
    # (the legacy critic's mean of micro-batches' sequence means is the mini-batch's; of token means it is not)
    ("0.4.1", GAE, (*GAE, "critic.loss_agg_mode=seq-mean-token-mean"), {"critic_loss_agg_mode", "microbatch_loss"}),
    ("0.9.1", GAE, (*GAE, f"{A}.loss_agg_mode=seq-mean-token-mean"), {"loss_agg_mode", "critic_loss_agg_mode"}),
    ("0.9.1", (*GAE, SUM_NORM), (*GAE, SUM_NORM, "critic.loss_scale_factor=4096"), {"critic_loss_agg_mode"}),
    ("0.9.1", (), ("critic.loss_agg_mode=seq-mean-token-mean",), set()),  # no critic
    # veRL's clip_cov and kl_cov losses read arguments of their own; a null is their code's default
    ("0.9.1", (f"{A}.policy_loss.loss_mode=clip_cov",),
     (f"{A}.policy_loss.loss_mode=clip_cov", f"{A}.policy_loss.clip_cov_ratio=0.001"), {"policy_loss_args"}),
    ("0.9.1", (f"{A}.policy_loss.loss_mode=kl_cov",),
     (f"{A}.policy_loss.loss_mode=kl_cov", f"{A}.policy_loss.kl_cov_ratio=0.0002"), set()),
    ("0.9.1", (), (f"{A}.policy_loss.clip_cov_ratio=0.001",), set()),  # vanilla reads none
    # the FSDP engine's cosine schedule counts from 1 where zero_indexed_step is false (0.7's legacy workers: 0)
    ("0.9.1", (COSINE,), (COSINE, f"{O}.zero_indexed_step=False"), {"lr_schedule_args"}),
    ("0.9.1", (), (f"{O}.zero_indexed_step=False",), set()),  # the constant schedule counts nothing
    ("0.7.1", (COSINE,), (COSINE, f"{O}.zero_indexed_step=False"), set()),
    # Megatron's warmup starts at lr_warmup_init (read only while it warms up), decays over lr_decay_steps
    ("0.9.1", (f"{O}.lr_warmup_steps_ratio=0.1", *MEGATRON),
     (f"{O}.lr_warmup_steps_ratio=0.1", f"{O}.lr_warmup_init=1e-7", *MEGATRON), {"lr_schedule_args"}),
    ("0.9.1", MEGATRON, (f"{O}.lr_warmup_init=1e-7", *MEGATRON), set()),
    ("0.9.1", (f"{O}.lr_decay_style=cosine", *MEGATRON), (f"{O}.lr_decay_style=cosine", f"{O}.lr_decay_steps=5",
                                                         *MEGATRON), {"lr_horizon"}),
    ("0.9.1", (*GAE, *MEGATRON), (*GAE, "critic.optim.lr_decay_steps=5", *MEGATRON), {"critic_optimizer"}),
    ("0.9.1", (*GAE, "critic.optim.lr_decay_style=cosine", *MEGATRON),
     (*GAE, "critic.optim.lr_decay_style=cosine", "critic.optim.min_lr=1e-7", *MEGATRON), {"critic_optimizer"}),
    ("0.9.1", MEGATRON, (f"{O}.weight_decay_incr_style=linear", *MEGATRON), set()),  # start_wd = end_wd
])
def test_one_override_is_its_quantity(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


# verl 0.1's keys: global micro-batch sizes, one response a prompt
V01 = ("data.train_files=/d/train.parquet", "data.train_batch_size=8", "actor_rollout_ref.model.path=/m",
       f"{A}.ppo_mini_batch_size=4", f"{A}.ppo_micro_batch_size=2", "critic.ppo_micro_batch_size=2",
       "actor_rollout_ref.rollout.log_prob_micro_batch_size=2", "actor_rollout_ref.ref.log_prob_micro_batch_size=2",
       "critic.model.path=/m", "trainer.total_epochs=1", "trainer.n_gpus_per_node=2", "trainer.nnodes=1")


@pytest.mark.parametrize("warmup, skipped", [(1, 2), (2, 4)])
def test_verl_0_1_counts_its_steps_from_0(tmp_path, warmup, skipped):
    """verl 0.1's trainer updates the actor where critic_warmup <= its step, the first being 0: 1 holds it back one
    trainer step, two mini-batches of 4 of the 8 responses."""
    sides = []
    for name, overrides in (("a", V01), ("b", (*V01, f"trainer.critic_warmup={warmup}"))):
        (tmp_path / name).mkdir()
        sides.append(launch(tmp_path / name, *overrides))
    done = rftc("diff", *sides, "--verl-version", "0.1", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert [(d["quantity"], d["a"]["value"], d["b"]["value"]) for d in json.loads(done.stdout)["differences"]] == \
        [("critic_warmup", 0, skipped)]


PPO = _with(algorithm={**TRINITY["algorithm"], "algorithm_type": "ppo"},
            model={**TRINITY["model"], "critic_model_path": "/m"})


def _trainer(config: dict = TRINITY, strategy: str | None = None, **trainer) -> dict:
    """``config`` with ``trainer`` (and ``strategy`` as trainer_strategy) in its trainer section."""
    out = json.loads(json.dumps(config))
    out.setdefault("trainer", {}).update(trainer, **({"trainer_strategy": strategy} if strategy else {}))
    return out


def _algorithm(config: dict = TRINITY, **fields) -> dict:
    out = json.loads(json.dumps(config))
    out["algorithm"].update(fields)
    return out


def _optim(section: str, **keys) -> dict:
    """trainer_config with ``keys`` in the optim section of ``section`` (actor, critic)."""
    return {"actor_rollout_ref": {"actor": {"optim": keys}}} if section == "actor" else {"critic": {"optim": keys}}


WARMUP = {"optimizer": {"lr_warmup_steps_ratio": 0.1}}
COSINE_T = {"optimizer": {"lr_scheduler_type": "cosine"}}


@pytest.mark.parametrize("a, b, quantities", [
    (TRINITY, _trainer(critic_warmup=3), {"critic_warmup"}),
    (TRINITY, _trainer(critic_warmup=1), set()),  # Trinity's first step is 1
    (TRINITY, _algorithm(advantage_fn_args={"epsilon": 1e-4}), {"advantage_args"}),
    (TRINITY, _algorithm(advantage_fn_args={"epsilon": 1e-6, "std_threshold": None}), set()),  # grpo's defaults
    (TRINITY, _algorithm(policy_loss_fn_args={"clip_range": 0.2, "enable_sequence_masking": True}),
     {"policy_loss_args"}),
    # delta_sequence_masking is read only with sequence masking on
    (TRINITY, _algorithm(policy_loss_fn_args={"clip_range": 0.2, "delta_sequence_masking": 0.5}), set()),
    (TRINITY, _algorithm(policy_loss_fn_args={"clip_range": 0.2, "fallback_to_policy_gradient": True}),
     {"policy_loss_args"}),
    (PPO, _trainer(PPO, trainer_config={"critic": {"loss_agg_mode": "seq-mean-token-mean"}}),
     {"critic_loss_agg_mode"}),
    (TRINITY, _trainer(trainer_config={"critic": {"loss_agg_mode": "seq-mean-token-mean"}}), set()),  # no critic
    (_algorithm(**COSINE_T), _trainer(_algorithm(**COSINE_T), trainer_config=_optim("actor", zero_indexed_step=False)),
     {"lr_schedule_args"}),
    (TRINITY, _trainer(trainer_config=_optim("actor", zero_indexed_step=False)), set()),  # constant
    # Trinity's Megatron warmup starts at min_lr_ratio x lr (0.01 x lr by default)
    (_trainer(_algorithm(**WARMUP), "megatron"), _trainer(_algorithm(optimizer={**WARMUP["optimizer"],
                                                                               "min_lr_ratio": 0.0}), "megatron"),
     {"lr_schedule_args"}),
    (_trainer(_algorithm(**WARMUP), "megatron"), _trainer(_algorithm(**WARMUP), "megatron", trainer_config=_optim(
        "actor", lr_warmup_init=1e-8)), set()),  # the default spelled out (0.01 x 1e-6)
    (_trainer(_algorithm(**COSINE_T), "megatron"), _trainer(_algorithm(**COSINE_T), "megatron", trainer_config=_optim(
        "actor", lr_decay_steps=4)), {"lr_horizon"}),
    (_trainer(PPO, "megatron"), _trainer(PPO, "megatron", trainer_config=_optim("critic", lr_decay_steps=4)),
     {"critic_optimizer"}),
    # read by the Tinker trainer only: verl 0.8's engine workers, which Trinity's verl trainer runs, do not
    (TRINITY, _trainer(fix_actor_microbatch_loss_scale=True), set()),
], ids=lambda v: json.dumps(v) if isinstance(v, dict) else None)
def test_one_field_of_a_trinity_config_is_its_quantity(tmp_path, a, b, quantities):
    assert _differences(tmp_path, a, b, ext=".yaml") == quantities


DPO = {**{k: TRINITY[k] for k in ("project", "name", "checkpoint_root_dir", "model", "cluster")}, "mode": "train",
       "algorithm": {"algorithm_type": "dpo"}, "trainer": {"save_interval": 4},
       "synchronizer": {"sync_method": "checkpoint"},
       "buffer": {"batch_size": 2, "train_batch_size": 4, "total_steps": 10, "trainer_input": {
           "experience_buffer": {"name": "pairs", "storage_type": "file", "path": "/d"}}}}


@pytest.mark.parametrize("config, added", [
    (_algorithm(algorithm_type="mix"), "mix: sample strategy mix"),  # expert data read beside the rollouts
    (DPO, "dpo: dpo data"),  # its trainer reads chosen and rejected pairs
])
def test_what_an_algorithm_type_adds(tmp_path, config, added):
    """Trinity's algorithm types that add a sample strategy or a schema to their functions: veRL's trainer has
    neither, nor has Trinity's grpo (none)."""
    assert _values(tmp_path, TRINITY, config, "algorithm", ext=".yaml") == ("none", added)


def test_the_configs_own_sample_strategy_replaces_the_algorithms(tmp_path):
    a, b = _algorithm(algorithm_type="mix"), _algorithm(algorithm_type="mix", sample_strategy="default")
    assert _values(tmp_path, a, b, "algorithm", ext=".yaml") == ("mix: sample strategy mix", "none")



def _actor_optim(config: dict) -> dict:
    return config["trainer"].get("trainer_config", {}).get("actor_rollout_ref", {}).get("actor", {}).get("optim", {})


@pytest.mark.parametrize("release, overrides, written", [
    ("0.9.1", ("trainer.critic_warmup=3",), 5),  # 2 veRL steps x 2 trainer steps a veRL step, from step 1
    ("0.9.1", ("trainer.critic_warmup=1",), 1),
    ("0.2", ("trainer.critic_warmup=3",), 5),
])
def test_a_launch_and_its_conversion_hold_the_actor_back_alike(tmp_path, release, overrides, written):
    stderr, config, quantities = _convert_and_diff(tmp_path, release, *overrides)
    assert config["trainer"]["critic_warmup"] == written
    assert "critic_warmup" not in quantities


def test_a_seq_mean_token_sum_norm_launch_and_its_conversion(tmp_path):
    """Trinity divides the token sums by the longest response of each batch, veRL by max_response_length: the
    conversion warns, and the diff names it."""
    stderr, config, quantities = _convert_and_diff(tmp_path, "0.9.1", SUM_NORM)
    assert "RFTC305" in stderr and "the longest response of each batch" in stderr, stderr
    assert "loss_scale" in quantities and "loss_agg_mode" not in quantities


@pytest.mark.parametrize("release, overrides, optim", [
    # Megatron: Trinity's warmup would start at min_lr_ratio x lr; the conversion keeps veRL's 0.0
    ("0.9.1", (f"{O}.lr_warmup_steps_ratio=0.1", *MEGATRON), {"lr_warmup_init": 0.0}),
    ("0.9.1", (f"{O}.lr_warmup_steps_ratio=0.1", f"{O}.lr_warmup_init=1e-7", *MEGATRON), {"lr_warmup_init": 1e-7}),
    ("0.9.1", (f"{O}.lr_decay_style=cosine", f"{O}.lr_decay_steps=5", *MEGATRON), {"lr_decay_steps": 10}),
    ("0.9.1", (COSINE, f"{O}.zero_indexed_step=False"), {"zero_indexed_step": False}),
    ("0.7.1", (COSINE, f"{O}.zero_indexed_step=False"), {}),  # the legacy workers do not read it
])
def test_a_launch_and_its_conversion_schedule_alike(tmp_path, release, overrides, optim):
    stderr, config, quantities = _convert_and_diff(tmp_path, release, *overrides)
    # PyYAML reads 1e-07 (no dot) as text; Trinity's loader (OmegaConf's) as the number
    assert {k: float(v) if k == "lr_warmup_init" else v for k, v in _actor_optim(config).items()
            if k in ("lr_warmup_init", "lr_decay_steps", "zero_indexed_step")} == optim
    assert not {"lr_schedule_args", "lr_horizon"} & quantities, quantities


def test_off_on_both_sides(tmp_path):
    """A GRPO launch and its conversion: no warmup, no critic, the vanilla loss's arguments (none) and Trinity's ppo
    loss's switches off, grpo's epsilon on both sides, no algorithm additions, the FSDP engine's default schedule."""
    stderr, config, quantities = _convert_and_diff(tmp_path, "0.9.1")
    assert config["algorithm"]["algorithm_type"] == "grpo"
    assert not {"critic_warmup", "loss_scale", "critic_loss_agg_mode", "policy_loss_args", "advantage_args",
                "algorithm", "lr_schedule_args"} & quantities
    assert _values(tmp_path / "grpo", _algorithm(), _algorithm(algorithm_type="ppo"), "critic_loss_agg_mode",
                   ext=".yaml") == (None, "token-mean")  # a critic's quantity: none without one


@pytest.mark.parametrize("config, written, quantity", [
    # Trinity's 5 under trainer_sync_interval 2: 2 veRL steps held back, from step 1
    (_trainer(_with(synchronizer={"sync_interval": 2}), critic_warmup=5), "trainer.critic_warmup=3",
     "critic warmup"),
    # Trinity's Megatron warmup starts from min_lr_ratio x lr (0.01 x 1e-6), veRL's from lr_warmup_init (0.0)
    (_trainer(_algorithm(**WARMUP), "megatron"), "actor_rollout_ref.actor.optim.lr_warmup_init=1e-08",
     "lr schedule arguments"),
])
def test_the_way_back_writes_what_the_config_trains(tmp_path, config, written, quantity):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(config))
    back = tmp_path / "back.sh"
    done = rftc("convert", "--to", "verl", path, "--verl-version", "0.9.1", "-o", back, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"'{written}'" in back.read_text()
    assert f"cannot express the config's {quantity}" not in done.stderr, done.stderr


SFT = ("data.train_files=/d/train.parquet", "data.train_batch_size=16", "data.micro_batch_size_per_gpu=2",
       "trainer.total_training_steps=10", "trainer.n_gpus_per_node=2")


@pytest.mark.parametrize("release, module, base, changed, quantities", [
    # fsdp_sft_trainer normalises each micro-batch over every rank's tokens with data.balance_dp_token
    ("0.6.1", "verl.trainer.fsdp_sft_trainer", ("model.partial_pretrain=/m",),
     ("model.partial_pretrain=/m", "data.balance_dp_token=True"), {"microbatch_loss"}),
    ("0.9.1", "verl.trainer.sft_trainer", ("model.path=/m",), ("model.path=/m", "data.balance_dp_token=True"),
     set()),  # the engine trainer's config has it, unread
    ("0.9.1", "verl.trainer.sft_trainer", ("model.path=/m", "optim.lr_scheduler_type=cosine"),
     ("model.path=/m", "optim.lr_scheduler_type=cosine", "optim.zero_indexed_step=False"), {"lr_schedule_args"}),
])
def test_an_sft_launch(tmp_path, release, module, base, changed, quantities):
    sides = []
    for name, overrides in (("a", base), ("b", changed)):
        (tmp_path / name).mkdir()
        sides.append(launch(tmp_path / name, *SFT, *overrides, module=module))
    done = rftc("diff", *sides, "--verl-version", release, "--format", "json", "--dataset-size", "100")
    assert done.returncode in (0, 1), done.stderr
    assert {d["quantity"] for d in json.loads(done.stdout)["differences"]} == quantities


MEGATRON_SFT = ("engine=megatron", "optim=megatron", "model.path=/m")
SCHEDULE = ("optim.lr_decay_style=cosine", "optim.min_lr=1e-4", "optim.lr_warmup_steps_ratio=0.1",
            "optim.lr_decay_steps=5", "optim.lr_warmup_init=1e-5")


def _sft_conversion(tmp_path, *overrides: str) -> tuple[str, set[str]]:
    """The conversion's diagnostics of an engine SFT launch of verl 0.9.1, and the quantities `rftc diff` of the
    launch and it reports."""
    script = launch(tmp_path, *SFT, *overrides, module="verl.trainer.sft_trainer")
    out = tmp_path / "out.yaml"
    done = rftc("convert", script, "--verl-version", "0.9.1", "--format", "concise", "-o", out, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    diff = rftc("diff", script, out, "--verl-version", "0.9.1", "--dataset-size", "1000", "--format", "json",
                cwd=tmp_path)
    assert diff.returncode in (0, 1), diff.stderr
    return done.stderr, {d["quantity"] for d in json.loads(diff.stdout)["differences"]}


def test_an_sft_launch_on_megatron_schedules_as_its_conversion(tmp_path):
    """optim=megatron's schedule (lr_decay_style, min_lr, lr_warmup_init, lr_decay_steps) goes to Trinity's
    Megatron optimizer settings, and every setting the option brings is accounted for without a warning."""
    stderr, quantities = _sft_conversion(tmp_path, *MEGATRON_SFT, *SCHEDULE)
    assert "optim." not in stderr, stderr
    assert not {"lr_scheduler", "min_lr_ratio", "warmup_ratio", "lr_horizon", "lr_schedule_args"} & quantities


def test_the_megatron_optimizer_settings_trinity_lacks_are_one_warning(tmp_path):
    stderr, _ = _sft_conversion(tmp_path, *MEGATRON_SFT, "optim.optimizer=muon",
                                "optim.use_precision_aware_optimizer=True")
    warned = [line for line in stderr.splitlines() if "optim." in line]
    assert len(warned) == 1 and "RFTC300" in warned[0], stderr
    assert "optim.muon_momentum=0.95" in warned[0] and "optim.use_precision_aware_optimizer=true" in warned[0]
    assert "optim.exp_avg_dtype" not in warned[0]  # fp32, as verl 0.8's optimizer keeps it
