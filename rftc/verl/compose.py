"""The effective veRL config of one launch: primary config + overrides, composed as Hydra would, with the
provenance of every value."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rftc.diagnostics.model import Diagnostics, Span
from rftc.shell.invocation import Invocation
from rftc.verl import configdir, legacy, release, schema, source as sources, version as versions
from rftc.verl.apply import Applied, apply, copy_tree, leaves, provenance_of
from rftc.verl.effective import EffectiveConfig, Provenance
from rftc.verl.folder import ComposeError, FolderSchema
from rftc.verl.overrides import Override, parse
from rftc.verl.resolve import InterpolationError, Resolver, has_interpolation
from rftc.verl.source import VerlSource

# Mandatory keys ("???") verl reads on every main_ppo run; others (e.g. the reward model's rollout name) are
# read only when their feature is on.
MANDATORY_READ = ("actor_rollout_ref.rollout.name",)


def effective_config(inv: Invocation, *, verl_version: str | None = None, source: VerlSource | str | None = None,
                     diags: Diagnostics) -> EffectiveConfig | None:
    """Compose ``inv``'s effective config; diagnostics go to ``diags``; None when it cannot be composed.

    ``source``: the veRL checkout whose own config the launch composes (rftc.verl.source); None looks for the one
    the launch imports, "bundled" (or a ``verl_version``) composes against the bundled releases."""
    bundled_versions = schema.versions()
    if verl_version is not None and verl_version not in bundled_versions:
        diags.add("RFTC213", f"no bundled schema for verl {verl_version}",
                  hint=f"bundled versions: {', '.join(bundled_versions)}")
        return None
    if source is None and verl_version is None:
        source = sources.find(inv)
    folder = FolderSchema.of(source) if isinstance(source, VerlSource) else None
    if folder is not None:
        names, groups = set(folder.configs), folder.groups
        primary = configdir.locate(inv, names, diags, root=source.root, where=source.display(), any_group=True)
    else:
        names = set().union(*(schema.load(v).configs for v in bundled_versions))
        groups = set().union(*(schema.load(v).groups for v in bundled_versions))
        primary = configdir.locate(inv, names, diags)
    config_ovs, group_ovs = _split(inv, groups, diags)
    if primary is None:
        return None
    if folder is not None:
        return _from_folder(inv, folder, primary, config_ovs, group_ovs, diags)

    candidates = [verl_version] if verl_version else list(bundled_versions)
    best, tried = versions.choose(
        candidates, lambda v: _compose(v, primary, config_ovs, group_ovs, auto=verl_version is None)
        if primary.base is None or primary.base in schema.load(v).configs else None)
    if best is None:
        where = f"verl {verl_version}" if verl_version else "any bundled verl version"
        diags.add("RFTC209", f"{where} has no config named '{primary.base}'", inv.span)
        return None
    v, (applied, choice) = best.version, best.result
    diags.extend(replace(d, notes=(*d.notes, FORK_NOTE)) if d.code == "RFTC203" else d for d in best.diags)
    note = versions.note(best, tried, explicit=verl_version is not None)
    if not verl_version and v != bundled_versions[0]:
        diags.add("RFTC219", note, inv.span)
    config_name = primary.name + (f" (model_engine={choice})" if choice and choice != _default_choice(
        v, primary) else "")
    return _finish(inv, applied, diags, EffectiveConfig(v, config_name, {}, {}, inv, note))


# A key no bundled release has may be a fork's own (RFTC203's note on a bundled release).
FORK_NOTE = ("a fork or checkout of veRL with this key in its own config is composed when rftc runs from its "
             "directory or is given --verl-source DIR")


def _split(inv: Invocation, groups, diags: Diagnostics) -> tuple[list[Override], list[Override]]:
    """The launch's overrides parsed: (config overrides, config group overrides); Hydra's own are reported."""
    parsed = [p for p in (parse(a, diags) for a in inv.overrides) if p is not None]
    config_ovs, group_ovs = [], []
    for o in parsed:
        if o.kind == "hydra":
            diags.add("RFTC208", f"'{o.text}' configures Hydra itself; it is not part of the veRL config",
                      o.arg.span, key=o.key)
        elif o.kind == "group" or o.key in groups:
            group_ovs.append(o)
        else:
            config_ovs.append(o)
    _report_duplicates(config_ovs + group_ovs, diags)
    return config_ovs, group_ovs


def _finish(inv: Invocation, applied: Applied, diags: Diagnostics, eff: EffectiveConfig) -> EffectiveConfig:
    """Resolve the composed tree into ``eff``, with the checks every composed config gets."""
    eff.values, eff.provenance = _resolve(applied, diags, inv)
    if inv.module in configdir.ENTRY_POINTS:
        for key in MANDATORY_READ:
            if _get(eff.values, key) == schema.MISSING:
                diags.add("RFTC217", f"'{key}' is mandatory in the veRL config and the launch does not set it",
                          inv.span, key=key, hint=f"add {key}=<value>")
    if legacy.ignores_legacy(inv.module, eff.release):
        legacy.report(eff.provenance, eff.release, diags)
    return eff


def _from_folder(inv: Invocation, folder: FolderSchema, primary, config_ovs: list[Override],
                 group_ovs: list[Override], diags: Diagnostics) -> EffectiveConfig | None:
    """Compose against a checkout's own config folder: Hydra composes the base config under every config group
    choice (its config files' and the launch's), then the other overrides apply as on a bundled release."""
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
    # which release the checkout is: the keys of its ppo_trainer (else of the config composed)
    rel = release.identify(source.package, _config_keys(folder, "ppo_trainer") or release.paths(base_tree or {}))
    applied = Applied({})
    _layer(applied, primary, base_tree)
    if base is not None:
        if group_ovs:
            _chosen(applied, base_tree, folder.compose(primary.base, tuple(primary.group_choices)).tree, group_ovs)
        if rel.release in schema.versions() and primary.base in schema.load(rel.release).configs:
            _changed_defaults(applied, base_tree, schema.load(rel.release).tree(primary.base),
                              lambda: folder.positions(primary.base, base))
    found = Diagnostics()
    apply(applied.tree, config_ovs, found, applied=applied)
    diags.extend(_in_other_config(folder, primary.base, d) if d.code == "RFTC203" else d for d in found)
    added = _fork_keys(base_tree or {})
    choices = "".join(f", {o.text}" for o in group_ovs)
    diags.add("RFTC230", f"composed '{primary.name}{choices}' from the config of the veRL at {source.display()} "
              f"({source.how}): {rel.describe()}", inv.span, notes=_fork_notes(added, applied))
    eff = EffectiveConfig(rel.release, primary.name + (f" ({choices[2:]})" if choices else ""), {}, {}, inv,
                          rel.describe(), release=rel.release, source=source.display(), fork_keys=added)
    return _finish(inv, applied, diags, eff)


def _chosen(applied: Applied, chosen: dict, default: dict, group_ovs: list[Override]) -> None:
    """The values the launch's group choices bring (those that differ from the config's default choices) are the
    launch's own: their provenance is the group override whose package holds them."""
    before = dict(leaves(default, ""))
    for key, value in leaves(chosen, ""):
        if key in applied.provenance or (key in before and before[key] == value):
            continue
        owner = max(reversed(group_ovs), key=lambda o: len(o.package or "") if key.startswith(f"{o.package}.") or
                    key == o.key else -1)
        applied.provenance[key] = provenance_of(owner)


