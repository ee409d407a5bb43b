"""Every diagnostic code has a golden case: golden/diagnostics/<CODE>/ holds an input file, optionally
args.txt (extra command-line arguments, one per line), and expected.txt, the exact concise output.

The command follows the input's kind: input.sh -> `rftc lint`, input.yaml -> `rftc check`,
input.convert.sh -> `rftc convert -o <tmp>`, input.overrides -> `rftc lint --overrides "$(cat input.overrides)"`,
cmd.txt -> the rftc arguments written in it (for usage-level codes).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rftc.diagnostics.catalogue import all_codes
from rftc.diagnostics.catalogue.runtime import RUNTIME_ONLY

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "golden" / "diagnostics"
EXEMPT = {"RFTC002",  # internal error: only reachable through a bug
          "RFTC326"}  # needs a checkout's own config declaring a release: tests/test_mapping_releases.py


def _command(case: Path, tmp_path: Path) -> list[str]:
    extra = (case / "args.txt").read_text().split("\n") if (case / "args.txt").exists() else []
    extra = [a for a in extra if a]
    if (case / "input.convert.sh").exists():
        return ["convert", "input.convert.sh", "-o", str(tmp_path / "out.yaml"), *extra]
    if (case / "input.sh").exists():
        return ["lint", "input.sh", *extra]
    if (case / "input.yaml").exists():
        return ["check", "input.yaml", *extra]
    if (case / "input.overrides").exists():
        return ["lint", "--overrides", (case / "input.overrides").read_text().strip(), *extra]
    if (case / "cmd.txt").exists():
        return [a for a in (case / "cmd.txt").read_text().split("\n") if a] + extra
    raise AssertionError(f"{case} has no input file")


def _cases():
    return sorted(p.name for p in GOLDEN.iterdir() if p.is_dir()) if GOLDEN.exists() else []


def test_every_code_has_a_golden_case():
    exempt = EXEMPT | RUNTIME_ONLY
    missing = [c.code for c in all_codes() if c.code not in exempt and not (GOLDEN / c.code).is_dir()]
    assert not missing, f"codes without a golden case in golden/diagnostics/: {missing}"


@pytest.mark.parametrize("code", _cases())
def test_golden_diagnostic(code, tmp_path):
    case = GOLDEN / code
    args = _command(case, tmp_path)
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    proc = subprocess.run([sys.executable, "-m", "rftc", *args, "--format", "concise"], cwd=case,
                          capture_output=True, text=True, env=env, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    expected = (case / "expected.txt").read_text()
    assert proc.stderr == expected
    assert code in proc.stderr
    assert proc.returncode in (0, 1, 2)
