"""`rftc diff` names how an optimizer step's loss is made from its micro-batches (microbatch_loss), on both sides:
veRL's engine workers normalise by the whole mini-batch (micro-batching changes nothing), its legacy workers (to
0.7.x) and fsdp_sft_trainer average the micro-batches' losses, the engine critic of 0.6.1 to 0.8.0 and Trinity-RFT
0.6's trainer add them up (Trinity's step is the micro-batches a GPU times their mean). One veRL override at a time
per release, one Trinity field at a time, launches and their conversions (whose warnings name the factor and the
micro-batch count), and the way back."""

from __future__ import annotations

import pytest

from rftc import compare
from support.cli import launch, rftc
from test_convert_equivalence import CASES, GOLDEN, MICRO_WARNING, _args
from test_diff_loss import SFT
from test_diff_optimizer import BASE, TRINITY, _differences, _with, report
from test_diff_prompts import _convert_and_diff

A, C = "actor_rollout_ref.actor", "critic"
MICRO = f"{A}.ppo_micro_batch_size_per_gpu"
GAE = ("algorithm.adv_estimator=gae", "critic.model.path=/m", "critic.ppo_micro_batch_size_per_gpu=1")
MEGATRON = "--config-name=ppo_megatron_trainer"
STATIC = {"trainer": {"use_dynamic_bsz": False, "trainer_config": {"actor_rollout_ref": {"actor": {
    "ppo_micro_batch_size_per_gpu": 1}}}}}


