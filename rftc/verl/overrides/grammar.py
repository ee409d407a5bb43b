"""What Hydra's override grammar makes of one override's text. Hydra's own parser (hydra-core's ANTLR grammar and
visitor) decides, and keeps the column of a syntax error; the shapes launch scripts write most (`key=value`,
`+key=[a,'b c']`, `key=${oc.env:HOME}/data`) are read by a fast path that accepts only text Hydra's lexer cuts into
tokens whose value it knows, so a conversion imports hydra-core only for the rest (escapes, blanks inside a
value, dicts, functions, sweeps, deletions, packages, Hydra's own keys). tests/test_verl_overrides.py checks that
the two readings agree on every text the fast path accepts."""

from __future__ import annotations

import re
from functools import lru_cache


class _ParseError(Exception):
    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.column = column


def _hydra_parse(text: str):
    """Hydra's parse_override, with an error listener that keeps the column Hydra's own listener drops."""
    from antlr4.error.ErrorListener import ErrorListener
    from hydra.core.override_parser.overrides_visitor import HydraOverrideVisitor
    from hydra.grammar.gen.OverrideLexer import CommonTokenStream, InputStream, OverrideLexer
    from hydra.grammar.gen.OverrideParser import OverrideParser

    class Listener(ErrorListener):
        def syntaxError(self, recognizer, offending_symbol, line, column, msg, e):
            raise _ParseError(msg or str(e), column)

    listener = Listener()
    lexer = OverrideLexer(InputStream(text))
    lexer.removeErrorListeners()
    lexer.addErrorListener(listener)
    parser = OverrideParser(CommonTokenStream(lexer))
    parser.removeErrorListeners()
    parser.addErrorListener(listener)
    ret = HydraOverrideVisitor(_functions()).visit(parser.override())
    ret.input_line = text
    ret.validate()
    return ret


_FUNCTIONS = None


def _functions():
    global _FUNCTIONS
    if _FUNCTIONS is None:
        from hydra.core.override_parser.overrides_parser import create_functions

        _FUNCTIONS = create_functions()
    return _FUNCTIONS


# The fast path, in the terms of Hydra's OverrideLexer.g4 (VALUE_MODE). A key is a plain dotted path. A value is
# empty, a primitive, a quoted string without backslashes, or a list of those (nested lists too), with blanks only
# next to the brackets and commas, where Hydra's BRACKET_OPEN / COMMA / BRACKET_CLOSE tokens absorb them (not after
# a colon: its token absorbs them too).
# A primitive is a run of characters that are each a token or part of one (ID, INT, FLOAT, BOOL, NULL,
# UNQUOTED_CHAR but the backslash, COLON) and of ${...} interpolations (INTERPOLATION): Hydra's visitor makes the
# text of such a run its value unless the whole run is one INT, FLOAT, BOOL or NULL token, which the lexer (longest
# match; FLOAT's rule before INT's, BOOL's and NULL's before ID's) makes of it exactly when the rule matches it all.
_KEY = re.compile(r"(\+{0,2})([A-Za-z_][A-Za-z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|0|[1-9][0-9]*))*)=")
_PRIMITIVE = re.compile(r"(?:[A-Za-z0-9_\-+./:%*@?|]|\$\{[^{}'\"\\\s]+\}|\$(?!\{))+")
_QUOTED = re.compile(r"'([^'\\\n]*)'|\"([^\"\\\n]*)\"")
_BLANKS = re.compile(r"[ \t]*")
_UINT = r"(?:0|[1-9](?:_?[0-9])*)"
_POINT = rf"(?:{_UINT}\.|{_UINT}?\.[0-9](?:_?[0-9])*)"
_FLOAT = re.compile(rf"[+-]?(?:{_POINT}|(?:{_UINT}|{_POINT})[eE][+-]?[0-9](?:_?[0-9])*|[Ii][Nn][Ff]|[Nn][Aa][Nn])")
_INT = re.compile(rf"[+-]?{_UINT}")
_BOOL = re.compile(r"[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]")
_NULL = re.compile(r"[Nn][Uu][Ll][Ll]")


def _simple(text: str):
    """(kind, key, value) of an override the fast path reads, or None to let Hydra's parser decide."""
    m = _KEY.match(text)
    if m is None or m.group(2).startswith("hydra"):
        return None
    kind = {"": "change", "+": "add", "++": "force_add"}[m.group(1)]
    if m.end() == len(text):
        return kind, m.group(2), ""  # `key=`: the empty string
    read = _element(text, m.end())
    if read is None or read[1] != len(text):
        return None
    return kind, m.group(2), read[0]


def _element(text: str, i: int):
    """(value, end) of the list, quoted string or primitive at ``text[i]``, or None."""
    if text.startswith("[", i):
        return _list(text, i)
    q = _QUOTED.match(text, i)
    if q is not None:
        return q.group(1) if q.group(1) is not None else q.group(2), q.end()
    p = _PRIMITIVE.match(text, i)
    if p is None or p.group().endswith(":") and text[p.end():p.end() + 1] in (" ", "\t"):
        return None  # Hydra's COLON token takes the blanks after it into the primitive
    return _typed(p.group()), p.end()


def _list(text: str, i: int):
    items: list = []
    i = _BLANKS.match(text, i + 1).end()
    if text.startswith("]", i):
        return items, i + 1
    while True:
        read = _element(text, i)
        if read is None:
            return None
        items.append(read[0])
        i = _BLANKS.match(text, read[1]).end()
        if text.startswith("]", i):
            return items, i + 1
        if not text.startswith(",", i):
            return None
        i = _BLANKS.match(text, i + 1).end()


def _typed(text: str):
    """A primitive's value: the number, boolean or null its one token means, else its text."""
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INT.fullmatch(text):
        return int(text)
    if _BOOL.fullmatch(text):
        return text.lower() == "true"
    return None if _NULL.fullmatch(text) else text


@lru_cache(maxsize=4096)
def parse_text(text: str) -> tuple:
    """What Hydra makes of one override, by its text (cached: scripts repeat overrides).
    ("override", kind, key, value, has_value, package) | ("syntax", message, column) | ("sweep",) |
    ("rejected", message)."""
    simple = _simple(text)
    if simple is not None:
        kind, key, value = simple
        return "override", kind, key, value, True, None
    from hydra.errors import HydraException

    try:
        o = _hydra_parse(text)
    except _ParseError as exc:
        return "syntax", str(exc), exc.column
    except HydraException as exc:  # raised by the visitor (e.g. a bad function call)
        return "rejected", str(exc)
    key = o.key_or_group
    if o.is_sweep_override():
        return ("sweep",)
    if key == "hydra" or key.startswith(("hydra.", "hydra/")):  # Hydra's own settings and groups (job_logging)
        return "override", "hydra", key, o.value(), True, None
    if o.package is not None:
        return "override", "group", key, o.value(), True, o.package
    if o.is_delete():
        return "override", "delete", key, o.value(), o.value_type is not None, None
    kind = "add" if o.is_add() else "force_add" if o.is_force_add() else "change"
    return "override", kind, key, o.value(), True, None


