"""`rftc diff` names what each side does with rollouts that are off-policy or cut short: the importance-sampling
correction of the rollout's log-probs (veRL's algorithm.rollout_correction, 0.6.0's algorithm.rollout_is*; Trinity's
trainer reads none), the log-probs the rollout engine returns (vLLM's logprobs_mode; Trinity's vLLM engines return
processed ones), veRL 0.9's v1 staleness filter, replay sampler and hybrid rollout, responses resumed across a weight
update (the fully async trainer's partial_rollout), and over-sampling (verl 0.6.x's SGLang multi-turn rollout;
Trinity's over_rollout and dynamic_timeout). A launch with one override changed at a time, per release where veRL's
code differs, a Trinity config with one field changed, a feature off on both sides, and a launch and its own
conversion, whose warnings name what it cannot carry."""

from __future__ import annotations

import json

import pytest
import yaml

from rftc.verl.releases import semantics
from support.cli import launch, rftc
from test_convert_equivalence import MICRO_WARNING
from test_diff_optimizer import BASE, TRINITY, _with
from test_diff_prompts import _convert_and_diff
from test_diff_steps import _differences
from verl_wheel_code import require, source

R, RC = "actor_rollout_ref.rollout", "algorithm.rollout_correction"
LOGPROBS, BYPASS = f"{R}.calculate_log_probs=True", f"{RC}.bypass_mode=True"
IS, RS = f"{RC}.rollout_is=token", (f"{RC}.rollout_rs=seq_max_k2", f"{RC}.rollout_rs_threshold=2.5")
V1 = ("trainer.use_v1=True", "custom_reward_function.path=reward.py")
COLOCATE = (*V1, "trainer.v1.trainer_mode=colocate_async")
SEPARATE = (*V1, "trainer.v1.trainer_mode=separate_async", "trainer.v1.separate_async.parameter_sync_step=2",
            f"{R}.nnodes=1", f"{R}.n_gpus_per_node=2")
HYBRID = "trainer.v1.separate_async.hybrid_rollout"
SAMPLER = "trainer.v1.sampler"
SGLANG = (f"{R}.name=sglang", f"{R}.multi_turn.enable=True")


