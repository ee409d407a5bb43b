"""OmegaConf's semantics on plain dicts: interpolations resolved as ``OmegaConf.to_container(resolve=True)`` would
(``${a.b}``, relative ``${.x}`` / ``${..x}``, ``${oc.select:path,default}``, ``${oc.decode:...}`` by OmegaConf's own
decode; ``${oc.env:...}`` and Hydra's ``${now:...}`` are kept as text because the environment and clock of the
training machine are not known here, except where oc.decode must decode one: the value the launch exports, else
the default OmegaConf gives a variable the environment does not set, an assumption the resolver records),
with the keys each value followed, so a value that follows a key the user set is reported as derived from it;
the mandatory-value marker; dotted paths with list indexes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rftc.dotted import ABSENT

MISSING = "???"  # OmegaConf's mandatory-value marker
# Resolvers whose value exists only when the job runs (environment, clock): kept as their text.
RUNTIME_RESOLVERS = ("oc.env", "now")
_NUMBER = re.compile(r"[+-]?(\d[\d_]*)?(\.\d*)?([eE][+-]?\d+)?")


class InterpolationError(Exception):
    def __init__(self, message: str, key: str):
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class Node:
    """``${...}``: either a key reference (resolver None) or a resolver call; ``source`` is its text."""

    resolver: str | None
    key: str
    args: tuple
    source: str


@lru_cache(maxsize=8192)
def parse_string(s: str) -> tuple:
    """Split a string into literal pieces (str) and interpolations (Node); cached (schemas repeat them)."""
    parts, i, lit = [], 0, []
    while i < len(s):
        if s.startswith("\\${", i):
            lit.append("${")
            i += 3
        elif s.startswith("${", i):
            if lit:
                parts.append("".join(lit))
                lit = []
            node, i = _parse_interp(s, i)
            parts.append(node)
        else:
            lit.append(s[i])
            i += 1
    if lit:
        parts.append("".join(lit))
    return tuple(parts)


def _parse_interp(s: str, i: int) -> tuple[Node, int]:
    start = i
    i += 2
    j = i
    while j < len(s) and s[j] not in ":}":
        j += 1
    if j >= len(s):
        raise ValueError(f"unterminated interpolation in '{s}'")
    head = s[i:j].strip()
    if s[j] == "}":
        return Node(None, head, (), s[start:j + 1]), j + 1
    args, k = [], j + 1
    while True:
        value, k = _parse_arg(s, k)
        args.append(value)
        while k < len(s) and s[k] == " ":
            k += 1
        if k >= len(s):
            raise ValueError(f"unterminated interpolation in '{s}'")
        if s[k] == "}":
            return Node(head, "", tuple(args), s[start:k + 1]), k + 1
        if s[k] != ",":
            raise ValueError(f"unexpected '{s[k]}' in '{s}'")
        k += 1


def _parse_arg(s: str, k: int, stop: str = ",}"):
    while k < len(s) and s[k] == " ":
        k += 1
    if s.startswith("${", k):
        node, k = _parse_interp(s, k)
        return node, k
    if k < len(s) and s[k] in "'\"":
        q = s[k]
        end = k + 1
        while end < len(s) and s[end] != q:
            end += 2 if s[end] == "\\" else 1
        return s[k + 1:end].replace("\\" + q, q), end + 1
    if k < len(s) and s[k] in "[{":
        close = "]" if s[k] == "[" else "}"
        items, k = [], k + 1
        while True:
            while k < len(s) and s[k] == " ":
                k += 1
            if k < len(s) and s[k] == close:
                return (items if close == "]" else dict(items)), k + 1
            if close == "}":
                colon = s.index(":", k)
                key = s[k:colon].strip()
                value, k = _parse_arg(s, colon + 1, ",}")
                items.append((key, value))
            else:
                value, k = _parse_arg(s, k, ",]")
                items.append(value)
            while k < len(s) and s[k] == " ":
                k += 1
            if k < len(s) and s[k] == ",":
                k += 1
    end = k
    while end < len(s) and s[end] not in stop:
        end += 1
    return _primitive(s[k:end].strip()), end


def _primitive(text: str):
    low = text.lower()
    if low == "null":
        return None
    if low in ("true", "false"):
        return low == "true"
    number = _NUMBER.fullmatch(text)
    if number and (number.group(1) or len(number.group(2) or "") > 1):  # a digit before any exponent
        clean = text.replace("_", "")
        try:
            return int(clean)
        except ValueError:
            return float(clean)
    if low in ("inf", "+inf", "-inf", "nan"):
        return float(low)
    return text


def has_interpolation(v: Any) -> bool:
    return isinstance(v, str) and "${" in v


class _Unknown(Exception):
    """A value oc.decode needs is only known when the job runs."""


class Resolver:
    """Resolves a config tree; ``sources[key]`` lists the keys a resolved value followed. ``env``: the environment
    the launch exports (its values may be unknown, ``${oc.env:NAME}``); ``assumed`` lists (key, variable, default)
    where oc.decode decoded the default of a variable the launch does not set."""

    def __init__(self, tree: dict, env: dict[str, str] | None = None):
        self.tree = tree
        self.env = env or {}
        self.assumed: list[tuple[str, str, str]] = []
        self.sources: dict[str, list[str]] = {}
        self._done: dict[str, Any] = {}
        self._active: set[str] = set()

    def _container(self, node, path: str):
        if isinstance(node, dict):
            return {k: self._value(v, f"{path}.{k}" if path else str(k)) for k, v in node.items()}
        return [self._value(v, f"{path}.{i}") for i, v in enumerate(node)]

    def _value(self, v, path: str):
        if isinstance(v, (dict, list)):
            return self._container(v, path)
        if has_interpolation(v):
            return self.resolve_key(path)
        return v

    def resolve_key(self, path: str):
        """The resolved value at a dotted path (raises InterpolationError)."""
        if path in self._done:
            return self._done[path]
        raw = self._raw(path)
        if raw is ABSENT:
            raise InterpolationError(f"'{path}' does not exist", path)
        if not has_interpolation(raw):
            return self._value(raw, path)
        if path in self._active:
            raise InterpolationError(f"interpolation cycle through '{path}'", path)
        self._active.add(path)
        try:
            followed: list[str] = []
            value = self._string(raw, path, followed)
        except ValueError as exc:
            raise InterpolationError(f"cannot parse the interpolation at '{path}': {exc}", path) from None
        finally:
            self._active.discard(path)
        self.sources[path] = followed
        self._done[path] = value
        return value

    def _raw(self, path: str):
        return walk(self.tree, path)

    def _string(self, raw: str, path: str, followed: list[str]):
        parts = parse_string(raw)
        if len(parts) == 1 and isinstance(parts[0], Node):
            return self._node(parts[0], path, followed)
        out = []
        for p in parts:
            out.append(p if isinstance(p, str) else _text(self._node(p, path, followed)))
        return "".join(out)

    def _node(self, node: Node, path: str, followed: list[str]):
        if node.resolver is None:
            target = _absolute(node.key, path)
            value = self.resolve_key(target) if self._raw(target) is not ABSENT else ABSENT
            if value is ABSENT:
                raise InterpolationError(f"it refers to '{node.key}', which does not exist", path)
            if value == MISSING:
                raise InterpolationError(f"it refers to '{node.key}', which is mandatory and not set", path)
            followed.append(target)
            return value
        if node.resolver == "oc.select":
            target = _absolute(str(self._arg(node.args[0], path, followed)), path)
            default = self._arg(node.args[1], path, followed) if len(node.args) > 1 else None
            if self._raw(target) is ABSENT:
                return default
            value = self.resolve_key(target)
            if value == MISSING:
                return default
            followed.append(target)
            return value
        if node.resolver == "oc.decode":
            try:
                expr = self._arg(node.args[0], path, followed, known=True) if node.args else ""
            except _Unknown:
                return node.source  # decoded on the training machine, kept as written
            return self._decode(expr, path, followed)
        if node.resolver in RUNTIME_RESOLVERS:
            return node.source  # resolved on the training machine, kept as written
        raise InterpolationError(f"it uses the resolver '{node.resolver}', which rftc does not evaluate",
                                 path)

    def _arg(self, arg, path: str, followed: list[str], known: bool = False):
        """An argument's value; ``known``: one oc.decode decodes, which a runtime resolver's text cannot be
        (_Unknown), save ``oc.env`` with the value the launch exports or, not set by the launch, its default."""
        if not isinstance(arg, Node):
            return arg
        if known and arg.resolver == "oc.env":
            return self._env(arg, path, followed)
        value = self._node(arg, path, followed)
        if known and has_interpolation(value) and any(isinstance(p, Node) and p.resolver in RUNTIME_RESOLVERS
                                                      for p in parse_string(value)):
            raise _Unknown
        return value

    def _env(self, node: Node, path: str, followed: list[str]):
        """oc.env's value (a string; a None default as is) where the launch decides it."""
        name = str(self._arg(node.args[0], path, followed, known=True)) if node.args else ""
        if name in self.env:
            if has_interpolation(self.env[name]):
                raise _Unknown  # the launch exports a value only known when it runs
            return self.env[name]
        if len(node.args) < 2:
            raise _Unknown
        default = self._arg(node.args[1], path, followed, known=True)
        self.assumed.append((path, name, node.source))
        return None if default is None else str(default)

    def _decode(self, expr, path: str, followed: list[str]):
        """OmegaConf's oc.decode: a string parsed and evaluated as one element of its grammar (None stays None);
        an element that is an interpolation is resolved in this tree."""
        from omegaconf import OmegaConf
        from omegaconf.errors import OmegaConfBaseException
        from omegaconf.resolvers.oc import decode

        if isinstance(expr, str) and "${" in expr:
            return self._string(expr.strip(), path, followed)
        try:
            return decode(expr, _parent_=OmegaConf.create({}), _node_=None)
        except (OmegaConfBaseException, TypeError, ValueError) as exc:
            raise InterpolationError(f"oc.decode cannot decode {expr!r}: {' '.join(str(exc).split())}",
                                     path) from None


def child(node, part: str):
    """One step down a dotted path: a dict's key, or a list's index written in digits; ABSENT where there is none."""
    if isinstance(node, dict):
        return node.get(part, ABSENT)
    if isinstance(node, list) and part.isdigit() and int(part) < len(node):
        return node[int(part)]
    return ABSENT


def walk(tree, path: str):
    """The node at a dotted path ("" is the tree itself); ABSENT where there is none."""
    node = tree
    for part in path.split(".") if path else []:
        node = child(node, part)
    return node


def _text(v) -> str:
    return str(v)


def _absolute(key: str, path: str) -> str:
    """A key relative to the node at ``path`` (leading dots climb from its parent) made absolute."""
    if not key.startswith("."):
        return key
    dots = len(key) - len(key.lstrip("."))
    base = path.split(".")[:-1]  # the containing node
    base = base[: len(base) - (dots - 1)] if dots > 1 else base
    rest = key[dots:]
    return ".".join([*base, rest]) if rest else ".".join(base)
