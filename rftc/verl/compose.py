"""The effective veRL config of one launch: primary config + overrides, composed as Hydra would, with the
provenance of every value."""

from __future__ import annotations

from dataclasses import replace

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Span
from rftc.dotted import get
from rftc.shell.invocation import Invocation
from rftc.verl import checkout, configdir, legacy, schema, source as sources, version as versions
from rftc.verl.apply import Applied, apply, leaves, provenance_of
from rftc.verl.effective import EffectiveConfig, Provenance
from rftc.verl.folder import FolderSchema
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
        composed = checkout.compose(inv, folder, primary, config_ovs, group_ovs, diags)
        return None if composed is None else _finish(inv, *composed, diags)

    candidates = [verl_version] if verl_version else list(bundled_versions)

    def attempt(v):
        return _compose(v, primary, config_ovs, group_ovs, auto=verl_version is None) \
            if primary.base is None or primary.base in schema.load(v).configs else None

    # a launch of the bundled config alone: keys a version lacks are looked up before composing there
    lookup = not verl_version and primary.base is not None and primary.layers == ["<base>"]
    best, tried = versions.choose(candidates, attempt, (lambda v: versions.absent_keys(v, primary.base, config_ovs))
                                  if lookup else None)
    if best is not None and lookup:
        best, tried = versions.plausible(best, tried, candidates, attempt, primary.base, config_ovs)
    if best is None:
        where = f"verl {verl_version}" if verl_version else "any bundled verl version"
        diags.add("RFTC209", f"{where} has no config named '{primary.base}'", inv.span)
        return None
    v, (applied, choice) = best.version, best.result
    diags.extend(replace(d, notes=(*d.notes, FORK_NOTE)) if d.code == "RFTC203" else d for d in best.diags)
    also = [u for u in versions.fits(candidates, primary.base, config_ovs) if u != v] \
        if lookup and v != bundled_versions[0] else []
    note = versions.note(best, tried, explicit=verl_version is not None, also=also)
    if not verl_version and v != bundled_versions[0]:
        diags.add("RFTC219", note, inv.span)
    config_name = primary.name + (f" (model_engine={choice})" if choice and choice != _default_choice(
        v, primary) else "")
    return _finish(inv, applied, EffectiveConfig(v, config_name, {}, {}, inv, note), diags)


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


def _finish(inv: Invocation, applied: Applied, eff: EffectiveConfig, diags: Diagnostics) -> EffectiveConfig:
    """Resolve the composed tree into ``eff``, with the checks every composed config gets."""
    eff.values, eff.provenance = _resolve(applied, diags, inv)
    if configdir.entry_of(inv.module) is not None:
        for key in MANDATORY_READ:
            if get(eff.values, key) == schema.MISSING:
                diags.add("RFTC217", f"'{key}' is mandatory in the veRL config and the launch does not set it",
                          inv.span, key=key, hint=f"add {key}=<value>")
    if legacy.ignores_legacy(inv.module, eff.release):
        legacy.report(eff.provenance, eff.release, diags)
    return eff


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
    configdir.layered(applied, primary, base_tree)
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
            for leaf, _ in leaves(get(values, key), key):
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

