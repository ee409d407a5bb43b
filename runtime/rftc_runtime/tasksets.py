"""Reading tasksets as Trinity names them: a parquet/jsonl/json file, or a Hugging Face-style directory
whose files are named by split (``train.parquet``, ``data/test-00000-of-00001.parquet``, ``test.jsonl``...).

Rows become :class:`Task` records; a row without a usable prompt under the prompt key is counted (RFTC503),
never fatal, unless no row has one.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rftc.plugins.reward import chat_messages as verl_chat_messages
from rftc_runtime.errors import RuntimeFailure

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


def _files(path: str, split: str, subset: str | None) -> list[Path]:
    p = Path(path).expanduser()
    if p.is_dir():
        return _split_files(p, split, subset)
    if not p.is_file():
        raise FileNotFoundError(f"taskset {path} does not exist")
    return [p]


def read_rows(path: str, split: str = "train", subset: str | None = None) -> list[dict]:
    return [row for f in _files(path, split, subset) for row in _read_file(f)]


def first_rows(path: str, split: str, subset: str | None, n: int) -> list[dict]:
    """The first ``n`` rows, reading no more of a parquet or jsonl file than they take."""
    rows: list[dict] = []
    for f in _files(path, split, subset):
        if f.suffix == ".parquet":
            import pyarrow.parquet as pq

            for batch in pq.ParquetFile(f).iter_batches(batch_size=n):
                rows.extend(batch.to_pylist())
                if len(rows) >= n:
                    break
        elif f.suffix == ".jsonl":
            with f.open(encoding="utf-8") as lines:
                for line in lines:
                    if len(rows) >= n:
                        break
                    if line.strip():
                        rows.append(json.loads(line))
        else:
            rows.extend(_read_file(f))
        if len(rows) >= n:
            break
    return rows[:n]


def lookup(row: dict, key: str):
    """A dotted key reaches into nested columns (veRL stores answers in reward_model.ground_truth)."""
    cur: Any = row
    for part in key.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


class TasksetError(RuntimeFailure, ValueError):
    """A taskset that cannot be read or has no usable row (RFTC506). A ValueError too, so a caller that puts
    its own context on bad data (the driver, for eval tasksets) still can."""


@dataclass
class Loaded:
    tasks: list[Task]
    missing: int  # rows skipped for lacking a usable prompt
    first_missing: str | None = None  # the first of them: its row number and why


def _prompt_problem(prompt) -> str | None:
    if prompt is None:
        return "no such key"
    if isinstance(prompt, str):
        return "an empty string" if not prompt.strip() else None
    if not isinstance(prompt, (list, tuple)) or not prompt:
        return f"{type(prompt).__name__} {prompt!r:.40}, not a string or a list of chat messages"
    if not all(isinstance(m, dict) and "role" in m and "content" in m for m in prompt):
        return "a list that is not chat messages ({'role': ..., 'content': ...})"
    return None


def read_tasks(taskset) -> Loaded:
    """The usable tasks, and the rows skipped for lacking a usable prompt (counted, with the first one)."""
    try:
        rows = read_rows(taskset.path, taskset.split, taskset.subset_name)
    except (OSError, ValueError) as exc:  # a missing split, a corrupt parquet or JSON file
        raise TasksetError("RFTC506", f"taskset {taskset.name} ({taskset.path}) cannot be read: {exc}",
                           "fix the taskset's path, or regenerate the file") from None
    loaded = Loaded([], 0)
    for i, row in enumerate(rows):
        prompt = lookup(row, taskset.format.prompt_key) if isinstance(row, dict) else None
        problem = _prompt_problem(prompt) if isinstance(row, dict) else f"a {type(row).__name__}, not a record"
        if problem:
            loaded.missing += 1
            if loaded.first_missing is None:
                loaded.first_missing = f"row {i}: {problem}" + (
                    f" (its keys: {', '.join(map(str, row))})" if isinstance(row, dict) and prompt is None else "")
            continue
        answer = lookup(row, taskset.format.response_key)
        loaded.tasks.append(Task(i, list(prompt) if not isinstance(prompt, str) else prompt, answer, row))
    if not loaded.tasks:
        raise TasksetError("RFTC506", f"taskset {taskset.name} ({taskset.path}, split {taskset.split}) has no usable "
                           f"row: " + (f"none of its {loaded.missing} row(s) has a prompt under "
                                       f"{taskset.format.prompt_key!r}; first: {loaded.first_missing}"
                                       if loaded.missing else "it is empty"),
                           "point format.prompt_key at the column that holds the prompt, or fix the data",
                           "buffer.explorer_input.taskset.format.prompt_key")
    return loaded


def missing_prompt_warning(taskset, loaded: Loaded) -> str | None:
    """RFTC503's line for the skipped rows: how many, and the first one."""
    if not loaded.missing:
        return None
    return (f"warning[RFTC503]: {loaded.missing} row(s) of {taskset.path} have no usable prompt under "
            f"{taskset.format.prompt_key!r} and were skipped; first: {loaded.first_missing}")


def chat_messages(task: Task, system_prompt: str | None) -> list[dict]:
    return verl_chat_messages(task.prompt, system_prompt)


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
