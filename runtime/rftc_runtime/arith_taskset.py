"""The bundled task set, generated offline: single-digit addition with a numeric answer, in veRL's parquet
layout (``prompt`` as chat messages, ``reward_model.ground_truth``) plus Trinity's ``answer`` column, so the same files serve a veRL launch
script and its Trinity config; and a few answered questions for an SFT stage.

    python -m rftc_runtime.arith_taskset OUT_DIR     # writes OUT_DIR/{train,test}.parquet and OUT_DIR/sft.jsonl
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

QUESTION = "What is {a} + {b}? Reply with only the number."


def rows(pairs) -> list[dict]:
    return [{
        "data_source": "arith",
        "prompt": [{"role": "user", "content": QUESTION.format(a=a, b=b)}],
        "ability": "math",
        "answer": str(a + b),  # the column Trinity's math workflows read (format.response_key)
        "reward_model": {"style": "rule", "ground_truth": str(a + b)},
        "extra_info": {"a": a, "b": b},
    } for a, b in pairs]


def sft_rows(pairs) -> list[dict]:
    """Worked examples for an SFT stage, in Trinity's messages format (a user question, the assistant's answer)."""
    return [{"messages": [{"role": "user", "content": QUESTION.format(a=a, b=b)},
                          {"role": "assistant", "content": str(a + b)}]} for a, b in pairs]


def write_sft(out: Path, pairs) -> Path:
    import json

    out.mkdir(parents=True, exist_ok=True)
    path = out / "sft.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in sft_rows(pairs)), encoding="utf-8")
    return path


def write(out: Path, seed: int = 0, test_size: int = 16) -> tuple[Path, Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pairs = [(a, b) for a in range(10) for b in range(10)]
    random.Random(seed).shuffle(pairs)
    out.mkdir(parents=True, exist_ok=True)
    test, train = pairs[:test_size], pairs[test_size:]
    paths = out / "train.parquet", out / "test.parquet"
    for path, part in zip(paths, (train, test)):
        pq.write_table(pa.Table.from_pylist(rows(part)), path)
    return paths


def _read(path: Path) -> list[dict]:
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pylist()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", type=Path)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    for path in write(args.out, args.seed):
        print(path)
    # a handful of the train split's questions answered, for an SFT stage before RFT (examples/arith_sft_grpo.yaml)
    pairs = [(r["extra_info"]["a"], r["extra_info"]["b"]) for r in _read(args.out / "train.parquet")[:8]]
    print(write_sft(args.out, pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
