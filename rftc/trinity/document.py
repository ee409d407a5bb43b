"""A Trinity config file as ruamel.yaml reads it in round-trip mode: the tree keeps the line and column of
every key and value, so every diagnostic can point at the YAML that caused it.

``parse`` never raises: broken YAML becomes an RFTC400 diagnostic at the error's position. ``Document.locate``
maps a config path (keys and list indices) to a Span; a path the file does not spell out (a default) is
located at its nearest written ancestor. ``to_plain`` turns the tree into plain Python values the way
OmegaConf's YAML loader reads them (YAML 1.1 booleans yes/no/on/off, dates as strings).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any

from rftc.diagnostics.model import Diagnostics, Span

# PyYAML (which OmegaConf uses) reads these plain scalars as booleans (YAML 1.1); ruamel (YAML 1.2) does not.
_YAML11_BOOL = re.compile(r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$")


@dataclass
class Document:
    file: str
    text: str
    root: Any  # ruamel CommentedMap / CommentedSeq / scalar

    def node(self, path: tuple) -> tuple[bool, Any]:
        """(found, node) for ``path`` in the ruamel tree."""
        node = self.root
        for part in path:
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                return False, None
        return True, node

    def locate(self, path: tuple, *, value: bool = False) -> Span | None:
        """The span of the key at ``path`` (its value's span with ``value=True``); for a path the file does not
        contain, the span of the nearest ancestor it does contain; None for an empty document."""
        path = tuple(path)
        while path:
            found, parent = self.node(path[:-1])
            last = path[-1]
            if found and _has_position(parent, last):
                return self._span(parent, last, value)
            path = path[:-1]
        return Span(self.file, 1, 1) if self.root is not None else None

    def _span(self, parent, last, value: bool) -> Span:
        if isinstance(last, int):
            line, col = parent.lc.item(last)
            return Span(self.file, line + 1, col + 1, line + 1, col + 1 + _width(parent[last]))
        if value:
            vline, vcol = parent.lc.value(last)
            return Span(self.file, vline + 1, vcol + 1, vline + 1, vcol + 1 + _width(parent[last]))
        line, col = parent.lc.key(last)
        return Span(self.file, line + 1, col + 1, line + 1, col + 1 + len(str(last)))

    def locator(self):
        """The ``locate(path) -> Span | None`` callable the checks take."""
        return self.locate


def _has_position(parent, last) -> bool:
    lc = getattr(parent, "lc", None)
    if lc is None:
        return False
    if isinstance(last, int):
        return isinstance(parent, list) and 0 <= last < len(parent)
    return isinstance(parent, dict) and last in parent


def _width(node) -> int:
    if isinstance(node, (dict, list)):
        return 1
    text = str(node)
    return max(1, len(text) + (2 if type(node).__name__.endswith("QuotedScalarString") else 0))


def parse(text: str, file: str) -> tuple[Document | None, Diagnostics]:
    """Read YAML text; on a syntax error return None and an RFTC400 diagnostic at the error's position."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    diags = Diagnostics()
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    try:
        root = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if exc.context_mark and ("end of stream" in (exc.problem or "") or "stream end" in (exc.problem or "")):
            mark = exc.context_mark  # an unclosed quote or bracket: point where it opens
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = " ".join(p for p in (exc.context, exc.problem) if p)
        if type(exc).__name__ == "DuplicateKeyError" and exc.problem_mark:
            what = exc.problem
        diags.add("RFTC400", f"invalid YAML: {what}", Span(file, line, col))
        return None, diags
    except (YAMLError, ValueError, RecursionError) as exc:  # e.g. a bad %YAML directive, absurd nesting
        diags.add("RFTC400", f"invalid YAML: {exc}", Span(file, 1, 1))
        return None, diags
    return Document(file, text, root), diags


def to_plain(node: Any) -> Any:
    """Plain Python data from the ruamel tree, read as OmegaConf's loader reads the same text."""
    if isinstance(node, dict):
        return {_key(k): to_plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [to_plain(v) for v in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, (datetime.date, datetime.datetime)):
        return str(node)
    if isinstance(node, str):
        if type(node) is str and _YAML11_BOOL.match(node):
            return node.lower() in ("yes", "true", "on")
        return str(node)
    return node


def _key(k: Any) -> Any:
    if isinstance(k, str):
        return str(k)
    if isinstance(k, bool) or k is None:
        return k
    if isinstance(k, int):
        return int(k)
    return str(k)
