"""Cold start of `rftc check` against Trinity-RFT 0.6.0's own load_config + check_and_update on the same config,
in the same run: each a fresh process (rftc in .venv, timed by bench_check.cold_start; Trinity in .venv-trinity,
built by scripts/setup-trinity-ref.sh, through tests/trinity_ref/validate.py). Prints medians of wall time and
of CPU time (user + sys of the child, which other load on a shared machine disturbs less) and their ratios
(aim >= 40x), with those of the imports any check on a pydantic IR pays (bench_check.FLOOR: the most any such
check can reach), of those imports and rftc's IR (bench_check.FLOOR_IR) and, with --baseline, of another
revision's `rftc check` (exported as bench_convert.py does), which `rftc check` is also compared with.

    .venv/bin/python bench/bench_check_vs_trinity.py [CONFIG] [--runs N] [--baseline REV]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check import ROOT, TYPICAL, cold_start  # noqa: E402
from bench_convert import export  # noqa: E402

TRINITY_PYTHON = ROOT / ".venv-trinity" / "bin" / "python"
VALIDATE = ROOT / "tests" / "trinity_ref" / "validate.py"


def trinity_cold_start(config: Path, runs: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of Trinity's own load + check of ``config`` in a fresh process."""
    samples = []
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run([str(TRINITY_PYTHON), str(VALIDATE), str(config)], capture_output=True, cwd=ROOT,
                              env=env)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise RuntimeError(f"the reference validator exited {proc.returncode}: {proc.stderr.decode()[-2000:]}")
        samples.append((wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", nargs="?", type=Path, default=TYPICAL)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", metavar="REV", help="also time the `rftc check` of this revision")
    args = parser.parse_args()
    if not TRINITY_PYTHON.is_file():
        print("the Trinity reference environment is absent: run `bash scripts/setup-trinity-ref.sh`")
        return 2
    config = args.config.resolve()
    with tempfile.TemporaryDirectory() as tree:
        baseline = None
        if args.baseline:
            commit = export(args.baseline, Path(tree))
            baseline = (commit if commit.startswith(args.baseline) else f"{args.baseline} {commit}", Path(tree))
        medians = {"trinity load+check": trinity_cold_start(config, args.runs),
                   **cold_start(config, args.runs, baseline)}
    shown = config.relative_to(ROOT) if config.is_relative_to(ROOT) else config
    print(f"cold start, {shown}, median of {args.runs} runs each (wall / CPU):")
    for name, (wall, cpu) in medians.items():
        print(f"  {name:28s} {wall * 1000:8.0f} ms {cpu * 1000:8.0f} ms")
    tw, tc = medians["trinity load+check"]
    print("faster than Trinity's own load + check (wall, CPU; aim >= 40x):")
    for name, (wall, cpu) in medians.items():
        if name.startswith(("rftc check", "pydantic")):
            print(f"  {name:28s} {tw / wall:6.1f}x {tc / cpu:6.1f}x")
    if baseline:
        (bw, bc), (rw, rc) = medians[f"rftc check ({baseline[0]})"], medians["rftc check"]
        print(f"rftc check against {baseline[0]}: {bw / rw:.2f}x faster wall, {bc / rc:.2f}x less CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
