"""Benchmark of `rftc convert` against a baseline revision measured in the same run: the cold start of one
`rftc convert` process (aim: <= 0.3 s), and the whole veRL corpus and the wild corpus converted in one process each
(ms per script after start-up; aim: <= 1.5x the baseline 1d259cf).

The baseline is another revision of this repository (default `main`), exported with `git archive` into a temporary
folder and run by the same interpreter with that folder first on PYTHONPATH, so both sides use the same libraries;
both trees are byte-compiled first, as an installed package is. Each side runs in fresh processes, the sides
alternating, ROUNDS times (cold starts: 5 per round); the medians are compared, of the wall-clock time and of the
CPU time (user + system), which a machine busy with other work disturbs less.

    .venv-run/bin/python bench/bench_convert.py [--baseline REV] [--rounds N] [--corpus DIR ...]
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import io
import json
import os
import resource
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
    times, cpu = [], []
    with tempfile.TemporaryDirectory() as out:
        for s in scripts:
            repo = corpus / s.relative_to(corpus).parts[0] if wild else Path.cwd()
            t0, c0 = time.perf_counter(), time.process_time()
            with contextlib.chdir(repo), contextlib.redirect_stderr(io.StringIO()), \
                    contextlib.redirect_stdout(io.StringIO()):
                main(["convert", str(s), "--out-dir", out, "--format", "concise"])
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    print(json.dumps([times, cpu]))


def export(rev: str, into: Path) -> str:
    """The tree of ``rev`` in ``into``, laid out as the installed package (grammar/ is rftc.grammar)."""
    commit = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    shutil.copytree(into / "grammar", into / "rftc" / "grammar", dirs_exist_ok=True)
    return commit


def _env(pythonpath: str | None) -> dict:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


def measure(corpus: Path, pythonpath: str | None) -> tuple[list[float], list[float]]:
    """Per-script wall-clock and CPU seconds of one side converting ``corpus`` in one process."""
    proc = subprocess.run([sys.executable, __file__, "--worker", str(corpus)], capture_output=True, text=True,
                          env=_env(pythonpath), cwd=ROOT, check=True)
    times, cpu = json.loads(proc.stdout.strip().splitlines()[-1])
    return times, cpu


def timed(cmd: list[str], cwd: Path, pythonpath: str | None = None) -> tuple[float, float]:
    """Wall-clock and CPU (user + system) seconds of one process running ``cmd`` in ``cwd`` (a folder without an
    rftc package: `python -m` imports the one of the working directory first)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    s = time.perf_counter()
    subprocess.run(cmd, capture_output=True, cwd=cwd, env=_env(pythonpath))
    wall = time.perf_counter() - s
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _medians(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


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
    corpora = [c for c in (args.corpus or [SHARED / "verl", SHARED / "wild"]) if c.is_dir()]
    with tempfile.TemporaryDirectory() as tree, tempfile.TemporaryDirectory() as elsewhere:
        commit = export(args.baseline, Path(tree))
        for d in (ROOT / "rftc", Path(tree) / "rftc"):
            compileall.compile_dir(d, quiet=1)
        side = f"baseline {args.baseline} ({commit})"
        convert = [sys.executable, "-m", "rftc", "convert", str(SAMPLE), "-o", os.devnull]
        bare, ours, theirs = [], [], []
        for _ in range(args.rounds * 5):
            bare.append(timed([sys.executable, "-c", "pass"], Path(elsewhere)))
            theirs.append(timed(convert, Path(elsewhere), tree))
            ours.append(timed(convert, Path(elsewhere)))
        (a, ac), (b, bc), (p, pc) = _medians(ours), _medians(theirs), _medians(bare)
        print(f"cold start, rftc convert {SAMPLE.name}, median of {len(ours)}: this tree {a * 1000:.0f} ms "
              f"(CPU {ac * 1000:.0f} ms), {side} {b * 1000:.0f} ms (CPU {bc * 1000:.0f} ms), python -c pass "
              f"{p * 1000:.0f} ms (CPU {pc * 1000:.0f} ms) (aim: <= 300 ms)")
        if not corpora:
            print("no corpus found")
            return 0
        for corpus in corpora:
            ours, theirs = [], []
            for _ in range(args.rounds):
                times, cpu = measure(corpus, tree)
                theirs.append((sum(times), sum(cpu)))
                times, cpu = measure(corpus, None)
                ours.append((sum(times), sum(cpu)))
            n = len(times)
            (a, ac), (b, bc) = _medians(ours), _medians(theirs)
            print(f"corpus {corpus.name}: {n} scripts in one process, median of {args.rounds}: this tree {a:.2f} s "
                  f"({a / n * 1000:.1f} ms per script, CPU {ac / n * 1000:.1f}), {side} {b:.2f} s "
                  f"({b / n * 1000:.1f} ms per script, CPU {bc / n * 1000:.1f}): ratio {a / b:.2f}x, CPU "
                  f"{ac / bc:.2f}x (aim <= 1.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
