"""Values of a veRL launch's effective config with where each came from: what the RL and the SFT models of a launch
(rftc.semantics.verl, sft_verl) read the config through."""

from __future__ import annotations

import os

from rftc.dotted import ABSENT
from rftc.mapping.parquet import ParquetError, num_rows
from rftc.semantics.model import Value
from rftc.verl.effective import EffectiveConfig


class Reader:
    """Values of the effective config with where each came from."""

    def __init__(self, eff: EffectiveConfig):
        self.eff = eff

    def get(self, key: str, default=None):
        value = self.eff.get(key, ABSENT) if self.eff.has(key) else ABSENT
        return default if value is ABSENT else value

    def where(self, *keys: str) -> str:
        located, defaults = [], []
        for key in dict.fromkeys(keys):  # each key once
            p = self.eff.prov(key)
            span = p.span or (p.via[0] if p.via else None)
            if span:
                located.append(f"{os.path.basename(span.file)}:{span.line} {key}")
            else:
                defaults.append(key)
        if len(defaults) == 1 and not located:
            return f"{defaults[0]} (verl {self.eff.release} default)"
        return ", ".join(located + ([f"verl {self.eff.release} defaults"] if defaults else []))

    def v(self, key: str, default=None, *, when: bool = True) -> Value:
        return Value(self.get(key, default) if when else None, self.where(key) if when else "")

    def of(self, value, *keys: str, formula: str = "") -> Value:
        return Value(value, self.where(*keys) if value is not None else "", formula)


def train_rows(r: Reader, rows: int | None, cwd: str | None) -> int | Value:
    """The training rows: ``rows`` (--dataset-size) where given, else the parquet footers of data.train_files
    read from ``cwd``; an "unknown (why)" Value where they are not readable."""
    if rows is not None:
        return rows
    files = r.get("data.train_files")
    files = files if isinstance(files, list) else [files]
    paths = [os.path.join(cwd or ".", f) for f in files if isinstance(f, str) and "${" not in f]
    if len(paths) != len(files) or not all(os.path.isfile(p) for p in paths):
        return Value("unknown (data not readable)", r.where("data.train_files"))
    try:
        return sum(num_rows(p) for p in paths)
    except ParquetError as e:
        return Value(f"unknown ({e})", r.where("data.train_files"))
