"""Where a launch's primary config comes from: --config-path / --config-name read as Hydra reads them.

A relative --config-path is relative to the entry module's directory, so `config` (or `./config`) with
verl.trainer.main_ppo is verl's own config folder: the bundled schemas, or the config folder of the veRL
checkout the launch imports (rftc.verl.source; another folder of that checkout is found below its package).
Any other directory (absolute, or a recipe's own `config`) is read from disk: its YAML files are composed with
Hydra's defaults list (`_self_` ordering, group files in the same folder, `ppo_trainer`/`ppo_megatron_trainer`
reached through hydra.searchpath resolving to verl's config folder).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Span
from rftc.shell.invocation import Arg, Invocation
from rftc.verl import entry as entry_module
from rftc.verl.effective import Provenance
from rftc.verl.schema import MISSING
from rftc.verl.trainers import RECIPE_CONFIG_PATH, RECIPES

# Entry module -> (its directory inside the verl package, the config_name its @hydra.main declares).
ENTRY_POINTS = {
    "verl.trainer.main_ppo": ("verl/trainer", "ppo_trainer"),
    "verl.trainer.sft_trainer": ("verl/trainer", "sft_trainer_engine"),
    "verl.experimental.fully_async_policy.fully_async_main": ("verl/experimental/fully_async_policy",
                                                              "fully_async_ppo_trainer"),
    "verl.experimental.one_step_off_policy.main_ppo": ("verl/experimental/one_step_off_policy",
                                                       "one_step_off_ppo_trainer"),
}
BUNDLED_DIRS = {"verl/trainer/config", "verl/experimental/fully_async_policy/config",
                "verl/experimental/one_step_off_policy/config"}
_SYMBOLIC = re.compile(r"\$\{oc\.env:[^}]*\}|\$\([^)]*\)")


def entry_of(module: str | None) -> tuple[str, str] | None:
    """(folder below the sys.path root, config_name) of a verl entry point or a recipe rftc composes; None for
    other modules."""
    return ENTRY_POINTS.get(module) or RECIPES.get(module)


@dataclass
class Layer:
    """A config file's own content, merged in defaults-list order."""

    tree: dict
    positions: dict  # dotted key -> Span of the key in the file
    file: str
    package: str = ""  # where the content goes ("" = the root)


@dataclass
class Primary:
    base: str | None  # bundled config the composition starts from (None: only local files)
    layers: list  # ordered: Layer, or the string "<base>" marking where the bundled config merges
    choice: str | None = None  # model_engine chosen by the config files ("override model_engine: x")
    name: str = ""  # the config name as the user wrote it (for EffectiveConfig.config_name)
    hydra: list = field(default_factory=list)  # hydra: sections of the files (recorded, not applied)
    group_choices: list = field(default_factory=list)  # "override group: option" of the files, as "group=option"
    directory: Path | None = None  # the script-local config directory, when there is one
    named_by: str = ""  # the checkout's entry module that names the config ("file:line"), when it does
    assumed: str = ""  # why the checkout's own entry module could not say: the name is upstream's


def _arg_text(arg: Arg | None) -> str | None:
    return None if arg is None else arg.text


def locate(inv: Invocation, bundled: set[str], diags: Diagnostics, *, root: Path | None = None,
           where: str = "verl's config folder", any_group: bool = False) -> Primary | None:
    """Find the primary config of ``inv``; ``bundled`` is the set of config names verl's config folders have
    (``where``): the bundled schemas', or those of the checkout whose package directory is below ``root``.
    ``any_group``: the files' config group choices are all composed (Hydra has the folder), not only
    model_engine's. What the launch does not name, the entry module's @hydra.main does (``_Defaults``)."""
    entry = entry_of(inv.module)
    name = _arg_text(inv.config_name)
    if name is not None:
        name = name[:-5] if name.endswith(".yaml") else name
        if _SYMBOLIC.search(name):
            diags.add("RFTC210", f"the config name '{name}' is not known statically", inv.config_name.span,
                      hint="pass the variable's value with --env NAME=VALUE (or the script's arguments after --)")
            return None
    own = _defaults(inv, entry, root)
    if own.named_by and name is None:
        where = f"{where} (named by {own.named_by})"
    primary = _locate(inv, entry, name, own, bundled, diags, where, any_group, root)
    if primary is not None and name is None:
        primary.named_by = own.named_by
        primary.assumed = own.assumed if inv.config_path is None else ""
    return primary


