"""Golden launch scripts: golden/shell/<name>.sh, optionally <name>.args (the script's arguments, one per line:
as given after `--`) and <name>.env (NAME=value lines), against <name>.json: every launch with its arguments (text,
line:col-line:col, lines of the assignments it came through, symbolic), its entry file, conditions and loop
variables where it has them, and the concise diagnostics.

To review a change: RFTC_GOLDEN_PRINT=1 pytest tests/test_shell_golden.py -s prints the actual JSON."""

import json
import os
from pathlib import Path

import pytest

from rftc.diagnostics.render import render
from rftc.shell import analyze
from support import paths

GOLDEN = paths.GOLDEN / "shell"


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line] if path.exists() else []


def _arg(a) -> list:
    s = a.span
    return [a.text, f"{s.line}:{s.col}-{s.end_line}:{s.end_col}" if s.end_line else f"{s.file}:{s.col}",
            [v.line for v in a.via], a.symbolic]


def actual(name: str) -> dict:
    script = GOLDEN / f"{name}.sh"
    env = dict(line.split("=", 1) for line in _lines(GOLDEN / f"{name}.env"))
    args = GOLDEN / f"{name}.args"
    r = analyze(script.read_text(), f"{name}.sh", env=env, extra_args=_lines(args) if args.exists() else None)
    launches = []
    for inv in r.invocations:
        launches.append({
            "module": inv.module, "kind": inv.kind, "launcher": inv.launcher, "line": inv.span.line,
            "config_path": inv.config_path and inv.config_path.text,
            "config_name": inv.config_name and inv.config_name.text,
            "env": inv.env, "cwd": inv.cwd, "args": [_arg(a) for a in inv.args],
            "overrides": len(inv.overrides),
            # what only some launches have: the entry's file, the branches and loops it runs in
            **({"entry_file": inv.entry_file} if inv.entry_file else {}),
            **({"conditions": inv.conditions} if inv.conditions else {}),
            **({"primary": False} if not inv.primary else {}),
            **({"loop": inv.loop} if inv.loop else {}),
        })
    diags = render("concise", sorted(r.diagnostics, key=lambda d: d.sort_key())).splitlines()
    return {"launches": launches, "diagnostics": diags}


CASES = sorted(p.stem for p in GOLDEN.glob("*.sh"))


@pytest.mark.parametrize("name", CASES)
def test_golden_script(name):
    got = actual(name)
    if os.environ.get("RFTC_GOLDEN_PRINT"):
        print(json.dumps(got, indent=1))
    expected = json.loads((GOLDEN / f"{name}.json").read_text())
    assert got == expected
