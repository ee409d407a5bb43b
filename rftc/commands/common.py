"""Options and output shared by the commands that report diagnostics."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Mapping

from rftc.diagnostics.model import Diagnostic, Severity
from rftc.diagnostics.render import FORMATS, apply_policy, render


def add_report_options(p: argparse.ArgumentParser, *, default_format: str = "full") -> None:
    g = p.add_argument_group("diagnostics")
    g.add_argument("--format", choices=FORMATS, default=default_format,
                   help=f"how diagnostics are printed (default: {default_format})")
    g.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the full format (default: auto, on a terminal)")
    g.add_argument("--disable", action="append", default=[], metavar="CODE",
                   help="silence a diagnostic code (repeatable; comma-separated lists allowed)")
    g.add_argument("--strict", "--werror", dest="strict", action="store_true",
                   help="treat warnings as errors")


def disabled_codes(args) -> list[str]:
    return [c.strip() for item in args.disable for c in item.split(",") if c.strip()]


def report(diags: Iterable[Diagnostic], sources: Mapping[str, str], args, stream=None) -> list[Diagnostic]:
    """Apply suppression and severity policy, print, and return what remains."""
    stream = stream or sys.stderr
    kept = apply_policy(diags, sources, disable=disabled_codes(args), strict=args.strict)
    color = args.color == "always" or (args.color == "auto" and stream.isatty() and not os.environ.get("NO_COLOR"))
    text = render(args.format, kept, sources, color=color)
    if text or args.format in ("json", "sarif"):
        stream.write(text)
        stream.flush()
    return kept


def exit_code(kept: Iterable[Diagnostic]) -> int:
    return 1 if any(d.severity is Severity.ERROR for d in kept) else 0
