"""`rftc run --smoke`: the smoke config keeps every ratio that decides how a config trains, and what it changes is
what `rftc diff` of the original and the smoke config reports (each golden conversion and Trinity config); data that
is not here is generated with the columns the config reads; `--smoke --dry-run` plans the README's example, a PPO
config with a critic, an SFT-then-GRPO pipeline and a one-step-off conversion; and a smoke run trains the README's
example and converted corpus configs end to end (slow: Ray, vLLM and veRL's workers on the CPU)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rftc import api, compare
from rftc.commands.run import smoke_changes
from rftc.semantics.model import TrainingRun, quantities
from rftc_runtime import smoke as sm
from rftc_runtime.plan import make_plan
from rftc_runtime.settings import Settings
from support.cli import rftc
from runtime_support import model_dir
from support.paths import GOLDEN, ROOT

# what a smoke config may train differently: the model, the data and the sizes it substitutes (and so the micro-batches
# a step's loss is made of)
SUBSTITUTED = {"model", "reference_model", "critic_model", "chat_template", "data", "max_samples",
               "responses_per_step", "experiences_per_update", "examples_per_step", "ahead", "total_steps",
               "lr_horizon", "max_prompt_length", "max_response_length", "context_length", "max_length",
               "critic_steps", "auxiliary_models", "teacher", "group_refill", "microbatch_loss"}
# and where a Megatron trainer runs on veRL's FSDP engine: what Megatron's optimizer and seeds do differently
ENGINE = {"optimizer", "trainer_seed", "min_lr_ratio", "lr_cycles", "lora", "betas", "eps", "critic_optimizer",
          "precision", "moe_routing", "frozen_modules", "mtp"}
CONFIGS = sorted(p for p in [*(GOLDEN / "convert").rglob("*.yaml"), *(GOLDEN / "check" / "valid").glob("*.yaml")]
                 if p.read_text().strip() and "recipe" not in p.parts and api.check(str(p)).ok)


def _smoke(config: Path, tmp_path: Path) -> sm.Smoke:
    loaded = api.check(str(config))
    return sm.prepare(loaded.config, config, model=tmp_path / "model", folder=tmp_path / "smoke")


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: str(p.relative_to(GOLDEN)))
def test_a_smoke_config_changes_only_what_it_substitutes(config, tmp_path):
    """rftc diff of a config and its smoke config reports the model, the data and the sizes, never the responses
    per task, the trainer steps of a rollout batch, the epochs, the staleness, the loss or the optimizer."""
    smoke = _smoke(config, tmp_path)
    stages = [s.stage_name for s in smoke.config.stages] or [None]
    for stage in stages:
        found = compare.diff(str(config), str(smoke.written), stage=stage)
        changed = {q.name for q, _, _ in found.differences}
        allowed = SUBSTITUTED | (ENGINE if "engine" in dict(smoke.notes) else set())
        assert changed <= allowed, (stage, changed - allowed)
        assert "model" in changed or "unchanged" in dict(smoke.notes)["model"]
    diffs = [compare.diff(str(config), str(smoke.written), stage=stage) for stage in stages]
    assert [label for _, label, _, _ in smoke_changes(smoke)] == [q.label for d in diffs for q, _, _ in d.differences]


def test_the_kept_ratios_are_the_models_quantities():
    kept = {q.name for q in quantities(TrainingRun)} - SUBSTITUTED
    assert {"n", "steps_per_batch", "ppo_epochs", "policy_lag", "minibatch_order", "lr", "kl_loss_coef"} <= kept


@pytest.mark.parametrize("b, t, expected", [(512, 4096, (2, 16)), (4, 32, (2, 16)), (3, 6, (2, 4)),
                                            (7, 14, (2, 4)), (6, 4, (3, 2)), (1, 8, (1, 8)), (5, 3, (5, 3))])
def test_sizes_shrink_by_one_factor(b, t, expected):
    assert sm._shrunk(b, t) == expected
    b2, t2 = expected
    assert b2 * t == t2 * b  # the trainer steps of an explorer step, b * n / t, are kept


def test_rows_are_generated_with_the_columns_the_config_reads(tmp_path):
    """A taskset whose file is not here gets generated rows: the prompt as chat messages for rftc's veRL reward
    workflow, the reward's ground truth and data source column, each named in the notes; the runtime reads every
    row's prompt and answer."""
    from rftc_runtime import tasksets

    config = GOLDEN / "convert" / "cases" / "algo_grpo_kl_loss.yaml"
    smoke = _smoke(config, tmp_path)
    notes = [how for what, how in smoke.notes if what == "data"]
    assert any("generated, columns prompt" in n and "reward_model.ground_truth" in n for n in notes), notes
    s = Settings.of(smoke.config, source=str(smoke.written))
    loaded = tasksets.read_tasks(s.taskset)
    assert loaded.missing == 0 and len(loaded.tasks) == s.batch_size * s.explore_total_steps
    row = loaded.tasks[0].row
    assert isinstance(row["prompt"], list) and row["reward_model"]["ground_truth"]


