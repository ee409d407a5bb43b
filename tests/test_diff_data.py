"""`rftc diff` names how a run reads and renders its rows, on both sides: the chat template with every argument it is
rendered with (veRL's data.apply_chat_template_kwargs, the engine SFT trainer's enable_thinking_default; Trinity's
thinking switch and chat_template_path), a dataset class of the user's and the data generator it reads, the media a
launch names, veRL 0.9.0's continuous tokens, preference-feedback PPO, the response cap a Trinity taskset samples
with, and an SFT run's experience buffer (its storage, subset and selector). A launch with one override changed at a
time (per release where the releases differ), a Trinity config with one field changed, a default spelled out, a
launch and its own conversion (whose warnings name what differs), and the way back."""

from __future__ import annotations

import json

import pytest
import yaml

from rftc.plugins import WORKFLOW
from support.cli import launch, rftc
from test_diff_optimizer import GAE, TRINITY, _with
from test_diff_seed import SFT
from test_diff_steps import _differences

KW = "+data.apply_chat_template_kwargs"
PF = "algorithm.pf_ppo"


@pytest.mark.parametrize("release, base, changed, quantities", [
    ("0.9.1", (), (f"{KW}.enable_thinking=False",), {"chat_template"}),
    ("0.6.0", (), (f"{KW}.enable_thinking=False",), {"chat_template"}),
    ("0.9.1", (), (f"{KW}.reasoning_effort=high",), {"chat_template"}),
    ("0.9.1", (), (f"{KW}.enable_thinking=null",), set()),  # a None argument reads as unset
    ("0.5.0", (), (f"{KW}.enable_thinking=False",), set()),  # RLHFDataset passes no arguments before 0.6.0
    # the template among the arguments is the one the rows are rendered with
    ("0.9.1", ("actor_rollout_ref.model.custom_chat_template=T",), (f"{KW}.chat_template=T",), set()),
    ("0.9.1", (), ("data.custom_cls.path=ds.py", "data.custom_cls.name=Rows"), {"dataset_class"}),
    ("0.9.1", (), ("data.custom_cls.name=Rows",), set()),  # read only with a path
    ("0.6.1", (), ("data.datagen.path=gen.py",), {"dataset_class"}),  # main_ppo picks a module it lacks: it stops
    ("0.7.1", (), ("data.datagen.path=gen.py",), set()),  # only a custom class reads it
    ("0.7.1", ("data.custom_cls.path=ds.py",), ("data.custom_cls.path=ds.py", "data.datagen.path=gen.py"),
     {"dataset_class"}),
    ("0.9.0", (), ("data.continuous_token.enable=True",), {"tokenization"}),
    ("0.9.0", (), ("data.continuous_token.model_family=qwen3",), set()),  # read only where it is on
    ("0.9.1", (), ("algorithm.use_pf_ppo=True",), set()),  # compute_advantage resamples after GAE only
    ("0.9.1", GAE, (*GAE, "algorithm.use_pf_ppo=True"), {"pf_ppo"}),
    ("0.4.0", GAE, (*GAE, "algorithm.use_pf_ppo=True"), {"pf_ppo"}),
    ("0.9.1", (*GAE, "algorithm.use_pf_ppo=True"), (*GAE, "algorithm.use_pf_ppo=True", f"{PF}.weight_pow=3"),
     {"pf_ppo"}),
    ("0.9.1", (*GAE, "algorithm.use_pf_ppo=True"), (*GAE, "algorithm.use_pf_ppo=True", f"{PF}.weight_pow=2.0"),
     set()),  # the default spelled out
    ("0.9.1", (*GAE, "algorithm.use_pf_ppo=True", f"{PF}.reweight_method=max_min"),
     (*GAE, "algorithm.use_pf_ppo=True", f"{PF}.reweight_method=max_min", f"{PF}.weight_pow=3"), set()),
    ("0.9.1", (), ("data.image_key=images",), set()),  # the default spelled out
    ("0.9.1", (), ("data.image_key=pictures",), {"media"}),
    ("0.9.1", (), ("data.image_patch_size=28",), {"media"}),
    ("0.9.1", (), ("data.image_patch_size=14",), set()),  # the default, which the releases before the key resize by
    ("0.9.1", (), ("+data.mm_processor_kwargs.max_pixels=1024",), {"media"}),
    ("0.3.0.post1", (), ("data.image_key=pictures",), {"media"}),
    ("0.4.1", (), ("actor_rollout_ref.rollout.use_fire_sampling=True",), set()),  # no worker builds FIRE's rollout
])
def test_one_override_is_its_quantity(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


MM = {"default_workflow_type": "simple_mm_workflow", "default_reward_fn_type": "math_reward"}
VERL = {"default_workflow_type": WORKFLOW}


def _taskset(**fields) -> dict:
    return _with(buffer={**TRINITY["buffer"], "explorer_input": {"taskset": {
        **TRINITY["buffer"]["explorer_input"]["taskset"], **fields}}})


@pytest.mark.parametrize("a, b, quantities", [
    (TRINITY, _with(model={**TRINITY["model"], "enable_thinking": False}), {"chat_template"}),
    (TRINITY, _taskset(rollout_args={"max_tokens": 50}), {"max_response_length"}),
    (TRINITY, _taskset(rollout_args={"max_tokens": 100}), set()),  # model.max_response_tokens, spelled out
    (_taskset(**MM, format={"image_key": "images"}), _taskset(**MM, format={"image_key": "pictures"}),
     {"media", "data_columns"}),
    # rftc's veRL reward workflow gives the model the prompt's text only: a difference where the format names media
    (_taskset(**MM, format={"image_key": "images"}), _taskset(**VERL, format={"image_key": "images"}),
     {"media", "data_columns", "reward"}),
    (_taskset(**MM), _taskset(**VERL), {"data_columns", "reward"}),  # where it names none, none to compare
])
def test_one_field_of_a_trinity_config_is_its_quantity(tmp_path, a, b, quantities):
    assert _differences(tmp_path, a, b, ext=".yaml") == quantities


@pytest.mark.parametrize("template, quantities", [
    (None, {"chat_template"}),
    ("T", set()),  # Trinity's validator reads the file only where no template is set
])
def test_the_chat_template_file_is_the_template(tmp_path, template, quantities):
    path = tmp_path / "template.jinja"
    path.write_text("{{ messages }}")
    model = {**TRINITY["model"], **({"custom_chat_template": template} if template else {})}
    assert _differences(tmp_path, _with(model=model), _with(model={**model, "chat_template_path": str(path)}),
                        ext=".yaml") == quantities


EB = {"name": "sft", "storage_type": "file", "path": "/d", "format": {"prompt_type": "messages"},
      "data_selector": {"selector_type": "shuffle"}}
SFT_CONFIG = {"mode": "train", "project": "p", "name": "n", "checkpoint_root_dir": "/tmp/ck",
              "model": {"model_path": "/m", "max_model_len": 1024}, "cluster": {"node_num": 1, "gpu_per_node": 2},
              "algorithm": {"algorithm_type": "sft"},
              "buffer": {"train_batch_size": 8, "total_epochs": 1, "trainer_input": {"experience_buffer": EB}},
              "trainer": {"total_steps": 10, "save_interval": 100}}


def _sft(model: dict | None = None, **buffer) -> dict:
    out = json.loads(json.dumps(SFT_CONFIG))
    out["model"].update(model or {})
    out["buffer"]["trainer_input"]["experience_buffer"].update(buffer)
    return out


@pytest.mark.parametrize("a, b, quantities", [
    (_sft(), _sft(subset_name="main"), {"data"}),
    (_sft(), _sft(storage_type="sql"), {"data"}),
    (_sft(), _sft(data_selector={"selector_type": "shuffle", "seed": 7}), {"data_order"}),
    (_sft(), _sft(data_selector={"selector_type": "shuffle", "seed": 42}), set()),  # Trinity's default
    (_sft(data_selector={"selector_type": "sequential"}),
     _sft(data_selector={"selector_type": "sequential", "seed": 7}), set()),  # a sequential selector draws nothing
    (_sft(data_selector={"selector_type": "difficulty_based"}),
     _sft(data_selector={"selector_type": "difficulty_based", "feature_keys": ["difficulty"]}), {"data_order"}),
    (_sft(), _sft(format={"prompt_type": "messages", "enable_thinking": False}), {"chat_template"}),
    (_sft(), _sft({"enable_thinking": False}), {"chat_template"}),  # the formatter's where the format has none
    (_sft(format={"prompt_type": "messages", "enable_thinking": True}),
     _sft({"enable_thinking": False}, format={"prompt_type": "messages", "enable_thinking": True}), set()),
])
def test_one_field_of_a_trinity_sft_config_is_its_quantity(tmp_path, a, b, quantities):
    assert _differences(tmp_path, a, b, ext=".yaml") == quantities


def _sft_launches(tmp_path, *sides: tuple) -> list:
    out = []
    for i, extra in enumerate(sides):
        (tmp_path / str(i)).mkdir()
        out.append(launch(tmp_path / str(i), *SFT, *extra, module="verl.trainer.sft_trainer"))
    return out


def _quantities(*args) -> set[str]:
    diff = rftc("diff", *args, "--format", "json")
    report = json.loads(diff.stdout)
    assert diff.returncode in (0, 1) and report["compared"], diff.stderr
    return {d["quantity"] for d in report["differences"]}


@pytest.mark.parametrize("release, a, b, quantities", [
    # the engine trainer's multi-turn dataset renders with enable_thinking_default over the kwargs' switch; its
    # default, the string 'none', is true
    ("0.9.1", (), (f"{KW}.enable_thinking=False",), set()),
    ("0.9.1", (), ("data.enable_thinking_default=False",), {"chat_template"}),
    ("0.9.1", (), ("data.enable_thinking_default=True",), set()),
    ("0.9.1", ("data.enable_thinking_default=null",), ("data.enable_thinking_default=null",
                                                       f"{KW}.enable_thinking=False"), {"chat_template"}),
    ("0.9.1", (), ("data.custom_cls.path=ds.py",), {"dataset_class"}),
])
def test_one_override_of_the_engine_sft_trainer_is_its_quantity(tmp_path, release, a, b, quantities):
    assert _quantities(*_sft_launches(tmp_path, a, b), "--verl-version", release) == quantities


LEGACY_SFT = ("data.train_files=/d/train.parquet", "data.train_batch_size=16", "data.micro_batch_size_per_gpu=2",
              "trainer.total_training_steps=10", "model.partial_pretrain=/m", "data.multiturn.enable=True")


@pytest.mark.parametrize("release, changed, quantities", [
    ("0.7.0", (f"{KW}.enable_thinking=False",), {"chat_template"}),  # fsdp_sft_trainer: no enable_thinking_default
    ("0.5.0", (f"{KW}.enable_thinking=False",), set()),  # its datasets pass no arguments before 0.6.0
    ("0.5.0", ("data.custom_cls.path=ds.py",), {"dataset_class"}),
])
def test_one_override_of_fsdp_sft_trainer_is_its_quantity(tmp_path, release, changed, quantities):
    sides = []
    for name, extra in (("a", ()), ("b", changed)):
        (tmp_path / name).mkdir()
        sides.append(launch(tmp_path / name, *LEGACY_SFT, *extra, module="verl.trainer.fsdp_sft_trainer"))
    assert _quantities(*sides, "--verl-version", release) == quantities


def _convert(tmp_path, release: str, script) -> tuple[str, dict, set[str]]:
    """The conversion's diagnostics, its config and the quantities `rftc diff` of the launch and it reports."""
    out = tmp_path / "out.yaml"
    done = rftc("convert", script, "--verl-version", release, "--format", "concise", "-o", out, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return done.stderr, yaml.safe_load(out.read_text()), _quantities(script, out, "--verl-version", release)


DATA = {"chat_template", "dataset_class", "media", "tokenization", "pf_ppo", "max_response_length"}


@pytest.mark.parametrize("release, overrides, code, quantities", [
    ("0.9.1", (), None, set()),  # every one off on both sides
    ("0.9.1", (f"{KW}.enable_thinking=False",), None, set()),  # model.enable_thinking
    ("0.9.1", (f"{KW}.reasoning_effort=high",), "RFTC300", {"chat_template"}),
    ("0.9.1", ("data.image_key=images",), "RFTC305", {"media"}),
    # an audio column has no field in Trinity's format: the conversion names no media, whose media are not compared
    ("0.9.1", ("data.audio_key=sounds",), "RFTC300", set()),
    ("0.9.1", ("data.custom_cls.path=ds.py", "data.custom_cls.name=Rows"), "RFTC300", {"dataset_class"}),
    ("0.9.1", (*GAE, "algorithm.use_pf_ppo=True"), "RFTC300", {"pf_ppo"}),
    ("0.9.0", ("data.continuous_token.enable=True",), "RFTC300", {"tokenization"}),
])
def test_a_launch_and_its_conversion(tmp_path, release, overrides, code, quantities):
    from test_diff_optimizer import BASE

    stderr, config, found = _convert(tmp_path, release, launch(tmp_path, *BASE, *overrides))
    assert found & DATA == quantities
    assert (code is None or code in stderr), stderr
    if overrides == (f"{KW}.enable_thinking=False",):
        assert config["model"]["enable_thinking"] is False


def test_the_engine_sft_trainer_and_its_conversion_render_with_the_same_thinking_switch(tmp_path):
    """The engine trainer's default enable_thinking_default (the string 'none') is true: the conversion writes
    format.enable_thinking true, and the way back writes the switch as data.enable_thinking_default."""
    (script,) = _sft_launches(tmp_path, ())
    stderr, config, found = _convert(tmp_path, "0.9.1", script)
    assert config["buffer"]["trainer_input"]["experience_buffer"]["format"]["enable_thinking"] is True
    assert "chat_template" not in found
    back = rftc("convert", "--to", "verl", tmp_path / "out.yaml", "--verl-version", "0.9.1", "--format", "concise")
    assert back.returncode == 0, back.stderr
    assert "'data.enable_thinking_default=True'" in back.stdout
    # the one quantity veRL cannot express: Trinity adds up its micro-batches' losses (tests/test_diff_micro.py)
    assert [w for w in back.stderr.splitlines() if "RFTC601" in w and "micro-batch loss" not in w] == [], back.stderr


def test_a_trinity_sft_config_without_a_switch_goes_back_with_a_null_default(tmp_path):
    config = tmp_path / "sft.yaml"
    config.write_text(yaml.safe_dump(_sft()))
    back = rftc("convert", "--to", "verl", config, "--verl-version", "0.9.1", "--format", "concise")
    assert back.returncode == 0, back.stderr
    assert "'data.enable_thinking_default=null'" in back.stdout and "chat template" not in back.stderr


TEMPLATE = ("{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' + m[\"content\"] }}\n{% endfor %}"
            "{% if add_generation_prompt %}{{ 'assistant\\\\' }}{% endif %}")


@pytest.mark.parametrize("changed, written", [
    (_taskset(rollout_args={"max_tokens": 50}), "'data.max_response_length=50'"),
    (_with(model={**TRINITY["model"], "enable_thinking": False}),
     "'+data.apply_chat_template_kwargs.enable_thinking=False'"),
    (_with(model={**TRINITY["model"], "custom_chat_template": "T"}),
     "'actor_rollout_ref.model.custom_chat_template=T'"),
    # a template's quotes, backslashes and newlines as Hydra's quoted values keep them
    (_with(model={**TRINITY["model"], "custom_chat_template": TEMPLATE}),
     "actor_rollout_ref.model.custom_chat_template="),
])
def test_the_way_back_writes_the_template_and_the_response_cap(tmp_path, changed, written):
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(changed))
    back = rftc("convert", "--to", "verl", config, "--verl-version", "0.9.1", "--format", "concise")
    assert back.returncode == 0, back.stderr
    assert written in back.stdout
    assert "max response length" not in back.stderr and "chat template" not in back.stderr, back.stderr
