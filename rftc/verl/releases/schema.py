"""The bundled veRL schemas: the composed default config of each verl version and primary config, generated
from the verl wheels by scripts/gen_verl_schemas.py into schemas/<version>.json.gz (interpolations kept as text,
"???" = mandatory). A release that ships another one's config files is stored as {"version": ..., "same_as": ...}.
schemas/index.json lists each release's config names and config groups.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from rftc.verl.releases import order

SWITCHABLE_GROUP = "model_engine"  # the config group whose choices are precomposed (others: releases.folder)


@dataclass(frozen=True)
class VersionSchema:
    version: str
    groups: dict  # config group name -> options on disk
    configs: dict  # config name -> {"default": tree index, "choices": {group: {option: tree index}}}
    trees: list
    tree_choices: list  # per tree: the defaults-list choices it was composed with ("group@package": option)

    def config_names(self) -> list[str]:
        return list(self.configs)

    def tree(self, config_name: str, choice: str | None = None) -> dict | None:
        """The composed default tree (shared; copy before changing), or None when the choice does not exist."""
        entry = self.configs[config_name]
        if choice is None:
            return self.trees[entry["default"]]
        index = entry["choices"].get(SWITCHABLE_GROUP, {}).get(choice)
        return None if index is None else self.trees[index]

    def current_choices(self, config_name: str, choice: str | None = None) -> dict:
        """The defaults-list choices behind a config (and model_engine choice)."""
        entry = self.configs[config_name]
        index = entry["choices"].get(SWITCHABLE_GROUP, {}).get(choice, entry["default"])
        return self.tree_choices[index]

    def choices(self, config_name: str) -> list[str]:
        return list(self.configs[config_name]["choices"].get(SWITCHABLE_GROUP, {}))


@lru_cache(maxsize=1)
def versions() -> tuple[str, ...]:
    """Bundled versions, newest first."""
    names = [p.name[: -len(".json.gz")] for p in resources.files(__package__).joinpath("schemas").iterdir()
             if p.name.endswith(".json.gz")]
    return tuple(sorted(names, key=order.key, reverse=True))


@lru_cache(maxsize=1)
def _index() -> dict:
    return json.loads(resources.files(__package__).joinpath("schemas", "index.json").read_text())


def all_config_names() -> frozenset[str]:
    """The config names of every bundled release (from schemas/index.json: no release's trees are read)."""
    return frozenset().union(*(entry["configs"] for entry in _index().values()))


def all_group_names() -> frozenset[str]:
    """The config group names of every bundled release (from schemas/index.json)."""
    return frozenset().union(*(entry["groups"] for entry in _index().values()))


@lru_cache(maxsize=None)
def load(version: str) -> VersionSchema:
    raw = resources.files(__package__).joinpath("schemas", f"{version}.json.gz").read_bytes()
    data = json.loads(gzip.decompress(raw))
    if "same_as" in data:
        same = load(data["same_as"])
        return VersionSchema(version, same.groups, same.configs, same.trees, same.tree_choices)
    return VersionSchema(data["version"], data["groups"], data["configs"], data["trees"], data["tree_choices"])


def key_paths(tree: dict) -> frozenset[str]:
    """Every dotted key of a tree, containers included (for 'does this key exist in that config')."""
    out: list[str] = []
    stack = [(tree, "")] if isinstance(tree, dict) else []
    while stack:
        node, prefix = stack.pop()
        for k, v in node.items():
            p = f"{prefix}.{k}" if prefix else str(k)
            out.append(p)
            if isinstance(v, dict):
                stack.append((v, p))
    return frozenset(out)


@lru_cache(maxsize=None)
def leaf_paths(version: str, config_name: str, choice: str | None = None) -> frozenset[str]:
    """key_paths of a bundled release's config (under an engine choice)."""
    return key_paths(load(version).tree(config_name, choice))


def all_paths(version: str, config_name: str) -> frozenset[str]:
    """leaf_paths of a config under every engine choice together."""
    paths = set(leaf_paths(version, config_name))
    for choice in load(version).choices(config_name):
        paths |= leaf_paths(version, config_name, choice)
    return frozenset(paths)
