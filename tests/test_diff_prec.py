"""`rftc diff` names the precision the trainer trains in (each role's weights, compute and gradient-reduce dtypes,
optimizer state and quantisation-aware training, as the release's worker reads them: rftc.mapping.precision) and the
rollout generates in, on both sides: a launch with one override changed at a time (per release where the workers
read it otherwise), a Trinity-RFT config with one field changed at a time, the same run written two ways (a default
spelled out, a dtype's other name, a key no worker reads), a launch and its own conversion (which carries what
Trinity's engine would do otherwise, or warns), and veRL's SFT trainers."""

from __future__ import annotations

import json

import pytest

from support.cli import launch, rftc
from test_diff_optimizer import BASE, GAE, TRINITY, _with
from test_diff_prompts import _convert_and_diff
from test_diff_seed import SFT
from test_diff_steps import _differences

A, REF, R = "actor_rollout_ref.actor", "actor_rollout_ref.ref", "actor_rollout_ref.rollout"
KL = (f"{A}.use_kl_loss=True",)
QAT = (f"{A}.fsdp_config.qat.enable=True", f"{A}.fsdp_config.qat.quantization_config_path=q.json")
MEGATRON = ("--config-name=ppo_megatron_trainer", f"{A}.megatron.tensor_model_parallel_size=1")
LEGACY_SFT = ("data.train_files=/d/train.parquet", "data.train_batch_size=16", "data.micro_batch_size_per_gpu=2",
              "trainer.total_training_steps=10", "model.partial_pretrain=/m", "data.prompt_key=q",
              "data.response_key=a")


