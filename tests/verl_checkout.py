"""Test support: small veRL checkouts on disk, written from a bundled release's composed config (so their keys are
upstream's), with a config group of the actor's, an optional version file and keys a fork adds."""

from __future__ import annotations

from pathlib import Path

import yaml

from rftc.verl.releases import schema

FORK = {"retriever": {"url": "http://127.0.0.1:8000/retrieve", "topk": 3}, "max_turns": 2}
FORK_ACTOR = {"state_masking": False}


def write_checkout(root: Path, *, version: str | None = "0.5.0", release: str = "0.5.0", fork: bool = True,
                   layout: str = "verl") -> Path:
    """A checkout under ``root`` whose ``layout`` folder (verl, src/verl, verl/verl) is the `verl` package; its
    ppo_trainer is ``release``'s, the actor's section chosen from the group `actor` (dp_actor, or my_actor with
    ppo_epochs 3). Returns the package folder."""
    package = root / layout
    config = package / "trainer" / "config"
    (config / "actor").mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("")  # a regular package, as Python imports a checkout's
    tree = schema.load(release).tree("ppo_trainer")
    top = {k: v for k, v in tree.items()}
    arr = dict(top["actor_rollout_ref"])
    actor = dict(arr.pop("actor"))
    if fork:
        actor.update(FORK_ACTOR)
        top.update(FORK)
    top["actor_rollout_ref"] = arr
    defaults = [{"actor@actor_rollout_ref.actor": "dp_actor"}, "_self_"]
    _dump(config / "ppo_trainer.yaml", {"defaults": defaults, **top})
    _dump(config / "actor" / "dp_actor.yaml", actor)
    _dump(config / "actor" / "my_actor.yaml", {**actor, "ppo_epochs": 3})
    if version is not None:
        (package / "version").mkdir(exist_ok=True)
        (package / "version" / "version").write_text(version + "\n")
    return package


def _dump(path: Path, data: dict) -> None:
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def launch(tmp_path: Path, overrides: str, *, cwd: Path | None = None, name: str = "run.sh") -> Path:
    """A launch script (python3 -m verl.trainer.main_ppo with ``overrides``) in ``cwd`` (default tmp_path)."""
    folder = cwd or tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text("python3 -m verl.trainer.main_ppo " + overrides + "\n")
    return script
