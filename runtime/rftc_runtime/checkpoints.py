"""Checkpoints in the job directory, veRL's layout: ``global_step_<n>/<role>/`` written by each role's engine
(its checkpoint manager: the sharded model and optimizer per rank, the LR schedule and RNG, and with
``huggingface/`` the full model), ``state.json`` with the run's counters, and ``latest_checkpointed_iteration.txt``.

A step is written into ``global_step_<n>.tmp`` and renamed when complete; the marker file is replaced last, so a
crash or Ctrl-C mid-save never leaves it pointing at a partial step."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

LATEST = "latest_checkpointed_iteration.txt"
STATE = "state.json"


def step_dir(job: Path, step: int) -> Path:
    return Path(job) / f"global_step_{step}"


def staging_dir(job: Path, step: int) -> Path:
    """Where a step is written before it is complete (emptied first)."""
    tmp = step_dir(job, step).with_name(f"global_step_{step}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    return tmp


def commit(job: Path, step: int, state: dict) -> Path:
    """Finish a step written into its staging directory: the counters, the rename, then the marker."""
    tmp, final = step_dir(job, step).with_name(f"global_step_{step}.tmp"), step_dir(job, step)
    (tmp / STATE).write_text(json.dumps(state, indent=1))
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    marker_tmp = Path(job) / (LATEST + ".tmp")
    marker_tmp.write_text(str(step))
    os.replace(marker_tmp, Path(job) / LATEST)
    return final


def retain(saved: list[Path], new: Path, keep: int) -> None:
    """Trinity's ``trainer.max_checkpoints_to_keep``: add the step just committed to ``saved`` (the steps this run
    saved, oldest first; a step saved again counts once) and delete the oldest beyond the newest ``keep``; 0 keeps
    all. Steps of earlier runs are not counted, as in Trinity, whose trainer registers only what it saved itself."""
    if not saved or saved[-1] != new:
        saved.append(new)
    while keep > 0 and len(saved) > keep:
        shutil.rmtree(saved.pop(0), ignore_errors=True)


def latest(job: Path) -> Path | None:
    marker = Path(job) / LATEST
    try:
        step = int(marker.read_text().strip())
    except (OSError, ValueError):
        return None
    d = step_dir(job, step)
    return d if (d / STATE).is_file() else None


def state(path: Path) -> dict:
    return json.loads((Path(path) / STATE).read_text())


def hf_dir(step: Path) -> Path:
    """The policy's Hugging Face directory in a step (veRL writes it under the actor's folder)."""
    return Path(step) / "actor" / "huggingface"


def latest_hf(job: Path) -> Path | None:
    """The newest step that was also saved as a Hugging Face model (weights, not only its config)."""
    steps = sorted((int(p.name.split("_")[-1]), p) for p in Path(job).glob("global_step_*")
                   if p.name.split("_")[-1].isdigit() and any(hf_dir(p).glob("*.safetensors")))
    return hf_dir(steps[-1][1]) if steps else None


def missing_role(path: Path, role: str, ranks: int) -> str | None:
    """Why ``path`` cannot restore ``role`` on ``ranks`` ranks (None when it can)."""
    folder = Path(path) / role
    if not folder.is_dir():
        return (f"checkpoint {path} has no {role} ({role}/): it was saved by a run without one; resume it with "
                "its own algorithm or start this one in a new job directory")
    if not (folder / f"model_world_size_{ranks}_rank_0.pt").is_file():
        saved = sorted(p.name for p in folder.glob("model_world_size_*_rank_0.pt"))
        return (f"checkpoint {path}/{role} was saved by a different number of trainer ranks ({', '.join(saved)}); "
                f"this run has {ranks}: resume it on the same GPUs or start in a new job directory")
    return None
