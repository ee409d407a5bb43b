"""Which upstream veRL release a checkout's own config is: the release it declares (whose semantics it follows,
rftc.verl.releases.semantics, which places a development snapshot's changes by its own keys), and the bundled
release whose config is closest, the upstream its defaults and keys are compared with.

A version file names a release line, not a commit. veRL's main keeps a release's number until someone bumps it
(a checkout declaring `0.1` may carry changes of 0.2), and after the bump names the coming release with `.dev`
(`0.2.0.dev` lies between 0.1 and 0.2). So the declared version V gives a window of bundled releases:

- a plain V: V itself and the next bundled release (when V is bundled; else V alone, nothing to compare with);
- a `.dev` (or pre-release) V: the newest bundled release before V and the first bundled release of V's
  major.minor line (V itself, its .postN, or the V.x that followed).

Within the window the release whose upstream config shares the most keys (Jaccard) is the upstream; a tie keeps
the declared reading (V, or for `.dev` the release it leads to). With no version declared (or one that is not a
version number), the bundled release whose config is closest is both.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rftc.verl.releases import order, schema

VERSION_FILES = ("version/version",)  # veRL's own: verl/__init__.py reads it into __version__
VERSION_MODULES = ("__init__.py", "version.py", "_version.py")  # where a literal __version__ may be written


@dataclass(frozen=True)
class Release:
    release: str  # the release whose semantics apply (EffectiveConfig.release): the declared one
    upstream: str  # the bundled release whose config is closest (EffectiveConfig.verl_version)
    declared: str | None  # the version as the checkout writes it
    declared_in: str | None  # where, relative to the package's parent ("verl/version/version")
    shared: tuple[tuple[str, float], ...]  # (bundled release, share of keys in common) that were compared
    reason: str  # how the release was decided, one clause

    def describe(self) -> str:
        said = f"it declares verl {self.declared} in {self.declared_in}" if self.declared else \
            "it declares no version"
        compared = ", ".join(f"{v}: {share:.0%}" for v, share in sorted(self.shared, key=lambda s: -s[1])[:3])
        return f"{said}; {self.reason}" + (f" (keys shared with upstream {compared})" if compared else "") + \
            (f"; semantics follow verl {self.release}" if self.declared == self.release else "")


def declared_version(package: Path) -> tuple[str, str] | None:
    """(version text, file) as the checkout declares it: veRL's version file, else a literal __version__."""
    for name in VERSION_FILES:
        f = package / name
        if f.is_file():
            text = f.read_text(encoding="utf-8", errors="replace").strip()
            if text:
                return text, f"verl/{name}"
    for name in VERSION_MODULES:
        f = package / name
        if not f.is_file():
            continue
        try:
            tree = ast.parse(f.read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__version__"
                                                    for t in node.targets) \
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return node.value.value.strip(), f"verl/{name}"
    return None


@lru_cache(maxsize=1)
def upstream_keys() -> frozenset[str]:
    """Every dotted key (containers included) of every bundled release's composed configs."""
    return frozenset().union(*(schema.key_paths(tree) for v in schema.versions() for tree in schema.load(v).trees))


def _share(keys: frozenset[str], version: str, config_name: str) -> float:
    sch = schema.load(version)
    name = config_name if config_name in sch.configs else "ppo_trainer"
    theirs = schema.leaf_paths(version, name)
    union = keys | theirs
    return len(keys & theirs) / len(union) if union else 0.0


def identify(package: Path, keys: frozenset[str], config_name: str = "ppo_trainer") -> Release:
    """The release of the checkout whose `verl` package is ``package``; ``keys`` are the paths of its
    ``config_name`` composed with the default choices."""
    bundled = sorted(schema.versions(), key=order.key)
    found = declared_version(package)
    declared, declared_in = found if found is not None else (None, None)
    v = order.parse(declared) if declared else None
    if v is None:
        scored = [(b, _share(keys, b, config_name)) for b in reversed(bundled)]
        best = max(scored, key=lambda s: s[1])[0]  # newest first, so a tie goes to the newer release
        why = "not a version number" if declared else "no version"
        return Release(best, best, declared, declared_in, tuple(scored),
                       f"with {why}, it follows verl {best}, the bundled release whose config is closest")
    at = {b: order.parse(b) for b in bundled}
    if v.dev:
        low = next((b for b in reversed(bundled) if at[b].key < v.key), None)
        high = next((b for b in bundled if at[b].key >= v.key and at[b].numbers[:2] == v.numbers[:2]), None)
        default = high or low
    else:
        low = next((b for b in bundled if at[b].key == v.key), None)
        high = next((b for b in bundled if at[b].key > v.key), None) if low else None
        default = low
    window = [b for b in (low, high) if b] or list(reversed(bundled))  # no release of that line: the closest
    scored = [(b, _share(keys, b, config_name)) for b in window]
    best = max(scored, key=lambda s: (s[1], s[0] == default))[0]
    if default is None:
        reason = f"no bundled release of that line; its config is closest to verl {best}'s"
    elif len(scored) == 1 or best == default:
        reason = f"its config is closest to verl {best}'s"
    elif best == high:
        reason = f"its config has keys of verl {high}: a checkout of veRL's main after {low}, before the bump"
    else:
        reason = f"its config is still verl {low}'s: the development line before {high}'s changes"
    return Release(declared, best, declared, declared_in, tuple(scored), reason)