@dataclass(frozen=True)
class _Defaults:
    """What the entry module's @hydra.main gives where the launch names nothing: upstream's module's, or the
    checkout's own copy's (rftc.verl.entry) when it is there and readable."""

    name: str | None  # config_name
    path: str | None  # config_path, relative to the module (None: its trainer's config folder)
    named_by: str = ""  # the checkout's module that names them ("file:line")
    assumed: str = ""  # why the checkout's module could not say: the values are upstream's


def _defaults(inv: Invocation, entry: tuple[str, str] | None, root: Path | None) -> _Defaults:
    path = RECIPE_CONFIG_PATH if inv.module in RECIPES else None  # a recipe's config folder is beside it
    if entry is None or root is None:
        return _Defaults(entry[1] if entry else None, path)
    file = entry_module.module_file(root, inv.module)
    own = entry_module.declared(file)
    shown = str(file.relative_to(root))  # as the veRL it is in names its files
    if own is None or not own.literal or not own.config_name:
        why = (f"the checkout has no {shown}" if not file.is_file() else
               f"{shown} has no @hydra.main rftc can read" if own is None or not own.literal else
               f"{shown}'s @hydra.main names no config")
        return _Defaults(entry[1], path, assumed=why)
    return _Defaults(own.config_name, own.config_path, named_by=f"{shown}:{own.line}")


def _locate(inv: Invocation, entry: tuple[str, str] | None, name: str | None, own: _Defaults, bundled: set[str],
            diags: Diagnostics, where: str, any_group: bool, root: Path | None) -> Primary | None:
    path_arg = inv.config_path
    if path_arg is None and own.path is None:
        if entry is None:
            return None  # an entry point without a bundled config and no --config-name: nothing to compose
        return _bundled(name or own.name, bundled, inv.config_name or inv.span, diags, where)
    raw, span = (path_arg.text, path_arg.span) if path_arg is not None else (own.path, inv.span)
    directory = None
    if entry is not None and not raw.startswith("/") and not _SYMBOLIC.search(raw):
        rel = str(PurePosixPath(entry[0]) / raw)
        if _normalize(rel) in BUNDLED_DIRS:
            return _bundled(name or own.name, bundled, inv.config_name or span, diags, where)
        if root is not None and (root / _normalize(rel)).is_dir():
            directory = root / _normalize(rel)  # relative to the entry module in the checkout
    if _normalize(_SYMBOLIC.sub("", raw)).endswith("verl/trainer/config"):
        return _bundled(name or own.name or "ppo_trainer", bundled, span, diags, where)
    directory = directory or _find_dir(inv, raw)
    if directory is None:
        # a path the script spells out (BASEDIR=base_dir) is not changed by --env: the script's assignment wins
        hint = ("pass the values of the variables it uses with --env NAME=VALUE, or run rftc where the directory "
                "exists" if _SYMBOLIC.search(raw) else "it is not under the launch's directory, the script's "
                "folder or their parents: fix the path in the script (a placeholder?), or run rftc where it exists")
        via = path_arg.via if path_arg is not None else ()
        notes = tuple(f"its value is set at {os.path.basename(v.file)}:{v.line}" for v in via[:2])
        if path_arg is None and inv.module in RECIPES:  # the recipe's own folder, beside the verl package
            raw = f"{entry[0]}/{raw}"
            hint = ("the recipe is not in the verl wheels: run rftc in the veRL checkout the job runs from "
                    "(--cwd DIR), or name it with --verl-source DIR")
        diags.add("RFTC210", f"cannot find the config directory '{raw}' of this launch", span, hint=hint,
                  notes=notes)
        return None
    name = name or own.name
    if name is None:
        return None  # the entry point's own config name is not known
    primary = Primary(None, [], name=name, directory=directory)
    if not _compose_file(directory, name, "", primary, bundled, inv.config_name or span, diags, True, any_group):
        return None
    return primary


