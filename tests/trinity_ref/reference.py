"""The rftc side's handle on the Trinity-RFT 0.6.0 reference environment (.venv-trinity).

validate.py runs inside that environment; this module runs inside rftc's and drives it by subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

from support.cli import convert, launch
from support.paths import ROOT as REPO

PYTHON = REPO / ".venv-trinity" / "bin" / "python"
VALIDATE = Path(__file__).with_name("validate.py")
SETUP = "bash scripts/setup-trinity-ref.sh"
MISSING = f"the Trinity-RFT 0.6.0 reference environment .venv-trinity is absent: build it with `{SETUP}`"


def available() -> bool:
    return PYTHON.is_file() and (REPO / ".venv-trinity" / ".built").is_file()


def run(paths: list[str], *, expand: bool = False, timeout: float = 900,
        env: dict[str, str] | None = None) -> dict[str, dict]:
    """Trinity's verdict on each config (paths relative to the repository root), keyed by path; `env` adds
    environment variables for the validator (the values of the configs' ${oc.env:NAME} interpolations).

    Large batches are split over one validator process per core (each pays Trinity's few seconds of imports once).
    """
    # PYTHONPATH: configs that name rftc's Trinity classes need rftc importable beside trinity-rft
    env = dict(os.environ, **(env or {}), HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    workers = max(1, min(os.cpu_count() or 1, len(paths) // 20))
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for i in range(workers):
            out, err = open(f"{tmp}/{i}.out", "w+"), open(f"{tmp}/{i}.err", "w+")
            cmd = [str(PYTHON), str(VALIDATE), *(["--expand"] if expand else []), *paths[i::workers]]
            runs.append((subprocess.Popen(cmd, stdout=out, stderr=err, cwd=REPO, env=env), out, err))
        for proc, out, err in runs:
            with out, err:
                if proc.wait(timeout=timeout) != 0:
                    err.seek(0)
                    raise RuntimeError(f"the reference validator failed (exit {proc.returncode}):\n"
                                       + err.read()[-4000:])
                out.seek(0)
                records += [json.loads(line) for line in out if line.strip()]
    return {r["path"]: r for r in records}


def manifest(folder: Path) -> dict[str, dict]:
    """A golden folder's manifest.json, keyed by path relative to the repository root."""
    entries = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return {str((folder / name).relative_to(REPO)): entry for name, entry in entries.items()}


# A small main_ppo launch's overrides, with the batch sizes veRL's startup checks need; the harness tests add theirs.
LAUNCH = ("data.train_batch_size=4", "actor_rollout_ref.model.path=/models/m", "actor_rollout_ref.rollout.name=vllm",
          "actor_rollout_ref.actor.ppo_mini_batch_size=4", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1",
          "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1",
          "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1",
          "actor_rollout_ref.rollout.tensor_model_parallel_size=1",
          "trainer.n_gpus_per_node=2", "trainer.nnodes=1", "trainer.total_training_steps=2")


def convert_launch(folder: Path, *overrides: str, module: str = "verl.trainer.main_ppo") -> Path:
    """`rftc convert` of LAUNCH (of ``module``) plus ``overrides`` (folder/run.sh), run from ``folder``; fails the
    test on a non-zero exit. Returns the config written."""
    script = launch(folder, *LAUNCH, *overrides, module=module)
    (config,) = convert(script, out=folder / "out", cwd=folder).configs
    return config


def harness(name: str, *args: str, cwd: Path) -> dict:
    """tests/trinity_ref/``name`` run in .venv-trinity with rftc importable (converted configs name rftc's
    classes): its last line of output as JSON."""
    proc = subprocess.run([str(PYTHON), str(VALIDATE.with_name(name)), *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300, env=dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])
