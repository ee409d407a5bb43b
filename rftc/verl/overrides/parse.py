"""A launch's override arguments as Override records, read as Hydra's override grammar reads them
(rftc.verl.overrides.grammar), each error at its line and column in the script; the overrides of a launch split
into config and config group overrides."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.model import Span
from rftc.shell.invocation import Arg
from rftc.verl.overrides.grammar import parse_text

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


def parse_launch(args: list[Arg], groups, diags: Diagnostics) -> tuple[list[Override], list[Override]]:
    """A launch's overrides parsed: (config overrides, config group overrides, ``groups`` naming the groups);
    those that configure Hydra itself, and keys set twice, are reported."""
    parsed = [p for p in (parse(a, diags) for a in args) if p is not None]
    config_ovs, group_ovs = [], []
    for o in parsed:
        if o.kind == "hydra":
            diags.add("RFTC208", f"'{o.text}' configures Hydra itself; it is not part of the veRL config",
                      o.arg.span, key=o.key)
        elif o.kind == "group" or o.key in groups:
            group_ovs.append(o)
        else:
            config_ovs.append(o)
    _report_duplicates(config_ovs + group_ovs, diags)
    return config_ovs, group_ovs


def _report_duplicates(ovs: list[Override], diags: Diagnostics) -> None:
    last: dict[str, Override] = {}
    for o in ovs:
        if o.kind == "delete":
            last.pop(o.key, None)
            continue
        earlier = last.get(o.key)
        if earlier is not None and not (isinstance(o.value, dict) and isinstance(earlier.value, dict)):
            diags.add("RFTC206", f"'{o.key}' is set again later ({o.text} at {o.arg.span}); this value is ignored",
                      earlier.arg.span, key=o.key, hint="remove one of the two overrides")
        last[o.key] = o