def _normalize(p: str) -> str:
    parts: list[str] = []
    for seg in p.split("/"):
        if seg in ("", "."):
            continue
        if seg == ".." and parts:
            parts.pop()
        else:
            parts.append(seg)
    return "/".join(parts)


def _bundled(name: str, bundled: set[str], span_of, diags: Diagnostics, where: str) -> Primary | None:
    if name not in bundled:
        span = span_of.span if isinstance(span_of, Arg) else span_of
        diags.add("RFTC209", f"no config named '{name}' in {where}", span,
                  hint=f"known: {', '.join(sorted(bundled))}")
        return None
    return Primary(name, ["<base>"], name=name)


def _find_dir(inv: Invocation, raw: str) -> Path | None:
    """The directory on disk: as written when absolute and present; else its literal tail looked up from
    the launch's cwd and the script's folder and their parents (the repository root the script runs from)."""
    if not _SYMBOLIC.search(raw) and raw.startswith("/") and Path(raw).is_dir():
        return Path(raw)
    tail = _SYMBOLIC.split(raw)[-1].lstrip("/")
    module_dir = "/".join(inv.module.split(".")[:-1]) if inv.module else ""
    candidates = [tail] if _SYMBOLIC.search(raw) or raw.startswith("/") else [f"{module_dir}/{tail}", tail]
    starts = [Path(inv.cwd)] if inv.cwd else []
    if inv.script and inv.script not in ("-", "<stdin>"):
        starts.append(Path(inv.script).resolve().parent)
    for start in starts:
        for base in (start, *start.parents):
            for c in candidates:
                if c and (base / c).is_dir():
                    return base / c
    return None


