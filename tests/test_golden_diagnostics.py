"""Every diagnostic code has a golden case: golden/diagnostics/<CODE>/ holds an input file, optionally
args.txt (extra command-line arguments, one per line), and expected.txt, the exact concise output.

The command follows the input's kind: input.sh -> `rftc lint`, input.yaml -> `rftc check`,
input.convert.sh -> `rftc convert -o <tmp>`, input.overrides -> `rftc lint --overrides "$(cat input.overrides)"`,
cmd.txt -> the rftc arguments written in it (for usage-level codes).
"""

from pathlib import Path

import pytest

from rftc.diagnostics.catalogue import all_codes
from rftc.diagnostics.catalogue.runtime import RUNTIME_ONLY
from support import paths
from support.cli import rftc

GOLDEN = paths.GOLDEN / "diagnostics"
EXEMPT = {"RFTC002",  # internal error: only reachable through a bug
          "RFTC326"}  # needs a checkout's own config declaring a release: tests/test_mapping_releases.py


def _command(case: Path, tmp_path: Path) -> list[str]:
    extra = paths.arguments(case / "args.txt")
    if (case / "input.convert.sh").exists():
        return ["convert", "input.convert.sh", "-o", str(tmp_path / "out.yaml"), *extra]
    if (case / "input.sh").exists():
        return ["lint", "input.sh", *extra]
    if (case / "input.yaml").exists():
        return ["check", "input.yaml", *extra]
    if (case / "input.overrides").exists():
        return ["lint", "--overrides", (case / "input.overrides").read_text().strip(), *extra]
    if (case / "cmd.txt").exists():
        return paths.arguments(case / "cmd.txt") + extra
    raise AssertionError(f"{case} has no input file")


def _cases():
    return sorted(p.name for p in GOLDEN.iterdir() if p.is_dir()) if GOLDEN.exists() else []


def test_every_code_has_a_golden_case():
    exempt = EXEMPT | RUNTIME_ONLY
    missing = [c.code for c in all_codes() if c.code not in exempt and not (GOLDEN / c.code).is_dir()]
    assert not missing, f"codes without a golden case in golden/diagnostics/: {missing}"


@pytest.mark.parametrize("code", _cases())
@pytest.mark.usefixtures("plain_terminal")
def test_golden_diagnostic(code, tmp_path):
    case = GOLDEN / code
    args = _command(case, tmp_path)
    proc = rftc(*args, "--format", "concise", cwd=case)
    assert "Traceback" not in proc.stderr, proc.stderr
    expected = (case / "expected.txt").read_text()
    assert proc.stderr == expected
    assert code in proc.stderr
    assert proc.returncode in (0, 1, 2)
