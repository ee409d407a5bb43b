"""A bundled release's own config folder, for a launch that chooses an option of a config group the bundled trees
do not hold (`engine=megatron`, `actor@actor_rollout_ref.actor=megatron_actor`, `+group=option`, `~group`): the
release's config files (schemas/config-files.json.xz, written by scripts/gen_verl_schemas.py from its wheel) are
written once into rftc's cache folder, as the `verl` package's config folders of that release, and hydra-core
composes them there as it composes a checkout's (rftc.verl.checkout.config_folder), with the release's own
defaults lists, packages and interpolations.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import lzma
import os
import shutil
import tempfile
from functools import lru_cache
from importlib import resources
from pathlib import Path

from rftc.verl.checkout.config_folder import FolderSchema, cache_dir
from rftc.verl.checkout.find import VerlSource


@lru_cache(maxsize=1)
def _bundle() -> dict:
    return json.loads(lzma.decompress(resources.files(__package__).joinpath("schemas", "config-files.json.xz")
                                      .read_bytes()))


def has_files(version: str) -> bool:
    """Whether the release's config files are bundled (the releases with config groups)."""
    return version in _bundle()["releases"]


@lru_cache(maxsize=None)
def folder(version: str) -> FolderSchema:
    """The release's config folders as a FolderSchema (written into the cache folder the first time)."""
    bundle = _bundle()
    files = {path: bundle["files"][i] for path, i in bundle["releases"][version].items()}
    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:16]
    root = cache_dir().parent / "verl-releases" / f"{version}-{digest}"
    if not (root / "verl").is_dir():
        try:
            _write(root, files)
        except OSError:  # a cache folder that cannot be written: this process's own folder instead
            root = Path(tempfile.mkdtemp(prefix="rftc-verl-")) / root.name
            atexit.register(shutil.rmtree, root.parent, True)
            _write(root, files)
    return FolderSchema.of(VerlSource(root / "verl", f"verl {version}'s config files, bundled with rftc"))


def _write(root: Path, files: dict[str, str]) -> None:
    """Write the folder whole under a temporary name, then rename it (another process may be writing it too)."""
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=root.parent, prefix=".tmp-"))
    try:
        for path, text in files.items():
            target = tmp / "verl" / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        os.rename(tmp, root)
    except OSError:
        if not (root / "verl").is_dir():
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
