"""Benchmark of `rftc convert`: the whole veRL corpus converted in one process (ms per script after start-up),
and the cold-start time of one `rftc convert` process, against the baseline of a bare `python -c pass` measured
in the same run.

    .venv/bin/python bench/bench_convert.py [CORPUS_DIR]
"""

from __future__ import annotations

import contextlib
import io
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "verl"
SAMPLE = ROOT / "golden" / "convert" / "run_deepseek7b_llm_seq_balance.sh"


def cold_start(runs: int = 5) -> tuple[float, float]:
    def t(cmd):
        best = []
        for _ in range(runs):
            s = time.perf_counter()
            subprocess.run(cmd, capture_output=True, cwd=ROOT)
            best.append(time.perf_counter() - s)
        return statistics.median(best)

    base = t([sys.executable, "-c", "pass"])
    conv = t([sys.executable, "-m", "rftc", "convert", str(SAMPLE), "-o", "/dev/null"])
    return base, conv


def corpus(directory: Path) -> tuple[int, float, list[float]]:
    from rftc.cli import main

    scripts = sorted(directory.rglob("*.sh"))
    times = []
    with tempfile.TemporaryDirectory() as out:
        main_start = time.perf_counter()
        for s in scripts:
            t0 = time.perf_counter()
            with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                main(["convert", str(s), "--out-dir", out, "--format", "concise"])
            times.append(time.perf_counter() - t0)
        total = time.perf_counter() - main_start
    return len(scripts), total, times


def main() -> int:
    directory = Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS
    base, conv = cold_start()
    print(f"cold start: rftc convert {SAMPLE.name}: {conv * 1000:.0f} ms (python -c pass: {base * 1000:.0f} ms, "
          f"ratio {conv / base:.1f}x)")
    if not directory.is_dir():
        print(f"corpus {directory} not found")
        return 0
    n, total, times = corpus(directory)
    warm = times[1:] or times
    print(f"corpus: {n} scripts in {total:.2f} s in one process: {total / n * 1000:.1f} ms per script "
          f"(first {times[0] * 1000:.0f} ms incl. imports; after it: median {statistics.median(warm) * 1000:.1f} ms, "
          f"mean {statistics.mean(warm) * 1000:.1f} ms, max {max(warm) * 1000:.0f} ms; aim <= 30 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
