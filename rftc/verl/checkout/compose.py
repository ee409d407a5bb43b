"""The effective config of a launch that imports a veRL checkout or fork (rftc.verl.checkout.find): its own config
folder composed by hydra-core (rftc.verl.checkout.config_folder), the launch's other overrides applied as on a
bundled release; the release it is (rftc.verl.checkout.upstream), the keys it adds, and the values its config
sets that upstream's does not (changed defaults, the launch's group choices), which the mapping must write as the
launch's."""

from __future__ import annotations

import copy
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from rftc.diagnostics.collector import Diagnostics
from rftc.shell.invocation import Invocation
from rftc.verl.checkout import upstream
from rftc.verl.checkout.config_folder import ComposeError, Composed, FolderSchema
from rftc.verl.effective import EffectiveConfig, Provenance
from rftc.verl.overrides.apply import Applied, apply, chosen, leaves
from rftc.verl.overrides.parse import Override
from rftc.verl.overrides.resolve import InterpolationError, Resolver, has_interpolation
from rftc.verl.primary.files import layered
from rftc.verl.releases import schema


def compose(inv: Invocation, folder: FolderSchema, primary, config_ovs: list[Override], group_ovs: list[Override],
            diags: Diagnostics) -> tuple[Applied, EffectiveConfig] | None:
    """Compose against a checkout's own config folder: Hydra composes the base config under every config group
    choice (its config files' and the launch's), then the other overrides apply as on a bundled release. Returns
    the composed tree and the EffectiveConfig its values go to (not yet resolved)."""
    source = folder.source
    base = None
    if primary.base is not None:
        try:
            base = folder.compose(primary.base, (*primary.group_choices, *(o.text for o in group_ovs)))
        except ComposeError as exc:
            culprit = next((o for o in group_ovs if o.text == exc.override), None)
            if culprit is not None:
                diags.add("RFTC207", f"'{culprit.text}': Hydra cannot compose this choice: {exc}", culprit.arg.span,
                          key=culprit.key, hint=f"the config groups in {source.display()}: "
                          f"{', '.join(sorted(folder.groups)) or 'none'}")
            else:
                diags.add("RFTC211", f"Hydra cannot compose '{primary.base}' from {source.display()}: {exc}",
                          inv.span, hint="fix the config folder, or name another veRL with --verl-source DIR")
            return None
    base_tree = base.tree if base is not None else None
    base_keys = base.keys if base is not None else frozenset()
    # which release the checkout is: the keys of its ppo_trainer (else of the config composed)
    rel = upstream.identify(source.package, _config_keys(folder, "ppo_trainer") or base_keys)
    applied = Applied({})
    layered(applied, primary, base_tree)
    if base is not None:
        if group_ovs:
            chosen(applied, base_tree, folder.compose(primary.base, tuple(primary.group_choices)).tree, group_ovs)
        if primary.base in schema.load(rel.upstream).configs:
            _changed_defaults(applied, base, rel.upstream, primary.base, lambda: folder.positions(primary.base, base))
    found = Diagnostics()
    apply(applied.tree, config_ovs, found, applied=applied)
    if primary.assumed and any(d.code == "RFTC203" for d in found):  # keys it lacks (a `+` clash is Hydra's)
        fit = _only_fit(folder, primary.base, config_ovs, group_ovs)
        if fit is not None:
            keys = sorted({d.key for d in found if d.code == "RFTC203" and d.key})
            lacking = ", ".join(keys[:4]) + (f" and {len(keys) - 4} more" if len(keys) > 4 else "")
            diags.add("RFTC231", f"composed '{fit}', the only config of the veRL at {source.display()} that has "
                      f"every key the launch sets ('{primary.base}' lacks {lacking}): {primary.assumed}, so the "
                      "config its @hydra.main names is not known", inv.span,
                      hint=f"name it with --config-name {fit} (or run rftc in the whole checkout)")
            named = replace(primary, base=fit, name=fit, assumed="")
            return compose(inv, folder, named, config_ovs, group_ovs, diags)
    diags.extend(_in_other_config(folder, primary.base, d) if d.code == "RFTC203" else d for d in found)
    added = _fork_keys(base_keys)
    choices = "".join(f", {o.text}" for o in group_ovs)
    named = f" (named by {primary.named_by}'s @hydra.main)" if primary.named_by else ""
    diags.add("RFTC230", f"composed '{primary.name}{choices}'{named} from the config of the veRL at "
              f"{source.display()} ({source.how}): {rel.describe()}", inv.span, notes=_fork_notes(added, applied))
    eff = EffectiveConfig(rel.upstream, primary.name + (f" ({choices[2:]})" if choices else ""), {}, {}, inv,
                          rel.describe(), release=rel.release, source=source.display(), fork_keys=added)
    return applied, eff