def _changed_defaults(applied: Applied, tree: dict, upstream: dict, positions) -> None:
    """A checkout's default that differs from its release's upstream default (resolved) is set by the checkout's
    config, at the line of its YAML file that sets it: the mapping writes it, as it writes what a launch sets, and
    Trinity does not fall back to upstream's value."""
    mine, theirs, where = Resolver(tree), Resolver(upstream), None
    up = dict(leaves(upstream, ""))
    for key, value in leaves(tree, ""):
        if key in applied.provenance or key not in up or up[key] == value:
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
        return release.paths(folder.compose(name).tree)
    except (KeyError, ComposeError):
        return frozenset()


def _fork_keys(tree: dict) -> frozenset[str]:
    """The leaves of ``tree`` no upstream release's config has: the keys a fork adds."""
    added = release.paths(tree) - release.upstream_keys()
    return frozenset(k for k in added if not any(p.startswith(k + ".") for p in added))


def _fork_notes(fork_keys: frozenset[str], applied: Applied) -> tuple[str, ...]:
    if not fork_keys:
        return ("every key of its config is in an upstream release's config",)
    unset = sorted(k for k in fork_keys if not ((p := applied.provenance.get(k)) and p.user_set))
    shown = ", ".join(unset[:12]) + (f", ... ({len(unset)} in all)" if len(unset) > 12 else "")
    return (f"its config adds {len(fork_keys)} key(s) no upstream release has"
            + (f"; the launch leaves these at the fork's defaults: {shown}" if unset else ""),)


