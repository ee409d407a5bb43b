"""Renderers: one function per output format over the one Diagnostic record.

full     ruff-style: header, ``--> file:line:col``, numbered source lines, carets, help (colour on a tty)
concise  ``file:line:col: severity[CODE] message`` (the CI log format)
json     a JSON array of records
github   GitHub Actions workflow commands (annotations in pull requests)
sarif    SARIF 2.1.0 for code-scanning tools
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from rftc.diagnostics.model import Diagnostic, Severity

FORMATS = ("full", "concise", "json", "github", "sarif")
DOCS_URL = "docs/diagnostics.md#{code}"

_SUPPRESS = re.compile(r"#\s*rftc:\s*disable=([A-Z0-9, ]+)")


def suppressed_codes(line: str) -> set[str]:
    m = _SUPPRESS.search(line)
    return {c.strip() for c in m.group(1).split(",") if c.strip()} if m else set()


def apply_policy(diags: Iterable[Diagnostic], sources: Mapping[str, str], *, disable: Iterable[str] = (),
                 strict: bool = False) -> list[Diagnostic]:
    """Drop diagnostics disabled on the command line or by ``# rftc: disable=CODE`` on their line,
    promote warnings to errors under ``strict``, and sort by position."""
    disabled = set(disable)
    out = []
    for d in diags:
        if d.code in disabled:
            continue
        if d.span and d.span.file in sources:
            lines = sources[d.span.file].splitlines()
            if 0 < d.span.line <= len(lines) and d.code in suppressed_codes(lines[d.span.line - 1]):
                continue
        if strict and d.severity is Severity.WARNING:
            d = d.with_severity(Severity.ERROR)
        out.append(d)
    return sorted(out, key=Diagnostic.sort_key)


def to_record(d: Diagnostic) -> dict:
    s = d.span
    return {
        "code": d.code,
        "severity": d.severity.label,
        "message": d.message,
        "file": s.file if s else None,
        "line": s.line if s else None,
        "col": s.col if s else None,
        "end_line": s.last_line if s else None,
        "end_col": (s.end_col if s and s.end_col else None),
        "hint": d.hint,
        "key": d.key,
        "notes": list(d.notes),
        "url": DOCS_URL.format(code=d.code.lower()),
    }


def render_concise(diags: Iterable[Diagnostic], sources=None) -> str:
    lines = []
    for d in diags:
        where = f"{d.span}: " if d.span else ""
        lines.append(f"{where}{d.severity.label}[{d.code}] {d.message}")
    return "\n".join(lines) + ("\n" if lines else "")


# an excerpt's lines fit this many columns: a longer source line shows a window around its underlined part
EXCERPT_WIDTH = 100
_CONTEXT = 20  # the characters a window keeps before the underlined part


def _excerpt(d: Diagnostic, sources: Mapping[str, str]) -> list[str]:
    s = d.span
    if not s or s.file not in sources:
        return []
    src = sources[s.file].splitlines()
    if not 0 < s.line <= len(src):
        return []
    last = min(s.last_line, len(src), s.line + 5)
    width = len(str(last))
    out = [" " * width + " |"]
    for n in range(s.line, last + 1):
        text = src[n - 1].expandtabs(4) if "\t" not in src[n - 1][: s.col] else src[n - 1]
        start = s.col if n == s.line else 1 + (len(text) - len(text.lstrip()))
        if n == s.last_line and s.end_col:
            end = s.end_col
        else:
            end = len(text) + 1
        text, start, end = _window(text, start - 1, max(end - 1, start), EXCERPT_WIDTH - width - 3)
        out.append(f"{n:>{width}} | {text}")
        out.append(" " * width + " | " + " " * start + "^" * (end - start))
    return out


def _window(text: str, start: int, end: int, room: int) -> tuple[str, int, int]:
    """``text`` cut to ``room`` columns around its part [start, end) (0-based), an ellipsis where it is cut, and
    that part's place in what is shown (up to the ellipsis after it where the part goes on past the window)."""
    if len(text) <= room:
        return text, start, end
    lo = max(0, start - _CONTEXT)
    if lo == 0:
        hi = room - 3
    elif len(text) - lo <= room - 3:  # the window reaches the end: it shows more before the part
        lo, hi = len(text) - (room - 3), len(text)
    else:
        hi = lo + room - 6
    shift = (3 if lo else 0) - lo
    shown = ("..." if lo else "") + text[lo:hi] + ("..." if hi < len(text) else "")
    return shown, start + shift, min(end, hi) + shift + (3 if end > hi else 0)


