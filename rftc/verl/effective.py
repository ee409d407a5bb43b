"""What the veRL stage hands to the mapping stage: the effective veRL config a launch runs, with the
origin of every value."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rftc import dotted
from rftc.diagnostics.model import Span
from rftc.dotted import ABSENT
from rftc.shell.invocation import Invocation

@dataclass(frozen=True)
class Provenance:
    kind: str  # "default" (schema) | "override" (script or command line) | "config-file" | "derived"
    span: Span | None = None  # the override's or config file entry's position
    text: str | None = None  # the override as Hydra received it, e.g. "trainer.nnodes=2"
    via: tuple[Span, ...] = ()  # shell assignments whose values reached the override
    source_key: str | None = None  # "derived": the key whose value this one follows (interpolation)

    @property
    def user_set(self) -> bool:
        return self.kind in ("override", "config-file")


@dataclass
class EffectiveConfig:
    verl_version: str  # schema version used, e.g. "0.9.1"
    config_name: str  # "ppo_trainer" | "ppo_megatron_trainer" | a script's own config name
    values: dict  # the resolved config as plain dicts/lists/scalars (interpolations resolved)
    provenance: dict[str, Provenance] = field(default_factory=dict)  # dotted leaf key -> origin
    invocation: Invocation | None = None
    version_note: str = ""  # why this version was chosen
    release: str = ""  # the verl release whose semantics apply: verl_version for a bundled schema, the release
    #   a fork's own config declares (its verl/version/version) for a fork (rftc/verl/release.py)
    source: str = ""  # the veRL package whose own config was composed (a fork's, a checkout's); "" = bundled
    fork_keys: frozenset[str] = frozenset()  # keys of that config no upstream release has: the fork's own

    def __post_init__(self):
        self.release = self.release or self.verl_version

    def get(self, key: str, default: Any = ABSENT) -> Any:
        value = dotted.get(self.values, key, default)
        if value is ABSENT:
            raise KeyError(key)
        return value

    def has(self, key: str) -> bool:
        return dotted.has(self.values, key)

    def prov(self, key: str) -> Provenance:
        return self.provenance.get(key, Provenance("default"))

    def user_set(self, key: str) -> bool:
        return self.prov(key).user_set

    def user_keys(self) -> list[str]:
        """Keys whose value the script (or its config files, or the command line) set, in the order set."""
        return [k for k, p in self.provenance.items() if p.user_set]
