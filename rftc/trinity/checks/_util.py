"""Small helpers the check modules share."""

from __future__ import annotations

import difflib


def suggest(name: str, choices, listing: str | None = None) -> str | None:
    """A hint: "did you mean 'x'?" for the closest of ``choices``, then ``listing``; None when both are empty."""
    close = difflib.get_close_matches(str(name), list(choices), n=1, cutoff=0.6)
    parts = ([f"did you mean '{close[0]}'?"] if close else []) + ([listing] if listing else [])
    return " ".join(parts) or None


def first_set(ctx, *paths: tuple) -> tuple:
    """The first of ``paths`` the file sets, else the last one (located at its nearest written ancestor)."""
    for p in paths:
        if ctx.is_set(p):
            return p
    return paths[-1]
