"""`rftc diff` names what a run does and how its trainer's batches come from what the rollout wrote, on both sides:
whether it trains (veRL's trainer.val_only where the trainer reads it, Trinity's mode), how a trainer that filters
groups refills its batch (the DAPO recipe's rounds, veRL 0.9's v1 replay buffer, Trinity's explorer steps), which
experiences a step takes (Trinity's sample strategy and the auxiliary data its mix strategy reads), replay, the
experience operators other than group filters, and the explorer's own pace (its in-flight batches under fully_async;
the experiences of one weight version where it syncs by its own interval). A launch with one override changed at a
time, a Trinity config with one field changed, a default spelled out, a launch and its own conversion (and a config and
its way back), and the features off on both sides."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from support.cli import launch, rftc
from support.paths import GOLDEN
from test_diff_optimizer import BASE, TRINITY, _with
from test_diff_prompts import _convert_and_diff
from test_diff_steps import _differences

FG, SAMPLER = "algorithm.filter_groups", "trainer.v1.sampler"
FILTER = (f"{FG}.enable=True", f"{FG}.metric=acc")
OURS = {"mode", "group_refill", "experience_selection", "replay_buffer", "experience_pipeline"}


# ---- veRL: what the run does

@pytest.mark.parametrize("release", ["0.4.1", "0.6.1", "0.9.1"])
@pytest.mark.parametrize("base, changed, quantities", [
    ((), ("trainer.val_only=True",), {"mode"}),  # the trainer returns after its first validation
    ((), ("trainer.val_only=False",), set()),  # the default, spelled out
    ((), ("trainer.val_only=True", "trainer.val_before_train=False"), set()),  # that validation never runs: it trains
    (("trainer.val_only=True",), ("trainer.val_only=True", "trainer.val_before_train=False"), {"mode"}),
])
def test_val_only_is_what_the_run_does(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


def test_val_only_of_a_release_whose_config_lacks_the_key(tmp_path):
    """verl 0.2 to 0.4.0 read val_only with .get: a key the launch adds (+) ends the run as the later key does."""
    assert _differences(tmp_path, (), ("+trainer.val_only=True",), "--verl-version", "0.3.0.post1") == {"mode"}


# ---- veRL: the group refill

@pytest.mark.parametrize("base, changed, quantities", [
    ((), FILTER, {"dynamic_sampling", "group_refill"}),
    (FILTER, (*FILTER, f"{FG}.max_inflight_gen_batches=2"), {"group_refill"}),
    (FILTER, (*FILTER, f"{SAMPLER}.sync_refill_failed_groups=True"), {"group_refill"}),
    (FILTER, (*FILTER, f"{FG}.max_inflight_gen_batches=1"), set()),  # the default, spelled out
    (FILTER, (*FILTER, f"{FG}.max_num_gen_batches=3"), set()),  # the v1 replay buffer warns and ignores it
    (FILTER, (*FILTER, "data.gen_batch_size=2"), set()),  # the v1 trainers fetch one prompt at a time to refill
    ((), (f"{FG}.max_inflight_gen_batches=2",), set()),  # no filter: nothing to refill
    (("trainer.v1.trainer_mode=colocate_async", *FILTER),
     ("trainer.v1.trainer_mode=colocate_async", *FILTER, f"{FG}.max_inflight_gen_batches=2"), set()),  # sync only
], ids=lambda v: " ".join(v) if isinstance(v, tuple) else None)
def test_one_override_of_a_v1_launch_is_its_refill(tmp_path, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", "0.9.1") == quantities


def test_the_sync_and_async_v1_trainers_refill_otherwise(tmp_path):
    got = _differences(tmp_path, FILTER, ("trainer.v1.trainer_mode=colocate_async", *FILTER), "--verl-version",
                       "0.9.1")
    assert "group_refill" in got and "dynamic_sampling" not in got


def _dapo(tmp_path, a: tuple, b: tuple) -> set[str]:
    """The quantities `rftc diff` reports between two launches of the DAPO recipe's trainer, each run from a veRL
    checkout's folder (the recipe's own config beside it)."""
    sides = []
    for name, overrides in (("a", a), ("b", b)):
        folder = tmp_path / name
        shutil.copytree(GOLDEN / "convert" / "recipe" / "recipe", folder / "recipe")
        sides.append(launch(folder, *BASE, *overrides, module="recipe.dapo.main_dapo"))
    done = rftc("diff", *sides, "--format", "json", "--verl-version", "0.9.1")
    assert done.returncode in (0, 1), done.stderr
    found = json.loads(done.stdout)["differences"]
    assert not [d["label"] for d in found if d["label"].endswith("(not compared yet)")]
    return {d["quantity"] for d in found}


@pytest.mark.parametrize("base, changed, quantities", [
    (FILTER, (*FILTER, "data.gen_batch_size=24"), {"group_refill"}),
    (FILTER, (*FILTER, f"{FG}.max_num_gen_batches=5"), {"group_refill"}),
    (FILTER, (*FILTER, f"{FG}.max_num_gen_batches=0"), set()),  # the recipe's default: no limit
    (FILTER, (*FILTER, "data.gen_batch_size=8"), set()),  # the recipe's default: train_batch_size
])
def test_one_override_of_the_dapo_recipe_is_its_refill(tmp_path, base, changed, quantities):
    assert _dapo(tmp_path, base, changed) == quantities


# ---- Trinity-RFT: one field at a time

OPERATORS = "rftc.trinity.verl_operators.VerlFilterGroups"
GROUPS = {"experience_pipeline": {"operators": [{"name": OPERATORS, "args": {"metric": "acc"}}]}}
REPLAY = {"enable": True, "reuse_cooldown_time": 2.0}


def _trainer_input(**fields) -> dict:
    return _with(buffer={**TRINITY["buffer"], "trainer_input": fields})


@pytest.mark.parametrize("base, changed, quantities", [
    (TRINITY, {**TRINITY, "mode": "bench"}, {"mode"}),
    (TRINITY, {**TRINITY, "mode": "explore"}, {"mode"}),
    (_with(buffer={**TRINITY["buffer"], "train_batch_size": 8}),
     {**_with(buffer={**TRINITY["buffer"], "train_batch_size": 8}), "mode": "train"}, {"mode"}),
    # the sample strategy: the algorithm's default (grpo's: default), warmup the same class
    (TRINITY, _with(algorithm={**TRINITY["algorithm"], "sample_strategy": "warmup"}), set()),
    (TRINITY, _with(algorithm={**TRINITY["algorithm"], "sample_strategy": "staleness_control"}), set()),
    (TRINITY, _with(algorithm={**TRINITY["algorithm"], "sample_strategy": "staleness_control",
                               "sample_strategy_args": {"max_staleness": 2}}), {"experience_selection"}),
    # replay: a queue's priority order and reuse; a file in mode both is a queue (Trinity's validator)
    (TRINITY, _trainer_input(experience_buffer={"name": "e", "replay_buffer": REPLAY}), {"replay_buffer"}),
    (TRINITY, _trainer_input(experience_buffer={"name": "e", "replay_buffer": {"enable": False}}), set()),
    (_trainer_input(experience_buffer={"name": "e", "replay_buffer": REPLAY}),
     _trainer_input(experience_buffer={"name": "e", "storage_type": "file", "path": "/e.jsonl",
                                       "replay_buffer": REPLAY}), set()),
    (_trainer_input(experience_buffer={"name": "e", "replay_buffer": REPLAY}),
     _trainer_input(experience_buffer={"name": "e", "replay_buffer": {**REPLAY, "priority_fn_args": {"decay": 2.0}}}),
     set()),  # linear_decay's default, spelled out
    (_trainer_input(experience_buffer={"name": "e", "replay_buffer": REPLAY}),
     _trainer_input(experience_buffer={"name": "e", "capacity": 64, "replay_buffer": REPLAY}), {"replay_buffer"}),
    (TRINITY, _trainer_input(experience_buffer={"name": "e", "capacity": 64}), set()),  # no replay: backpressure
    # the experience operators: a group filter is dynamic sampling (and its refill), the others rewrite experiences
    (TRINITY, _with(data_processor=GROUPS), {"dynamic_sampling", "group_refill"}),
    (TRINITY, _with(data_processor={"experience_pipeline": {"operators": [{"name": "mask_response_truncated"}]}}),
     {"experience_pipeline"}),
    (TRINITY, _with(data_processor={"experience_pipeline": {"output": {"name": "o", "replay_buffer": REPLAY}}}),
     set()),  # read by nothing
    (_with(data_processor=GROUPS), _with(data_processor=GROUPS, buffer={**TRINITY["buffer"], "batch_size": 4,
                                                                         "train_batch_size": 8}),
     {"group_refill"}),  # the explorer's step that refills
], ids=lambda v: json.dumps(v, sort_keys=True) if isinstance(v, dict) else None)
def test_one_field_of_a_trinity_config_is_its_quantity(tmp_path, base, changed, quantities):
    assert _differences(tmp_path, base, changed, ext=".yaml") == quantities


MIX = {**TRINITY["algorithm"], "sample_strategy": "mix"}
SFT_DATA = {"name": "sft_dataset", "storage_type": "file", "path": "/sft", "split": "train"}


@pytest.mark.parametrize("aux, quantities", [
    ({"sft_dataset": SFT_DATA}, set()),
    ({"sft_dataset": {**SFT_DATA, "split": "test"}}, {"experience_selection"}),
    ({"sft_dataset": {**SFT_DATA, "total_epochs": 3}}, {"experience_selection"}),  # the validator leaves it
    ({"sft_dataset": {**SFT_DATA, "capacity": 5}}, set()),  # a file is read without a queue
    ({"sft_dataset": SFT_DATA, "other": {**SFT_DATA, "path": "/other"}}, set()),  # the mix strategy reads one
])
def test_the_mix_strategys_auxiliary_data(tmp_path, aux, quantities):
    base = _with(algorithm=MIX, buffer={**TRINITY["buffer"], "trainer_input": {"auxiliary_buffers": {
        "sft_dataset": SFT_DATA}}})
    changed = _with(algorithm=MIX, buffer={**TRINITY["buffer"], "trainer_input": {"auxiliary_buffers": aux}})
    assert _differences(tmp_path, base, changed, ext=".yaml") == quantities


def test_auxiliary_buffers_train_nothing_without_the_mix_strategy(tmp_path):
    changed = _with(buffer={**TRINITY["buffer"], "trainer_input": {"auxiliary_buffers": {"sft_dataset": SFT_DATA}}})
    assert _differences(tmp_path, TRINITY, changed, ext=".yaml") == set()


def test_the_mix_strategy_reads_a_share_of_each_batch(tmp_path):
    base = _with(algorithm=MIX, buffer={**TRINITY["buffer"], "trainer_input": {"auxiliary_buffers": {
        "sft_dataset": SFT_DATA}}})
    changed = _with(algorithm={**MIX, "sample_strategy_args": {"expert_data_ratio": 0.25}},
                    buffer=base["buffer"])
    assert _differences(tmp_path / "ratio", base, changed, ext=".yaml") == {"experience_selection"}
    assert _differences(tmp_path / "mix", TRINITY, base, ext=".yaml") == {"experience_selection"}


def _sync(style: str, **fields) -> dict:
    return _with(synchronizer={**TRINITY["synchronizer"], "sync_style": style, **fields})


@pytest.mark.parametrize("base, changed, quantities", [
    (_sync("fully_async"), _with(synchronizer={**TRINITY["synchronizer"], "sync_style": "fully_async"},
                                 explorer={"max_inflight_batches": 4}), {"ahead", "policy_lag"}),
    (TRINITY, _with(explorer={"max_inflight_batches": 4}), set()),  # read under fully_async only
    (_sync("trainer_driven"), _sync("trainer_driven", explorer_sync_interval=2),
     {"experiences_per_update", "total_steps"}),  # total steps count explorer steps / explorer_sync_interval
    (_sync("explorer_driven"), _with(synchronizer={**TRINITY["synchronizer"], "sync_style": "explorer_driven"},
                                     buffer={**TRINITY["buffer"], "batch_size": 4, "train_batch_size": 8}),
     {"experiences_per_update"}),  # the explorer's step: 4 tasks x 4 responses, one weight version's
])
def test_the_explorers_own_pace(tmp_path, base, changed, quantities):
    assert _differences(tmp_path, base, changed, ext=".yaml") == quantities


def test_a_stages_mode(tmp_path):
    """A stage's mode replaces the global one (rftc diff --stage compares the stage as Trinity runs it)."""
    found = []
    for name, stage in (("a", {"stage_name": "s"}), ("b", {"stage_name": "s", "mode": "bench"})):
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump({**TRINITY, "stages": [stage]}))
        found.append(path)
    done = rftc("diff", *found, "--stage", "s", "--format", "json")
    assert {d["quantity"] for d in json.loads(done.stdout)["differences"]} == {"mode"}, done.stderr


