"""Parsing override arguments with Hydra's own override grammar (exact semantics), keeping the position of
every error inside the argument so it can be reported at the script's line and column."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Span
from rftc.shell.invocation import Arg

OVERRIDES_FILE = "<overrides>"  # Span.file for overrides given as text (rftc lint --overrides '...')
_PLACEHOLDER = re.compile(r"<[A-Za-z_][\w\- ./]*>")


@dataclass(frozen=True)
class Override:
    """One parsed override. ``kind``: change | add | force_add | delete | group | hydra."""

    arg: Arg
    kind: str
    key: str
    value: Any = None
    has_value: bool = True  # False only for "~key" without "=value"
    package: str | None = None  # "actor@actor_rollout_ref.actor=x": the package after "@"

    @property
    def text(self) -> str:
        return self.arg.text


def sub_span(arg: Arg, start: int, end: int | None = None) -> Span:
    """The span of text[start:end] when the word is written verbatim on one line, else the whole word."""
    s = arg.span
    end = len(arg.text) if end is None else end
    if s.end_col is not None and (s.end_line or s.line) == s.line and s.end_col - s.col == len(arg.text):
        return Span(s.file, s.line, s.col + start, s.line, s.col + max(end, start + 1))
    return s


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


def parse(arg: Arg, diags: Diagnostics) -> Override | None:
    """Parse one override argument; record a diagnostic and return None when Hydra would reject it."""
    text = arg.text
    result = parse_text(text)
    if result[0] == "override":
        _, kind, key, value, has_value, package = result
        return Override(arg, kind, key, value, has_value, package)
    if result[0] == "syntax":
        _syntax_error(arg, result[1], result[2], diags)
    elif result[0] == "rejected":
        diags.add("RFTC200", f"Hydra rejects the override '{text}': {result[1]}", sub_span(arg, 0))
    else:
        eq = text.find("=") + 1
        diags.add("RFTC201", f"'{text}' is a Hydra sweep (several runs), not one value", sub_span(arg, eq),
                  hint=f"to pass a string containing commas, quote it for Hydra: {text[:eq]}'{text[eq:]}'",
                  key=text[:eq - 1].lstrip("+~"))
    return None


def _syntax_error(arg: Arg, message: str, column: int, diags: Diagnostics) -> None:
    text = arg.text
    m = _PLACEHOLDER.search(text)
    if m:
        diags.add("RFTC202", f"'{m.group(0)}' is a placeholder left in the override '{text}'",
                  sub_span(arg, m.start(), m.end()), hint="replace it with a real value",
                  key=text.split("=", 1)[0].lstrip("+~"))
        return
    column = min(max(column, 0), max(len(text) - 1, 0))
    hint = None
    if "}" in text[column:column + 1] and "${" not in text:
        hint = "a stray '}' : remove it, or write an interpolation as ${...}"
    elif text[column:column + 1] in "[{" or "no viable alternative" in message:
        hint = "check brackets and quotes; quote the value for Hydra ('...') to pass it as a plain string"
    diags.add("RFTC200", f"Hydra cannot parse the override '{text}': {message}",
              sub_span(arg, column, column + 1), hint=hint)


def split_text(text: str, file: str = OVERRIDES_FILE, line: int = 1) -> list[Arg]:
    """Split override text like a shell would (quotes, backslashes), keeping each word's columns."""
    args: list[Arg] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        start, word = i, []
        while i < n and not text[i].isspace():
            c = text[i]
            if c in "'\"":
                close = text.find(c, i + 1)
                if c == '"':
                    j = i + 1
                    while j < n and text[j] != '"':
                        j += 2 if text[j] == "\\" else 1
                    close = j if j < n else -1
                if close < 0:
                    raise ValueError(f"unterminated {c} quote at column {i + 1}")
                body = text[i + 1:close]
                word.append(re.sub(r'\\([\\"$`])', r"\1", body) if c == '"' else body)
                i = close + 1
            elif c == "\\" and i + 1 < n:
                word.append(text[i + 1])
                i += 2
            else:
                word.append(c)
                i += 1
        args.append(Arg("".join(word), Span(file, line, start + 1, line, i + 1)))
    return args
