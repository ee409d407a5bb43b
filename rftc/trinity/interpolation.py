"""OmegaConf interpolations resolved as Trinity resolves them at ``OmegaConf.to_object``, without omegaconf.

Supported (OmegaConf 2.3 semantics): node references ``${a.b.c}``, ``${a.list[0]}``, relative ``${.x}`` /
``${..x}``; resolvers ``oc.env`` (value is a str; a default is returned as ``str(default)``, null stays None),
``oc.decode`` (parses a string as an OmegaConf value), ``oc.select`` (a key or a default). A string that is
exactly one interpolation takes the referenced value's type; text around interpolations makes a string.
``\\${`` is a literal. A reference to a key the file does not set resolves to the schema's default.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rftc.dotted import dotted


class InterpolationError(Exception):
    """Trinity would fail the load: the message is OmegaConf's wording where there is one."""


class EnvMissing(Exception):
    def __init__(self, name: str):
        super().__init__(f"Environment variable '{name}' not found")
        self.name = name


@dataclass
class Resolution:
    data: Any
    errors: list[tuple[tuple, str]] = field(default_factory=list)  # (path, message): Trinity fails to load
    missing_env: list[tuple[tuple, str]] = field(default_factory=list)  # (path, variable): value left as written


def has_interpolation(value: Any) -> bool:
    return isinstance(value, str) and "${" in value


def resolve(data: Any, default_of: Callable[[tuple], Any], environ: Mapping[str, str] | None = None) -> Resolution:
    """Resolve every interpolation in ``data`` (plain dicts and lists). ``default_of(path)`` gives the schema
    default of a path the file does not set (or raises KeyError when the schema has no such key). Values whose
    resolution fails are left as written and reported."""
    env = os.environ if environ is None else environ
    res = Resolution(data)
    resolver = _Resolver(data, default_of, env)
    for path, value in list(_strings(data, ())):
        try:
            new = resolver.value_at(path)
        except EnvMissing as exc:
            res.missing_env.append((path, exc.name))
            continue
        except InterpolationError as exc:
            res.errors.append((path, str(exc)))
            continue
        if new is not value:
            _set(data, path, new)
    return res


