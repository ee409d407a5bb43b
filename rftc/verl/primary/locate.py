"""Which primary config a launch composes: --config-path / --config-name read as Hydra reads them, and what the
entry module's @hydra.main names where the launch names nothing.

A relative --config-path is relative to the entry module's directory, so `config` (or `./config`) with
verl.trainer.main_ppo is verl's own config folder: the bundled schemas, or the config folder of the veRL
checkout the launch imports (rftc.verl.checkout; another folder of that checkout is found below its package).
Any other directory (absolute, or a recipe's own `config`) is read from disk (rftc.verl.primary.files).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from rftc.diagnostics.collector import Diagnostics
from rftc.shell.invocation import Arg, Invocation
from rftc.verl.checkout.modules import up_to_repository
from rftc.verl.overrides.text import OVERRIDES_LAUNCHER
from rftc.verl.primary.defaults import compose_file
from rftc.verl.primary.files import Primary, display
from rftc.verl.trainers import RECIPE_CONFIG_PATH, RECIPES, entry_of

BUNDLED_DIRS = {"verl/trainer/config", "verl/experimental/fully_async_policy/config",
                "verl/experimental/one_step_off_policy/config"}
_SYMBOLIC = re.compile(r"\$\{oc\.env:[^}]*\}|\$\([^)]*\)")


def _arg_text(arg: Arg | None) -> str | None:
    return None if arg is None else arg.text


def locate(inv: Invocation, bundled: set[str], diags: Diagnostics, *, root: Path | None = None,
           where: str = "verl's config folder", any_group: bool = False) -> Primary | None:
    """Find the primary config of ``inv``; ``bundled`` is the set of config names verl's config folders have
    (``where``): the bundled schemas', or those of the checkout whose package directory is below ``root``.
    ``any_group``: the files' config group choices are all composed (Hydra has the folder), not only
    model_engine's. What the launch does not name, the entry module's @hydra.main does (``_Defaults``)."""
    if inv.fork is not None and inv.fork.plan is not None:  # a fork main without Hydra: what its code composes
        from rftc.verl.primary import loaded

        return loaded.primary(inv, diags)
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
    checkout's own copy's (rftc.verl.primary.hydra_main) when it is there and readable."""

    name: str | None  # config_name
    path: str | None  # config_path, relative to the module (None: its trainer's config folder)
    named_by: str = ""  # the checkout's module that names them ("file:line")
    assumed: str = ""  # why the checkout's module could not say: the values are upstream's


def _defaults(inv: Invocation, entry: tuple[str, str] | None, root: Path | None) -> _Defaults:
    if inv.fork is not None:  # a fork's own entry module: what its @hydra.main declares
        return _Defaults(inv.fork.config_name, inv.fork.config_path, named_by=inv.fork.named_by)
    path = RECIPE_CONFIG_PATH if inv.module in RECIPES else None  # a recipe's config folder is beside it
    if entry is None or root is None:
        return _Defaults(entry[1] if entry else None, path)
    from rftc.verl.primary import hydra_main

    file = hydra_main.module_file(root, inv.module)
    own = hydra_main.declared(file)
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
    # relative to the entry module, as Hydra reads --config-path (--config-dir is from the working directory)
    relative = not raw.startswith("/") and not _SYMBOLIC.search(raw) and not inv.config_dir
    if inv.fork is not None and relative:  # Hydra: relative to the entry module's file
        folder = Path(inv.fork.file).parent
        directory = Path(os.path.normpath(folder / raw))
        if not directory.is_dir():
            diags.add("RFTC210", f"cannot find the config directory '{raw}' of this launch: Hydra looks for it "
                      f"beside the entry module {display(Path(inv.fork.file))}, in {display(directory)}", span,
                      hint="fix --config-path (an absolute path is read as written)")
            return None
    elif entry is not None and relative:
        rel = _normalize(str(PurePosixPath(entry[0]) / raw))
        if rel in BUNDLED_DIRS:
            return _bundled(name or own.name, bundled, inv.config_name or span, diags, where)
        if root is not None and (root / rel).is_dir():
            directory = root / rel  # relative to the entry module in the checkout
        elif (rel == "verl" or rel.startswith("verl/")) and inv.launcher != OVERRIDES_LAUNCHER:
            # inside the verl package (override text has no module: its paths are from here)
            _outside_verl(inv, raw, rel, name or own.name, root, entry[0], span, diags)
            return None
    if _normalize(_SYMBOLIC.sub("", raw)).endswith("verl/trainer/config"):
        return _bundled(name or own.name or "ppo_trainer", bundled, span, diags, where)
    if directory is None:
        directory = _find_dir(inv, raw)
        if directory is not None and raw.startswith("/") and not _SYMBOLIC.search(raw) and directory != Path(raw):
            diags.add("RFTC236", f"the config directory '{raw}' is not on this machine (a container's or another "
                      f"machine's path); composed its tail found in the repository, {display(directory)}", span,
                      hint=f"check that {display(directory)} is the folder the job mounts at {raw}")
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
    if not compose_file(directory, name, primary, bundled, inv.config_name or span, diags, any_group):
        return None
    return primary