def _default_choice(version: str, primary) -> str | None:
    if primary.base is None:
        return None
    return schema.load(version).tree(primary.base).get(schema.SWITCHABLE_GROUP)


def _compose(version: str, primary, config_ovs: list[Override], group_ovs: list[Override], *,
             auto: bool = False) -> versions.Attempt:
    """Compose under one version; the attempt's result is (Applied, model_engine choice). When rftc chooses the
    version (``auto``), an override of a removed key that changes nothing there is dropped with RFTC220; under a
    version the user names, it is the error Hydra gives."""
    sch = schema.load(version)
    diags = Diagnostics()
    rejected: list[str] = []
    choice = primary.choice
    for o in group_ovs:
        if o.kind not in ("group", "delete") and o.key == schema.SWITCHABLE_GROUP and isinstance(o.value, str):
            choice = o.value
    current = sch.current_choices(primary.base, choice) if primary.base in sch.configs else {}
    for o in group_ovs:
        if o.kind not in ("group", "delete") and o.key == schema.SWITCHABLE_GROUP and isinstance(o.value, str):
            continue
        what = f"{o.key}@{o.package}" if o.package else o.key
        if o.kind != "delete" and what in current and current[what] == o.value:
            continue  # the option the config already uses: composing it again changes nothing
        rejected.append(o.key)
        action = "removes the config group" if o.kind == "delete" else "chooses a file of the config group"
        diags.add("RFTC207", f"'{o.text}' {action} '{what}', which rftc cannot compose", o.arg.span, key=o.key,
                  hint=f"on a bundled release rftc composes the choices of '{schema.SWITCHABLE_GROUP}' and the "
                  "options a config already uses; name the config folder of the verl the job runs with "
                  "--verl-source DIR and Hydra composes any choice")
    base_tree = None
    if primary.base is not None:
        base_tree = sch.tree(primary.base, choice) if choice else sch.tree(primary.base)
        if base_tree is None:
            rejected.append(schema.SWITCHABLE_GROUP)
            options = sch.choices(primary.base)
            span = next((o.arg.span for o in group_ovs if o.key == schema.SWITCHABLE_GROUP), None)
            diags.add("RFTC207", f"verl {version} has no {schema.SWITCHABLE_GROUP} '{choice}' for "
                      f"{primary.base}", span, key=schema.SWITCHABLE_GROUP,
                      hint=f"options: {', '.join(options)}" if options else
                      f"{primary.base} in verl {version} has no {schema.SWITCHABLE_GROUP} group")
            base_tree = sch.tree(primary.base)
    applied = Applied({})
    _layer(applied, primary, base_tree)
    hint = retired = None
    if primary.base is not None:
        def hint(key: str, _v=version, _b=primary.base, _c=choice):
            return versions.elsewhere(key, _v, _b, _c)
        if auto:
            def retired(key: str, value, _v=version, _b=primary.base, _c=choice):
                return versions.retired(key, value, _v, _b, _c)
    engine = [o for o in group_ovs if o.key == schema.SWITCHABLE_GROUP and o.kind not in ("group", "delete")]
    if engine and base_tree is not None and choice == engine[-1].value:
        applied.provenance[schema.SWITCHABLE_GROUP] = provenance_of(engine[-1])
    apply(applied.tree, config_ovs, diags, applied=applied, unknown_hint=hint, retired=retired)
    return versions.Attempt(version, diags, (applied, choice), rejected + applied.unknown_keys, applied.retired_keys)


