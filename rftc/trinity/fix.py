"""Safe rewrites for ``rftc check --fix``: edits on the ruamel round-trip tree, so comments, order and
quoting of everything else stay as written. Each fix has exactly one meaning-preserving result:

- `algorithm.optimizer.warmup_style` -> `lr_scheduler_type` (Trinity copies the former into the latter)
- a taskset's `task_selector` -> `data_selector` (Trinity reads the former as the latter)
- `explorer.runner_num` removed (Trinity ignores it)
- enum aliases and case: `sync_method: online` -> `nccl`, `sync_style: dynamic_by_explorer` -> `explorer_driven`,
  `NCCL` -> `nccl`
- `algorithm.repeat_times: N` for a group-relative algorithm left at 1, only when asked (``repeat_times=N``)
"""

from __future__ import annotations

import io
from typing import Any

from rftc.dotted import get

_ENUMS = {
    ("synchronizer", "sync_method"): ("SyncMethod", ("nccl", "checkpoint", "memory"),
                                      {"online": "nccl", "offline": "checkpoint"}),
    ("synchronizer", "sync_style"): ("SyncStyle", ("fixed", "trainer_driven", "explorer_driven", "fully_async"),
                                     {"dynamic_by_explorer": "explorer_driven", "dynamic_by_trainer": "trainer_driven"}),
    ("trainer", "save_strategy"): ("SaveStrategy", ("single_thread", "single_process", "single_node", "unrestricted"),
                                   {}),
}


def rename_key(mapping, old: str, new: str) -> None:
    """Rename ``old`` to ``new`` in place, keeping its position and its comments."""
    keys = list(mapping.keys())
    pos = keys.index(old)
    value = mapping[old]
    comment = mapping.ca.items.pop(old, None) if hasattr(mapping, "ca") else None
    del mapping[old]
    mapping.insert(pos, new, value)
    if comment is not None:
        mapping.ca.items[new] = comment


def apply_fixes(root: Any, *, repeat_times: int | None = None, group_algorithm_at_one: bool = False) -> list[str]:
    """Apply the safe fixes to the ruamel tree ``root``; return a line per change."""
    changes: list[str] = []
    if not isinstance(root, dict):
        return changes
    opt = get(root, ("algorithm", "optimizer"))
    if isinstance(opt, dict) and opt.get("warmup_style") not in (None, ""):
        if "lr_scheduler_type" in opt:
            opt["lr_scheduler_type"] = opt["warmup_style"]
            comment = opt.ca.items.pop("warmup_style", None)
            del opt["warmup_style"]
            if comment is not None and "lr_scheduler_type" not in opt.ca.items:
                opt.ca.items["lr_scheduler_type"] = comment
        else:
            rename_key(opt, "warmup_style", "lr_scheduler_type")
        changes.append("algorithm.optimizer.warmup_style -> lr_scheduler_type")
    ei = get(root, ("buffer", "explorer_input"))
    if isinstance(ei, dict):
        sets = ([("taskset", ei["taskset"])] if isinstance(ei.get("taskset"), dict) else [])
        for key in ("tasksets", "eval_tasksets"):
            if isinstance(ei.get(key), list):
                sets += [(f"{key}[{i}]", t) for i, t in enumerate(ei[key]) if isinstance(t, dict)]
        for where, t in sets:
            if t.get("task_selector") is not None and "data_selector" not in t:
                rename_key(t, "task_selector", "data_selector")
                changes.append(f"buffer.explorer_input.{where}.task_selector -> data_selector")
    ex = root.get("explorer")
    if isinstance(ex, dict) and "runner_num" in ex:
        del ex["runner_num"]
        if not ex:
            del root["explorer"]
        changes.append("explorer.runner_num removed (ignored by Trinity)")
    for path, (enum_name, members, aliases) in _ENUMS.items():
        parent = get(root, path[:-1])
        value = parent.get(path[-1]) if isinstance(parent, dict) else None
        if isinstance(value, str):
            key = value.split(f"{enum_name}.", 1)[-1].lower()
            key = aliases.get(key, key)
            if key in members and key != value:
                parent[path[-1]] = key
                changes.append(f"{'.'.join(path)}: {value} -> {key}")
    if repeat_times is not None and group_algorithm_at_one:
        algo = root.get("algorithm")
        if isinstance(algo, dict):
            algo["repeat_times"] = repeat_times
            changes.append(f"algorithm.repeat_times -> {repeat_times}")
    return changes


def load_roundtrip(text: str) -> Any:
    """The ruamel round-trip tree of ``text`` (comments, order and quoting kept)."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    return yaml.load(text)


def dump(root: Any, original: str = "") -> str:
    """YAML text of ``root``; block sequences keep the original's indentation style."""
    import re

    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    m = re.search(r"^( *)[^\s#-][^\n]*:[ \t]*\n\1( +)- ", original, re.M)
    if m:  # sequences indented under their key, e.g. "tasksets:\n  - name: x"
        offset = len(m.group(2))
        yaml.indent(mapping=2, sequence=offset + 2, offset=offset)
    buf = io.StringIO()
    yaml.dump(root, buf)
    return buf.getvalue()