@pytest.mark.parametrize("release, base, changed, quantities", [
    # the legacy FSDP actor averages its micro-batches' token means: their rows decide how tokens weigh
    ("0.7.1", (), (f"{MICRO}=2",), {"microbatch_loss"}),
    # ... but sequence means of micro-batches of equal rows average to the mini-batch's
    ("0.7.1", (f"{A}.loss_agg_mode=seq-mean-token-mean",), (f"{A}.loss_agg_mode=seq-mean-token-mean", f"{MICRO}=2"),
     set()),
    # to 0.7.0 seq-mean-token-sum-norm is a token sum over the width: its mean over micro-batches is rows x it
    ("0.6.1", (f"{A}.loss_agg_mode=seq-mean-token-sum-norm",),
     (f"{A}.loss_agg_mode=seq-mean-token-sum-norm", f"{MICRO}=2"), {"microbatch_loss"}),
    ("0.7.1", (f"{A}.loss_agg_mode=seq-mean-token-sum-norm",),
     (f"{A}.loss_agg_mode=seq-mean-token-sum-norm", f"{MICRO}=2"), set()),
    # the engine actor normalises by the whole mini-batch
    ("0.9.1", (), (f"{MICRO}=2",), set()),
    ("0.9.1", (), (f"{A}.use_dynamic_bsz=True",), set()),
    # token budgets: the legacy FSDP actor weighs them by rows (exact for sequence means), Megatron's does not
    ("0.7.1", (), (f"{A}.use_dynamic_bsz=True",), {"microbatch_loss"}),
    ("0.7.1", (f"{A}.loss_agg_mode=seq-mean-token-mean",),
     (f"{A}.loss_agg_mode=seq-mean-token-mean", f"{A}.use_dynamic_bsz=True"), set()),
    ("0.7.1", (MEGATRON, f"{A}.loss_agg_mode=seq-mean-token-mean"),
     (MEGATRON, f"{A}.loss_agg_mode=seq-mean-token-mean", f"{A}.use_dynamic_bsz=True"), {"microbatch_loss"}),
    ("0.7.1", (f"{A}.use_dynamic_bsz=True",), (f"{A}.use_dynamic_bsz=True", f"{A}.ppo_max_token_len_per_gpu=4096"),
     {"microbatch_loss"}),
    # verl 0.8.0's engine critic adds up its micro-batches' losses: their count a GPU is the value; 0.9.0's does not
    ("0.8.0", GAE, (*GAE, f"{C}.ppo_micro_batch_size_per_gpu=2"), {"microbatch_loss"}),
    ("0.8.0", GAE, (*GAE, "trainer.n_gpus_per_node=1"), {"microbatch_loss"}),
    ("0.9.1", GAE, (*GAE, f"{C}.ppo_micro_batch_size_per_gpu=2"), set()),
    # the legacy workers divide a global size by their data-parallel ranks
    ("0.7.1", (f"{MICRO}=null", f"{A}.ppo_micro_batch_size=2"), (f"{MICRO}=null", f"{A}.ppo_micro_batch_size=4"),
     {"microbatch_loss"}),
    ("0.7.1", (f"{MICRO}=null", f"{A}.ppo_micro_batch_size=2"), (f"{MICRO}=1",), set()),  # 2 / 2 GPUs, spelled out
])
def test_one_override_is_its_quantity(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


def _values(tmp_path, a: tuple, b: tuple, *options: str, ext: str = ".sh") -> tuple[str, str]:
    [got] = [d for d in report(tmp_path, a, b, *options, ext=ext) if d["quantity"] == "microbatch_loss"]
    return got["a"]["value"], got["b"]["value"]


def test_the_values_name_the_multiple_and_the_micro_batches(tmp_path):
    """16 responses a step on 2 GPUs: verl 0.7.1 averages micro-batches of 1 and of 4; verl 0.8.0's critic adds up
    its 8 micro-batches a GPU (each a token mean of its micro-batch)."""
    a, b = _values(tmp_path, (), (f"{MICRO}=4",), "--verl-version", "0.7.1")
    assert (a, b) == ("1 x the mean of its micro-batches' losses (1 responses each)",
                      "1 x the mean of its micro-batches' losses (4 responses each)")
    a, b = _values(tmp_path / "critic", GAE, (*GAE, f"{C}.loss_agg_mode=seq-mean-token-mean"), "--verl-version",
                   "0.8.0")
    assert a == "actor 1 x the mini-batch's loss; critic 8 x the mean of its micro-batches' losses (1 responses each)"
    assert b == "actor 1 x the mini-batch's loss; critic 8 x the mini-batch's loss"


@pytest.mark.parametrize("changed, quantities", [
    (_with(**STATIC), {"microbatch_loss"}),  # token budgets (Trinity's default) against fixed micro-batches
    (_with(trainer={"max_token_len_per_gpu": 4096}), {"microbatch_loss"}),
    (_with(trainer={"max_token_len_per_gpu": 600}), set()),  # ceil(2 x max_model_len 300 / SP 1): the default
    # Trinity's seq-mean-token-sum-norm sums tokens over the width: its micro-batches add up to the GPU's share
    (_with(algorithm={**TRINITY["algorithm"], "loss_agg_mode": "seq-mean-token-sum-norm"}),
     {"loss_agg_mode", "loss_scale", "microbatch_loss"}),
])
def test_one_field_of_a_trinity_config_is_its_quantity(tmp_path, changed, quantities):
    assert _differences(tmp_path, TRINITY, changed, ext=".yaml") == quantities


@pytest.mark.parametrize("changed", [
    {"cluster": {"node_num": 1, "gpu_per_node": 4}},  # 3 trainer GPUs of 4: 8 experiences do not split; 2 of 3
    {"trainer": {**STATIC["trainer"], "trainer_config": {"actor_rollout_ref": {"actor": {
        "ppo_micro_batch_size_per_gpu": 2}}}}},
])
def test_fixed_micro_batches_are_counted_a_gpu(tmp_path, changed):
    """Trinity's step with fixed micro-batches is their count a GPU times their mean: 8 experiences (buffer.batch_size
    2 x repeat_times 4) on the trainer's one GPU of two in micro-batches of 1 are 8 x; another GPU count or size
    another multiple."""
    base = _with(**STATIC)
    a, b = _values(tmp_path, base, _with(**{**STATIC, **changed}), ext=".yaml")
    assert a == "8 x the mean of its micro-batches' losses (1 responses each)"
    assert b != a


def test_trinity_s_seq_mean_token_sum_norm_adds_up_alike_with_token_budgets(tmp_path):
    """Its micro-batches' token sums add up to the GPU's share whatever splits it: 8 sequences a GPU x the
    mini-batch's sequence mean, with fixed micro-batches or token budgets."""
    norm = {"algorithm": {**TRINITY["algorithm"], "loss_agg_mode": "seq-mean-token-sum-norm"}}
    assert _differences(tmp_path, _with(**norm), _with(**norm, **STATIC), ext=".yaml") == set()
    a, _ = _values(tmp_path / "v", _with(**norm), TRINITY, ext=".yaml")
    assert a == "8 x the mini-batch's loss"


@pytest.mark.parametrize("release, overrides, count", [
    ("0.9.1", (), "its 8 micro-batches a GPU (16 responses / (2 data-parallel ranks x 1))"),
    ("0.7.1", (f"{MICRO}=2",), "its 4 micro-batches a GPU (16 responses / (2 data-parallel ranks x 2))"),
    ("0.9.1", (f"{A}.use_dynamic_bsz=True",), "its token-budget micro-batches (16384 tokens a GPU"),
])
def test_a_launch_and_its_conversion_add_up_micro_batches_and_say_so(tmp_path, release, overrides, count):
    """The conversion keeps the mini-batch and the micro-batch size on the trainer's GPUs (veRL's 2 here, the
    explorer's rollout engine of 2 GPUs on a node more: RFTC317): Trinity adds up what veRL normalises by the
    mini-batch (0.9.1) or averages (0.7.1), and RFTC305 names the micro-batches it adds up."""
    stderr, _, quantities = _convert_and_diff(tmp_path, release, *overrides)
    assert "microbatch_loss" in quantities
    [line] = [w for w in stderr.splitlines() if "RFTC305" in w and "micro-batches" in w]
    assert count in line and "Trinity-RFT 0.6's trainer adds up the losses of" in line, line
    assert (f"{A}.use_dynamic_bsz" if "budget" in count else MICRO) in line or "run.sh:1:" in line


def test_a_launch_of_one_micro_batch_on_one_gpu_and_its_conversion_agree(tmp_path):
    """One GPU (Trinity's colocate mode) and one micro-batch of the whole mini-batch: both steps are the
    mini-batch's loss, and the conversion says nothing of it."""
    stderr, _, quantities = _convert_and_diff(tmp_path, "0.9.1", "trainer.n_gpus_per_node=1", f"{MICRO}=16",
                                              "actor_rollout_ref.rollout.tensor_model_parallel_size=1")
    assert "microbatch_loss" not in quantities
    assert "adds up the losses" not in stderr, stderr


@pytest.mark.parametrize("module, release, overrides, trainer", [
    ("verl.trainer.fsdp_sft_trainer", "0.6.1", ("model.partial_pretrain=/m",), "fsdp_sft_trainer"),
    ("verl.trainer.sft_trainer", "0.9.1", ("model.path=/m", "data.use_dynamic_bsz=False"),
     "verl 0.9.1's sft_trainer"),
])
def test_an_sft_launch_and_its_conversion(tmp_path, module, release, overrides, trainer):
    """16 rows a step, micro-batches of 2 on 2 GPUs: fsdp_sft_trainer averages its micro-batches' token means, the
    engine trainer takes the step's token mean; Trinity adds up 4 micro-batches a GPU (RFTC331)."""
    script = launch(tmp_path, *SFT, *overrides, module=module)
    done = rftc("convert", script, "--verl-version", release, "--format", "concise", "-o", tmp_path / "out.yaml",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [line] = [w for w in done.stderr.splitlines() if "RFTC331" in w]
    assert f"{trainer} makes a step's loss as " in line and "its 4 micro-batches a GPU (16 rows / (2" in line, line
    assert "4 x the mean of its micro-batches' losses (2 rows each)" in line


def test_the_way_back_reports_what_veRL_cannot_add_up(tmp_path):
    """veRL's workers average or normalise their micro-batches' losses: a Trinity config's sum of them is RFTC601."""
    import yaml

    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(_with(**STATIC)))
    done = rftc("convert", "--to", "verl", path, "--verl-version", "0.9.1", "--format", "concise", cwd=tmp_path)
    assert "RFTC601" in done.stderr and "micro-batch loss" in done.stderr, done.stderr


@pytest.mark.parametrize("script", CASES, ids=lambda s: str(s.relative_to(GOLDEN)))
def test_each_golden_conversion_warns_where_its_micro_batch_loss_differs(script):
    """A conversion's RFTC305 (RFTC331 for SFT) of the micro-batches Trinity adds up is in its golden diagnostics
    exactly where `rftc diff` of the script and the conversion finds the quantity different."""
    from rftc.commands import convert

    result = compare.diff(str(script), str(script.with_suffix(".yaml")), convert.options(_args(script)))
    differs = any(q.name == "microbatch_loss" for q, _, _ in result.differences)
    stderr = script.with_suffix(".stderr")
    warned = stderr.exists() and MICRO_WARNING in stderr.read_text()
    assert differs == warned
