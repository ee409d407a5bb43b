"""Reading tasksets as Trinity names them: a parquet/jsonl/json file, or a Hugging Face-style directory
whose files are named by split (``train.parquet``, ``data/test-00000-of-00001.parquet``, ``test.jsonl``...).

Rows become :class:`Task` records; a row without the prompt key is counted (RFTC503), never fatal.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SUFFIXES = (".parquet", ".jsonl", ".json")


@dataclass
class Task:
    index: int
    prompt: Any  # a string (one user message) or a list of chat messages
    answer: Any
    row: dict = field(repr=False)


def _split_files(root: Path, split: str, subset: str | None) -> list[Path]:
    base = root / subset if subset and (root / subset).is_dir() else root
    found = sorted(p for p in base.rglob("*") if p.suffix in SUFFIXES and p.is_file()
                   and (p.stem == split or p.stem.startswith(split + "-") or p.parent.name == split))
    if not found:
        raise FileNotFoundError(f"no {split!r} split ({', '.join(SUFFIXES)}) under {root}")
    return found


def _read_file(path: Path) -> list[dict]:
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    data = json.loads(text)
    return data if isinstance(data, list) else data.get("data", [])


def read_rows(path: str, split: str = "train", subset: str | None = None) -> list[dict]:
    p = Path(path).expanduser()
    if p.is_dir():
        rows: list[dict] = []
        for f in _split_files(p, split, subset):
            rows.extend(_read_file(f))
        return rows
    if not p.is_file():
        raise FileNotFoundError(f"taskset {path} does not exist")
    return _read_file(p)


def lookup(row: dict, key: str):
    """A dotted key reaches into nested columns (veRL stores answers in reward_model.ground_truth)."""
    cur: Any = row
    for part in key.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def load_tasks(taskset) -> tuple[list[Task], int]:
    """Return the usable tasks and the number of rows skipped for lacking the prompt key."""
    tasks, missing = [], 0
    for i, row in enumerate(read_rows(taskset.path, taskset.split, taskset.subset_name)):
        prompt = lookup(row, taskset.prompt_key)
        if prompt is None or prompt == "" or (hasattr(prompt, "__len__") and len(prompt) == 0):
            missing += 1
            continue
        answer = lookup(row, taskset.response_key)
        tasks.append(Task(i, list(prompt) if not isinstance(prompt, str) else prompt, answer, row))
    return tasks, missing


def chat_messages(task: Task, system_prompt: str | None) -> list[dict]:
    msgs = [dict(m) for m in task.prompt] if isinstance(task.prompt, list) else [
        {"role": "user", "content": str(task.prompt)}]
    if system_prompt and not any(m.get("role") == "system" for m in msgs):
        msgs.insert(0, {"role": "system", "content": system_prompt})
    return msgs


class TaskReader:
    """Yields batches of tasks epoch by epoch, in the order the taskset's data selector names.

    ``position`` (tasks consumed so far) is saved in checkpoints so a resumed run continues the data stream.
    """

    def __init__(self, tasks: list[Task], batch_size: int, total_epochs: int, selector: str = "sequential",
                 seed: int = 42, position: int = 0):
        if not tasks:
            raise ValueError("the taskset has no usable rows")
        self.tasks, self.batch_size, self.total_epochs = tasks, batch_size, total_epochs
        self.selector, self.seed, self.position = selector, seed, position

    def _order(self, epoch: int) -> list[int]:
        order = list(range(len(self.tasks)))
        if self.selector in ("shuffle", "random"):
            random.Random(self.seed + epoch).shuffle(order)
        return order

    @property
    def total(self) -> int:
        return len(self.tasks) * self.total_epochs

    def next_batch(self) -> list[Task] | None:
        if self.position >= self.total:
            return None
        batch = []
        while len(batch) < self.batch_size and self.position < self.total:
            epoch, offset = divmod(self.position, len(self.tasks))
            batch.append(self.tasks[self._order(epoch)[offset]])
            self.position += 1
        return batch
