"""The reference rftc's composition is measured against: Hydra's own compose API on the config files of the
verl wheels, unpacked by scripts/setup-verl-ref.sh into .cache/verl-ref/<version>/ (used by the
differential test and the benchmark; needs no verl install)."""

from __future__ import annotations

import os
from pathlib import Path

from rftc.verl.configdir import ENTRY_POINTS

REF_ROOT = Path(os.environ.get("RFTC_VERL_REF", Path(__file__).resolve().parents[2] / ".cache" / "verl-ref"))


def config_dir(version: str, module: str = "verl.trainer.main_ppo") -> Path | None:
    d = REF_ROOT / version / ENTRY_POINTS[module][0] / "config"
    return d if d.is_dir() else None


def keep_env_symbolic() -> None:
    """Make ${oc.env:...} resolve to its own text, as rftc keeps it."""
    from omegaconf import OmegaConf

    OmegaConf.register_new_resolver(
        "oc.env", lambda *args: "${oc.env:" + ",".join("null" if a is None else str(a) for a in args) + "}",
        replace=True)


def compose(directory: Path, config_name: str, overrides: list[str], version: str | None = None) -> dict:
    """Hydra's compose of ``config_name`` in ``directory`` with ``overrides``, resolved to plain containers.
    Configs that reach verl's folder through hydra.searchpath get it pointed at the unpacked wheel."""
    from hydra import compose as hydra_compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf

    extra = []
    if version is not None:
        extra = [f"hydra.searchpath=[file://{REF_ROOT / version / 'verl/trainer/config'}]"]
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(directory), version_base=None):
        cfg = hydra_compose(config_name=config_name, overrides=[*overrides, *extra])
    return OmegaConf.to_container(cfg, resolve=True)
