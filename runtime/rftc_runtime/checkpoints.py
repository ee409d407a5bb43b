"""Checkpoints in the job directory, veRL's layout: ``global_step_<n>/`` plus
``latest_checkpointed_iteration.txt``, written last so a crash mid-save never points at a partial step."""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

LATEST = "latest_checkpointed_iteration.txt"


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


def snapshot(model, optimizer, scheduler) -> dict:
    """Copies taken now, so training can go on while a background thread writes them."""
    import torch

    return {
        "model": {k: v.detach().clone() for k, v in model.state_dict().items()},
        "optimizer": copy.deepcopy(optimizer.state_dict()),
        "scheduler": scheduler.state_dict(),
        "rng": torch.get_rng_state(),
    }


def write(job: Path, step: int, snap: dict, state: dict, hf_model=None, tokenizer=None) -> None:
    import torch

    final = step_dir(job, step)
    tmp = final.with_name(final.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    torch.save({"model": snap["model"], "optimizer": snap["optimizer"], "scheduler": snap["scheduler"],
                "rng": snap["rng"]}, tmp / "trainer.pt")
    if hf_model is not None:
        hf_model.save_pretrained(tmp / "huggingface", state_dict=snap["model"])
        tokenizer.save_pretrained(tmp / "huggingface")
    (tmp / "state.json").write_text(json.dumps(state, indent=1))
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    marker_tmp = Path(job) / (LATEST + ".tmp")
    marker_tmp.write_text(str(step))
    os.replace(marker_tmp, Path(job) / LATEST)


def load(path: Path, model, optimizer, scheduler) -> dict:
    import torch

    blob = torch.load(path / "trainer.pt", map_location="cpu", weights_only=False)
    model.load_state_dict(blob["model"])
    optimizer.load_state_dict(blob["optimizer"])
    scheduler.load_state_dict(blob["scheduler"])
    torch.set_rng_state(blob["rng"])
    return json.loads((path / "state.json").read_text())
