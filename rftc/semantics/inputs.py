"""What both models of a run say the same way about its inputs: data paths as the run opens them, the order rows
come in, and the reward's arguments as rftc's veRL reward workflow (rftc/plugins/reward.py) takes them."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from rftc.mapping.data import as_files, split_path
from rftc.mapping.draft import resolve_env

IN_FILE_ORDER = "in file order"
SHUFFLED = "shuffled every epoch"
DATA_FILES = (".parquet", ".json", ".jsonl", ".csv", ".arrow")  # files a path names itself (not a folder)
ALL_ROWS = "all"


def data_path(path: str) -> str:
    """A data path as the run opens it: ${oc.env:...} resolved in this environment where it can be."""
    return resolve_env(path, dict(os.environ)) or path


SHELL_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def launch_path(path: str) -> str:
    """A path of a launch's override as veRL opens it: a $NAME the shell had not expanded (override text read on its
    own, as `rftc diff --overrides`) is the shell's, as rftc reads a script's ${oc.env:NAME}."""
    return data_path(SHELL_REF.sub(lambda m: "${oc.env:" + (m.group(1) or m.group(2)) + "}", str(path)))


@dataclass(frozen=True)
class Files:
    """Training files in order, as each side writes them (``shown``), equal where they name the same files as
    Trinity's reader opens them (``opened``): datasets.load_dataset(path, split=split) serves a directory's split
    from its SPLIT.* file, so veRL's dir/train.parquet and Trinity's path dir with split train are one file."""

    shown: tuple
    opened: tuple

    def __eq__(self, other) -> bool:
        return isinstance(other, Files) and self.opened == other.opened

    __hash__ = None

    def __str__(self) -> str:
        return ", ".join(self.shown)


def taskset_file(path: str, split: str) -> str:
    """The file veRL reads for a taskset's ``path`` + ``split``: a data file is itself, a directory's split its
    SPLIT.parquet (the file rftc convert's path + split came from)."""
    return path if os.path.splitext(path)[1] in DATA_FILES else f"{path.rstrip('/')}/{split}.parquet"


def verl_files(value) -> Files:
    """data.train_files (a path, or a list of them)."""
    paths = [launch_path(f).rstrip("/") for f in as_files(value)]
    return Files(tuple(paths), tuple(split_path(p) for p in paths))


def trinity_files(tasksets: list[tuple[str, str, str | None]]) -> Files:
    """(path, split, subset_name) of each taskset."""
    shown, opened = [], []
    for path, split, subset in tasksets:
        path = data_path(str(path)).rstrip("/")
        shown.append(f"{path} (split {split}" + (f", subset {subset})" if subset else ")"))
        at = split_path(path) if split == "train" else (path, split)
        opened.append(at + ((subset,) if subset else ()))
    return Files(tuple(shown), tuple(opened))


@dataclass(frozen=True)
class Order:
    """The order rows come in: ``kind`` (IN_FILE_ORDER, SHUFFLED, or a sampler's name) and the seed of the engine's
    generator (``rng``). Two engines' generators never draw the same permutation, so a seed is compared only between
    runs of the same engine: veRL's and Trinity's shuffles are the same kind of order."""

    kind: str
    rng: str = ""
    seed: object = None

    def __eq__(self, other) -> bool:
        return isinstance(other, Order) and self.kind == other.kind and (
            self.rng != other.rng or self.seed == other.seed)

    __hash__ = None

    def __str__(self) -> str:
        return self.kind + (f" ({self.rng}" + (f", seed {self.seed})" if self.seed is not None else ")")
                            if self.rng else "")


def reward_arguments(function_kwargs: dict | None, manager: str, manager_kwargs: dict | None) -> dict | str:
    """The arguments the reward is computed with: the custom function's reward_kwargs, and the dapo reward manager's
    overlong buffer (its enable, len and penalty_factor, and max_resp_len; nothing while it is off; its `log` flag
    only logs). "none" where there are none."""
    out: dict = {}
    if function_kwargs:
        out["reward_kwargs"] = dict(function_kwargs)
    kwargs = dict(manager_kwargs or {})
    buf = dict(kwargs.pop("overlong_buffer_cfg", None) or {})
    buf.pop("log", None)
    if manager == "dapo" and not buf.get("enable"):
        kwargs.pop("max_resp_len", None)
    elif buf:
        kwargs["overlong_buffer_cfg"] = buf
    out.update(sorted(kwargs.items()))
    return out or "none"
