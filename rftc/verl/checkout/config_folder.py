"""A veRL checkout's own config folder, composed by hydra-core itself: the default tree of one config under
the launch's config group choices, in the shape of a bundled schema's trees (interpolations kept as text, "???"
for mandatory values), and the choices Hydra made. rftc then applies the launch's other overrides to it exactly
as on a bundled release (rftc.verl.overrides.apply), so the defaults list, `_self_`, groups, `@package` and every
group choice (`actor@actor_rollout_ref.actor=my_actor`, `+group=option`, `~group`) mean what Hydra makes them
mean.

Composing costs hydra-core's import and a compose (0.2-0.6 s); the result is cached in memory and on disk
(RFTC_CACHE_DIR, else $XDG_CACHE_HOME/rftc, else ~/.cache/rftc), keyed by the content of every YAML file Hydra
can read there, the config, the choices and hydra-core's version, so an edited file is composed again.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from rftc.verl.checkout.find import CONFIG, VerlSource
from rftc.verl.overrides.apply import leaves
from rftc.verl.releases.schema import key_paths

FORMAT = 1  # bump when the cached shape changes
# Config folders of the package that hold primary configs (the trainer's; the experimental trainers' extend it).
CONFIG_DIRS = (CONFIG, Path("experimental/fully_async_policy/config"), Path("experimental/one_step_off_policy/config"))


class ComposeError(Exception):
    """Hydra refused to compose; ``override`` is the group override it names, when it is one of them."""

    def __init__(self, message: str, override: str | None = None):
        super().__init__(message)
        self.override = override


@dataclass(frozen=True)
class Composed:
    tree: dict  # shared between callers: copy before changing
    choices: dict  # "group@package" -> option, as Hydra's runtime.choices (hydra's own left out)

    @cached_property
    def keys(self) -> frozenset[str]:
        """Every dotted key of the tree, containers included."""
        return key_paths(self.tree)

    @cached_property
    def leaf_values(self) -> dict:
        """Dotted leaf key -> value (shared: copy before changing)."""
        return dict(leaves(self.tree, ""))


class FolderSchema:
    """The primary configs of one checkout's `verl` package, composed on demand."""

    def __init__(self, source: VerlSource, files: tuple[tuple[Path, int, int], ...]):
        self.source = source
        self.files = files  # (YAML file, mtime_ns, size) of every config folder: what the cache key reads
        self._memo: dict[tuple, Composed] = {}
        self._key_positions: dict[tuple, dict] = {}  # (YAML file, working directory) -> its keys' spans
        self._digest: str | None = None

    @classmethod
    def of(cls, source: VerlSource) -> "FolderSchema":
        """The checkout's schema, kept for the process while none of its YAML files changes."""
        files = tuple((f, (st := f.stat()).st_mtime_ns, st.st_size) for d in _config_dirs(source.package)
                      for f in sorted(d.rglob("*.yaml")))
        known = _SCHEMAS.get(source.package)
        if known is None or known.files != files:
            known = _SCHEMAS[source.package] = cls(source, files)
        return known

    @cached_property
    def configs(self) -> dict[str, Path]:
        """Config name -> the folder that holds it (the trainer's folder first)."""
        out: dict[str, Path] = {}
        for d in _config_dirs(self.source.package):
            for f, _, _ in self.files:
                if f.parent == d:
                    out.setdefault(f.stem, d)
        return out

    @cached_property
    def groups(self) -> frozenset[str]:
        """Config groups of the trainer's folder as Hydra names them (sub-folders holding YAML files)."""
        base = self.source.package / CONFIG
        return frozenset(str(f.parent.relative_to(base)) for f, _, _ in self.files
                         if f.parent != base and f.is_relative_to(base))

    def compose(self, name: str, group_overrides: tuple[str, ...] = ()) -> Composed:
        """``name`` composed with ``group_overrides`` (Hydra override texts); raises ComposeError, KeyError for a
        name the folders do not have."""
        memo = (name, group_overrides)
        if memo not in self._memo:
            directory = self.configs[name]
            key = self._key(directory, name, group_overrides)
            self._memo[memo] = _cached(key) or _store(key, _hydra(directory, name, group_overrides,
                                                                  self.source.package / CONFIG))
        return self._memo[memo]

    def positions(self, name: str, composed: Composed) -> dict:
        """Where each key of ``composed`` (``name`` under its choices) is written: dotted key -> Span in the YAML
        file of the group option that sets it, the primary file's own keys winning (its `_self_` comes last)."""
        from rftc.verl.primary.files import key_positions

        base = self.source.package / CONFIG
        files = []
        for choice, option in composed.choices.items():
            if not isinstance(option, str):
                continue
            group, _, package = choice.partition("@")
            group = os.path.normpath(group)
            files.append((base / group / f"{option}.yaml", package or group.replace("/", ".")))
        files.append((self.configs[name] / f"{name}.yaml", ""))
        out: dict = {}
        for path, package in files:
            memo = (path, os.getcwd())  # a Span names its file relative to the working directory
            if memo not in self._key_positions:
                self._key_positions[memo] = key_positions(path) if path.is_file() else {}
            for rel, span in self._key_positions[memo].items():
                if not rel.startswith(("defaults", "hydra")):
                    out[f"{package}.{rel}" if package else rel] = span
        return out

    def _key(self, directory: Path, name: str, group_overrides: tuple[str, ...]) -> str:
        if self._digest is None:
            h = hashlib.sha256()
            for f, _, _ in self.files:
                h.update(str(f.relative_to(self.source.package)).encode() + b"\0" + f.read_bytes() + b"\0")
            self._digest = h.hexdigest()
        from importlib.metadata import version  # hydra-core's own import costs more than a conversion

        what = [FORMAT, version("hydra-core"), self._digest, str(directory.relative_to(self.source.package)), name,
                list(group_overrides)]
        return hashlib.sha256(json.dumps(what).encode()).hexdigest()


