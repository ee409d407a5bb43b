"""veRL's SFT trainers and pipelines of several launches: the pipeline golden (golden/pipeline/: an SFT warm-up,
then GRPO, as one config with stages), what `--list` says of each launch, Trinity 0.6.0's own loader on the SFT
goldens (golden/convert/sft/, compared byte for byte by tests/test_convert_golden.py) and on the pipeline, stage by
stage as `trinity run` checks them, and the runtime's plan of a converted pipeline."""

import copy
import json
import os
import subprocess

import pytest

from rftc import api
from rftc.mapping.rules import find_rule
from rftc.mapping.sft_rules import SFT_RULES
from rftc.verl.releases import schema
from rftc.verl.trainers import SFT_CONFIGS
from support import paths
from support.cli import rftc
from trinity_ref import reference

PIPELINE = paths.GOLDEN / "pipeline" / "sft_grpo"
GRPO = "../../convert/cases/algo_grpo_kl_loss.sh"  # the GRPO launch after the SFT warm-up, a golden case of its own
SFT = paths.GOLDEN / "convert" / "sft"

pytestmark = pytest.mark.usefixtures("plain_terminal")


def _leaves(tree, prefix=""):
    for k, v in tree.items():
        key = f"{prefix}.{k}" if prefix else k
        yield from _leaves(v, key) if isinstance(v, dict) and v else [key]


def test_every_key_of_every_release_s_sft_configs_has_a_rule():
    missing = {(v, key) for v in schema.versions() for name in SFT_CONFIGS if name in schema.load(v).configs
               for key in _leaves(schema.load(v).tree(name)) if find_rule(key, SFT_RULES) is None}
    assert not missing


@pytest.mark.parametrize("version,ratio", [("0.5.0", "warmup_steps_ratio"), ("0.7.0", "lr_warmup_steps_ratio")])
def test_the_warmup_ratio_is_the_key_the_release_reads(tmp_path, version, ratio):
    (tmp_path / "sft.sh").write_text("torchrun --nproc_per_node=4 -m verl.trainer.fsdp_sft_trainer "
                                     f"data.train_files=/d/train.parquet optim.{ratio}=0.2 "
                                     "trainer.total_training_steps=9\n")
    result = api.compile(str(tmp_path / "sft.sh"), api.Options(verl_version=version))
    optimizer = result.document["algorithm"]["optimizer"]
    assert (optimizer["lr_warmup_steps_ratio"], result.provenance["algorithm.optimizer.lr_warmup_steps_ratio"].keys) \
        == (0.2, (f"optim.{ratio}",))
    assert (optimizer["lr_scheduler_type"], optimizer["min_lr_ratio"]) == ("cosine", 0.0)  # fsdp_sft_trainer's
    assert result.document["cluster"] == {"node_num": 1, "gpu_per_node": 4}  # torchrun's world


def test_verl_0_4_0_nests_the_columns_by_default_and_says_so(tmp_path):
    # its sft_trainer config reads prompt_dict_keys ['question'] and response_dict_keys ['answer'] unless set
    (tmp_path / "sft.sh").write_text("torchrun --nproc_per_node=4 -m verl.trainer.fsdp_sft_trainer "
                                     "data.train_files=/d/train.parquet trainer.total_training_steps=9\n")
    for version, nested in (("0.4.0", True), ("0.4.1", False)):
        result = api.compile(str(tmp_path / "sft.sh"), api.Options(verl_version=version))
        said = [d.message for d in result.diagnostics if d.code == "RFTC300" and "_dict_keys" in d.message]
        assert len(said) == (2 if nested else 0), said
        assert all(f"verl {version}'s default" in m for m in said)


def test_the_engine_trainer_takes_warmup_style_over_lr_scheduler_type_and_ray_reads_the_trainer_s_gpus(tmp_path):
    (tmp_path / "sft.sh").write_text("python3 -m verl.trainer.sft_trainer_ray data.train_files=/d/train.parquet "
                                     "optim.warmup_style=cosine optim.lr_scheduler_type=constant "
                                     "trainer.n_gpus_per_node=4 trainer.total_training_steps=9\n")
    result = api.compile(str(tmp_path / "sft.sh"))
    assert result.ok, [str(d) for d in result.diagnostics]
    assert result.document["algorithm"]["optimizer"]["lr_scheduler_type"] == "cosine"
    assert result.document["cluster"]["gpu_per_node"] == 4
    fmt = result.document["buffer"]["trainer_input"]["experience_buffer"]["format"]
    # the multi-turn dataset's enable_thinking_default, the string 'none', reads as true
    assert fmt == {"prompt_type": "messages", "messages_key": "messages", "enable_concatenated_multi_turn": True,
                   "enable_thinking": True}