# ---- a launch and its conversion, a config and its way back

def test_a_plain_launch_and_its_conversion_agree_on_all_of_these(tmp_path):
    stderr, _, quantities = _convert_and_diff(tmp_path, "0.9.1")
    assert not OURS & quantities, stderr


@pytest.mark.parametrize("release, overrides, mode", [
    ("0.9.1", ("trainer.val_only=True",), "bench"),
    ("0.6.1", ("trainer.val_only=True",), "bench"),
    ("0.9.1", ("trainer.val_only=True", "trainer.val_before_train=False"), None),  # it trains
])
def test_a_validation_only_launch_and_its_conversion(tmp_path, release, overrides, mode):
    script = launch(tmp_path, *BASE, *overrides)
    done = rftc("convert", script, "--verl-version", release, "-o", tmp_path / "out.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load((tmp_path / "out.yaml").read_text()).get("mode") == mode
    diff = rftc("diff", script, tmp_path / "out.yaml", "--verl-version", release, "--format", "json", cwd=tmp_path)
    assert "mode" not in {d["quantity"] for d in json.loads(diff.stdout)["differences"]}


@pytest.mark.parametrize("overrides, said", [
    (("trainer.v1.trainer_mode=sync",), "veRL's v1 sync trainer replaces each group its filter drops with two "
                                        "prompts, at most 1 x 8 prompts in flight"),
    ((f"{FG}.max_inflight_gen_batches=3",), "at most 3 x 8 prompts in flight"),
    (("trainer.v1.trainer_mode=colocate_async",), "veRL's v1 colocate_async trainer replaces each group its filter "
                                                  "drops with one prompt"),
])
def test_a_filtering_launch_and_its_conversion_refill_otherwise_and_say_so(tmp_path, overrides, said):
    stderr, _, quantities = _convert_and_diff(tmp_path, "0.9.1", *FILTER, *overrides)
    assert "RFTC305" in stderr and said in stderr, stderr
    assert "group_refill" in quantities and "dynamic_sampling" not in quantities


def test_a_bench_config_goes_back_as_a_validation_only_launch(tmp_path):
    config = tmp_path / "bench.yaml"
    config.write_text(yaml.safe_dump({**TRINITY, "mode": "bench"}))
    back = tmp_path / "run.sh"
    done = rftc("convert", "--to", "verl", config, "-o", back, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "'trainer.val_only=True'" in back.read_text()
    diff = rftc("diff", config, back, "--format", "json", cwd=tmp_path)
    assert "mode" not in {d["quantity"] for d in json.loads(diff.stdout)["differences"]}
