"""``rftc explain CODE``: a diagnostic code's documentation."""

from __future__ import annotations

DESCRIPTION = "Print what a diagnostic code means, what happens if it is ignored, and how to fix it."


def add_arguments(p) -> None:
    p.add_argument("code", help="a code such as RFTC104 (case-insensitive)")


def run(args) -> int:
    import sys

    from rftc.diagnostics.catalogue import all_codes, lookup

    code = args.code.upper()
    if not code.startswith("RFTC"):
        code = "RFTC" + code
    try:
        c = lookup(code)
    except (KeyError, IndexError):
        known = ", ".join(c.code for c in all_codes())
        print(f"rftc explain: unknown code {args.code!r}; known codes: {known}", file=sys.stderr)
        return 2
    print(f"{c.code} ({c.name}), {c.severity.label} by default\n\n{c.summary}\n\n{c.explanation}")
    if c.example:
        print(f"\nexample ({c.example_kind}):\n" + "\n".join("    " + line for line in c.example.splitlines()))
    return 0
