"""Loading as Trinity loads: interpolations, the structured merge (unknown keys, types, enums), deprecated
keys and fields Trinity computes itself. Builds the IR; every load failure is reported at its key."""

from __future__ import annotations

import copy
from typing import Any

from rftc.dotted import dotted
from rftc.trinity.types import AUTO, DEPRECATED

_DEPRECATION_NOTES = {
    "warmup_style": "Trinity copies it into `algorithm.optimizer.lr_scheduler_type` with a warning",
    "task_selector": "Trinity reads it as `data_selector` with a warning",
    "runner_num": "Trinity ignores it (use `explorer.runner_per_model`)",
    "trainer_config_path": "rejected on the verl<0.8 path (`trainer_config_path is deprecated; please use "
                           "trainer_config instead.`) and ignored on the verl>=0.8 path",
}


def schema_default(path: tuple) -> Any:
    """The schema default of ``path`` (KeyError where the schema has no such field)."""
    from pydantic import BaseModel

    from rftc.trinity.schema import section_at

    cls = section_at(path[:-1])
    if cls is None or not path or path[-1] not in cls.model_fields:
        raise KeyError(path)
    value = cls.model_fields[path[-1]].get_default(call_default_factory=True)
    return value.model_dump() if isinstance(value, BaseModel) else value


def build_ir(ctx, data: Any):
    from pydantic import ValidationError

    from rftc.trinity.interpolation import resolve
    from rftc.trinity.schema import TrinityConfig

    if data is None:
        data = {}
    if not isinstance(data, dict):
        ctx.add("RFTC402", f"the config must be a mapping of sections (mode, algorithm, model, ...), "
                f"not a {type(data).__name__}")
        return None
    data = copy.deepcopy(data)
    ctx.data = data
    res = resolve(data, schema_default, ctx.options.environ)
    for path, message in res.errors:
        ctx.add("RFTC404", f"Invalid configuration: {message} (full_key: {dotted(path)})", path)
    for path, var in res.missing_env:
        ctx.unresolved.add(path)
        sev = "error" if ctx.options.env_strict else None
        ctx.add("RFTC405", f"environment variable '{var}' is not set here and `${{oc.env:{var}}}` has no default: "
                f"Trinity fails to load the file (`Environment variable '{var}' not found`) where it is unset",
                path, hint=f"set {var} where the job runs, or write ${{oc.env:{var},<default>}}",
                severity=_severity(sev))
    _walk_markers(ctx, data, TrinityConfig, ())
    for attempt in range(2):
        try:
            cfg = TrinityConfig.model_validate(data)
            break
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
            if attempt == 0 and errors and all(tuple(e["loc"]) in ctx.unresolved for e in errors):
                for e in errors:  # unresolved env values: check the rest with the schema's defaults
                    _delete(data, tuple(e["loc"]))
                continue
            for e in errors:
                _report(ctx, e)
            return None
    if res.errors or (ctx.options.env_strict and res.missing_env):
        return None
    return cfg


def _severity(label):
    from rftc.diagnostics.model import Severity

    return Severity.ERROR if label == "error" else None


def _delete(data, path):
    node = data
    for p in path[:-1]:
        node = node[p]
    del node[path[-1]]


def _walk_markers(ctx, data, cls, path):
    """Report deprecated keys and fields Trinity computes, wherever the file sets them."""
    from rftc.trinity.schema import _model_in

    if not isinstance(data, dict):
        return
    for key, value in data.items():
        f = cls.model_fields.get(key) if isinstance(key, str) else None
        if f is None:
            continue
        here = path + (key,)
        extra = f.json_schema_extra or {}
        if DEPRECATED in extra and value not in (None, ""):
            ctx.add("RFTC407", f"`{dotted(here)}` is deprecated: {_DEPRECATION_NOTES.get(key, '')}", here,
                    hint=f"use `{extra[DEPRECATED]}`" + (" (`rftc check --fix` rewrites it)"
                                                        if key in ("warmup_style", "task_selector") else ""))
        if extra.get(AUTO):
            ctx.add("RFTC406", f"`{dotted(here)}` is computed by Trinity's validator; the value in the file is "
                    "overwritten", here, hint="remove it")
        inner, is_dict = _model_in(f.annotation)
        if inner is None:
            continue
        if is_dict and isinstance(value, dict):
            for k, v in value.items():
                _walk_markers(ctx, v, inner, here + (k,))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                _walk_markers(ctx, v, inner, here + (i,))
        else:
            _walk_markers(ctx, value, inner, here)


def _report(ctx, e: dict) -> None:
    import difflib

    from rftc.trinity.schema import section_at

    loc = tuple(e["loc"])
    kind = e["type"]
    full = dotted(loc)
    if kind == "invalid_key":  # a non-string key: OmegaConf looks it up as a field name
        owner = section_at(loc[:-1])
        ctx.add("RFTC401", f"Key '{loc[-1]}' not in '{_title(owner)}' (full_key: {full})", loc)
    elif kind == "extra_forbidden":
        cls = section_at(loc[:-1])
        owner = _title(cls)
        key = loc[-1]
        close = difflib.get_close_matches(str(key), list(cls.model_fields) if cls else [], n=1, cutoff=0.6)
        hint = f"did you mean `{close[0]}`?" if close else None
        elsewhere = _sections_with(str(key)) if not close else []
        if elsewhere:
            hint = f"`{key}` is a field of " + ", ".join(f"`{w}`" for w in elsewhere[:3])
        elif cls is not None and cls.__name__ == "TrainerConfig" and not close:
            hint = "veRL worker settings go under `trainer.trainer_config` (see RFTC477)"
        ctx.add("RFTC401", f"Key '{key}' not in '{owner}'" + (f". Did you mean: '{close[0]}'?" if close else "")
                + f" (full_key: {full})", loc, hint=hint)
    elif kind == "omegaconf_enum":
        ctx.add("RFTC403", f"{e['msg']} (full_key: {full})", loc)
    elif kind in ("model_type", "model_attributes_type", "dict_type", "list_type") and e.get("input") is None:
        ctx.add("RFTC402", f"field '{full}' is not Optional (full_key: {full})", loc)
    elif kind in ("omegaconf", "omegaconf_none"):
        ctx.add("RFTC402", f"{e['msg']} (full_key: {full})", loc)
    elif kind == "missing":
        ctx.add("RFTC402", f"Missing mandatory value: {full}", loc)
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        value = e.get("input")
        ctx.add("RFTC402", f"`{full}` must be a mapping, got {type(value).__name__} '{value}' (full_key: {full})",
                loc)
    elif kind == "list_type":
        value = e.get("input")
        ctx.add("RFTC402", f"`{full}` must be a list, got {type(value).__name__} '{value}' (full_key: {full})", loc)
    else:
        ctx.add("RFTC402", f"{e['msg']} (full_key: {full})", loc)


def _title(cls) -> str:
    return (cls.model_config.get("title") or cls.__name__) if cls else "config"


def _sections_with(key: str) -> list[str]:
    """Dotted paths of the sections (outside stages) that have a field ``key``: for a key put in the wrong one."""
    from pydantic import BaseModel

    from rftc.trinity.schema import TrinityConfig, _model_in

    found, todo = [], [((), TrinityConfig)]
    while todo:
        path, cls = todo.pop(0)
        if key in cls.model_fields and path:
            found.append(".".join(path))
        for name, f in cls.model_fields.items():
            inner, is_dict = _model_in(f.annotation)
            if inner is not None and issubclass(inner, BaseModel) and name != "stages" and len(path) < 4:
                todo.append((path + (name + ("[]" if is_dict else ""),), inner))
    return found
