"""`rftc diff` names how a run computes its reward and runs its rollouts, on both sides: veRL's reward manager (as
the release loads it: reward_model.reward_manager, 0.7.0's reward loop or trainer function, the reward section from
0.7.1 with the legacy keys migrated over it), the code sandbox default_compute_score runs code in, the reward model's
settings (its worker's tokenizer, its rollout server's engine settings), the rollout's turns (SGLang's multi-turn
rollout, the agent loops; Trinity's workflows), the trainer backend (veRL, Tinker) and an external rollout model.
A launch with one override changed at a time (per release where they differ), a Trinity config with one field
changed, the defaults spelled out, and a launch and its own conversion, whose warnings name what differs."""

from __future__ import annotations

import json

import pytest

from test_diff_optimizer import TRINITY, _with
from test_diff_prompts import _convert_and_diff
from test_diff_steps import _differences

R, MT = "actor_rollout_ref.rollout", "actor_rollout_ref.rollout.multi_turn"
MANAGER = "reward.reward_manager"
IMPORTLIB = (f"{MANAGER}.source=importlib", f"{MANAGER}.module.path=/managers.py", f"{MANAGER}.name=MyManager")
LOOP = ("reward_model.reward_loop_source=importlib", "reward_model.reward_loop_module_path=/managers.py")
CUSTOM = ("reward.custom_reward_function.path=/reward.py", "custom_reward_function.path=/reward.py")
RM_LEGACY = ("reward_model.enable=True", "reward_model.model.path=/rm")
RM = ("reward.reward_model.enable=True", "reward.reward_model.model_path=/rm", "reward.reward_model.rollout.name=vllm")