@pytest.mark.parametrize("release, base, changed, quantities", [
    ("0.9.1", (), (f"{A}.fsdp_config.model_dtype=bf16",), {"precision"}),  # pure bf16 training
    ("0.9.1", (), (f"{A}.fsdp_config.model_dtype=fp32",), set()),  # the default spelled out
    ("0.9.1", (), (f"{A}.fsdp_config.model_dtype=float32",), set()),  # PrecisionType's other name for it
    ("0.5.0", (), (f"+{A}.fsdp_config.model_dtype=bf16",), {"precision"}),  # no key yet: the legacy worker reads it
    # the legacy FSDP worker casts the parameters to fsdp_config.dtype and autocasts in it (0.6.1 to 0.7.1); the
    # engine's FSDP ignores it
    ("0.7.1", (), (f"{A}.fsdp_config.dtype=float16",), {"precision"}),
    ("0.6.0", (), (f"+{A}.fsdp_config.dtype=float16",), set()),
    ("0.9.1", (), (f"{A}.fsdp_config.dtype=float16",), set()),
    ("0.9.1", (), (f"+{A}.fsdp_config.mixed_precision.reduce_dtype=bf16",), {"precision"}),
    ("0.9.1", (), (f"+{A}.fsdp_config.mixed_precision.reduce_dtype=fp32",), set()),
    # the reference's weights: read where a KL uses it, and not where LoRA keeps it in the actor
    ("0.9.1", KL, (*KL, f"{REF}.fsdp_config.model_dtype=bf16"), {"precision"}),
    ("0.9.1", (), (f"{REF}.fsdp_config.model_dtype=bf16",), set()),
    ("0.9.1", (*KL, "actor_rollout_ref.model.lora_rank=8"),
     (*KL, "actor_rollout_ref.model.lora_rank=8", f"{REF}.fsdp_config.model_dtype=bf16"), set()),
    ("0.5.0", KL, (*KL, f"+{REF}.fsdp_config.model_dtype=bf16"), set()),  # its legacy default spelled out
    ("0.6.0", KL, (*KL, f"{REF}.fsdp_config.model_dtype=bf16"), {"precision"}),  # 0.6.0's config sets fp32
    # QAT: the engine trains the actor with it (and the vLLM rollout, whose rollout.qat follows it, quantises);
    # 0.7.1's legacy actor reads actor.qat, which the rollout does not follow
    ("0.9.1", (), QAT, {"precision", "rollout_precision"}),
    ("0.7.1", (), QAT, {"rollout_precision"}),
    ("0.7.1", (), (f"{A}.qat.enable=True",), {"precision"}),
    ("0.9.1", (), (f"{A}.qat.enable=True",), set()),
    ("0.9.1", QAT, (*QAT, f"{A}.fsdp_config.qat.group_size=32"), {"precision"}),
    ("0.9.1", QAT, (*QAT, f"{A}.fsdp_config.qat.quantization_config_path=r.json"), {"rollout_precision"}),
    # the critic's own section (gae)
    ("0.9.1", GAE, (*GAE, "critic.fsdp.model_dtype=bf16"), {"precision"}),
    ("0.7.1", GAE, (*GAE, "critic.model.fsdp_config.dtype=float16"), set()),  # its legacy worker computes in bf16
    # Megatron: its dtype; the legacy worker computes the reference in the actor's
    ("0.9.1", MEGATRON, (*MEGATRON, f"{A}.megatron.dtype=float16"), {"precision"}),
    ("0.9.1", (*MEGATRON, *KL), (*MEGATRON, *KL, f"{REF}.megatron.dtype=float16"), {"precision"}),
    ("0.7.1", (*MEGATRON, *KL), (*MEGATRON, *KL, f"{REF}.megatron.dtype=float16"), set()),
    ("0.9.1", MEGATRON, (*MEGATRON, f"{A}.optim.use_precision_aware_optimizer=True",
                         f"{A}.optim.exp_avg_sq_dtype=bf16"), {"precision"}),
    ("0.9.1", MEGATRON, (*MEGATRON, f"{A}.megatron.dtype=float16", f"{A}.optim.use_precision_aware_optimizer=True",
                         f"{A}.optim.exp_avg_sq_dtype=bf16"), {"precision"}),  # fp16: the state stays fp32
    # the rollout's dtype (vLLM's names) and quantisation
    ("0.9.1", (), (f"{R}.dtype=float16",), {"rollout_precision"}),
    ("0.9.1", (f"{R}.dtype=float16",), (f"{R}.dtype=half",), set()),
    ("0.3.0.post1", (), (f"{R}.dtype=float16",), {"rollout_precision"}),
    ("0.9.1", (), (f"{R}.quantization=fp8",), {"rollout_precision"}),
    ("0.9.1", (), (f"{R}.quantization_config_file=q.json",), set()),  # read only where it quantises
])
def test_one_override_is_its_quantity(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


def test_megatron_optimizer_state_is_what_the_precision_aware_optimizer_keeps(tmp_path):
    """Under bf16 the precision-aware optimizer keeps its moments in the optim section's dtypes (0.9.0); an fp16
    Megatron engine keeps them in fp32 whatever they say."""
    aware = (*MEGATRON, f"{A}.optim.use_precision_aware_optimizer=True", f"{A}.optim.exp_avg_sq_dtype=bf16")
    fp16 = (*MEGATRON, f"{A}.megatron.dtype=float16")
    assert _differences(tmp_path / "1", fp16, (*fp16, *aware[2:]), "--verl-version", "0.9.1") == set()
    assert _differences(tmp_path / "2", aware[:3], aware, "--verl-version", "0.9.1") == {"precision"}


FSDP = {"actor_rollout_ref": {"actor": {"fsdp_config": {}}}}


def _fsdp(**section) -> dict:
    return _with(trainer={"trainer_config": {"actor_rollout_ref": {"actor": {"fsdp_config": section}}}})


@pytest.mark.parametrize("a, b, quantities", [
    (_with(), _fsdp(model_dtype="bf16"), {"precision"}),
    (_with(), _fsdp(model_dtype="fp32"), set()),  # Trinity's engine default spelled out
    (_with(), _fsdp(dtype="float16"), set()),  # verl 0.8.0's FSDP engine does not read it
    (_with(), _fsdp(mixed_precision={"param_dtype": "fp16"}), {"precision"}),
    (_with(), _fsdp(qat={"enable": True}), {"precision"}),  # Trinity's explorer does not quantise
    (_fsdp(qat={"enable": True}), _fsdp(qat={"enable": True, "group_size": 32}), {"precision"}),
    (_with(), _fsdp(qat={"group_size": 32}), set()),  # QAT off
    (_with(), _with(explorer={"rollout_model": {"dtype": "float16"}}), {"rollout_precision"}),
    (_with(explorer={"rollout_model": {"dtype": "float16"}}), _with(explorer={"rollout_model": {"dtype": "half"}}),
     set()),
    # Trinity 0.6 reads lora_dtype nowhere
    (_with(model={**TRINITY["model"], "lora_configs": [{"lora_rank": 8, "path": "/a"}]}),
     _with(model={**TRINITY["model"], "lora_configs": [{"lora_rank": 8, "path": "/a", "lora_dtype": "bfloat16"}]}),
     set()),
    # the reference's section counts where a KL uses it
    (_with(), _with(trainer={"trainer_config": {"actor_rollout_ref": {"ref": {"fsdp_config": {"model_dtype": "bf16"}}}}}),
     set()),
    (_with(algorithm={**TRINITY["algorithm"], "kl_loss_fn": "k2"}),
     _with(algorithm={**TRINITY["algorithm"], "kl_loss_fn": "k2"},
           trainer={"trainer_config": {"actor_rollout_ref": {"ref": {"fsdp_config": {"model_dtype": "bf16"}}}}}),
     {"precision"}),
    (_with(trainer={"trainer_strategy": "megatron"}), _with(trainer={"trainer_strategy": "megatron", "trainer_config": {
        "actor_rollout_ref": {"actor": {"megatron": {"dtype": "float16"}}}}}), {"precision"}),
])
def test_one_field_of_a_trinity_config_is_its_quantity(tmp_path, a, b, quantities):
    a = {**a, "algorithm": {"kl_loss_fn": "none", **a["algorithm"]}}
    b = {**b, "algorithm": {"kl_loss_fn": "none", **b["algorithm"]}}
    assert _differences(tmp_path, a, b, ext=".yaml") == quantities



@pytest.mark.parametrize("release", ["0.2", "0.5.0", "0.6.1", "0.7.1", "0.9.1"])
def test_off_on_both_sides(tmp_path, release):
    """veRL's defaults (with a reference and a critic) and a conversion that leaves Trinity's engine defaults: one
    precision, one rollout precision, nothing warned."""
    stderr, _, quantities = _convert_and_diff(tmp_path, release, *KL, *GAE, part="trainer.trainer_config")
    assert not {"precision", "rollout_precision"} & quantities
    assert "RFTC305" not in stderr or "precision" not in stderr


def _at(tc: dict, *path: str):
    for part in path:
        tc = tc.get(part) if isinstance(tc, dict) else None
    return tc


@pytest.mark.parametrize("release, overrides, section, written", [
    # the legacy reference (before 0.6.0) loads in bf16, Trinity's engine in fp32
    ("0.5.0", KL, ("actor_rollout_ref", "ref", "fsdp_config", "model_dtype"), "bf16"),
    ("0.2", KL, ("actor_rollout_ref", "ref", "fsdp_config", "model_dtype"), "bf16"),
    ("0.6.0", KL, ("actor_rollout_ref", "ref", "fsdp_config", "model_dtype"), None),
    ("0.5.0", (), ("actor_rollout_ref", "ref", "fsdp_config"), None),  # no KL: no reference
    # 0.7.1's legacy actor trains with QAT from actor.qat: written as the engine's
    ("0.7.1", (f"{A}.qat.enable=True", f"{A}.qat.mode=w4a4"), ("actor_rollout_ref", "actor", "fsdp_config", "qat"),
     {"enable": True, "mode": "w4a4"}),
    # the legacy Megatron worker computes the reference in the actor's dtype
    ("0.7.1", (*MEGATRON, *KL, f"{A}.megatron.dtype=float16", f"{REF}.megatron.dtype=bfloat16"),
     ("actor_rollout_ref", "ref", "megatron", "dtype"), "float16"),
    # verl 0.8.0's QAT defaults differ from the Megatron section's in veRL's config
    ("0.9.1", (*MEGATRON, f"{A}.megatron.qat.enable=True", f"{A}.megatron.qat.quantization_config_path=q.json"),
     ("actor_rollout_ref", "actor", "megatron", "qat", "ignore_patterns"), ["lm_head", "*mlp.gate"]),
])
def test_a_launch_and_its_conversion_train_in_one_precision(tmp_path, release, overrides, section, written):
    stderr, tc, quantities = _convert_and_diff(tmp_path, release, *overrides, part="trainer.trainer_config")
    assert _at(tc, *section) == written, tc
    assert "precision" not in quantities, stderr


def test_a_legacy_qat_section_the_worker_does_not_read_is_left_out(tmp_path):
    """0.7.1's legacy actor does not train with fsdp_config.qat (its rollout quantises with it, which Trinity's
    explorer does not: RFTC305); Trinity's engine would, so the conversion leaves it out."""
    stderr, tc, quantities = _convert_and_diff(tmp_path, "0.7.1", *QAT, part="trainer.trainer_config")
    assert _at(tc, "actor_rollout_ref", "actor", "fsdp_config", "qat", "enable") is None, tc
    assert "RFTC305" in stderr and "QAT-quantised weights" in stderr, stderr
    assert quantities & {"precision", "rollout_precision"} == {"rollout_precision"}


@pytest.mark.parametrize("release, overrides, warned", [
    # the legacy worker's cast and autocast in fsdp_config.dtype: Trinity's engine casts as mixed_precision says
    ("0.7.1", (f"{A}.fsdp_config.dtype=float16",), "trains the actor with fp16 compute"),
    ("0.9.1", (f"+{A}.fsdp_config.mixed_precision.reduce_dtype=bf16",), "bf16 gradient reduce"),
])
def test_a_cast_trinity_cannot_write_is_warned(tmp_path, release, overrides, warned):
    stderr, _, quantities = _convert_and_diff(tmp_path, release, *overrides, part="trainer.trainer_config")
    assert "RFTC305" in stderr and warned in stderr, stderr
    assert "precision" in quantities


def test_a_quantising_rollout_is_warned(tmp_path):
    stderr, _, quantities = _convert_and_diff(tmp_path, "0.9.1", *QAT, part="trainer.trainer_config")
    assert "QAT-quantised weights" in stderr, stderr
    assert quantities & {"precision", "rollout_precision"} == {"rollout_precision"}
    (tmp_path / "fp8").mkdir()
    stderr, _, quantities = _convert_and_diff(tmp_path / "fp8", "0.9.1", f"{R}.quantization=fp8",
                                              part="trainer.trainer_config")
    assert "rollout.quantization has no Trinity-RFT 0.6 equivalent" in stderr, stderr
    assert "rollout_precision" in quantities


@pytest.mark.parametrize("module, release, extra, quantities", [
    ("verl.trainer.fsdp_sft_trainer", "0.3.0.post1", ("+model.fsdp_config.model_dtype=bf16",), set()),  # fp32 fixed
    ("verl.trainer.fsdp_sft_trainer", "0.5.0", ("model.fsdp_config.model_dtype=bf16",), {"precision"}),
    ("verl.trainer.sft_trainer", "0.9.1", ("engine.model_dtype=bf16",), {"precision"}),
    ("verl.trainer.sft_trainer", "0.9.1", ("engine.dtype=float16",), set()),  # the FSDP engine does not read it
    ("verl.trainer.sft_trainer", "0.9.1", ("engine.qat.enable=True",), {"precision"}),
])
def test_the_sft_trainers_precision(tmp_path, module, release, extra, quantities):
    """fsdp_sft_trainer's mixed precision is fixed (its weights' dtype read from 0.4.0); the engine SFT trainer's
    engine section as the RL workers'; each launch's conversion trains in its precision."""
    sft = LEGACY_SFT if "fsdp" in module else SFT
    sides = []
    for name, words in (("a", sft), ("b", (*sft, *extra))):
        (tmp_path / name).mkdir()
        sides.append(launch(tmp_path / name, *words, module=module))
    diff = rftc("diff", *sides, "--verl-version", release, "--format", "json")
    assert diff.returncode in (0, 1), diff.stderr
    assert {d["quantity"] for d in json.loads(diff.stdout)["differences"]} == quantities, diff.stderr
    done = rftc("convert", sides[1], "--verl-version", release, "-o", tmp_path / "out.yaml")
    assert done.returncode == 0, done.stderr
    diff = rftc("diff", sides[1], tmp_path / "out.yaml", "--verl-version", release, "--format", "json")
    assert "precision" not in {d["quantity"] for d in json.loads(diff.stdout)["differences"]}, diff.stdout