def _strings(node, path):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _strings(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _strings(v, path + (i,))
    elif has_interpolation(node):
        yield path, node


def _set(data, path, value):
    for p in path[:-1]:
        data = data[p]
    data[path[-1]] = value


class _Resolver:
    def __init__(self, root, default_of, env):
        self.root, self.default_of, self.env = root, default_of, env
        self.done: dict[tuple, Any] = {}
        self.active: set[tuple] = set()

    def value_at(self, path: tuple) -> Any:
        if path in self.done:
            return self.done[path]
        raw = self._raw(path)
        if not has_interpolation(raw):
            return raw
        if path in self.active:
            raise InterpolationError(f"Recursive interpolation detected at '{dotted(path)}'")
        self.active.add(path)
        try:
            value = self.interpolate(raw, path)
        finally:
            self.active.discard(path)
        self.done[path] = value
        return value

    def _raw(self, path: tuple) -> Any:
        node = self.root
        for i, p in enumerate(path):
            if isinstance(node, dict) and p in node:
                node = node[p]
            elif isinstance(node, list) and isinstance(p, int) and 0 <= p < len(node):
                node = node[p]
            else:
                try:
                    return self.default_of(path)
                except KeyError:
                    raise InterpolationError(f"Interpolation key '{dotted(path)}' not found") from None
        return node

    # --- the interpolation grammar (the subset OmegaConf configs use) ---------------------------------------

    def interpolate(self, text: str, path: tuple) -> Any:
        parts = list(_split(text))
        if len(parts) == 1 and parts[0][0] == "interp":
            return self.evaluate(parts[0][1], path)
        out = []
        for kind, body in parts:
            if kind == "text":
                out.append(body)
            else:
                value = self.evaluate(body, path)
                if isinstance(value, (dict, list)):
                    raise InterpolationError(f"Cannot concatenate a {type(value).__name__} into a string: '{text}'")
                out.append(str(value))
        return "".join(out)

    def evaluate(self, body: str, path: tuple) -> Any:
        body = body.strip()
        m = re.match(r"^([A-Za-z_][\w.]*)\s*:(.*)$", body, re.S)
        if m and not body.startswith("."):
            return self.call(m.group(1), _split_args(m.group(2)), path)
        return self.value_at(self._target(body, path))

    def _target(self, ref: str, path: tuple) -> tuple:
        if not ref or not re.match(r"^\.*[\w\-]+(?:(?:\.[\w\-]+)|(?:\[\d+\]))*$|^\.+$", ref):
            raise InterpolationError(f"Invalid interpolation reference '${{{ref}}}'")
        dots = len(ref) - len(ref.lstrip("."))
        base: tuple = ()
        if dots:
            base = path[:-1]  # the node holding this value
            for _ in range(dots - 1):
                if not base:
                    raise InterpolationError(f"Invalid relative interpolation '${{{ref}}}': no parent")
                base = base[:-1]
        parts: list = []
        for name, index in re.findall(r"([\w\-]+)|\[(\d+)\]", ref.lstrip(".")):
            parts.append(int(index) if index else (int(name) if name.isdigit() and parts and
                                                  isinstance(self._peek(base + tuple(parts)), list) else name))
        return base + tuple(parts)

    def _peek(self, path):
        try:
            return self._raw(path)
        except InterpolationError:
            return None

    def call(self, name: str, args: list[str], path: tuple) -> Any:
        values = [self.argument(a, path) for a in args]
        if name == "oc.env":
            if not 1 <= len(values) <= 2:
                raise InterpolationError("oc.env takes a variable name and an optional default")
            key = str(values[0])
            if key in self.env:
                return self.env[key]
            if len(values) == 2:
                return None if values[1] is None else str(values[1])
            raise EnvMissing(key)
        if name == "oc.decode":
            if len(values) != 1:
                raise InterpolationError("oc.decode takes one argument")
            v = values[0]
            if v is None or not isinstance(v, str):
                return v
            return self.interpolate(v, path) if has_interpolation(v) else _primitive(v.strip())
        if name == "oc.select":
            if not 1 <= len(values) <= 2:
                raise InterpolationError("oc.select takes a key and an optional default")
            try:
                return self.value_at(self._target(str(values[0]), path))
            except InterpolationError:
                if len(values) == 2:
                    return values[1]
                return None
        raise InterpolationError(f"Unsupported interpolation type {name}")

    def argument(self, raw: str, path: tuple) -> Any:
        raw = raw.strip()
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
            inner = raw[1:-1].replace("\\" + raw[0], raw[0])
            return self.interpolate(inner, path) if has_interpolation(inner) else inner
        if has_interpolation(raw):
            return self.interpolate(raw, path)
        return _primitive(raw)


def _split(text: str):
    """Yield ("text", s) and ("interp", body) parts; ``\\${`` stays literal."""
    i, buf = 0, []
    while i < len(text):
        if text.startswith("\\${", i):
            buf.append("${")
            i += 3
        elif text.startswith("${", i):
            depth, j = 1, i + 2
            quote = None
            while j < len(text) and depth:
                c = text[j]
                if quote:
                    if c == "\\":
                        j += 1
                    elif c == quote:
                        quote = None
                elif c in "'\"":
                    quote = c
                elif text.startswith("${", j):
                    depth += 1
                    j += 1
                elif c == "}":
                    depth -= 1
                j += 1
            if depth:
                raise InterpolationError(f"Unterminated interpolation in '{text}'")
            if buf:
                yield "text", "".join(buf)
                buf = []
            yield "interp", text[i + 2:j - 1]
            i = j
        else:
            buf.append(text[i])
            i += 1
    if buf:
        yield "text", "".join(buf)


def _split_args(text: str) -> list[str]:
    if not text.strip():
        return []
    args, depth, quote, cur = [], 0, None, []
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\" and i + 1 < len(text):
                cur.append(c + text[i + 1])
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif text.startswith("${", i):
            depth += 1
        elif c == "}" and depth:
            depth -= 1
        elif c == "," and not depth:
            args.append("".join(cur))
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    args.append("".join(cur))
    return args


def _primitive(text: str) -> Any:
    """An unquoted OmegaConf grammar primitive: null, bools, ints, floats, else the string."""
    low = text.lower()
    if low == "null":
        return None
    if low in ("true", "false"):
        return low == "true"
    if re.fullmatch(r"[+-]?(?:\d[\d_]*|0x[0-9a-f]+|0o[0-7]+|0b[01]+)", low):
        return int(low.replace("_", ""), 0) if not re.fullmatch(r"[+-]?0\d+", low) else int(low)
    if re.fullmatch(r"[+-]?(?:(?:\d[\d_]*)?\.\d[\d_]*(?:e[+-]?\d+)?|\d[\d_]*(?:\.\d*)?e[+-]?\d+|\d[\d_]*\.|inf|nan)", low):
        return float(low.replace("_", ""))
    return text