def test_readable_data_is_its_first_rows(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"prompt": [{"role": "user", "content": f"q{i}"}], "answer": str(i)} for i in range(50)]
    (tmp_path / "data").mkdir()
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "data" / "train.parquet")
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps({
        "algorithm": {"algorithm_type": "grpo", "repeat_times": 4},
        "model": {"model_path": "m", "max_model_len": 256}, "cluster": {"node_num": 1, "gpu_per_node": 2},
        "buffer": {"batch_size": 8, "total_epochs": 1, "explorer_input": {"taskset": {
            "path": str(tmp_path / "data"), "split": "train", "format": {"response_key": "answer"}}}}}))
    smoke = _smoke(config, tmp_path)
    ts = smoke.config.buffer.explorer_input.taskset
    got = [json.loads(line) for line in (Path(ts.path) / f"{ts.split}.jsonl").read_text().splitlines()]
    assert got == rows[:len(got)] and len(got) == smoke.config.buffer.batch_size * smoke.config.buffer.total_steps
    assert f"the first {len(got)} row(s) of {tmp_path / 'data'}" in dict(smoke.notes)["data"]


@pytest.mark.parametrize("source", [
    "examples/arith_grpo.sh",
    "golden/check/valid/ppo_example.yaml",
    "golden/convert/async/one_step_off_2_6.yaml",
])
def test_dry_run_plans_the_smoke_run(source, tmp_path):
    """`--smoke --dry-run` exits 0 with the substitutions, rftc diff's own list of what trains differently, what a
    smoke run cannot check, and the plan."""
    got = rftc("run", ROOT / source, "--smoke", "--dry-run", "--smoke-dir", tmp_path, "--smoke-model", model_dir(),
               "--format", "json")
    assert got.returncode == 0, got.stderr
    for part in ("substituted", "what trains differently (rftc diff", "not checked by a smoke run", "per step"):
        assert part in got.stdout, got.stdout


def test_the_pipelines_stages_are_each_shrunk(tmp_path):
    """An SFT-then-GRPO pipeline: each stage gets its own sizes and data, in order."""
    folder = GOLDEN / "pipeline" / "sft_grpo"
    smoke = _smoke(folder / "expected.yaml", tmp_path)
    sizes = [how for what, how in smoke.notes if what == "sizes"]
    assert len(sizes) == 2 and "samples a step" in sizes[0] and "tasks an explorer step" in sizes[1]
    plan = make_plan(Settings.of(smoke.config, source=str(smoke.written)), gpus=0)
    assert not [e for stage in plan.stages for e in stage.errors if e[0] != "RFTC507"]


# ---- smoke runs (slow: Ray, vLLM and veRL's workers on the CPU)

REWARD_FILE = '''import os


def char_count_reward_function(data_source, solution_str, ground_truth, extra_info=None):
    with open(os.environ["SMOKE_REWARD_LOG"], "a") as log:  # each call, for the test to count
        log.write(f"{ground_truth}\\n")
    return 0.25
'''