@pytest.mark.parametrize("release, base, changed, quantities", [
    # decoupled mode: the trainer weighs the loss where the rollout returns its log-probs
    ("0.9.1", (), (IS,), {"rollout_correction"}),  # calculate_log_probs is true from 0.9.0
    ("0.7.1", (), (IS,), set()),  # no rollout log-probs: the correction does not run
    ("0.7.1", (LOGPROBS,), (LOGPROBS, IS), {"rollout_correction"}),
    ("0.9.1", (IS,), (IS, f"{RC}.rollout_is_threshold=2.0"), set()),  # the default, spelled out
    ("0.9.1", (IS,), (IS, f"{RC}.rollout_is_threshold=1.5"), {"rollout_correction"}),
    ("0.9.1", (), (f"{RC}.rollout_is_threshold=1.5",), set()),  # IS weights off: the threshold is not read
    ("0.9.1", (), RS, {"rollout_correction"}),
    ("0.7.0", (LOGPROBS,), (LOGPROBS, f"{RC}.rollout_token_veto_threshold=0.0001"), {"rollout_correction"}),
    # bypass mode: from 0.7.0 the loss rejects for either loss_type and weighs for reinforce only
    ("0.9.1", (BYPASS,), (BYPASS, IS), set()),
    ("0.9.1", (BYPASS,), (BYPASS, *RS), {"rollout_correction"}),
    ("0.9.1", (BYPASS, IS), (BYPASS, IS, f"{RC}.loss_type=reinforce"),
     {"policy_loss", "clip_ratio_c", "rollout_correction"}),
    # 0.6.1's bypass mode trains loss_mode without a correction unless use_policy_gradient (REINFORCE)
    ("0.6.1", (BYPASS, LOGPROBS), (BYPASS, LOGPROBS, IS, *RS), set()),
    ("0.6.1", (BYPASS, LOGPROBS, IS), (BYPASS, LOGPROBS, IS, f"{RC}.use_policy_gradient=True"),
     {"policy_loss", "clip_ratio_c", "rollout_correction"}),
    # 0.6.0: rollout_is_threshold switches the weights on, rollout_is gives them to the loss
    ("0.6.0", (LOGPROBS, "algorithm.rollout_is_threshold=2.0"),
     (LOGPROBS, "algorithm.rollout_is_threshold=2.0", "algorithm.rollout_is=True"), {"rollout_correction"}),
    ("0.6.0", (), ("algorithm.rollout_is_threshold=2.0", "algorithm.rollout_is=True"), set()),  # no log-probs
    ("0.6.0", (LOGPROBS, "algorithm.rollout_is_threshold=2.0", "algorithm.rollout_is=True"),
     (LOGPROBS, "algorithm.rollout_is_threshold=2.0", "algorithm.rollout_is=True",
      "algorithm.rollout_is_threshold_lower=0.1"), set()),  # truncate mode reads no lower bound
])
def test_one_override_is_its_rollout_correction(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


@pytest.mark.parametrize("release, base, changed, quantities", [
    ("0.9.1", (BYPASS,), (BYPASS, f"{R}.logprobs_mode=raw_logprobs"), {"rollout_logprobs"}),
    ("0.9.1", (BYPASS,), (BYPASS, f"{R}.logprobs_mode=processed_logprobs"), set()),  # the default
    ("0.9.1", (), (f"{R}.logprobs_mode=raw_logprobs",), set()),  # the trainer recomputes: not read
    ("0.7.1", (BYPASS,), (BYPASS, LOGPROBS), {"rollout_logprobs"}),  # without them bypass mode stops
    ("0.9.1", (BYPASS,), (BYPASS, f"{R}.calculate_log_probs=False"), {"rollout_logprobs"}),
])
def test_one_override_is_its_rollout_logprobs(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


@pytest.mark.parametrize("release, base, changed, quantities", [
    ("0.9.1", COLOCATE, (*COLOCATE, f"{SAMPLER}.max_off_policy_threshold=1"), {"staleness_filter"}),
    ("0.9.0", COLOCATE, (*COLOCATE, f"{SAMPLER}.max_off_policy_threshold=1"), {"staleness_filter"}),
    ("0.9.1", COLOCATE, (*COLOCATE, f"{SAMPLER}.max_off_policy_threshold=2"), set()),  # rollouts are 1 update old
    ("0.9.1", COLOCATE, (*COLOCATE, f"{SAMPLER}.max_off_policy_threshold=null"), set()),
    ("0.9.1", (*COLOCATE, f"{SAMPLER}.max_off_policy_threshold=1"),
     (*COLOCATE, f"{SAMPLER}.max_off_policy_threshold=1", f"{SAMPLER}.max_off_policy_strategy=wait"),
     {"staleness_filter"}),
    ("0.9.1", V1, (*V1, f"{SAMPLER}.max_off_policy_threshold=1"), set()),  # the v1 sync trainer is on-policy
])
def test_one_override_is_its_staleness_filter(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


CUSTOM = (f"{SAMPLER}.custom_sampler.path=sampler.py", f"{SAMPLER}.custom_sampler.name=MySampler")


@pytest.mark.parametrize("base, changed, quantities", [
    (V1, (*V1, *CUSTOM), {"replay_sampler"}),
    (V1, (*V1, CUSTOM[0]), set()),  # a custom sampler needs both path and name
    (V1, (*V1, f"+{SAMPLER}.sampler_kwargs.k=1"), set()),  # the built-in buffer reads no sampler_kwargs
    ((*V1, *CUSTOM), (*V1, *CUSTOM, f"+{SAMPLER}.sampler_kwargs.k=1"), {"replay_sampler"}),
    (("trainer.use_v1=False",), ("trainer.use_v1=False", *CUSTOM), set()),  # main_ppo_v0 has no replay buffer
])
def test_one_override_is_its_replay_sampler(tmp_path, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", "0.9.1") == quantities


@pytest.mark.parametrize("release, base, changed, quantities", [
    ("0.9.1", SEPARATE, (*SEPARATE, f"{HYBRID}.enable_switch=True"), {"hybrid_rollout"}),
    ("0.9.1", SEPARATE, (*SEPARATE, f"{HYBRID}.enable_switch=True", "actor_rollout_ref.hybrid_engine=False"),
     set()),  # veRL turns the switch off
    ("0.9.1", (*SEPARATE, f"{HYBRID}.enable_switch=True"),
     (*SEPARATE, f"{HYBRID}.enable_switch=True", f"{HYBRID}.switch_threshold_ratio=0.8"), {"hybrid_rollout"}),
    ("0.9.1", (*SEPARATE, f"{HYBRID}.enable_switch=True", f"{HYBRID}.adaptive_switch_threshold=False"),
     (*SEPARATE, f"{HYBRID}.enable_switch=True", f"{HYBRID}.adaptive_switch_threshold=False",
      f"{HYBRID}.switch_threshold_step_up=0.5"), set()),  # read only where the ratio adapts
    ("0.9.1", SEPARATE, (*SEPARATE, f"{HYBRID}.switch_threshold_ratio=0.8"), set()),  # the switch is off
])
def test_one_override_is_its_hybrid_rollout(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


@pytest.mark.parametrize("release, base, changed, quantities", [
    ("0.6.1", SGLANG, (*SGLANG, f"{R}.over_sample_rate=0.2"), {"over_sampling"}),
    ("0.6.0", SGLANG, (*SGLANG, f"{R}.over_sample_rate=0.2"), {"over_sampling"}),
    ("0.6.1", (*SGLANG, f"{R}.mode=async"), (*SGLANG, f"{R}.mode=async", f"{R}.over_sample_rate=0.2"), set()),
    ("0.6.1", (), (f"{R}.over_sample_rate=0.2",), set()),  # vLLM's rollout reads none
    ("0.7.1", SGLANG, (*SGLANG, f"{R}.over_sample_rate=0.2"), set()),  # no rollout reads it
])
def test_one_override_is_its_over_sampling(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


FULLY_ASYNC = ("algorithm.adv_estimator=grpo", "data.train_files=/d/train.parquet", "data.train_batch_size=0",
               "data.gen_batch_size=1", "actor_rollout_ref.model.path=/m", f"{R}.name=vllm",
               "actor_rollout_ref.actor.ppo_mini_batch_size=4", f"{R}.n=4",
               "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1", f"{R}.log_prob_micro_batch_size_per_gpu=1",
               "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1", "actor_rollout_ref.hybrid_engine=False",
               "trainer.n_gpus_per_node=2", "trainer.nnodes=1", "rollout.nnodes=1", "rollout.n_gpus_per_node=2",
               "rollout.total_rollout_steps=100", "custom_reward_function.path=reward.py")


def _fully_async(tmp_path, name: str, *overrides: str):
    folder = tmp_path / name
    folder.mkdir()
    return launch(folder, *FULLY_ASYNC, *overrides, module="verl.experimental.fully_async_policy.fully_async_main")


@pytest.mark.parametrize("release", ["0.8.0", "0.9.1"])
def test_the_fully_async_trainer_resumes_responses_unless_partial_rollout_is_off(tmp_path, release):
    a = _fully_async(tmp_path, "a")
    b = _fully_async(tmp_path, "b", "async_training.partial_rollout=False")
    done = rftc("diff", a, b, "--format", "json", "--verl-version", release)
    records = json.loads(done.stdout)["differences"]
    assert {d["quantity"] for d in records} == {"partial_rollout"}, done.stderr
    assert [d["a"]["value"] for d in records] == ["resumed with the new weights"]
    assert [d["b"]["value"] for d in records] == ["none"]


@pytest.mark.parametrize("fields, quantities", [
    (dict(algorithm={**TRINITY["algorithm"], "rollout_correction": {"rollout_is": "token"}}), set()),  # not read
    (dict(explorer={"over_rollout": {"ratio": 0.5}}), {"over_sampling"}),
    (dict(explorer={"over_rollout": {"wait_after_min": 5.0}}), set()),  # read only with a ratio
    (dict(explorer={"over_rollout": {"return_partial_tasks": True}}), {"over_sampling"}),
    (dict(explorer={"dynamic_timeout": {"enable": True}}), {"over_sampling"}),
    (dict(explorer={"dynamic_timeout": {"ratio": 2.0}}), set()),  # read only where it is on
    (dict(explorer={"rollout_model": {"engine_type": "sglang"}}), {"rollout_logprobs"}),
    # the trainer recomputes the old log-probs: the rollout's are not compared
    (dict(algorithm={**TRINITY["algorithm"], "bypass_old_logprobs": False}), {"logprob_source"}),
])
def test_one_field_of_a_trinity_config_is_its_quantity(tmp_path, fields, quantities):
    base = _with(synchronizer={"sync_interval": 1, "sync_style": "explorer_driven"})
    changed = _with(synchronizer={"sync_interval": 1, "sync_style": "explorer_driven"}, **fields)
    assert _differences(tmp_path, base, changed, ext=".yaml") == quantities



OURS = {"rollout_correction", "rollout_logprobs", "staleness_filter", "partial_rollout", "over_sampling",
        "hybrid_rollout", "replay_sampler"}


@pytest.mark.parametrize("release, overrides, quantities", [
    ("0.9.1", (), OURS),
    ("0.9.1", (BYPASS,), OURS),
    ("0.7.1", (BYPASS, LOGPROBS), OURS),
    ("0.9.1", (BYPASS, f"{R}.logprobs_mode=processed_logprobs"), OURS),
    ("0.9.1", (BYPASS, IS), OURS),  # bypass mode's ppo_clip loss does not weigh
    ("0.7.1", (IS,), OURS),  # without the rollout's log-probs, no correction runs
    ("0.9.1", (*COLOCATE, f"{SAMPLER}.max_off_policy_threshold=2"), {"staleness_filter"}),  # never reached
    ("0.9.1", (*SEPARATE, f"{HYBRID}.switch_threshold_ratio=0.8"), {"hybrid_rollout"}),  # the switch is off
    ("0.9.1", (*V1, CUSTOM[0]), {"replay_sampler"}),  # no custom sampler without a name
    ("0.9.1", ("trainer.use_v1=False", *CUSTOM), {"replay_sampler"}),  # main_ppo_v0 has no replay buffer
    ("0.6.1", (f"{R}.over_sample_rate=0.2",), {"over_sampling"}),  # vLLM's rollout does not read it
])
def test_a_launch_and_its_conversion_agree_where_the_features_are_off_or_carried(tmp_path, release, overrides,
                                                                                  quantities):
    stderr, algorithm, found = _convert_and_diff(tmp_path, release, *overrides, part="algorithm")
    assert not quantities & found, (found, stderr)
    assert not [w for w in stderr.splitlines() if "RFTC305" in w and MICRO_WARNING not in w], stderr


@pytest.mark.parametrize("release, overrides, quantity, warned", [
    ("0.9.1", (IS,), "rollout_correction", "RFTC305] veRL applies a rollout correction (IS token weights"),
    ("0.9.1", (BYPASS, *RS), "rollout_correction", "RFTC305] veRL applies a rollout correction (rejection"),
    ("0.7.1", (BYPASS,), "rollout_logprobs", f"RFTC305] {BYPASS} without {LOGPROBS}"),
    ("0.9.1", (BYPASS, f"{R}.logprobs_mode=raw_logprobs"), "rollout_logprobs",
     f"RFTC305] {R}.logprobs_mode=raw_logprobs"),
    ("0.6.1", (BYPASS, LOGPROBS), "rollout_logprobs", f"RFTC305] verl 0.6.1 sets no {R}.logprobs_mode"),
    ("0.6.0", (LOGPROBS, "algorithm.rollout_is_threshold=2.0", "algorithm.rollout_is=True"), "rollout_correction",
     "RFTC300] algorithm.rollout_is has no Trinity-RFT 0.6 equivalent"),
    ("0.9.1", (*COLOCATE, f"{SAMPLER}.max_off_policy_threshold=1"), "staleness_filter",
     f"RFTC340] {SAMPLER}.max_off_policy_threshold=1"),
    ("0.9.1", (*V1, *CUSTOM), "replay_sampler", f"RFTC342] {SAMPLER}.custom_sampler.path"),
    ("0.9.1", (*SEPARATE, f"{HYBRID}.enable_switch=True"), "hybrid_rollout", f"RFTC340] {HYBRID}.enable_switch"),
    ("0.9.1", COLOCATE, "partial_rollout", "RFTC341] veRL's colocate_async trainer aborts unfinished responses"),
    ("0.6.1", (*SGLANG, f"{R}.over_sample_rate=0.2"), "over_sampling", f"RFTC300] {R}.over_sample_rate"),
])
def test_a_launch_and_its_conversion_differ_where_the_conversion_warns(tmp_path, release, overrides, quantity,
                                                                       warned):
    stderr, algorithm, quantities = _convert_and_diff(tmp_path, release, *overrides, part="algorithm")
    assert quantity in quantities, (quantities, stderr)
    assert warned in stderr, stderr


def test_the_way_back_asks_for_the_rollouts_log_probs_where_bypass_mode_needs_them(tmp_path):
    """verl 0.7.1 computes no rollout log-probs by default, and its bypass mode stops without them: the launch back
    from a Trinity config (bypass_old_logprobs, Trinity's default) sets calculate_log_probs, and trains the
    rollout log-probs of the config."""
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(TRINITY))
    back = tmp_path / "back.sh"
    done = rftc("convert", "--to", "verl", config, "--verl-version", "0.7.1", "-o", back)
    assert done.returncode in (0, 1), done.stderr
    text = back.read_text()
    assert f"'{BYPASS}'" in text and f"'{LOGPROBS}'" in text
    assert "rollout log-probs" not in done.stderr
    diff = rftc("diff", config, back, "--verl-version", "0.7.1", "--format", "json")
    assert not OURS & {d["quantity"] for d in json.loads(diff.stdout)["differences"]}


@pytest.mark.parametrize("release", ["0.5.0", "0.6.0", "0.6.1", "0.7.0", "0.7.1", "0.9.1"])
def test_the_rollout_correction_each_release_runs(release):
    """semantics' "rollout_correction" against the wheel: 0.6.0's trainer switches on rollout_is_threshold, 0.6.1's
    bypass mode has use_policy_gradient, 0.7.0's bypass loss reads loss_type; none before."""
    require(release)
    trainer = source(release, "verl/trainer/ppo/ray_trainer.py") or ""
    helper = source(release, "verl/trainer/ppo/rollout_corr_helper.py") or ""
    algos = source(release, "verl/trainer/ppo/core_algos.py") or ""
    expected = ("loss_type" if 'rollout_corr_config.get("loss_type", "ppo_clip")' in algos else
                "use_policy_gradient" if 'rollout_corr_config.get("use_policy_gradient", False)' in helper else
                "legacy" if "self.config.algorithm.rollout_is_threshold is not None" in trainer else None)
    assert semantics.resolve(release, snapshot=False).value("rollout_correction") == expected


@pytest.mark.parametrize("release", ["0.5.0", "0.6.0", "0.6.1", "0.7.0", "0.9.1"])
def test_which_release_reads_over_sample_rate(release):
    """Only the sync SGLang rollout's multi-turn generation of verl 0.6.x reads it."""
    require(release)
    rollout = source(release, "verl/workers/rollout/sglang_rollout/sglang_rollout.py") or ""
    expected = "sglang_multi_turn" if 'self.config.get("over_sample_rate", 0.0)' in rollout else None
    assert semantics.resolve(release, snapshot=False).value("over_sample_reader") == expected
