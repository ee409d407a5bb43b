"""`rftc check` speed: the median cold start on a typical config (a fresh process each time, against a bare
`python -c pass`, against the imports any check on a pydantic IR pays and against those with rftc's IR built, measured
in the same run), and the time to check 500 configs in one process (500 small edits of the guide's two examples: valid
ones, failing ones, traps), both through the CLI and through the library call.

A cold start reads rftc's compiled bytecode, as an installed package does (the script compiles it first: a checkout
run with PYTHONDONTWRITEBYTECODE set would otherwise compile every module in every run).

    .venv/bin/python bench/bench_check.py [--runs N] [--configs N]

bench/bench_check_vs_trinity.py compares the cold start with Trinity-RFT 0.6.0's own load + check.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VALID = ROOT / "golden" / "check" / "valid"
TYPICAL = VALID / "grpo_example.yaml"
# line edits that keep the file YAML: each turns one rule on (see tests/test_check_negative.py)
EDITS = [("  batch_size: 256", "  batch_size: lots"), ("  repeat_times: 8", "  repeat_times: 1"),
         ("    engine_num: 1", "    engine_num: 4"), ("  sync_interval: 4", "  sync_interval: 3"),
         ("  algorithm_type: grpo", "  algorithm_type: rloo"), ("  max_token_len_per_gpu: 24000", "  foo: 1"),
         ("  sync_style: fixed", "  sync_style: dynamic_by_explorer"), ("", "")]


# What any check on a pydantic IR pays before it does anything: PyYAML, pydantic and one model (its schema
# machinery, and importlib.metadata, which pydantic's plugin loader imports whatever PYDANTIC_DISABLE_PLUGINS says),
# run as `rftc check` runs (plugins off, the collector paused): the most any such check can reach. FLOOR_IR adds
# Trinity's config as rftc's IR (34 models, 361 fields: the classes and the one validator a check builds).
FLOOR = "import gc\ngc.disable()\nimport yaml\nfrom pydantic import BaseModel\nclass A(BaseModel):\n    x: int = 1\n"
FLOOR_IR = ("import gc\ngc.disable()\nimport yaml\nfrom rftc.trinity.schema import TrinityConfig\n"
            "TrinityConfig.model_validate({})\n")
FLOOR_ENV = {"PYDANTIC_DISABLE_PLUGINS": "__all__"}


def compile_bytecode(tree: Path) -> None:
    """Write the bytecode of the rftc package in ``tree`` (a checkout's root), as `pip install` does."""
    import compileall

    compileall.compile_dir(tree / "rftc", quiet=1)


def cold_start(config: Path = TYPICAL, runs: int = 7, baseline: tuple[str, Path] | None = None
               ) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) seconds of `python -c pass`, of FLOOR, of FLOOR_IR, of `rftc check CONFIG` and, given a
    ``baseline`` (a name and a tree holding another revision's rftc package), of that revision's `rftc check CONFIG`;
    interleaved runs. CPU is the child's user + sys time, which other load on a shared machine disturbs less than
    wall time."""
    check = [sys.executable, "-m", "rftc", "check", "--format", "concise", "--no-path-checks", str(config)]
    floor_env = dict(os.environ, **FLOOR_ENV)
    commands = {"python -c pass": ([sys.executable, "-c", "pass"], None, None),
                "pydantic + yaml": ([sys.executable, "-c", FLOOR], None, floor_env),
                "pydantic + yaml + IR": ([sys.executable, "-c", FLOOR_IR], ROOT, floor_env),
                "rftc check": (check, ROOT, None)}
    if baseline:
        name, tree = baseline
        commands[f"rftc check ({name})"] = (check, tree, None)
    for _, tree, _ in commands.values():
        if tree:
            compile_bytecode(tree)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (cmd, tree, env) in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            # `python -m` and `-c` import from their cwd
            proc = subprocess.run(cmd, capture_output=True, cwd=tree or ROOT, env=env)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            samples[name].append((wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
            if proc.returncode not in (0, 1):
                raise RuntimeError(f"{name} exited {proc.returncode}: {proc.stderr.decode()[-2000:]}")
    return {name: (statistics.median(v[0] for v in values), statistics.median(v[1] for v in values))
            for name, values in samples.items()}


def make_configs(folder: Path, n: int, seed: int = 0) -> list[Path]:
    """``n`` configs: the guide's examples with one or two edits each."""
    rng = random.Random(seed)
    bases = [p.read_text(encoding="utf-8") for p in sorted(VALID.glob("*.yaml"))]
    paths = []
    for i in range(n):
        text = rng.choice(bases)
        for old, new in rng.sample(EDITS, 2):
            text = text.replace(old, new, 1) if old else text
        path = folder / f"config_{i:03d}.yaml"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def many(n: int = 500) -> dict[str, float]:
    """Seconds to check ``n`` configs: one `rftc check DIR` process, and the library call in this process."""
    from rftc import api
    from rftc.trinity.validate import CheckOptions

    with tempfile.TemporaryDirectory() as tmp:
        paths = make_configs(Path(tmp), n)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "rftc", "check", "--format", "json", "--no-path-checks", tmp],
                              capture_output=True, cwd=ROOT)
        cli = time.perf_counter() - start
        if proc.returncode not in (0, 1):
            raise RuntimeError(proc.stderr.decode()[-2000:])
        options = CheckOptions(path_checks=False)
        api.check(str(paths[0]), options)  # imports and model building once, as the CLI does
        start = time.perf_counter()
        for p in paths:
            api.check(str(p), options)
        library = time.perf_counter() - start
    return {"cli": cli, "library": library}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--configs", type=int, default=500)
    args = parser.parse_args()
    cold = cold_start(TYPICAL, args.runs)
    print(f"cold start, {TYPICAL.relative_to(ROOT)}, median of {args.runs} interleaved runs (wall / CPU):")
    for name, (wall, cpu) in cold.items():
        print(f"  {name:20s} {wall * 1000:7.0f} ms {cpu * 1000:7.0f} ms")
    for floor in ("python -c pass", "pydantic + yaml", "pydantic + yaml + IR"):
        extra = [(cold["rftc check"][i] - cold[floor][i]) * 1000 for i in (0, 1)]
        print(f"  rftc check costs {extra[0]:.0f} ms wall, {extra[1]:.0f} ms CPU over {floor}")
    m = many(args.configs)
    print(f"{args.configs} configs in one process:")
    print(f"  rftc check DIR   {m['cli']:7.2f} s  ({m['cli'] / args.configs * 1000:.1f} ms per config, start-up "
          "included)")
    print(f"  library call     {m['library']:7.2f} s  ({m['library'] / args.configs * 1000:.1f} ms per config)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
