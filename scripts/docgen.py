"""Shared by the documentation generators: write a generated document, or with --check report that it is stale."""

from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(doc: Path, text: str, generator: str) -> int:
    if "--check" in sys.argv:
        if not doc.exists() or doc.read_text() != text:
            print(f"{doc} is out of date: run python scripts/{generator}", file=sys.stderr)
            return 1
        return 0
    doc.write_text(text)
    return 0
