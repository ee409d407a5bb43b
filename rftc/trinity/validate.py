"""The static validator: config data -> (TrinityConfig IR, diagnostics), with Trinity 0.6.0's verdicts.

``check_config`` serves every command (through rftc.api): ``check`` passes the data read from a YAML file with its
locator, ``compile`` the mapping's document with a locator into the launch script (or one returning None).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Severity, Span
from rftc.dotted import dotted, get, has


@dataclass
class CheckOptions:
    nodes: int | None = None  # cluster size where the config leaves it to Ray (--nodes)
    gpus_per_node: int | None = None  # (--gpus-per-node)
    env_strict: bool = False  # a missing ${oc.env:VAR} without default is an error, as it is for Trinity
    path_checks: bool = True  # warn about local model/data paths that do not exist
    base_dir: str | None = None  # relative paths are resolved against this (default: the working directory)
    environ: Mapping[str, str] | None = None  # the environment ${oc.env:...} reads (default: os.environ)


@dataclass
class Context:
    """What every check receives: the resolved data, where its keys are, the options, the sink."""

    data: dict
    locate: Callable[[tuple], Span | None]
    options: CheckOptions
    diags: Diagnostics
    unresolved: set[tuple] = field(default_factory=set)  # values left as written (missing env var)

    def add(self, code: str, message: str, path: tuple = (), *, hint: str | None = None, notes=(),
            severity: Severity | None = None):
        path = tuple(path)
        return self.diags.add(code, message, self.locate(path), hint=hint,
                              key=dotted(path) or None, notes=notes, severity=severity)

    def is_set(self, path: tuple) -> bool:
        """Whether the file itself sets ``path`` (as opposed to the schema's default)."""
        return has(self.data, path)

    def raw(self, path: tuple, default: Any = None) -> Any:
        return get(self.data, path, default)


def check_config(data: Any, locate: Callable[[tuple], Span | None] | None = None,
                 options: CheckOptions | None = None):
    """Validate config ``data`` (plain dicts and lists, as read from YAML) the way Trinity-RFT 0.6.0 loads and
    validates it, plus the traps it lets through. Returns (the IR or None when the file does not load, the
    diagnostics). Never raises on bad input."""
    from rftc.trinity.checks import run_all
    from rftc.trinity.checks.structure import build_ir

    diags = Diagnostics()
    ctx = Context(data if isinstance(data, dict) else {}, locate or (lambda path: None), options or CheckOptions(),
                  diags)
    cfg = build_ir(ctx, data)
    if cfg is not None:
        run_all(ctx, cfg)
    return cfg, diags