def _layer(applied: Applied, primary, base_tree: dict | None) -> None:
    """The primary config's layers in defaults-list order: the composed base config and the launch's own files."""
    tree = applied.tree
    for layer in primary.layers:
        if layer == "<base>":
            base = copy_tree(base_tree)
            if not tree:
                tree.update(base)
            else:
                configdir.merge_layer(tree, configdir.Layer(base, {}, "<base>"), {})
        else:
            configdir.merge_layer(tree, layer, applied.provenance)


def _report_duplicates(ovs: list[Override], diags: Diagnostics) -> None:
    last: dict[str, Override] = {}
    for o in ovs:
        if o.kind == "delete":
            last.pop(o.key, None)
            continue
        earlier = last.get(o.key)
        if earlier is not None and not (isinstance(o.value, dict) and isinstance(earlier.value, dict)):
            diags.add("RFTC206", f"'{o.key}' is set again later ({o.text} at {o.arg.span}); this value is ignored",
                      earlier.arg.span, key=o.key, hint="remove one of the two overrides")
        last[o.key] = o


def _resolve(applied: Applied, diags: Diagnostics, inv: Invocation) -> tuple[dict, dict]:
    resolver = Resolver(applied.tree)
    tree = applied.tree
    values = _resolve_tree(resolver, tree, "", diags, applied.provenance, inv.span)
    provenance = dict(applied.provenance)
    for key, followed in resolver.sources.items():
        if key in provenance:
            continue
        origin = _origin(key, resolver, provenance, set())
        if origin is not None:
            src_key, p = origin
            for leaf, _ in leaves(_get(values, key), key):
                provenance[leaf] = Provenance("derived", p.span, p.text, p.via, src_key)
    return values, provenance


def _origin(key: str, resolver: Resolver, provenance: dict, seen: set):
    """The first user-set key an interpolated value followed, through chains of interpolations."""
    for src in resolver.sources.get(key, ()):
        if src in seen:
            continue
        seen.add(src)
        p = provenance.get(src) or next((q for k, q in provenance.items() if k.startswith(src + ".")), None)
        if p is not None and p.kind != "derived":
            return src, p
        found = _origin(src, resolver, provenance, seen)
        if found:
            return found
    return None


def _resolve_tree(resolver: Resolver, node, path: str, diags: Diagnostics, provenance: dict, fallback: Span):
    if isinstance(node, dict):
        return {k: _resolve_tree(resolver, v, f"{path}.{k}" if path else str(k), diags, provenance, fallback)
                for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve_tree(resolver, v, f"{path}.{i}", diags, provenance, fallback) for i, v in enumerate(node)]
    if not has_interpolation(node):
        return node
    try:
        return resolver.resolve_key(path)
    except InterpolationError as exc:
        if exc.key != path:
            return node  # reported where the failing interpolation is written
        p = provenance.get(path)
        diags.add("RFTC214", f"cannot resolve '{path}': {exc}", p.span if p else fallback, key=path,
                  hint="set the key it refers to, or give a value instead of the interpolation")
        return node


def _get(values: dict, key: str):
    node = values
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node
