"""Bash's pattern matching, one translation for every place bash matches a pattern: `case` items, `[[ x == p ]]`,
and the ``${...}`` operators that cut or replace text by a pattern (``#`` ``##`` ``%`` ``%%`` ``/`` ``//``).

``*`` matches any string, ``?`` any character, ``[...]`` a bracket expression (``!`` or ``^`` first negates it, a
``]`` first is a character, ``a-z`` a range, ``[:space:]`` and the other POSIX classes a class, as in the C locale),
and a backslash makes the next character literal."""

from __future__ import annotations

import re
from functools import lru_cache

# the POSIX character classes (C locale), as the inside of a Python character class
_CLASSES = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9",
    "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z", "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f",
}
_CLASS = re.compile(r"\[:([a-z]+):\]")


@lru_cache(maxsize=512)
def glob_regex(pattern: str, greedy: bool = False) -> re.Pattern:
    """``pattern`` as a regex; ``*`` matches lazily unless ``greedy``, so callers pick the shortest or longest
    match."""
    out, i = [], 0
    star = ".*" if greedy else ".*?"
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append(star)
        elif c == "?":
            out.append(".")
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        elif c == "[" and (bracket := _bracket(pattern, i)) is not None:
            regex, i = bracket
            out.append(regex)
            continue
        else:
            out.append(re.escape(c))
        i += 1
    try:
        return re.compile("".join(out), re.S)
    except re.error:
        return re.compile(re.escape(pattern), re.S)


def matches(text: str, pattern: str) -> bool:
    """Whether the whole of ``text`` matches ``pattern`` (case, [[ == ]])."""
    return glob_regex(pattern).fullmatch(text) is not None


def _bracket(pattern: str, start: int) -> tuple[str, int] | None:
    """The bracket expression at ``pattern[start]`` (a `[`): (its regex, the index after its `]`), or None when it
    has no closing `]` (the `[` is then a character)."""
    i = start + 1
    negate = pattern[i:i + 1] in ("!", "^")
    i += negate
    items: list[str] = []
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            if not all(items):  # a class bash does not know: the expression matches nothing
                return "(?!)", i + 1
            return ("[^" if negate else "[") + "".join(items) + "]", i + 1
        first = False
        m = _CLASS.match(pattern, i)
        if m:
            items.append(_CLASSES.get(m.group(1), ""))
            i = m.end()
            continue
        if c == "\\" and i + 1 < len(pattern):
            i += 1
            c = pattern[i]
        if pattern[i + 1:i + 2] == "-" and pattern[i + 2:i + 3] not in ("", "]"):
            hi = pattern[i + 2]
            if hi == "\\" and i + 3 < len(pattern):
                hi = pattern[i + 3]
                i += 1
            items.append(_literal(c) + "-" + _literal(hi))
            i += 3
            continue
        items.append(_literal(c))
        i += 1
    return None


def _literal(c: str) -> str:
    """A character inside a Python character class."""
    return "\\" + c if c in "\\]^-[" else c
