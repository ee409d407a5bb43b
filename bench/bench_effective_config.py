#!/usr/bin/env python3
"""Effective veRL config per launch, rftc vs Hydra's compose API, over every verl-trainer launch of the corpus,
in one process, on two paths:

1. bundled releases: rftc on its bundled schemas (plain dicts) vs hydra.compose + OmegaConf.to_container(
   resolve=True) on the verl wheel's own config files, same overrides, same verl version (the one rftc chose);
2. a checkout's own config (the fork path): the corpus is itself a veRL checkout, so its launches compose its own
   config folder; rftc (Hydra composes the folder's defaults once, cached on disk; rftc applies the overrides)
   vs Hydra's compose of that folder for every launch. The first launch pays rftc's compose (cache empty);
   "cache hit" is the cost of a new process whose disk cache holds the folder.

Prints per-launch times, their ratio, and how many results are identical. Needs the reference
(scripts/setup-verl-ref.sh) and the corpus (../shared/corpus/verl).

    python bench/bench_effective_config.py [--corpus DIR] [--limit N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # verl_reference: Hydra's own compose, the reference


def _timed(launches, run):
    """(results, per-launch seconds, total seconds) of ``run(inv)`` over ``launches``."""
    out, times = [], []
    t_all = time.perf_counter()
    for inv in launches:
        t = time.perf_counter()
        out.append(run(inv))
        times.append(time.perf_counter() - t)
    return out, times, time.perf_counter() - t_all


def _line(label: str, times: list[float], total: float) -> str:
    return (f"{label:24} total {total:.3f} s, per launch mean {1e3 * total / len(times):.2f} ms, "
            f"median {1e3 * statistics.median(times):.2f} ms")


def _ours(source):
    from rftc.diagnostics.collector import Diagnostics
    from rftc.verl import effective_config

    def run(inv):
        diags = Diagnostics()
        eff = effective_config(inv, source=source, diags=diags)
        return eff, eff is not None and not any(d.code.startswith("RFTC2") for d in diags.errors)
    return run


def _report(ours, theirs, times_ours, total_ours, times_hydra, total_hydra) -> None:
    both = [(o, h) for (o, ok), h in zip(ours, theirs) if ok and h is not None]
    identical = sum(o.values == h for o, h in both)
    agree = sum(ok == (h is not None) for (_, ok), h in zip(ours, theirs))
    print(_line("rftc effective config:", times_ours, total_ours))
    print(_line("hydra compose+resolve:", times_hydra, total_hydra))
    print(f"ratio (hydra / rftc, totals): {total_hydra / total_ours:.1f}x")
    print(f"identical results: {identical} of {len(both)} launches both accept; accept/reject agrees on {agree} of "
          f"{len(ours)} (hydra rejects {sum(h is None for h in theirs)}, rftc reports errors for "
          f"{sum(not ok for _, ok in ours)})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "verl")
    ap.add_argument("--limit", type=int, default=0, help="only the first N launches (0: all)")
    args = ap.parse_args()

    import verl_reference as reference
    from rftc.verl.checkout import config_folder as folder, find as sources
    from rftc.verl.releases import schema

    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    if any(reference.config_dir(v) is None for v in schema.versions()):
        print("the verl reference is not built: run scripts/setup-verl-ref.sh", file=sys.stderr)
        return 2
    os.environ["RFTC_CACHE_DIR"] = tempfile.mkdtemp(prefix="rftc-bench-cache-")  # the fork path starts cold

    t0 = time.perf_counter()
    launches = reference.corpus_launches(args.corpus)
    if args.limit:
        launches = launches[: args.limit]
    shell_s = time.perf_counter() - t0
    scripts = len({inv.script for inv in launches})
    print(f"corpus: {args.corpus} ({len(launches)} launches in {scripts} scripts; shell stage {shell_s:.2f} s)")

    # 1. bundled releases; rftc runs first: everything warm after the first launch (it loads the schemas)
    ours, times_ours, total_ours = _timed(launches, _ours(sources.BUNDLED))
    versions = [eff.verl_version if eff is not None else schema.versions()[0] for eff, _ in ours]
    pairs = list(zip(launches, versions))
    theirs, times_hydra, total_hydra = _timed(pairs, lambda p: reference.hydra_effective(p[0], p[1]))
    print("\n1. bundled releases")
    _report(ours, theirs, times_ours, total_ours, times_hydra, total_hydra)

    # 2. the checkout's own config folder, found as the launch finds it
    found = [(inv, sources.find(inv)) for inv in launches]
    mine = [inv for inv, s in found if s is not None]
    if not mine:
        print("\n2. no launch of the corpus composes a checkout's own config")
        return 0
    source = next(s for _, s in found if s is not None)
    ours, times_ours, total_ours = _timed(mine, _ours(None))
    theirs, times_hydra, total_hydra = _timed(mine, lambda inv: reference.hydra_effective(inv, source=sources.find(inv)))
    print(f"\n2. the checkout's own config ({source.display()}; {len(mine)} launches)")
    _report(ours, theirs, times_ours, total_ours, times_hydra, total_hydra)
    print(f"first launch (rftc composes the folder with Hydra, cache empty): {1e3 * times_ours[0]:.0f} ms")
    folder._SCHEMAS.clear()  # a new process: the folder's configs come from the disk cache
    _, hit, _ = _timed(mine[:1], _ours(None))
    print(f"first launch of a new process, disk cache holding the folder: {1e3 * hit[0]:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
