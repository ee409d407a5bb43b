"""Golden effective configs: golden/verl/<case>/ holds input.sh or input.overrides, args.txt (extra rftc
arguments, one per line; after a line "--" the script's own arguments) and the expected stdout (expected.yaml)
and concise diagnostics (expected.stderr) of `rftc verl-config`."""

from pathlib import Path

import pytest

from support import paths
from support.cli import Run, rftc

GOLDEN = paths.GOLDEN / "verl"
pytestmark = pytest.mark.usefixtures("plain_terminal")


def _cases():
    return sorted(p.name for p in GOLDEN.iterdir() if p.is_dir()) if GOLDEN.exists() else []


def run_case(case: Path) -> Run:
    extra = paths.arguments(case / "args.txt")
    if (case / "input.sh").exists():
        args = ["verl-config", "input.sh"]
    else:
        args = ["verl-config", "--overrides", (case / "input.overrides").read_text().strip()]
    tail = []
    if "--" in extra:
        extra, tail = extra[: extra.index("--")], extra[extra.index("--"):]
    return rftc(*args, *extra, "--diagnostics-format", "concise", *tail, cwd=case)


@pytest.mark.parametrize("name", _cases())
def test_golden_effective_config(name):
    case = GOLDEN / name
    proc = run_case(case)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == (case / "expected.yaml").read_text()
    assert proc.stderr == (case / "expected.stderr").read_text()
    assert proc.returncode == 0