_SCHEMAS: dict[Path, FolderSchema] = {}


def _config_dirs(package: Path) -> list[Path]:
    return [package / rel for rel in CONFIG_DIRS if (package / rel).is_dir()]


def _hydra(directory: Path, name: str, group_overrides: tuple[str, ...], trainer_dir: Path) -> Composed:
    """hydra-core's compose; verl's trainer folder is on the search path, as the experimental trainers' own
    hydra.searchpath puts it (relative to a checkout), here pointed at this checkout."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from hydra.initialize import get_gh_backup, restore_gh_from_backup
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException
    from yaml import YAMLError

    overrides = [*group_overrides, f"hydra.searchpath=[file://{trainer_dir}]"]
    backup = get_gh_backup()  # a caller's own Hydra session, if any, is left as it was
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(directory), version_base=None):
            cfg = compose(config_name=name, overrides=overrides, return_hydra_config=True)
        choices = {k: v for k, v in OmegaConf.to_container(cfg.hydra.runtime.choices).items()
                   if not k.startswith("hydra/")}
        tree = OmegaConf.to_container(cfg, resolve=False)
    except (HydraException, OmegaConfBaseException, YAMLError, OSError, ValueError, TypeError) as exc:
        message = " ".join(str(exc).split()) or type(exc).__name__
        culprit = next((o for o in group_overrides if f"'{_group(o)}" in message or f"{_group(o)}/" in message),
                       None)
        raise ComposeError(message, culprit) from None
    finally:
        restore_gh_from_backup(backup)
    del tree["hydra"]
    return Composed(tree, choices)


def _group(override: str) -> str:
    """The config group an override text chooses from: `+actor@pkg=x` -> actor."""
    return override.split("=", 1)[0].lstrip("+~").split("@", 1)[0]


def cache_dir() -> Path:
    root = os.environ.get("RFTC_CACHE_DIR") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") \
        / "rftc"
    return Path(root) / "verl-configs"


def _cached(key: str) -> Composed | None:
    try:
        data = json.loads(gzip.decompress((cache_dir() / f"{key}.json.gz").read_bytes()))
    except (OSError, ValueError, EOFError):
        return None  # absent or unreadable: composed again
    return Composed(data["tree"], data["choices"])


def _store(key: str, composed: Composed) -> Composed:
    """Write the cache entry atomically; a cache that cannot be written only costs the next run a compose."""
    d = cache_dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=d, delete=False, suffix=".tmp") as f:
            f.write(gzip.compress(json.dumps({"tree": composed.tree, "choices": composed.choices}).encode(),
                                  mtime=0))
        os.replace(f.name, d / f"{key}.json.gz")
    except OSError:
        pass
    return composed
