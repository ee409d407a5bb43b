"""Benchmark of `rftc convert` against a baseline revision measured in the same run: the whole veRL corpus and the
wild corpus converted in one process each (ms per script after start-up), and the cold start of one
`rftc convert` process (against a bare `python -c pass`).

The baseline is another revision of this repository (default `main`), exported with `git archive` into a temporary
folder and run by the same interpreter with that folder first on PYTHONPATH, so both sides use the same libraries.
Each side converts each corpus in a fresh process, the sides alternating, ROUNDS times; the medians are compared.

    .venv-run/bin/python bench/bench_convert.py [--baseline REV] [--rounds N] [--corpus DIR ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "corpus"
SAMPLE = ROOT / "golden" / "convert" / "run_deepseek7b_llm_seq_balance.sh"


def worker(corpus: Path) -> None:
    """Convert every script of ``corpus`` in this process (from its repository's root for the wild corpus, whose
    folders are repositories) and print the timings as JSON."""
    from rftc.cli import main

    wild = not (corpus / "examples").is_dir()
    scripts = sorted(corpus.glob("*/**/*.sh") if wild else corpus.rglob("*.sh"))
    times = []
    with tempfile.TemporaryDirectory() as out:
        for s in scripts:
            repo = corpus / s.relative_to(corpus).parts[0] if wild else Path.cwd()
            t0 = time.perf_counter()
            with contextlib.chdir(repo), contextlib.redirect_stderr(io.StringIO()), \
                    contextlib.redirect_stdout(io.StringIO()):
                main(["convert", str(s), "--out-dir", out, "--format", "concise"])
            times.append(time.perf_counter() - t0)
    print(json.dumps(times))


def export(rev: str, into: Path) -> str:
    """The tree of ``rev`` in ``into``, laid out as the installed package (grammar/ is rftc.grammar)."""
    commit = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    shutil.copytree(into / "grammar", into / "rftc" / "grammar", dirs_exist_ok=True)
    return commit


def measure(corpus: Path, pythonpath: str | None) -> list[float]:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    proc = subprocess.run([sys.executable, __file__, "--worker", str(corpus)], capture_output=True, text=True,
                          env=env, cwd=ROOT, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cold_start(runs: int = 5) -> tuple[float, float]:
    def t(cmd):
        best = []
        for _ in range(runs):
            s = time.perf_counter()
            subprocess.run(cmd, capture_output=True, cwd=ROOT)
            best.append(time.perf_counter() - s)
        return statistics.median(best)

    return t([sys.executable, "-c", "pass"]), t([sys.executable, "-m", "rftc", "convert", str(SAMPLE), "-o", os.devnull])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--baseline", default="main", help="the revision to compare with (default: main)")
    p.add_argument("--rounds", type=int, default=3, help="alternating runs of each side per corpus (default: 3)")
    p.add_argument("--corpus", type=Path, action="append", help="corpus folders (default: the veRL and wild corpora)")
    p.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.worker)
        return 0
    base, conv = cold_start()
    print(f"cold start: rftc convert {SAMPLE.name}: {conv * 1000:.0f} ms (python -c pass: {base * 1000:.0f} ms, "
          f"ratio {conv / base:.1f}x)")
    corpora = [c for c in (args.corpus or [SHARED / "verl", SHARED / "wild"]) if c.is_dir()]
    if not corpora:
        print("no corpus found")
        return 0
    with tempfile.TemporaryDirectory() as tree:
        commit = export(args.baseline, Path(tree))
        for corpus in corpora:
            ours, theirs = [], []
            for _ in range(args.rounds):
                theirs.append(sum(measure(corpus, tree)))
                times = measure(corpus, None)
                ours.append(sum(times))
            n = len(times)
            a, b = statistics.median(ours), statistics.median(theirs)
            print(f"corpus {corpus.name}: {n} scripts in one process, median of {args.rounds}: this tree {a:.2f} s "
                  f"({a / n * 1000:.1f} ms per script), baseline {args.baseline} ({commit}) {b:.2f} s "
                  f"({b / n * 1000:.1f} ms per script): ratio {a / b:.2f}x (aim <= 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