def render_full(diags: Iterable[Diagnostic], sources: Mapping[str, str] | None = None) -> str:
    sources = sources or {}
    blocks = []
    for d in diags:
        lines = [f"{d.severity.label}[{d.code}]: {d.message}"]
        if d.span:
            lines.append(f" --> {d.span}")
        lines += _excerpt(d, sources)
        for note in d.notes:
            lines.append(f"  = note: {note}")
        if d.hint:
            lines.append(f"  = help: {d.hint}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def render_json(diags: Iterable[Diagnostic], sources=None) -> str:
    import json

    return json.dumps([to_record(d) for d in diags], indent=2) + "\n"


def _gh_escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def render_github(diags: Iterable[Diagnostic], sources=None) -> str:
    kind = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
    out = []
    for d in diags:
        props = [f"title={_gh_escape(d.code, True)}"]
        if d.span:
            props = [f"file={_gh_escape(d.span.file, True)}", f"line={d.span.line}", f"col={d.span.col}"] + props
            if d.span.end_line:
                props.append(f"endLine={d.span.end_line}")
        msg = d.message + (f"\n{d.hint}" if d.hint else "")
        out.append(f"::{kind[d.severity]} {','.join(props)}::{_gh_escape(msg)}")
    return "\n".join(out) + ("\n" if out else "")


def render_sarif(diags: Iterable[Diagnostic], sources=None) -> str:
    from rftc import __version__
    from rftc.diagnostics.catalogue import lookup

    diags = list(diags)
    level = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
    rules = {}
    for d in diags:
        c = lookup(d.code)
        rules[d.code] = {"id": c.code, "name": c.name, "shortDescription": {"text": c.summary},
                         "fullDescription": {"text": c.explanation},
                         "helpUri": DOCS_URL.format(code=c.code.lower())}
    results = []
    for d in diags:
        r = {"ruleId": d.code, "level": level[d.severity], "message": {"text": d.message}}
        if d.span:
            region = {"startLine": d.span.line, "startColumn": d.span.col}
            if d.span.end_line:
                region["endLine"] = d.span.end_line
            if d.span.end_col:
                region["endColumn"] = d.span.end_col
            r["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": d.span.file}, "region": region}}]
        results.append(r)
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "rftc", "version": __version__, "rules": list(rules.values())}},
                  "results": results}],
    }
    import json

    return json.dumps(doc, indent=2) + "\n"


RENDERERS = {"full": render_full, "concise": render_concise, "json": render_json, "github": render_github,
             "sarif": render_sarif}


def render(fmt: str, diags: Iterable[Diagnostic], sources: Mapping[str, str] | None = None,
           color: bool = False) -> str:
    text = RENDERERS[fmt](list(diags), sources or {})
    if color and fmt == "full" and text:
        return _colorize(text)
    return text


def _colorize(text: str) -> str:
    """Colour the full format for a terminal (rich is imported only here)."""
    from rich.console import Console
    from rich.text import Text

    console = Console(force_terminal=True, color_system="standard", width=10_000, soft_wrap=True)
    styles = [(r"^error\[", "bold red"), (r"^warning\[", "bold yellow"), (r"^info\[", "bold cyan"),
              (r"^ *\| *\^+$", "bold red"), (r"^  = help:", "bold cyan"), (r"^ -->", "bold blue")]
    with console.capture() as cap:
        for line in text.splitlines():
            t = Text(line)
            for pat, style in styles:
                if re.search(pat, line):
                    t.stylize(style)
                    break
            console.print(t)
    return cap.get()
