"""Applying parsed overrides to a composed config, with the semantics of Hydra 1.3's
``ConfigLoaderImpl._apply_overrides_to_config`` on a struct-mode config, on plain dicts:

* ``key=v``   the key must exist (every parent too); dict and list values merge into an existing dict
              (new keys inside are errors), other values replace;
* ``+key=v``  the key must be absent or null/mandatory (a dict or list value may merge into an existing one);
              parents are created as needed;
* ``++key=v`` sets or merges, creating what is missing;
* ``~key``    deletes; the key must exist with a non-null value (``~key=v``: and that value).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Callable

from rftc.diagnostics.collector import Diagnostics
from rftc.dotted import ABSENT
from rftc.verl.effective import Provenance
from rftc.verl.overrides.parse import Override, sub_span
from rftc.verl.overrides.resolve import MISSING, InterpolationError, Resolver, child, has_interpolation, walk


def copy_tree(node):
    if isinstance(node, dict):
        return {k: copy_tree(v) for k, v in node.items()}
    if isinstance(node, list):
        return [copy_tree(v) for v in node]
    return node


def leaves(node, prefix: str):
    """(dotted key, value) of every leaf under node; lists and empty dicts are leaves."""
    if isinstance(node, dict) and node:
        for k, v in node.items():
            yield from leaves(v, f"{prefix}.{k}" if prefix else str(k))
    else:
        yield prefix, node


@dataclass
class Applied:
    tree: dict
    provenance: dict[str, Provenance] = field(default_factory=dict)
    unknown_keys: list[str] = field(default_factory=list)  # plain overrides of keys that do not exist
    retired_keys: list[str] = field(default_factory=list)  # overrides of removed keys that change nothing (RFTC220)


class _Reject(Exception):
    def __init__(self, code: str, message: str, hint: str | None = None, key: str | None = None):
        super().__init__(message)
        self.code, self.hint, self.key = code, hint, key


def provenance_of(o: Override) -> Provenance:
    return Provenance("override", o.arg.span, o.text, o.arg.via)


def chosen(applied: Applied, tree: dict, default: dict, group_ovs: list[Override]) -> None:
    """The values the launch's group choices bring to ``tree`` (those that differ from ``default``, the tree of
    the config's default choices) are the launch's own: their provenance is the group override whose package
    holds them (a group's own name where the override names no package). An interpolation's value is derived from
    the key it follows, as it resolves."""
    before = dict(leaves(default, ""))
    for key, value in leaves(tree, ""):
        if key in applied.provenance or (key in before and before[key] == value) or has_interpolation(value):
            continue
        owner = max(reversed(group_ovs), key=lambda o: len(p) if (p := o.package or o.key.replace("/", "."))
                    and (key.startswith(f"{p}.") or key == p) else -1)
        applied.provenance[key] = provenance_of(owner)


def apply(tree: dict, overrides: list[Override], diags: Diagnostics, *, applied: Applied | None = None,
          unknown_hint: Callable[[str], tuple[str | None, str | None]] | None = None,
          retired: Callable[[str, Any], str | None] | None = None) -> Applied:
    """Apply ``overrides`` (change/add/force_add/delete only) in order to ``tree`` (changed in place).
    ``retired(key, value)`` names an unknown key's override that changes nothing (RFTC220 instead of an error)."""
    result = applied or Applied(tree)
    for o in overrides:
        try:
            _apply_one(result, o)
        except _Reject as r:
            hint, note = r.hint, None
            why = retired(o.key, o.value) if r.code == "RFTC203" and retired is not None and r.key == o.key \
                and o.kind == "change" else None
            if why:
                diags.add("RFTC220", why, _key_span(o), hint="remove the override", key=o.key)
                result.retired_keys.append(o.key)
                continue
            if r.code == "RFTC203" and unknown_hint is not None:
                elsewhere, suggestion = unknown_hint(r.key or o.key)
                if elsewhere:
                    diags.add("RFTC215", f"'{r.key}' {elsewhere}", _key_span(o), hint=suggestion, key=r.key)
                    result.unknown_keys.append(r.key or o.key)
                    continue
            if r.code == "RFTC203":
                result.unknown_keys.append(r.key or o.key)
            diags.add(r.code, str(r), _key_span(o), hint=hint, key=r.key or o.key,
                      notes=(note,) if note else ())
    return result


def _key_span(o: Override):
    start = len(o.text) - len(o.text.lstrip("+~"))
    end = o.text.find("=")
    return sub_span(o.arg, start, end if end > 0 else len(o.text))


def _select(tree: dict, key: str):
    """OmegaConf.select(cfg, key, throw_on_missing=False): resolved value, None when absent or mandatory."""
    node: Any = tree
    parts = key.split(".")
    for i, part in enumerate(parts):
        node = child(node, part)
        if node is ABSENT:
            return None
        if has_interpolation(node):
            try:
                node = Resolver(tree).resolve_key(".".join(parts[: i + 1]))
            except InterpolationError:
                return None
    return None if node == MISSING else node


def _apply_one(res: Applied, o: Override) -> None:
    tree, key = res.tree, o.key
    if o.kind == "delete":
        current = _select(tree, key)
        if current is None:
            raise _Reject("RFTC205", f"cannot delete '{key}': it does not exist or is null (Hydra rejects '~' "
                          "on a missing or null key)", key=key)
        if o.has_value and o.value != current:
            raise _Reject("RFTC205", f"cannot delete '{key}': its value is {current!r}, not {o.value!r}", key=key)
        parent_key, _, last = key.rpartition(".")
        parent = walk(tree, parent_key) if parent_key else tree
        if isinstance(parent, list):
            raise _Reject("RFTC205", f"cannot delete '{key}': Hydra cannot delete a list element (it fails with "
                          "a TypeError)", hint=f"set the whole list instead: {parent_key}=[...]", key=key)
        del parent[last]
        _forget(res, key)
        return
    if o.kind == "add" and _select(tree, key) is not None and not isinstance(o.value, (dict, list)):
        raise _Reject("RFTC204", f"'+{key}' adds a key that already exists (value {_select(tree, key)!r})",
                      hint=f"drop the '+' to override it ('{o.text[1:]}'), or write '++' to add or override",
                      key=key)
    force = o.kind in ("add", "force_add")
    parts = key.split(".")
    node = tree
    for i, part in enumerate(parts[:-1]):
        sub = child(node, part)
        if not isinstance(sub, (dict, list)):
            if not force:
                raise _unknown(tree, key, o)
            if isinstance(node, list):
                raise _Reject("RFTC203", f"list index '{part}' is out of range in '{key}'", key=key)
            node[part] = {}
            sub = node[part]
        node = sub
    last = parts[-1]
    value = copy_tree(o.value)
    prov = provenance_of(o)
    current = child(node, last)
    if isinstance(value, (dict, list)) and isinstance(current, (dict, list)):
        if isinstance(value, dict) != isinstance(current, dict):
            raise _Reject("RFTC216", f"cannot merge a {type(value).__name__} into '{key}', which holds a "
                          f"{type(current).__name__}", key=key)
        if isinstance(current, list):
            current[:] = value
            _forget(res, key)
            res.provenance[key] = prov
            return
        _check_merge(current, value, key, force, tree, o)
        _merge(res, current, value, key, prov)
        return
    _check_number(key, value, current)
    if isinstance(node, list):
        if not (last.isdigit() and int(last) < len(node)):
            raise _Reject("RFTC203", f"list index '{last}' is out of range in '{key}'", key=key)
        node[int(last)] = value
    else:
        if current is ABSENT and not force:
            raise _unknown(tree, key, o)
        node[last] = value
    _set(res, key, value, prov)


def _check_number(key: str, value, current) -> None:
    """Hydra reads nan, inf and a literal past 1.8e308 (1e309) as floats: NaN where the key holds a number, or
    infinity where it holds an integer (a count, a size, a step), is no value veRL can compute with."""
    if not isinstance(value, float) or value == value and abs(value) != float("inf"):
        return
    number = isinstance(current, (int, float)) and not isinstance(current, bool)
    if value != value and number:
        why = "NaN, which no computation with it turns into a value"
    elif value != value or not (number and isinstance(current, int)):
        return
    else:
        why = "float infinity (Hydra reads a literal past 1.8e308 as infinity); no count or size is infinite"
    raise _Reject("RFTC227", f"'{key}' is {value!r}: {why} (its default is {current!r})", key=key,
                  hint=f"give {key} a finite {'integer' if isinstance(current, int) else 'number'}")


def _check_merge(dest: dict, src: dict, key: str, force: bool, tree: dict, o: Override) -> None:
    """Struct mode: merging a dict may not introduce keys (unless '+'/'++'); checked before anything changes."""
    for k, v in src.items():
        sub = f"{key}.{k}"
        if k not in dest:
            if not force:
                raise _unknown(tree, sub, o, in_value=True)
        elif isinstance(dest[k], dict) and isinstance(v, dict):
            _check_merge(dest[k], v, sub, force, tree, o)


def _merge(res: Applied, dest: dict, src: dict, key: str, prov: Provenance) -> None:
    for k, v in src.items():
        sub = f"{key}.{k}"
        if isinstance(dest.get(k), dict) and isinstance(v, dict):
            _merge(res, dest[k], v, sub, prov)
        elif v == MISSING and k in dest:
            continue  # OmegaConf's merge keeps the existing value over a mandatory marker
        else:
            dest[k] = v
            _set(res, sub, v, prov)


def _forget(res: Applied, key: str) -> None:
    prefix = key + "."
    for k in [k for k in res.provenance if k == key or k.startswith(prefix)]:
        del res.provenance[k]


def _set(res: Applied, key: str, value, prov: Provenance) -> None:
    _forget(res, key)
    for leaf, _ in leaves(value, key):
        res.provenance[leaf] = prov


def _unknown(tree: dict, key: str, o: Override, *, in_value: bool = False) -> _Reject:
    parts = key.split(".")
    depth = 0  # how many leading parts exist as sections
    node = tree
    while depth < len(parts) - 1 and isinstance(child(node, parts[depth]), (dict, list)):
        node = child(node, parts[depth])
        depth += 1
    parent_key, missing = ".".join(parts[:depth]), parts[depth]
    prefix = parent_key + "." if parent_key else ""
    hint = None
    if isinstance(node, dict):
        close = difflib.get_close_matches(missing, [str(k) for k in node], n=1, cutoff=0.75)
        if close:
            hint = f"did you mean '{prefix}{close[0]}{key[len(prefix) + len(missing):]}'?"
        elif child(node, missing) is not ABSENT:
            hint = f"'{prefix}{missing}' holds a value, not a section; prefix with '+' to replace it with one"
        elif in_value or not node:
            hint = f"'{parent_key or key}' has no key '{missing}'; to add one, prefix the override with '+'"
        else:
            hint = _elsewhere(tree, key) or "to add a new key on purpose, prefix the override with '+'"
    detail = "" if depth == len(parts) - 1 else f" ('{prefix}{missing}' does not exist)"
    where = " in the override's value" if in_value else ""
    return _Reject("RFTC203", f"unknown key '{key}'{where}{detail}: Hydra rejects overriding a key that is not "
                   "in the config", hint=hint, key=key)


def _elsewhere(tree: dict, key: str) -> str | None:
    """A leaf with the same name elsewhere whose full path is close (a key placed in the wrong section)."""
    last = key.rpartition(".")[2]
    paths = [p for p, _ in leaves(tree, "") if p.rpartition(".")[2] == last]
    close = difflib.get_close_matches(key, paths, n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None