@pytest.mark.parametrize("release, base, changed, quantities", [
    # the reward manager
    ("0.9.1", (), IMPORTLIB, {"reward"}),
    ("0.9.1", (), (f"{MANAGER}.source=register", f"{MANAGER}.name=naive"), set()),  # the defaults, spelled out
    ("0.9.1", IMPORTLIB, (*IMPORTLIB, f"{MANAGER}.module.name=my_module"), set()),  # names the module only
    ("0.9.1", IMPORTLIB, (*IMPORTLIB[:2], f"{MANAGER}.name=OtherManager"), {"reward"}),  # the class
    ("0.8.0", (), LOOP, {"reward"}),  # migrated: the legacy source and module path, the section's name
    ("0.8.0", LOOP, (*LOOP, "reward_model.reward_loop_class_name=K"), set()),  # migrated into module.name
    ("0.7.0", LOOP, (*LOOP, "reward_model.reward_loop_class_name=K"), {"reward"}),  # 0.7.0's reward loop loads it
    ("0.9.1", (), LOOP, set()),  # main_ppo of 0.9 migrates no legacy key
    # 0.7.0: the reward loop (use_reward_loop, the default) reads reward_model.reward_loop_*, the trainer's function
    # the top-level reward_manager
    ("0.7.0", (), ("reward_manager.source=importlib", "reward_manager.module.path=/managers.py"), set()),
    ("0.7.0", ("reward_model.use_reward_loop=False",),
     ("reward_model.use_reward_loop=False", "reward_manager.source=importlib", "reward_manager.module.path=/m.py"),
     {"reward"}),
    ("0.7.0", (), ("reward_model.use_reward_loop=False",), set()),  # both paths: the naive manager, no sandbox
    # the code sandbox of default_compute_score
    ("0.9.1", (), ("reward.sandbox_fusion.url=http://sandbox",), {"reward"}),
    ("0.9.1", ("reward.sandbox_fusion.url=http://sandbox",),
     ("reward.sandbox_fusion.url=http://sandbox", "reward.sandbox_fusion.memory_limit_mb=2048"), {"reward"}),
    ("0.9.1", (), ("reward.sandbox_fusion.memory_limit_mb=2048",), set()),  # no sandbox: code runs locally
    ("0.9.1", CUSTOM, (*CUSTOM, "reward.sandbox_fusion.url=http://sandbox"), set()),  # the custom function's
    ("0.6.1", (), ("reward_model.sandbox_fusion.url=http://sandbox",), {"reward"}),
    ("0.7.0", (), ("reward_model.sandbox_fusion.url=http://sandbox",), set()),  # 0.7.0's reward loop has none
    ("0.7.0", ("reward_model.use_reward_loop=False",),
     ("reward_model.use_reward_loop=False", "reward_model.sandbox_fusion.url=http://sandbox"), {"reward"}),
    # the top-level section, migrated, replaces reward.sandbox_fusion whole: its url is then none
    ("0.8.0", ("reward.sandbox_fusion.url=http://sandbox",),
     ("reward.sandbox_fusion.url=http://sandbox", "sandbox_fusion.memory_limit_mb=2048"), {"reward"}),
    ("0.9.1", ("reward.sandbox_fusion.url=http://sandbox",),
     ("reward.sandbox_fusion.url=http://sandbox", "sandbox_fusion.memory_limit_mb=2048"), set()),
])
def test_one_override_of_the_rule_reward_is_its_quantity(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


@pytest.mark.parametrize("release, base, changed, quantities", [
    # the worker (to 0.6.x): the response rendered again with input_tokenizer's template (by default the policy's
    # model), cut at max_length; null: the policy's tokens as they are
    ("0.6.1", RM_LEGACY, (*RM_LEGACY, "reward_model.model.input_tokenizer=/tok"), {"reward"}),
    ("0.6.1", RM_LEGACY, (*RM_LEGACY, "reward_model.max_length=1024"), {"reward"}),
    ("0.6.1", RM_LEGACY, (*RM_LEGACY, "reward_model.model.input_tokenizer=/m"), set()),  # the default, spelled out
    ("0.6.1", (*RM_LEGACY, "reward_model.model.input_tokenizer=null"),
     (*RM_LEGACY, "reward_model.model.input_tokenizer=null", "reward_model.max_length=1024"), set()),
    ("0.6.1", (*RM_LEGACY, "reward_model.model.input_tokenizer=/tok"),  # Megatron's worker only decodes with it
     (*RM_LEGACY, "reward_model.model.input_tokenizer=/tok", "reward_model.strategy=megatron"), {"reward"}),
    # a rollout server (0.7.0's reward loop, 0.7.1 on): what its engine reads
    ("0.9.1", RM, (*RM, "reward.reward_model.rollout.temperature=0.5"), {"reward"}),
    ("0.9.1", RM, (*RM, "reward.reward_model.rollout.dtype=float16"), {"reward"}),
    ("0.9.1", RM, (*RM, "reward.reward_model.rollout.n=2"), set()),  # no server reads it
    ("0.9.1", RM, (*RM, "reward.reward_model.rollout.do_sample=False"), set()),
    ("0.9.1", (*RM[:2], "reward.reward_model.rollout.name=sglang"),
     (*RM[:2], "reward.reward_model.rollout.name=sglang", "reward.reward_model.rollout.temperature=0.5"), set()),
    ("0.7.0", (*RM_LEGACY, "reward_model.rollout.name=vllm"),
     (*RM_LEGACY, "reward_model.rollout.name=vllm", "reward_model.rollout.prompt_length=1024"), {"reward"}),
    # 0.7.0's servers give the engine the model's max_position_embeddings
    ("0.7.0", (*RM_LEGACY, "reward_model.rollout.name=vllm"),
     (*RM_LEGACY, "reward_model.rollout.name=vllm", "reward_model.rollout.max_model_len=4096"), set()),
])
def test_one_override_of_the_reward_model_is_its_quantity(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


@pytest.mark.parametrize("release, base, changed, quantities", [
    ("0.9.1", (), (f"{MT}.enable=True",), {"multi_turn"}),  # the rows run the tool agent, as declared
    ("0.9.1", (), (f"{MT}.max_assistant_turns=5",), set()),  # single turn: the tool agent's settings are not read
    ("0.9.1", (f"{MT}.enable=True",), (f"{MT}.enable=True", f"{MT}.max_assistant_turns=5"), {"multi_turn"}),
    ("0.9.1", (), (f"{R}.agent.default_agent_loop=tool_agent",), {"multi_turn"}),
    ("0.9.1", (), (f"{R}.agent.default_agent_loop=single_turn_agent",), set()),  # the default, spelled out
    ("0.6.1", (), (f"{MT}.enable=True",), set()),  # the sync vLLM rollout generates once
    ("0.6.1", (f"{R}.name=sglang",), (f"{R}.name=sglang", f"{MT}.enable=True"), {"multi_turn"}),
    ("0.6.1", (f"{R}.mode=async",), (f"{R}.mode=async", f"{MT}.enable=True"), {"multi_turn"}),
    ("0.6.1", (f"{MT}.enable=True",), (f"{MT}.enable=True", f"{R}.mode=async"), {"multi_turn"}),
])
def test_one_override_of_the_rollouts_turns_is_its_quantity(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


@pytest.mark.parametrize("base, changed, quantities", [
    (("data.filter_overlong_prompts=True",), ("data.filter_overlong_prompts=True", "data.tool_config_path=/t.yaml"),
     {"overlong_prompts"}),  # the prompts are measured with the tools' schemas
    ((), ("data.tool_config_path=/t.yaml",), set()),  # no prompt is left out
])
def test_the_datasets_tools_decide_which_prompts_are_left_out(tmp_path, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", "0.9.1") == quantities


# the Trinity base with a workflow of its own (one chat per response), the tasksets' turns being compared where both
# runs roll out
WORKFLOW = _with(buffer={**TRINITY["buffer"], "explorer_input": {"taskset": {
    **TRINITY["buffer"]["explorer_input"]["taskset"], "default_workflow_type": "math_workflow"}}})


def _w(**fields) -> dict:
    """WORKFLOW with ``fields`` set (a section's merged over its own)."""
    out = json.loads(json.dumps(WORKFLOW))
    for k, v in fields.items():
        out[k] = {**out.get(k, {}), **v} if isinstance(v, dict) else v
    return out


def _taskset(**fields) -> dict:
    taskset = {**WORKFLOW["buffer"]["explorer_input"]["taskset"], **fields}
    return _with(buffer={**TRINITY["buffer"], "explorer_input": {"taskset": taskset}})


@pytest.mark.parametrize("base, changed, quantities", [
    # (the Tinker trainer scales the micro-batches' losses its own way: its trainer backend says how)
    (WORKFLOW, _w(trainer={"trainer_type": "tinker"}), {"trainer_backend", "microbatch_loss"}),
    (WORKFLOW, _w(model={"tinker": {"enable": True}}), {"trainer_backend", "microbatch_loss"}),
    (WORKFLOW, _w(model={"tinker": {"rank": 32}}), set()),  # not on Tinker
    (_w(model={"tinker": {"enable": True}}), _w(model={"tinker": {"enable": True, "rank": 32}}), {"trainer_backend"}),
    (WORKFLOW, _w(trainer={"trainer_type": "verl"}), set()),  # the default, spelled out
    # Trinity's validator takes an external model in bench mode only
    (_w(mode="bench"), _w(mode="bench", model={"external_model": {"enable": True, "model_name": "gpt"}}),
     {"external_model"}),
    (_w(mode="bench"), _w(mode="bench", model={"external_model": {"model_name": "gpt"}}), set()),  # off
    (WORKFLOW, _w(trainer={"trainer_config_path": "/verl.yaml"}), set()),  # Trinity 0.6 reads no file from it
    (WORKFLOW, _taskset(default_workflow_type="alfworld_workflow"), {"reward", "multi_turn"}),
    (WORKFLOW, _taskset(default_workflow_type="simple_workflow"), {"reward"}),  # one chat per response, too
    (WORKFLOW, _taskset(format={"workflow_key": "workflow"}), {"reward", "multi_turn"}),
    # only Trinity's SFT formatter reads it: a training taskset's workflow may read its format (data columns)
    (WORKFLOW, _taskset(format={"enable_concatenated_multi_turn": True}), {"data_columns"}),
])
def test_one_field_of_a_trinity_config_is_its_quantity(tmp_path, base, changed, quantities):
    assert _differences(tmp_path, base, changed, ext=".yaml") == quantities


def test_off_on_both_sides_a_launch_and_its_conversion_train_alike(tmp_path):
    """A single-turn launch scoring with default_compute_score and its conversion (rftc's veRL reward workflow):
    one reward, single turn, veRL's trainer, no external model."""
    stderr, _, quantities = _convert_and_diff(tmp_path, "0.9.1")
    assert not {"reward", "multi_turn", "trainer_backend", "external_model"} & quantities
    assert "RFTC300" not in stderr, stderr


@pytest.mark.parametrize("release, overrides, warned, quantity", [
    ("0.9.1", ("reward.sandbox_fusion.url=http://sandbox",),
     "reward.sandbox_fusion.url has no Trinity-RFT 0.6 equivalent: veRL's default_compute_score runs", "reward"),
    ("0.9.1", IMPORTLIB, f"{MANAGER}.source has no Trinity-RFT 0.6 equivalent: veRL loads the reward manager "
     "/managers.py:MyManager", "reward"),
    ("0.8.0", LOOP, "reward_model.reward_loop_source has no Trinity-RFT 0.6 equivalent", "reward"),
    ("0.9.1", (*RM, "reward.reward_model.rollout.temperature=0.5"),
     "reward.reward_model.rollout.temperature has no Trinity-RFT 0.6 equivalent: it decides how veRL's reward "
     "model scores", "reward"),
    ("0.9.1", (f"{MT}.enable=True",), f"{MT}.enable has no Trinity-RFT 0.6 equivalent", "multi_turn"),
])
def test_a_launch_and_its_conversion_differ_where_the_conversion_warns(tmp_path, release, overrides, warned,
                                                                        quantity):
    stderr, _, quantities = _convert_and_diff(tmp_path, release, *overrides)
    assert warned in stderr, stderr
    assert quantity in quantities


@pytest.mark.parametrize("release, overrides", [
    ("0.9.1", (f"{MANAGER}.source=register",)),  # the naive manager, which the reward workflow implements
    ("0.9.1", ("reward.sandbox_fusion.memory_limit_mb=2048",)),  # no sandbox without its url
    ("0.9.1", LOOP),  # not migrated by 0.9's main_ppo (RFTC212)
])
def test_a_reward_setting_the_run_does_not_use_is_not_warned_and_trains_alike(tmp_path, release, overrides):
    stderr, _, quantities = _convert_and_diff(tmp_path, release, *overrides)
    assert "RFTC300" not in stderr, stderr
    assert "reward" not in quantities
