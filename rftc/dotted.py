"""Paths into plain config trees (dicts and lists, as YAML and Hydra give them): a dotted string ("a.b.c") or a
tuple of keys and list indexes. The one getter every stage uses, and the way Trinity prints a path."""

from __future__ import annotations

from typing import Any

ABSENT: Any = object()  # get's default when the caller must tell a missing key from any value


def get(tree: Any, path: str | tuple, default: Any = None) -> Any:
    """The value at ``path`` in ``tree``, or ``default`` where a key or index on the way is missing."""
    node = tree
    for part in path.split(".") if isinstance(path, str) else path:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return default
    return node


def has(tree: Any, path: str | tuple) -> bool:
    return get(tree, path, ABSENT) is not ABSENT


def dotted(path: tuple) -> str:
    """A config path as Trinity prints it: `a.b[0].c`."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out
