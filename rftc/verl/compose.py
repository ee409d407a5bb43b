"""The effective veRL config of one launch: its primary config (rftc.verl.primary) composed with its overrides
(rftc.verl.overrides) as Hydra would, on the config of the veRL it imports (rftc.verl.checkout) or else on the
bundled releases (rftc.verl.releases), then resolved, with the provenance of every value."""

from __future__ import annotations

from collections.abc import Callable

from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.model import Span
from rftc.dotted import get
from rftc.shell.invocation import Invocation
from rftc.verl.checkout import find
from rftc.verl.checkout.find import VerlSource
from rftc.verl.effective import EffectiveConfig, Provenance
from rftc.verl.overrides.apply import Applied, leaves
from rftc.verl.overrides.parse import parse_launch
from rftc.verl.overrides.resolve import MISSING, InterpolationError, Resolver, has_interpolation
from rftc.verl.primary.locate import locate
from rftc.verl.releases import compose as on_releases, legacy, schema, selection
from rftc.verl.trainers import entry_of, module_of

# Mandatory keys ("???") verl reads on every main_ppo run; others (e.g. the reward model's rollout name) are
# read only when their feature is on.
MANDATORY_READ = ("actor_rollout_ref.rollout.name",)


def effective_config(inv: Invocation, *, verl_version: str | None = None, source: VerlSource | str | None = None,
                     diags: Diagnostics, compare: Callable | None = None,
                     env: dict[str, str] | None = None) -> EffectiveConfig | None:
    """Compose ``inv``'s effective config; diagnostics go to ``diags``; None when it cannot be composed.

    ``compare(a, b)``: what two effective configs of the launch train differently (rftc.api passes the semantic
    model's comparison, a layer above this one); with it, a release inferred from the keys that trains differently
    from the newest where every key exists is RFTC226, without it RFTC219.

    ``source``: the veRL checkout whose own config the launch composes (rftc.verl.checkout.find); None looks for the
    one the launch imports, "bundled" (or a ``verl_version``) composes against the bundled releases.

    ``env``: the environment the script starts in, as far as it is known (--env); the launch's own exports win."""
    env = {**(env or {}), **inv.env}
    if inv.hydra_refusal is not None or inv.hydra_prints is not None:
        _hydra_exit(inv, diags)
        return None
    bundled_versions = schema.versions()
    if verl_version is not None and verl_version not in bundled_versions:
        diags.add("RFTC213", f"no bundled schema for verl {verl_version}",
                  hint=f"bundled versions: {', '.join(bundled_versions)}")
        return None
    passed: list[find.Passed] = []
    if source is None and verl_version is None:
        source = find.find(inv, passed)
    folder = None
    if isinstance(source, VerlSource):
        from rftc.verl.checkout import compose as on_checkout  # with hydra-core's compose, cached: only for a checkout
        from rftc.verl.checkout.config_folder import FolderSchema

        folder = FolderSchema.of(source)
        names, groups = set(folder.configs), folder.groups
        primary = locate(inv, names, diags, root=source.root, where=source.display(), any_group=True)
    else:
        names, groups = schema.all_config_names(), schema.all_group_names()
        primary = locate(inv, names, diags)
    config_ovs, group_ovs = parse_launch(inv.overrides, groups, diags)
    if primary is None:
        return None
    if folder is not None:
        composed = on_checkout.compose(inv, folder, primary, config_ovs, group_ovs, diags)
        for p in passed:
            diags.add(p.code, p.text, inv.span, hint=p.hint or None)
    else:
        composed = on_releases.compose(inv, primary, config_ovs, group_ovs, verl_version, diags,
                                       refusal=lambda a: _refusal(inv, a, env),
                                       differ=compare and (lambda *attempts: _differ(inv, env, primary.base,
                                                                                     compare, *attempts)))
        v, note = (composed[1].verl_version, composed[1].version_note) if composed is not None else ("", "")
        why = note.removeprefix(f"checked against verl {v}, ")
        instead = f"the bundled verl {v}" + (f" ({why})" if why else "") if v else "the bundled releases"
        for p in passed:
            diags.add(p.code, f"{p.text}; the launch is checked against {instead} instead", inv.span,
                      hint="name the veRL the job runs: --verl-source DIR (its checkout) or --verl-version X.Y.Z")
    return None if composed is None else _finish(inv, *composed, diags, env)


def _hydra_exit(inv: Invocation, diags: Diagnostics) -> None:
    """Hydra's command line refuses the arguments (RFTC237), or asks it to print instead of running (RFTC240)."""
    if inv.hydra_refusal is not None:
        message, arg = inv.hydra_refusal
        diags.add("RFTC237", f"Hydra's command line refuses the arguments ({message}); the job does not start",
                  arg.span if arg is not None else inv.span,
                  hint="write the option as Hydra has it (--config-path, --config-name, --config-dir) or the "
                  "override as key=value")
        return
    what, arg = inv.hydra_prints
    diags.add("RFTC240", f"'{arg.text if arg else 'the option'}': Hydra {what}, without running the job: this "
              "launch trains nothing", arg.span if arg is not None else inv.span,
              hint="remove the option to train")


