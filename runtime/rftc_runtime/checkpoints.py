"""Checkpoints in the job directory, veRL's layout: ``global_step_<n>/`` plus
``latest_checkpointed_iteration.txt``, written last so a crash mid-save never points at a partial step.
A step holds ``trainer.pt`` (actor model, optimizer, LR schedule, RNG) and, when a critic is trained, ``critic.pt``
(its model, optimizer and LR schedule), as veRL keeps the critic's state beside the actor's."""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

LATEST = "latest_checkpointed_iteration.txt"
CRITIC = "critic.pt"


def step_dir(job: Path, step: int) -> Path:
    return Path(job) / f"global_step_{step}"


def latest(job: Path) -> Path | None:
    marker = Path(job) / LATEST
    try:
        step = int(marker.read_text().strip())
    except (OSError, ValueError):
        return None
    d = step_dir(job, step)
    return d if (d / "state.json").is_file() else None


def latest_hf(job: Path) -> Path | None:
    """The newest step that was also saved as a Hugging Face directory."""
    steps = sorted((int(p.name.split("_")[-1]), p) for p in Path(job).glob("global_step_*")
                   if (p / "huggingface" / "config.json").is_file())
    return steps[-1][1] / "huggingface" if steps else None


def _state(model, optimizer, scheduler) -> dict:
    return {"model": {k: v.detach().clone() for k, v in model.state_dict().items()},
            "optimizer": copy.deepcopy(optimizer.state_dict()), "scheduler": scheduler.state_dict()}


def snapshot(model, optimizer, scheduler, critic=None) -> dict:
    """Copies taken now, so training can go on while a background thread writes them. ``critic``: the value
    model, its optimizer and scheduler, when one is trained."""
    import torch

    snap = {**_state(model, optimizer, scheduler), "rng": torch.get_rng_state()}
    if critic is not None:
        snap["critic"] = _state(*critic)
    return snap


def write(job: Path, step: int, snap: dict, state: dict, hf_model=None, tokenizer=None) -> None:
    import torch

    final = step_dir(job, step)
    tmp = final.with_name(final.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    torch.save({"model": snap["model"], "optimizer": snap["optimizer"], "scheduler": snap["scheduler"],
                "rng": snap["rng"]}, tmp / "trainer.pt")
    if "critic" in snap:
        torch.save(snap["critic"], tmp / CRITIC)
    if hf_model is not None:
        hf_model.save_pretrained(tmp / "huggingface", state_dict=snap["model"])
        tokenizer.save_pretrained(tmp / "huggingface")
    (tmp / "state.json").write_text(json.dumps(state, indent=1))
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    marker_tmp = Path(job) / (LATEST + ".tmp")
    marker_tmp.write_text(str(step))
    os.replace(marker_tmp, Path(job) / LATEST)


def load(path: Path, model, optimizer, scheduler, critic=None) -> dict:
    import torch

    if critic is not None and not (path / CRITIC).is_file():
        raise ValueError(f"checkpoint {path} has no critic ({CRITIC}): it was saved by a run without one; "
                         "resume it with its own algorithm or start this one in a new job directory")
    blob = torch.load(path / "trainer.pt", map_location="cpu", weights_only=False)
    _load_state(blob, model, optimizer, scheduler)
    torch.set_rng_state(blob["rng"])
    if critic is not None:
        _load_state(torch.load(path / CRITIC, map_location="cpu", weights_only=False), *critic)
    return json.loads((path / "state.json").read_text())


def _load_state(blob: dict, model, optimizer, scheduler) -> None:
    model.load_state_dict(blob["model"])
    optimizer.load_state_dict(blob["optimizer"])
    scheduler.load_state_dict(blob["scheduler"])
