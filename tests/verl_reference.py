"""The reference rftc's composition is measured against: Hydra's own compose API on the config files of the
verl wheels, unpacked by scripts/setup-verl-ref.sh into .cache/verl-ref/<version>/, or on a checkout's own
config folder (used by the differential test and the benchmark; needs no verl install)."""

from __future__ import annotations

import os
from pathlib import Path

from rftc.verl.trainers import ENTRY_POINTS, SFT_TRAINERS, entry_of

REF_ROOT = Path(os.environ.get("RFTC_VERL_REF", Path(__file__).resolve().parents[1] / ".cache" / "verl-ref"))


def config_dir(version: str, module: str = "verl.trainer.main_ppo") -> Path | None:
    d = REF_ROOT / version / entry_of(module)[0] / "config"
    return d if d.is_dir() else None


def keep_env_symbolic() -> None:
    """Make ${oc.env:...} and ${now:...} resolve to their own text, as rftc keeps them."""
    from omegaconf import OmegaConf

    from rftc.verl.overrides.resolve import RUNTIME_RESOLVERS

    for name in RUNTIME_RESOLVERS:
        OmegaConf.register_new_resolver(
            name, lambda *args, _n=name: "${" + _n + ":" + ",".join("null" if a is None else str(a) for a in args)
            + "}", replace=True)


def compose(directory: Path, config_name: str, overrides: list[str], version: str | None = None, *,
            search: Path | None = None) -> dict:
    """Hydra's compose of ``config_name`` in ``directory`` with ``overrides``, resolved to plain containers.
    Configs that reach verl's folder through hydra.searchpath get it pointed at ``search`` (a checkout's
    trainer config folder), or at the unpacked wheel of ``version``."""
    from hydra import compose as hydra_compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf

    if search is None and version is not None:
        search = REF_ROOT / version / "verl/trainer/config"
    extra = [f"hydra.searchpath=[file://{search}]"] if search is not None else []
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(directory), version_base=None):
        cfg = hydra_compose(config_name=config_name, overrides=[*overrides, *extra])
    keep_env_symbolic()  # after compose: Hydra registers its own `now` while composing
    return OmegaConf.to_container(cfg, resolve=True)


def corpus_launches(root: Path) -> list:
    """Every launch of a verl entry point with a bundled config in the scripts under ``root`` (shell stage)."""
    from rftc.shell import analyze

    out = []
    for path in sorted(root.rglob("*.sh")):
        result = analyze(path.read_text(errors="replace"), str(path))
        out += [inv for inv in result.invocations if inv.module in ENTRY_POINTS or inv.module in SFT_TRAINERS]
    return out


def hydra_effective(inv, version: str | None = None, source=None, config_name: str | None = None) -> dict | None:
    """What Hydra composes for ``inv`` on the wheel's config files of ``version``, or on the config folder of the
    checkout ``source`` (a VerlSource); None: Hydra rejects the launch, or its config directory cannot be found.
    ``config_name``: the config the entry module names, where the checkout lacks the module (RFTC231)."""
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from rftc.diagnostics.collector import Diagnostics
    from rftc.verl.checkout.config_folder import FolderSchema
    from rftc.verl.primary.locate import locate
    from rftc.verl.releases import schema

    if source is not None:
        folder = FolderSchema.of(source)
        primary = locate(inv, set(folder.configs), Diagnostics(), root=source.root)
        if primary is None:
            return None
        directory, search = primary.directory or folder.configs.get(primary.name), source.package / "trainer/config"
    else:
        names = set().union(*(schema.load(v).configs for v in schema.versions()))
        primary = locate(inv, names, Diagnostics())
        if primary is None:
            return None
        directory, search = primary.directory or config_dir(version, inv.module), None
    if directory is None:
        return None
    try:
        return compose(directory, config_name or primary.name, [a.text for a in inv.overrides], version,
                       search=search)
    except (HydraException, OmegaConfBaseException, TypeError, ValueError):  # Hydra crashes on some input
        return None
