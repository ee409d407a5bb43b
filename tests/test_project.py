"""Project-level invariants: packaging lists every package, generated docs are current, the CLI answers."""

import subprocess
import sys
import tomllib

from support.paths import ROOT


def test_every_package_is_listed_in_pyproject():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(cfg["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "rftc").rglob("__init__.py")}
    assert found - listed == set(), "add these packages to pyproject.toml [tool.setuptools] packages"


def test_diagnostics_doc_is_current():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_diagnostics_doc.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_code_is_documented_with_an_explanation():
    from rftc.diagnostics.catalogue import all_codes

    for c in all_codes():
        assert c.code.startswith("RFTC") and len(c.code) == 7, c.code
        assert c.summary and len(c.explanation) > 40, f"{c.code} needs an explanation with consequence and fix"


def test_cli_help_and_usage_errors():
    ok = subprocess.run([sys.executable, "-m", "rftc", "--help"], capture_output=True, text=True)
    assert ok.returncode == 0 and "convert" in ok.stdout and "check" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "rftc", "no-such-command"], capture_output=True, text=True)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_the_garbage_collector_is_off_while_a_one_shot_command_runs(monkeypatch):
    """Every command but `rftc run` runs with the cyclic garbage collector off; run in a process that goes on (the
    tests, a library), main leaves it as it found it."""
    import gc

    from rftc.commands import explain, run
    from support.cli import rftc

    seen = {}
    monkeypatch.setattr(explain, "run", lambda args: seen.setdefault("explain", gc.isenabled()) and 0)
    monkeypatch.setattr(run, "run", lambda args: seen.setdefault("run", gc.isenabled()) and 0)
    assert gc.isenabled()
    assert rftc("explain", "RFTC100").returncode == 0 and rftc("run", "x.yaml").returncode == 0
    assert seen == {"explain": False, "run": True} and gc.isenabled()