@pytest.fixture(scope="module")
def engine(tmp_path_factory) -> Path:
    from runtime_support import engine_model, require, require_model

    require("vllm", "ray", "verl", "torch")
    require_model()
    return engine_model(tmp_path_factory.mktemp("engine"))


def _smoke_run(source, folder: Path, *options, cwd: Path = ROOT, env: dict | None = None):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "rftc", "run", str(source), "--smoke", "--smoke-dir", str(folder),
                           "--no-live", *map(str, options)], cwd=cwd, capture_output=True, text=True, timeout=1200,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})})


def _metrics(job: Path) -> list[dict]:
    return [json.loads(x) for x in (job / "monitor" / "metrics.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_the_readme_example_smoke_runs_stops_and_resumes(tmp_path):
    """The README's example with its own model: the substituted sizes, a first run to step 1 with a checkpoint, a
    second resumed from it; the launch's reward file scores every response; exit 0 with the report."""
    from runtime_support import require, require_model

    require("vllm", "ray", "verl", "torch")
    require_model()
    from rftc_runtime.arith_taskset import write

    write(tmp_path / "data")
    done = _smoke_run("examples/arith_grpo.sh", tmp_path / "smoke", env={"RFTC_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert "smoke run: passed" in out and "run 1: trainer steps 1-1, checkpoint written; run 2: resumed from it, " \
        "steps 2-2" in out
    assert "examples/arith_reward.py:last_number scored the 32 trained response(s), 0 raised" in out
    assert "responses per optimizer step: 32 -> 16" in out  # rftc diff's own line
    job = tmp_path / "smoke" / "checkpoints" / "rftc-examples" / "arith_grpo"
    lines = _metrics(job)
    assert [r["step"] for r in lines] == [1, 2] and all(r["train/experiences"] == 16 for r in lines)
    assert lines[1]["rollout/weights_version"] == 1  # the resumed run's engine got the checkpoint's weights
    state = json.loads((job / "global_step_2" / "state.json").read_text())
    assert state["train_step"] == 2 and state["reader_position"] == 2 * 2


@pytest.mark.slow
def test_a_corpus_launch_with_its_reward_file_and_data_not_here(tmp_path, engine):
    """veRL's char_count recipe (a custom reward file, data and model that are not on this machine), converted:
    rows generated with the columns the config reads, the recipe's reward file called on every response with their
    ground truth."""
    from support.paths import CORPUS, needs_corpus

    if not CORPUS.is_dir():
        pytest.skip(needs_corpus.kwargs["reason"])
    script = CORPUS / "recipe" / "char_count" / "train_grpo.sh"
    (tmp_path / "reward_function.py").write_text(REWARD_FILE)
    config = tmp_path / "grpo.yaml"
    assert rftc("convert", script, "-o", config, cwd=tmp_path).returncode == 0
    log = tmp_path / "calls.log"
    done = _smoke_run(config, tmp_path / "smoke", "--smoke-model", engine, cwd=tmp_path,
                      env={"SMOKE_REWARD_LOG": str(log)})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "generated, columns prompt, answer, data_source, reward_model.ground_truth, extra_info" in done.stdout
    calls = log.read_text().split()  # the trained responses' and the evaluations' (not in the count)
    assert "reward_function.py:char_count_reward_function scored the 144 trained response(s), 0 raised; values " \
           "seen 0.25 to 0.25" in done.stdout and len(calls) >= 144
    assert all(c.isdigit() for c in calls)  # the generated ground truths reached the user's function


@pytest.mark.slow
@pytest.mark.parametrize("source, role", [
    ("golden/pipeline/sft_grpo/expected.yaml", "actor/sft_loss"),  # SFT, then GRPO from its checkpoint
    ("golden/check/valid/ppo_example.yaml", "critic/vf_loss"),  # PPO with a critic
    ("golden/convert/async/one_step_off_2_6.yaml", "actor/pg_loss"),  # one-step-off: sync offset 1
])
def test_representative_configs_smoke_run(source, role, tmp_path, engine):
    done = _smoke_run(ROOT / source, tmp_path / "smoke", "--smoke-model", engine)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "smoke run: passed" in done.stdout and f"{role} finite" in done.stdout