def _finish(inv: Invocation, applied: Applied, eff: EffectiveConfig, diags: Diagnostics,
            env: dict[str, str]) -> EffectiveConfig:
    """Resolve the composed tree into ``eff``, with the checks every composed config gets."""
    eff.values, eff.provenance = _resolve(applied, diags, inv, env)
    if entry_of(module_of(inv)) is not None:
        for key in MANDATORY_READ:
            if get(eff.values, key) == MISSING:
                diags.add("RFTC217", f"'{key}' is mandatory in the veRL config and the launch does not set it",
                          inv.span, key=key, hint=f"add {key}=<value>")
    if legacy.ignores_legacy(module_of(inv), eff.release):
        legacy.report(eff.provenance, eff.release, diags)
    return eff


def _refusal(inv: Invocation, attempt, env: dict[str, str]) -> str | None:
    """veRL's first startup refusal (RFTC221) of the launch composed under an attempt's release, or None."""
    from rftc.verl.startup import check_startup

    applied = attempt.result[0]
    quiet = Diagnostics()
    values, provenance = _resolve(applied, quiet, inv, env)
    check_startup(EffectiveConfig(attempt.version, "", values, provenance, inv), quiet)
    return next((d.message for d in quiet if d.code == "RFTC221"), None)


def _differ(inv: Invocation, env: dict[str, str], base: str, compare: Callable, chosen, newest) -> str | None:
    """What the launch trains differently composed under the chosen attempt's release and under the newest's
    (``compare``), as RFTC226 says it; None when the two train the same. Where the model cannot compute with the
    values the launch sets (one known only when the script runs, one of another kind than the key's default, a zero
    it divides by), the two are not compared, and RFTC226 says why."""
    effs = [EffectiveConfig(a.version, "", *_resolve(a.result[0], Diagnostics(), inv, env), inv)
            for a in (chosen, newest)]
    try:
        found = compare(*effs)
    except (TypeError, ValueError, ArithmeticError) as e:
        sch, choice = schema.load(chosen.version), chosen.result[1]
        defaults = sch.tree(base, choice) if choice else sch.tree(base)
        numeric = [k for k in effs[0].user_keys() if not isinstance(get(defaults, k), str)]  # what it computes with
        unknown = [k for k in unknown_values(effs[0]) if k in numeric]
        odd = [k for k in numeric if k not in unknown and get(defaults, k) is not None
               and _kind(get(effs[0].values, k)) != _kind(get(defaults, k))]
        why = ([f"{some_keys(unknown)} only known when the script runs (--env NAME=VALUE gives them)"] if unknown
               else []) + ([f"{some_keys(odd)} set to a value of another kind than the key's default"] if odd else [])
        return selection.trains_differently(chosen.version, newest.version, [], "; ".join(why) or
                                            f"the launch's values give {type(e).__name__}: {e}")
    return selection.trains_differently(chosen.version, newest.version, found)


def _kind(value) -> str:
    return "bool" if isinstance(value, bool) else "number" if isinstance(value, (int, float)) else type(value).__name__


def unknown_values(eff: EffectiveConfig) -> list[str]:
    """The keys the launch sets to a value only known when the script runs (an environment variable's)."""
    return [k for k in eff.user_keys() if has_interpolation(get(eff.values, k))]


def some_keys(keys: list[str]) -> str:
    return ", ".join(keys[:3]) + (f" (and {len(keys) - 3} more)" if len(keys) > 3 else "")


def _resolve(applied: Applied, diags: Diagnostics, inv: Invocation, env: dict[str, str]) -> tuple[dict, dict]:
    """The composed tree resolved (``env``: the environment oc.decode decodes from), with each value's provenance."""
    resolver = Resolver(applied.tree, env)
    tree = applied.tree
    values = _resolve_tree(resolver, tree, "", diags, applied.provenance, inv.span)
    for key, name, text in resolver.assumed:
        p = applied.provenance.get(key)
        diags.add("RFTC241", f"'{key}' decodes {text}: ${name} is not set in the script or given (--env), and "
                  "OmegaConf gives the default where the environment does not set it; the conversion computes with "
                  "the default",
                  p.span if p else inv.span, key=key,
                  hint=f"pass --env {name}=VALUE with the value the job runs with, or write the value")
    provenance = dict(applied.provenance)
    sections = {k[:i] for k in provenance for i, c in enumerate(k) if c == "."}  # keys holding set keys
    for key in resolver.sources:
        if key in provenance:
            continue
        origin = _origin(key, resolver, provenance, sections, set())
        if origin is not None:
            src_key, p = origin
            for leaf, _ in leaves(get(values, key), key):
                provenance[leaf] = Provenance("derived", p.span, p.text, p.via, src_key)
    return values, provenance


def _origin(key: str, resolver: Resolver, provenance: dict, sections: set, seen: set):
    """The first user-set key an interpolated value followed, through chains of interpolations. A section followed
    takes the provenance of the first key under it: ``sections`` are those holding a key the launch or its files
    set (a derived key, added meanwhile, would be passed over all the same)."""
    for src in resolver.sources.get(key, ()):
        if src in seen:
            continue
        seen.add(src)
        p = provenance.get(src) or (next((q for k, q in provenance.items() if k.startswith(src + ".")), None)
                                    if src in sections else None)
        if p is not None and p.kind != "derived":
            return src, p
        found = _origin(src, resolver, provenance, sections, seen)
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
