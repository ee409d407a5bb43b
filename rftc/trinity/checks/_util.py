"""Small helpers the check modules share."""

from __future__ import annotations


def suggest(name: str, choices, listing: str | None = None) -> str | None:
    """A hint: "did you mean 'x'?" for the closest of ``choices``, then ``listing``; None when both are empty."""
    import difflib

    close = difflib.get_close_matches(str(name), list(choices), n=1, cutoff=0.6)
    parts = ([f"did you mean '{close[0]}'?"] if close else []) + ([listing] if listing else [])
    return " ".join(parts) or None


def first_set(ctx, *paths: tuple) -> tuple:
    """The first of ``paths`` the file sets, else the last one (located at its nearest written ancestor)."""
    for p in paths:
        if ctx.is_set(p):
            return p
    return paths[-1]


def lookup(ctx, code: str, name, table, path: tuple, listing: str, notes=()) -> None:
    """A registry lookup as Trinity does it: a registered name, or a dotted import path; else its error."""
    from rftc.trinity import registry

    if name is None or name in table:
        return
    if registry.is_import_path(name):
        error = registry.import_error(name)
        if error:
            ctx.add(code, error, path, notes=notes, hint="a dotted name is imported as package.module.Class")
        return
    ctx.add(code, f"Invalid module key: {name}", path, notes=notes, hint=suggest(name, table, listing))
