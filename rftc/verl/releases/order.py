"""verl release strings and their order: the PyPI releases ("0.1", "0.2.0.post1", "0.9.1") and the strings a
checkout or fork declares in its verl/version/version ("0.2.0.dev", "0.1", "0.10.0.dev").

Release numbers compare as PEP 440 orders them (0.2 == 0.2.0 < 0.2.0.post1 < 0.3.0.post0; a development
snapshot "X.dev" sorts just below X); a string that is not a version sorts below every release."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_VERSION = re.compile(r"v?(\d+(?:\.\d+)*)(?:[.-]?(post|dev|rc|a|b)(\d*))*", re.IGNORECASE)
_SUFFIX = re.compile(r"[.-]?(post|dev|rc|a|b)(\d*)", re.IGNORECASE)


@dataclass(frozen=True)
class ReleaseNumber:
    text: str
    numbers: tuple[int, ...]  # padded to three: "0.2" -> (0, 2, 0)
    post: int = -1  # ".postN" (-1: none)
    dev: bool = False  # a development snapshot ("0.2.0.dev", "0.5.0rc1" counts as one too)

    @property
    def key(self) -> tuple:
        return (self.numbers, 0 if self.dev else 1, self.post)

    @property
    def line(self) -> tuple[int, ...]:
        """The release line, post releases included: 0.2, 0.2.0.post1 and 0.2.0.post2 are one line."""
        return self.numbers


@lru_cache(maxsize=None)
def parse(text: str) -> ReleaseNumber | None:
    """The release ``text`` names, or None when it is not a version number."""
    m = _VERSION.fullmatch(text.strip())
    if m is None:
        return None
    numbers = tuple(int(p) for p in m.group(1).split("."))[:3]
    numbers += (0,) * (3 - len(numbers))
    post, dev = -1, False
    for kind, n in _SUFFIX.findall(text.strip()[m.end(1):]):
        if kind.lower() == "post":
            post = int(n or 0)
        else:
            dev = True
    return ReleaseNumber(text.strip(), numbers, post, dev)


def key(text: str) -> tuple:
    """Sort key of a release string (strings that are not versions sort first)."""
    r = parse(text)
    return (0, ()) if r is None else (1, r.key)
