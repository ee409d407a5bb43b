"""Reading inputs: files, directories and stdin, with clear diagnostics instead of exceptions."""

from __future__ import annotations

import sys
from pathlib import Path

from rftc.diagnostics.collector import Diagnostics

STDIN = "-"


def read_text(path: str, diags: Diagnostics, *, stdin_name: str = "<stdin>") -> tuple[str, str] | None:
    """Return (display name, text) or record RFTC001 and return None."""
    if path == STDIN:
        return stdin_name, sys.stdin.read()
    p = Path(path)
    try:
        data = p.read_bytes()
    except IsADirectoryError:
        diags.add("RFTC001", f"{path} is a directory, not a file", hint="pass a file, or a directory where the command accepts one")
        return None
    except FileNotFoundError:
        diags.add("RFTC001", f"{path}: no such file")
        return None
    except OSError as exc:
        diags.add("RFTC001", f"{path}: cannot read ({exc.strerror})")
        return None
    try:
        return path, data.decode("utf-8")
    except UnicodeDecodeError as exc:
        diags.add("RFTC001", f"{path}: not UTF-8 text (byte {exc.start})")
        return None


def expand_paths(paths: list[str], suffixes: tuple[str, ...]) -> list[str]:
    """Files as given; directories expanded to the files under them with one of ``suffixes`` (sorted)."""
    out: list[str] = []
    for path in paths:
        p = Path(path)
        if path != STDIN and p.is_dir():
            # hidden folders (.git, .venv, ...) hold no configs of the user's
            out += sorted(str(f) for f in p.rglob("*") if f.suffix in suffixes and f.is_file()
                          and not any(part.startswith(".") for part in f.relative_to(p).parts))
        else:
            out.append(path)
    return out
