"""Cold start of `rftc check` against Trinity-RFT 0.6.0's own load_config + check_and_update on the same config,
measured in the same run: each a fresh process (rftc in .venv, Trinity in .venv-trinity, built by
scripts/setup-trinity-ref.sh), interleaved so both see the same machine load. Prints medians of wall time and of
CPU time (user + sys of the child, less sensitive to other load on the machine) and their ratios (aim >= 20x).

    .venv/bin/python bench/bench_check_vs_trinity.py [CONFIG] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRINITY_PYTHON = ROOT / ".venv-trinity" / "bin" / "python"
CANDIDATES = [ROOT / "golden/check/valid/grpo_example.yaml", ROOT / "golden/check/negative/_base_grpo.yaml"]


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, child CPU seconds and exit code of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, cwd=ROOT, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", nargs="?", type=Path, default=next((p for p in CANDIDATES if p.is_file()), None))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not TRINITY_PYTHON.is_file():
        print("the Trinity reference environment is absent: run `bash scripts/setup-trinity-ref.sh`")
        return 2
    config = str(args.config.resolve())
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "rftc check": [sys.executable, "-m", "rftc", "check", "--format", "concise", config],
        "trinity load+check": [str(TRINITY_PYTHON), str(ROOT / "tests/trinity_ref/validate.py"), config],
    }
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, cmd in commands.items():
            wall, cpu, rc = timed(cmd, env)
            if name != "python -c pass" and rc not in (0, 1):
                print(f"{name} failed with exit code {rc}")
                return 1
            samples[name].append((wall, cpu))
    med = {name: (statistics.median(s[0] for s in runs), statistics.median(s[1] for s in runs))
           for name, runs in samples.items()}
    print(f"config: {Path(config).relative_to(ROOT) if config.startswith(str(ROOT)) else config}; "
          f"{args.runs} interleaved runs each; median wall / median CPU (user+sys)")
    for name, (wall, cpu) in med.items():
        print(f"  {name:20s} {wall * 1000:8.0f} ms   {cpu * 1000:8.0f} ms")
    (rw, rc), (tw, tc) = med["rftc check"], med["trinity load+check"]
    print(f"rftc check is {tw / rw:.1f}x faster than Trinity's own load + check (wall), {tc / rc:.1f}x (CPU); "
          f"aim >= 20x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
