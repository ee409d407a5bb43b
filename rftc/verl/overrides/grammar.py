"""What Hydra's override grammar makes of one override's text: Hydra's own parser (exact semantics), keeping the
column of a syntax error, or a fast path for the common plain `key=value`."""

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


# The common shape `key=value` with a plain value is typed here exactly as Hydra's grammar types it (a single
# INT, FLOAT, BOOL or NULL token, else the text); anything else goes to Hydra's parser. Both paths are checked
# against each other over the corpus (tests/test_verl_overrides.py).
_SIMPLE = re.compile(r"(\+{0,2})([A-Za-z_][A-Za-z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|0|[1-9][0-9]*))*)"
                     r"=([A-Za-z0-9_./-]+)")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_TEXT = re.compile(r"[A-Za-z_/][A-Za-z0-9_./-]*")
_WORDS = {"true": True, "false": False, "null": None}
_NUMBER_WORDS = {"inf", "nan"}


def _simple(text: str):
    """(kind, key, value) for a plain `key=value`, or None to let Hydra's parser decide."""
    m = _SIMPLE.fullmatch(text)
    if m is None:
        return None
    prefix, key, v = m.groups()
    low = v.lower()
    if _INT.fullmatch(v):
        value = int(v)
    elif _FLOAT.fullmatch(v) and not v.isdigit():
        value = float(v)
    elif low in _WORDS:
        value = _WORDS[low]
    elif _TEXT.fullmatch(v) and low not in _NUMBER_WORDS:
        value = v
    else:
        return None
    return {"": "change", "+": "add", "++": "force_add"}[prefix], key, value


@lru_cache(maxsize=4096)
def parse_text(text: str) -> tuple:
    """What Hydra makes of one override, by its text (cached: scripts repeat overrides).
    ("override", kind, key, value, has_value, package) | ("syntax", message, column) | ("sweep",) |
    ("rejected", message)."""
    simple = _simple(text)
    if simple is not None and not simple[1].startswith("hydra"):
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


