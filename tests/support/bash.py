"""bash itself, for the tests that compare rftc's words with the words bash passes: the launched programs are
replaced by ones that print their arguments (a \\1 before each launch, a \\0 after each argument)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

BASH = shutil.which("bash")
PRINT_ARGS = 'printf "\\1"; for a in "$@"; do printf "%s\\0" "$a"; done'
FAKE = f"python3() {{ {PRINT_ARGS}; }}\n"  # a function: the script's own shell only
# programs on PATH, for the shells the script starts: python3 prints, srun runs the command after its options
PROGRAMS = {"python3": PRINT_ARGS,
            "srun": 'while [ "${1#-}" != "$1" ]; do shift; done\nexec "$@"'}


def fake_path(folder: Path) -> str:
    """folder/bin holding PROGRAMS; the PATH that finds them first."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, body in PROGRAMS.items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    return f"{bin_dir}:/usr/bin:/bin"


def launches(stdout: str) -> list[list[str]]:
    """The arguments of each launch the printing programs saw."""
    return [chunk.split("\0")[:-1] for chunk in stdout.split("\1")[1:]]


def run(argv: list[str], folder: Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """bash ARGV with the printing programs first on PATH (in folder/bin) and HOME=/home/u."""
    return subprocess.run([BASH, *argv], cwd=cwd, capture_output=True, text=True, timeout=20,
                          env={"PATH": fake_path(folder), "HOME": "/home/u"})