def _display(path: Path) -> str:
    """The path relative to the working directory when it is below it (stable in messages)."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def load_yaml(path: Path, diags: Diagnostics, span: Span) -> tuple[dict, dict] | None:
    import yaml
    from omegaconf._utils import get_yaml_loader

    shown = _display(path)
    try:
        text = path.read_text(encoding="utf-8")
        loader = get_yaml_loader()
        data = yaml.load(text, Loader=loader)
        node = yaml.compose(text, Loader=loader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = Span(shown, mark.line + 1, mark.column + 1) if mark else span
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        diags.add("RFTC211", f"cannot read the config file {shown}: {problem}", where)
        return None
    if data is None:
        return {}, {}
    if not isinstance(data, dict):
        diags.add("RFTC211", f"the config file {shown} is not a mapping", Span(shown, 1, 1))
        return None
    positions: dict[str, Span] = {}
    _positions(node, "", shown, positions)
    return data, positions


def _positions(node, prefix: str, file: str, out: dict) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            key = f"{prefix}.{k.value}" if prefix else str(k.value)
            m, e = k.start_mark, k.end_mark
            out[key] = Span(file, m.line + 1, m.column + 1, e.line + 1, e.column + 1)
            _positions(v, key, file, out)


def _compose_file(directory: Path, name: str, package: str, primary: Primary, bundled: set[str],
                  span_of, diags: Diagnostics, is_primary: bool, any_group: bool = False) -> bool:
    path = directory / f"{name}.yaml"
    span = span_of.span if isinstance(span_of, Arg) else span_of
    if not path.is_file():
        if is_primary or name not in bundled:
            diags.add("RFTC209" if is_primary else "RFTC211",
                      f"no config named '{name}' in {_display(directory)}", span,
                      hint="check --config-name and --config-path" if is_primary else None)
            return False
    loaded = load_yaml(path, diags, span)
    if loaded is None:
        return False
    data, positions = loaded
    defaults = data.pop("defaults", [])
    if "hydra" in data:
        primary.hydra.append((str(path), data.pop("hydra")))
    if not isinstance(defaults, list):
        diags.add("RFTC211", f"'defaults' in {path.name} must be a list", positions.get("defaults", span))
        return False
    own = Layer(data, {k: v for k, v in positions.items() if not k.startswith(("defaults", "hydra"))},
                str(path), package)
    if "_self_" not in defaults:
        defaults = [*defaults, "_self_"]
    where = positions.get("defaults", span)
    for entry in defaults:
        if entry == "_self_":
            primary.layers.append(own)
        elif isinstance(entry, str):
            target = entry.lstrip("/")
            if (directory / f"{target}.yaml").is_file():
                if not _compose_file(directory, target, package, primary, bundled, where, diags, False, any_group):
                    return False
            elif target in bundled and primary.base is None and not package:
                primary.base = target
                primary.layers.append("<base>")
            else:
                diags.add("RFTC211", f"{path.name}: the defaults entry '{entry}' names no config rftc can find",
                          where)
                return False
        elif isinstance(entry, dict) and len(entry) == 1:
            (group, option), = entry.items()
            group = str(group)
            if group.startswith("override "):
                gname = group[len("override "):].strip()
                if any_group and isinstance(option, str):
                    primary.group_choices.append(f"{gname}={option}")
                    continue
                if gname == "model_engine" and isinstance(option, str):
                    primary.choice = option
                    continue
                diags.add("RFTC207", f"{path.name}: 'override {gname}' is a config group choice rftc cannot "
                          "compose", where)
                return False
            gname, _, pkg = group.partition("@")
            gdir = directory / gname.lstrip("/")
            if option is None or not (gdir / f"{option}.yaml").is_file():
                diags.add("RFTC211", f"{path.name}: the defaults entry '{group}: {option}' names no file in "
                          f"{_display(directory)}", where)
                return False
            target_pkg = pkg or gname.lstrip("/").replace("/", ".")
            full_pkg = f"{package}.{target_pkg}" if package else target_pkg
            if not _compose_file(gdir, str(option), full_pkg, primary, bundled, where, diags, False, any_group):
                return False
        else:
            diags.add("RFTC211", f"{path.name}: unsupported defaults entry {entry!r}", where)
            return False
    return True


def layered(applied, primary: Primary, base_tree: dict | None) -> None:
    """The primary config's layers in defaults-list order: the composed base config and the launch's own files."""
    tree = applied.tree
    for layer in primary.layers:
        if layer == "<base>":
            base = _copy(base_tree)
            if not tree:
                tree.update(base)
            else:
                merge_layer(tree, Layer(base, {}, "<base>"), {})
        else:
            merge_layer(tree, layer, applied.provenance)


def merge_layer(tree: dict, layer: Layer, provenance: dict) -> None:
    """Merge a config file's content (OmegaConf.merge: dicts merge, anything else replaces; new keys allowed)."""
    from rftc.verl.apply import leaves

    dest = tree
    if layer.package:
        for part in layer.package.split("."):
            if not isinstance(dest.get(part), dict):
                dest[part] = {}
            dest = dest[part]

    def merge(d: dict, s: dict, prefix: str):
        for k, v in s.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(d.get(k), dict) and isinstance(v, dict):
                merge(d[k], v, key)
                continue
            if v == MISSING and k in d:
                continue  # OmegaConf's merge keeps the existing value over a mandatory marker
            d[k] = _copy(v)
            full = f"{layer.package}.{key}" if layer.package else key
            for gone in [p for p in provenance if p == full or p.startswith(full + ".")]:
                del provenance[gone]
            for leaf, _ in leaves(v, full):
                rel = leaf[len(layer.package) + 1:] if layer.package else leaf
                provenance[leaf] = Provenance("config-file", layer.positions.get(rel) or layer.positions.get(key),
                                              f"{Path(layer.file).name}: {rel}")

    merge(dest, layer.tree, "")


def _copy(v):
    from rftc.verl.apply import copy_tree

    return copy_tree(v)