def _outside_verl(inv: Invocation, raw: str, rel: str, name: str, root: Path | None, module_dir: str, span,
                  diags: Diagnostics) -> None:
    """A relative --config-path that Hydra reads in the verl package, where the config is not: the entry module's
    own folder has no such config (RFTC209, as Hydra's 'Cannot find primary config'), any other folder is not there
    (RFTC210, as Hydra's 'Primary config directory not found')."""
    shown = f"{root / rel}/" if root is not None else f"{rel}/"
    where = f"--config-path '{raw}' is relative to the folder of the entry module {inv.module}, where Hydra looks"
    hint = "to name a folder beside the script, give its absolute path (--config-path=$PWD/...)"
    if rel == module_dir:
        diags.add("RFTC209", f"no config named '{name}' in {shown}: {where} for it", span, hint=hint)
        return
    via = inv.config_path.via if inv.config_path is not None else ()
    notes = tuple(f"its value is set at {os.path.basename(v.file)}:{v.line}" for v in via[:2])
    diags.add("RFTC210", f"cannot find the config directory '{raw}' of this launch: {where} for it, in {shown}",
              span, hint=hint, notes=notes)


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
    the launch's cwd and the script's folder and their parents (the repository root the script runs from). An
    absolute path that is not here (a container's `/workspace/<repo>/cfg`, the author's home folder) is looked
    up by its tails, the longest first; the shorter ones only up to the repository's root, not in the folders
    around it."""
    if not _SYMBOLIC.search(raw) and raw.startswith("/") and Path(raw).is_dir():
        return Path(raw)
    tail = _SYMBOLIC.split(raw)[-1].lstrip("/")
    module_dir = "/".join(inv.module.split(".")[:-1]) if inv.module else ""
    starts = [Path(inv.cwd)] if inv.cwd else []
    if inv.script and inv.script not in ("-", "<stdin>"):
        starts.append(Path(inv.script).resolve().parent)
    bases = [base for start in starts for base in (start, *start.parents)]
    if _SYMBOLIC.search(raw) or not raw.startswith("/"):
        candidates = [tail] if _SYMBOLIC.search(raw) else [f"{module_dir}/{tail}", tail]
        return next((base / c for base in bases for c in candidates if c and (base / c).is_dir()), None)
    parts = [p for p in tail.split("/") if p not in ("", ".")]
    found = next((base / tail for base in bases if parts and (base / tail).is_dir()), None)
    if found is None:
        repo = [b for start in starts for b in up_to_repository(start)]
        shorter = ["/".join(parts[i:]) for i in range(1, len(parts))]
        found = next((b / t for t in shorter for b in repo if (b / t).is_dir()), None)
    return found