def _changed_defaults(applied: Applied, base: Composed, version: str, config_name: str, positions) -> None:
    """A checkout's default that differs from its release's upstream default (resolved) is set by the checkout's
    config, at the line of its YAML file that sets it: the mapping writes it, as it writes what a launch sets, and
    Trinity does not fall back to upstream's value. A `_target_` is not a setting: it names the class veRL's code
    builds the section as, and classes move between a snapshot and its release."""
    mine, theirs, where = Resolver(base.tree), Resolver(schema.load(version).tree(config_name)), None
    up = _upstream_leaves(version, config_name)
    for key, value in base.leaf_values.items():
        if key in applied.provenance or key not in up or up[key] == value or key.rsplit(".", 1)[-1] == "_target_":
            continue
        try:
            changed = (mine.resolve_key(key) if has_interpolation(value) else value) != (
                theirs.resolve_key(key) if has_interpolation(up[key]) else up[key])
        except InterpolationError:
            continue
        if changed:
            where = where if where is not None else positions()
            span = where.get(key)
            applied.provenance[key] = Provenance("config-file", span, f"{Path(span.file).name if span else 'config'}"
                                                 f": {key}")


@lru_cache(maxsize=None)
def _upstream_leaves(version: str, config_name: str) -> dict:
    return dict(leaves(schema.load(version).tree(config_name), ""))


def _only_fit(folder: FolderSchema, base: str | None, config_ovs: list[Override], group_ovs: list[Override]):
    """The one config of the checkout, other than ``base``, on which every override of the launch applies (its
    keys exist, its `+` keys do not); None when none or several do."""
    fits = []
    for name in sorted(folder.configs):
        if name == base:
            continue
        try:
            tree = folder.compose(name, tuple(o.text for o in group_ovs)).tree
        except (KeyError, ComposeError):
            continue
        trial = Diagnostics()
        apply(copy.deepcopy(tree), config_ovs, trial)
        if not any(d.code in ("RFTC203", "RFTC204") for d in trial):  # a key it lacks; a `+` on a key it has
            fits.append(name)
    return fits[0] if len(fits) == 1 else None


def _in_other_config(folder: FolderSchema, base: str | None, d):
    """RFTC203 with a hint naming another config of the checkout that has the key (a launch that forgot its
    --config-name): of those, the one closest to the config composed."""
    mine = _config_keys(folder, base) if base else frozenset()
    having = [(len(keys & mine), name) for name in folder.configs if name != base
              and d.key in (keys := _config_keys(folder, name))]
    if not having:
        return d
    name = max(having)[1]
    return replace(d, hint=f"'{d.key}' is in the config '{name}' of {folder.source.display()}: launch it with "
                   f"--config-name {name}")


def _config_keys(folder: FolderSchema, name: str) -> frozenset[str]:
    """The keys of a config of the checkout composed with its default choices (none when it does not compose)."""
    try:
        return folder.compose(name).keys
    except (KeyError, ComposeError):
        return frozenset()


def _fork_keys(keys: frozenset[str]) -> frozenset[str]:
    """The leaves among a config's ``keys`` no upstream release's config has: the keys a fork adds."""
    added = keys - upstream.upstream_keys()
    return frozenset(k for k in added if not any(p.startswith(k + ".") for p in added))


def _fork_notes(fork_keys: frozenset[str], applied: Applied) -> tuple[str, ...]:
    if not fork_keys:
        return ("every key of its config is in an upstream release's config",)
    unset = sorted(k for k in fork_keys if not ((p := applied.provenance.get(k)) and p.user_set))
    shown = ", ".join(unset[:12]) + (f", ... ({len(unset)} in all)" if len(unset) > 12 else "")
    return (f"its config adds {len(fork_keys)} key(s) no upstream release has"
            + (f"; the launch leaves these at the fork's defaults: {shown}" if unset else ""),)
