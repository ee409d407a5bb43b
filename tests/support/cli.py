"""rftc's command line as the tests run it: in the test's own process, from a chosen folder, its exit status and
output captured as a subprocess's would be."""

from __future__ import annotations

import contextlib
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path

import yaml


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str


def rftc(*argv: str | Path, cwd: Path | None = None) -> Run:
    """`rftc ARGV` run from ``cwd`` (default: the current folder): its exit status (a usage error's too), stdout
    and stderr."""
    from rftc.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd or os.getcwd()), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exit:  # argparse's usage errors and --help
            code = exit.code or 0
    return Run(code, out.getvalue(), err.getvalue())


def records(stderr: str) -> list[dict]:
    """The diagnostics `--format json` wrote to stderr (from its first "[": what a library prints before them is
    not rftc's); fails the test when they do not parse."""
    if "[" not in stderr:
        return []
    try:
        return json.loads(stderr[stderr.index("["):])
    except json.JSONDecodeError:
        raise AssertionError(f"stderr is not rftc's JSON diagnostics:\n{stderr}") from None


@dataclass
class Conversion:
    returncode: int
    stderr: str
    diagnostics: list[dict]  # as `--format json` writes them
    configs: list[Path]  # the configs written, one per launch

    @property
    def config(self) -> dict | None:
        """The config written, parsed; None when the conversion wrote none."""
        if not self.configs:
            return None
        (path,) = self.configs
        return yaml.safe_load(path.read_text(encoding="utf-8"))

    def errors(self) -> list[dict]:
        return [d for d in self.diagnostics if d["severity"] == "error"]


def convert(script: str | Path, *options: str | Path, out: Path, cwd: Path | None = None,
            status: int | None = 0) -> Conversion:
    """`rftc convert SCRIPT --out-dir OUT --format json OPTIONS` run from ``cwd``; fails the test unless it exits
    with ``status`` (None: any)."""
    run = rftc("convert", script, "--out-dir", out, "--format", "json", *options, cwd=cwd)
    done = Conversion(run.returncode, run.stderr, records(run.stderr),
                      sorted((Path(cwd or ".") / out).glob("*.yaml")))
    assert status is None or done.returncode == status, done.diagnostics or run.stderr
    return done


def launch(folder: Path, *overrides: str, module: str = "verl.trainer.main_ppo") -> Path:
    """folder/run.sh: one launch of ``module`` with ``overrides``."""
    script = folder / "run.sh"
    script.write_text(" ".join(("python3 -m", module, *overrides)) + "\n")
    return script