def test_two_scripts_become_one_config_with_their_stages_in_order():
    proc = rftc("convert", "sft.sh", GRPO, "--format", "concise", *paths.arguments(PIPELINE / "args"), cwd=PIPELINE)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr == (PIPELINE / "expected.stderr").read_text()
    assert proc.stdout == (PIPELINE / "expected.yaml").read_text()
    assert proc.returncode == 0


def test_list_names_the_stage_each_launch_becomes():
    proc = rftc("convert", "--list", "sft.sh", GRPO, cwd=PIPELINE)
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    assert [(r[0], r[4], r[-1]) for r in rows] == [
        ("sft.sh", "verl.trainer.fsdp_sft_trainer", "stage 1: sft"),
        (GRPO, "verl.trainer.main_ppo", "stage 2: algo_grpo_kl_loss")]


def test_a_script_without_a_launch_stops_the_pipeline(tmp_path):
    (tmp_path / "a.sh").write_text("python3 -m verl.trainer.sft_trainer data.train_files=/d/t.parquet\n")
    (tmp_path / "b.sh").write_text("echo nothing to train\n")
    proc = rftc("convert", "a.sh", "b.sh", "--format", "concise", cwd=tmp_path)
    assert proc.returncode == 1 and "error[RFTC312]" in proc.stderr and proc.stdout == ""


def test_rftc_check_accepts_the_sft_goldens_and_the_pipeline():
    for config in [*sorted(SFT.glob("*.yaml")), PIPELINE / "expected.yaml"]:
        result = api.check(str(config))
        assert result.ok, (config, [str(d) for d in result.diagnostics if d.severity.label == "error"])
        assert len(result.config.stages) == (2 if config.parent == PIPELINE else 0)


# Trinity's loader, then each stage as `trinity run` checks it (Config.__iter__, check_and_update); a config
# without stages is checked whole. Where a LoRA adapter has no path, Trinity builds a dummy one from the model's
# weights (peft, the whole model): offline its stand-in is an empty folder, as the adapter's path is all the
# validator keeps of it.
STAGE_CHECK = r'''
import json, sys, tempfile
import trinity.common.config_validator as validator
from trinity.common.config import load_config
validator.create_dummy_lora = lambda **kwargs: tempfile.mkdtemp()
out = {}
for path in sys.argv[1:]:
    config = load_config(path)
    stages = list(config) or [config]
    got = []
    for stage in stages:
        stage.checkpoint_root_dir = tempfile.mkdtemp()
        stage.check_and_update()
        got.append([stage.mode, stage.algorithm.algorithm_type, stage.buffer.train_batch_size,
                    stage.model.model_path, stage.synchronizer.sync_method.value])
    out[path] = got
print(json.dumps(out))
'''


@pytest.mark.skipif(not reference.available(), reason=reference.MISSING)
def test_trinity_accepts_the_sft_goldens_and_the_pipeline_stage_by_stage(tmp_path):
    configs = [*sorted(SFT.glob("*.yaml")), PIPELINE / "expected.yaml"]
    env = dict(os.environ, HF_HUB_OFFLINE="1", HOME="/srv/home", PWD="/srv/pwd",
               PYTHONPATH=str(paths.ROOT))
    done = subprocess.run([str(reference.PYTHON), "-c", STAGE_CHECK, *map(str, configs)], capture_output=True,
                          text=True, timeout=600, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.splitlines()[-1])
    for config in configs[:-1]:
        (stage,) = got[str(config)]
        assert stage[:2] == ["train", "sft"] and stage[4] == "checkpoint", (config, stage)
    sft, grpo = got[str(PIPELINE / "expected.yaml")]
    assert sft == ["train", "sft", 256, "Qwen/Qwen2.5-0.5B-Instruct", "checkpoint"]
    assert grpo[:3] == ["both", "grpo", 1280]


def _scripts(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (tmp_path / "sft.jsonl").write_text("".join(json.dumps({"q": str(i), "a": str(i)}) + "\n" for i in range(8)))
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps({"prompt": "q", "answer": 1}) + "\n" for _ in range(4)))
    (tmp_path / "sft.sh").write_text(
        f"torchrun --nproc_per_node=2 -m verl.trainer.fsdp_sft_trainer data.train_files={tmp_path}/sft.jsonl \\\n"
        f"    data.prompt_key=q data.response_key=a data.train_batch_size=4 data.micro_batch_size_per_gpu=2 \\\n"
        f"    model.partial_pretrain={model} trainer.total_training_steps=2\n")
    (tmp_path / "grpo.sh").write_text(
        f"python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_files={tmp_path}/tasks.jsonl \\\n"
        f"    data.val_files={tmp_path}/tasks.jsonl data.train_batch_size=2 actor_rollout_ref.rollout.n=2 \\\n"
        "    actor_rollout_ref.actor.ppo_mini_batch_size=2 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 \\\n"
        f"    actor_rollout_ref.model.path={model} actor_rollout_ref.rollout.name=vllm trainer.n_gpus_per_node=2 \\\n"
        "    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1 trainer.total_training_steps=2 \\\n"
        "    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1 \\\n"
        "    actor_rollout_ref.rollout.tensor_model_parallel_size=1\n")
    return [str(tmp_path / "sft.sh"), str(tmp_path / "grpo.sh")]


