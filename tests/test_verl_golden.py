"""Golden effective configs: golden/verl/<case>/ holds input.sh or input.overrides, args.txt (extra rftc
arguments, one per line; after a line "--" the script's own arguments) and the expected stdout (expected.yaml)
and concise diagnostics (expected.stderr) of `rftc verl-config`."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "verl"


def _cases():
    return sorted(p.name for p in GOLDEN.iterdir() if p.is_dir()) if GOLDEN.exists() else []


def run_case(case: Path) -> subprocess.CompletedProcess:
    extra = [a for a in (case / "args.txt").read_text().split("\n") if a] if (case / "args.txt").exists() else []
    if (case / "input.sh").exists():
        args = ["verl-config", "input.sh"]
    else:
        args = ["verl-config", "--overrides", (case / "input.overrides").read_text().strip()]
    tail = []
    if "--" in extra:
        extra, tail = extra[: extra.index("--")], extra[extra.index("--"):]
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "rftc", *args, *extra, "--diagnostics-format", "concise", *tail],
                          cwd=case, capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("name", _cases())
def test_golden_effective_config(name):
    case = GOLDEN / name
    proc = run_case(case)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == (case / "expected.yaml").read_text()
    assert proc.stderr == (case / "expected.stderr").read_text()
    assert proc.returncode == 0
