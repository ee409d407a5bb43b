"""kill -9 of the explorer actor or of the trainer's worker in the middle of `rftc run` on the bundled example: the
run says which died and exits non-zero without hanging, leaves no Ray or vLLM process behind, and the same command
run again resumes from the last checkpoint with no saved step lost or redone. Ctrl-C: the run stops, leaves no
process behind and its last checkpoint loads. Needs the runtime environment and the model
(bash scripts/setup-runtime.sh); about 3 minutes on 2 busy cores."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runtime_support import require, require_model

require("vllm", "ray", "verl", "torch")
MODEL = require_model()

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow
STEPS = 2
BATCH = 2


def _start(tmp_path: Path, name: str, steps: int = STEPS) -> subprocess.Popen:
    """The bundled example with few, small steps and a checkpoint every step, in its own session so that every
    process it starts (Ray's, the actors', vLLM's) can be found afterwards."""
    env = dict(os.environ, RFTC_CHECKPOINT_DIR=str(tmp_path / "ckpt"), RFTC_DATA_DIR=str(tmp_path / "data"),
               RFTC_MODEL_DIR=str(MODEL), HF_HUB_OFFLINE="1")
    overrides = [f"data.train_batch_size={BATCH}", f"actor_rollout_ref.actor.ppo_mini_batch_size={BATCH}",
                 "actor_rollout_ref.rollout.n=4", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4",
                 "data.max_response_length=4", f"trainer.total_training_steps={steps}", "trainer.save_freq=1"]
    with open(tmp_path / f"{name}.out", "w") as out, open(tmp_path / f"{name}.err", "w") as err:
        return subprocess.Popen([sys.executable, "-m", "rftc", "run", "examples/arith_grpo.sh", "--no-live", "--",
                                 *overrides], cwd=ROOT, env=env, stdout=out, stderr=err, start_new_session=True)


def _session(sid: int) -> dict[int, str]:
    """pid -> command line of every live process in session ``sid``, and of any process anywhere that names
    the Ray session the run started (``/tmp/ray/session_<time>_<driver pid>``), should one have left it."""
    found = {}
    ray_session = re.compile(rf"session_[\d_-]+_{sid}(?:/|\s|$)")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:  # exited meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # state ppid pgrp session ...
        if fields[0] != "Z" and (int(fields[3]) == sid or ray_session.search(cmd)):
            found[int(entry.name)] = cmd
    return found


def _is_actor(cmd: str, cls: str) -> bool:
    """Ray titles an actor's process ray::<Class>, or ray::<name>:<Class>.<method> while it runs a call."""
    return re.match(rf"ray::(\S*:)?{cls}\b", cmd) is not None


def _kill_session(proc: subprocess.Popen) -> None:
    """On a failure: every process of the run, actors included (each has its own process group)."""
    for pid in _session(proc.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(timeout=30)


def _wait_for(what: str, check, proc: subprocess.Popen, timeout: float):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = check()
        if got:
            return got
        assert proc.poll() is None, f"the run exited ({proc.returncode}) before {what}"
        time.sleep(0.5)
    pytest.fail(f"no {what} after {timeout:.0f}s")


def _left_after(proc: subprocess.Popen, seconds: float = 15) -> dict[int, str]:
    end = time.monotonic() + seconds
    while (left := _session(proc.pid)) and time.monotonic() < end:
        time.sleep(0.5)
    if left:
        _kill_session(proc)
    return left


# the trainer's worker: veRL's colocated worker process (WorkerDict) hosting the actor's TrainingWorker
@pytest.mark.parametrize("actor,cls", [("trainer worker", "WorkerDict"), ("explorer actor", "Explorer")])
def test_killed_actor_is_reported_cleaned_up_and_resumed(tmp_path, actor, cls):
    from rftc_runtime.arith_taskset import write

    write(tmp_path / "data")
    job = tmp_path / "ckpt" / "rftc-examples" / "arith_grpo"
    marker = job / "latest_checkpointed_iteration.txt"
    first = _start(tmp_path, "first")
    try:
        _wait_for("checkpoint", marker.is_file, first, timeout=300)
        pids = _wait_for(actor, lambda: [pid for pid, cmd in _session(first.pid).items()
                                                    if _is_actor(cmd, cls)], first, timeout=30)
        os.kill(pids[0], signal.SIGKILL)
        rc = first.wait(timeout=90)  # a hang fails here
    finally:
        if first.poll() is None:
            _kill_session(first)
    err = (tmp_path / "first.err").read_text()
    assert rc != 0, err[-2000:]
    assert f"error[RFTC500]: the {actor} died" in err, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    # Ray's processes (GCS, raylet, workers) and the explorer's vLLM engine all went with the run
    left = _left_after(first)
    assert not left, f"left behind: {left}"

    saved = int(marker.read_text())
    assert 1 <= saved < STEPS, saved
    again = _start(tmp_path, "again")
    try:
        rc = again.wait(timeout=400)
    finally:
        if again.poll() is None:
            _kill_session(again)
    out = (tmp_path / "again.out").read_text()
    assert rc == 0, (tmp_path / "again.err").read_text()[-3000:]
    steps = [int(line.split()[1].split("/")[0]) for line in out.splitlines() if line.startswith("step ")]
    assert steps == list(range(saved + 1, STEPS + 1)), out  # continues after the last saved step
    records = [json.loads(x) for x in (job / "monitor" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records] == list(range(1, STEPS + 1))  # one record per step, none lost
    assert records[saved]["rollout/weights_version"] == saved  # the engine got the checkpoint's weights first
    state = json.loads((job / f"global_step_{STEPS}" / "state.json").read_text())
    assert state["train_step"] == STEPS and state["reader_position"] == STEPS * BATCH
    assert not _session(again.pid)


def test_ctrl_c_stops_the_run_cleanly_and_keeps_the_last_checkpoint(tmp_path):
    from rftc_runtime import checkpoints
    from rftc_runtime.arith_taskset import write

    write(tmp_path / "data")
    job = tmp_path / "ckpt" / "rftc-examples" / "arith_grpo"
    run = _start(tmp_path, "run", steps=20)  # the interrupt lands mid-run, not as the run ends
    try:
        _wait_for("checkpoint", (job / checkpoints.LATEST).is_file, run, timeout=300)
        os.killpg(run.pid, signal.SIGINT)  # what a terminal sends to the foreground process group on Ctrl-C
        rc = run.wait(timeout=90)  # a hang fails here
    finally:
        if run.poll() is None:
            _kill_session(run)
    err = (tmp_path / "run.err").read_text()
    assert rc == 130 and "rftc: interrupted" in err, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    left = _left_after(run)
    assert not left, f"left behind: {left}"
    latest = checkpoints.latest(job)
    assert latest is not None, "the last checkpoint is gone"
    import torch

    model = torch.load(latest / "actor" / "model_world_size_1_rank_0.pt", map_location="cpu", weights_only=False)
    optim = torch.load(latest / "actor" / "optim_world_size_1_rank_0.pt", map_location="cpu", weights_only=False)
    assert model and optim["state"], "the last checkpoint is incomplete"