def test_a_converted_pipeline_is_what_the_runtime_plans(tmp_path):
    from runtime_support import settings

    from rftc_runtime.plan import make_plan

    found = api.read(_scripts(tmp_path))
    launches = [invs[0] for invs in api.trainings(found).values()]
    result = api.compile_pipeline(launches)
    assert result.ok, [str(d) for d in result.diagnostics if d.severity.label == "error"]
    s = settings(result.document)
    plan = make_plan(s, gpus=0)
    assert plan.errors == []
    sft, grpo = plan.stages
    assert (sft.total_train_steps, sft.experiences_per_step) == (2, 4)
    assert grpo.total_train_steps == 2
    assert "model         the latest Hugging Face checkpoint of stage sft" in plan.describe(s)


def test_the_megatron_engine_trains_sft_on_megatron():
    """engine=megatron (veRL 0.9's sft_trainer on its Megatron engine, engine/megatron.yaml's McoreEngineConfig)
    converts to trainer_strategy megatron with the sizes Trinity takes, the engine's other keys passed to the actor's
    megatron section. The mapping is checked on the effective config that engine=megatron composes (its engine
    section, the launch's sizes set)."""
    from rftc.diagnostics.model import Span
    from rftc.mapping.convert import map_config
    from rftc.verl.effective import EffectiveConfig, Provenance

    values = copy.deepcopy(schema.load("0.9.1").tree("sft_trainer_engine"))
    values["data"]["train_files"] = "/d/train.parquet"
    values["engine"] = {"_target_": "verl.workers.config.McoreEngineConfig", "param_offload": False,
                        "optimizer_offload": False, "tensor_model_parallel_size": 1, "pipeline_model_parallel_size": 1,
                        "context_parallel_size": 1, "sequence_parallel": True, "use_distributed_optimizer": True,
                        "use_mbridge": True}
    sets = {"data.train_files": "/d/train.parquet", "engine.tensor_model_parallel_size": 2,
            "engine.pipeline_model_parallel_size": 2, "engine.param_offload": True, "engine.use_mbridge": False}
    prov = {}
    for line, (key, v) in enumerate(sets.items(), start=1):
        section, _, last = key.rpartition(".")
        values[section][last] = v
        prov[key] = Provenance("override", Span("run.sh", line, 1, line, 10), f"{key}={v}")
    m = map_config(EffectiveConfig("0.9.1", "sft_trainer_engine", values, prov))
    t = m.config["trainer"]
    assert t["trainer_strategy"] == "megatron"
    assert t["megatron"] == {"tensor_model_parallel_size": 2, "pipeline_model_parallel_size": 2}
    assert t["param_offload"] is True
    assert t["trainer_config"]["actor_rollout_ref"]["actor"]["megatron"] == {"use_mbridge": False}
    assert "fsdp_config" not in t["trainer_config"]["actor_rollout_ref"]["actor"]
    assert not [d for d in m.diagnostics if d.code in ("RFTC305", "RFTC300", "RFTC327")], m.diagnostics


def test_a_gpu_count_only_the_environment_knows_is_assumed_once(tmp_path):
    """torchrun --nproc_per_node=$GPUS with trainer.n_gpus_per_node=$GPUS: the trainer runs on torchrun's world and
    reads no trainer.n_gpus_per_node, so the one unknown count is assumed once (torchrun's 1), not 8 beside it."""
    script = tmp_path / "sft.sh"
    script.write_text("torchrun --standalone --nnodes=1 --nproc_per_node=$GPUS -m verl.trainer.fsdp_sft_trainer "
                      "data.train_files=/d/train.parquet model.partial_pretrain=Qwen/Qwen2.5-0.5B-Instruct "
                      "trainer.n_gpus_per_node=$GPUS trainer.total_epochs=1 optim.warmup_steps_ratio=0\n")
    result = api.compile(str(script))
    (assumed,) = [d for d in result.diagnostics if d.code == "RFTC318"]
    assert "torchrun --nproc_per_node" in assumed.message and "assumes 1" in assumed.message
    assert "--gpus-per-node" in assumed.hint
    assert result.document["cluster"]["gpu_per_node"] == 1 and result.ok
    assert result.ledger["trainer.n_gpus_per_node"].status == "implied"
