#!/usr/bin/env python3
"""Effective veRL config per launch: rftc (bundled schema, plain dicts) vs Hydra's compose API on the verl
wheel's own config files, over every verl-trainer launch of the corpus, in one process.

Baseline: hydra.compose + OmegaConf.to_container(resolve=True) on the same overrides and config, same verl
version (the one rftc chose). Prints per-launch times, their ratio, and how many results are identical.
Needs the reference (scripts/setup-verl-ref.sh) and the corpus (../shared/corpus/verl).

    python bench/bench_effective_config.py [--corpus DIR] [--limit N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "verl")
    ap.add_argument("--limit", type=int, default=0, help="only the first N launches (0: all)")
    args = ap.parse_args()

    from rftc.diagnostics.model import Diagnostics
    from rftc.verl import effective_config, reference, schema

    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    if any(reference.config_dir(v) is None for v in schema.versions()):
        print("the verl reference is not built: run scripts/setup-verl-ref.sh", file=sys.stderr)
        return 2

    t0 = time.perf_counter()
    launches = reference.corpus_launches(args.corpus)
    if args.limit:
        launches = launches[: args.limit]
    shell_s = time.perf_counter() - t0
    scripts = len({inv.script for inv in launches})

    # rftc: one process, everything warm after the first launch (the first includes loading the schemas).
    ours, accepted, times_ours = [], [], []
    t_all = time.perf_counter()
    for inv in launches:
        t = time.perf_counter()
        diags = Diagnostics()
        eff = effective_config(inv, diags=diags)
        times_ours.append(time.perf_counter() - t)
        ours.append(eff)
        accepted.append(eff is not None and not any(d.code.startswith("RFTC2") for d in diags.errors))
    total_ours = time.perf_counter() - t_all

    theirs, times_hydra = [], []
    t_all = time.perf_counter()
    for inv, eff in zip(launches, ours):
        version = eff.verl_version if eff is not None else schema.versions()[0]
        t = time.perf_counter()
        theirs.append(reference.hydra_effective(inv, version))
        times_hydra.append(time.perf_counter() - t)
    total_hydra = time.perf_counter() - t_all

    both = [(o, h) for o, h, ok in zip(ours, theirs, accepted) if ok and h is not None]
    identical = sum(o.values == h for o, h in both)
    agree = sum(ok == (h is not None) for ok, h in zip(accepted, theirs))
    print(f"corpus: {args.corpus} ({len(launches)} launches in {scripts} scripts; shell stage {shell_s:.2f} s)")
    print(f"rftc effective config:  total {total_ours:.3f} s, per launch mean {1e3 * total_ours / len(launches):.2f} ms, "
          f"median {1e3 * statistics.median(times_ours):.2f} ms")
    print(f"hydra compose+resolve:  total {total_hydra:.3f} s, per launch mean {1e3 * total_hydra / len(launches):.1f} ms, "
          f"median {1e3 * statistics.median(times_hydra):.1f} ms")
    print(f"ratio (hydra / rftc, totals): {total_hydra / total_ours:.1f}x")
    print(f"identical results: {identical} of {len(both)} launches both accept; accept/reject agrees on {agree} of "
          f"{len(launches)} (hydra rejects {sum(h is None for h in theirs)}, rftc reports errors for "
          f"{len(launches) - sum(accepted)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
