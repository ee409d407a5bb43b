"""A launch composed on the bundled releases: under the release it names (--verl-version), else the one it fits
(rftc.verl.releases.selection), that release's base config under the launch's model_engine choice, then the
launch's own config files (rftc.verl.primary) and its overrides, in order."""

from __future__ import annotations

from dataclasses import replace

from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.model import Span
from rftc.shell.invocation import Invocation
from rftc.verl.effective import EffectiveConfig
from rftc.verl.overrides.apply import Applied, apply, provenance_of
from rftc.verl.overrides.parse import Override
from rftc.verl.primary.files import Primary, display, layered
from rftc.verl.releases import pins, schema, selection

# A key no bundled release has may be a fork's own (RFTC203's note on a bundled release).
FORK_NOTE = ("a fork or checkout of veRL with this key in its own config is composed when rftc runs from its "
             "directory or is given --verl-source DIR")


def compose(inv: Invocation, primary: Primary, config_ovs: list[Override], group_ovs: list[Override],
            verl_version: str | None, diags: Diagnostics, refusal=None,
            differ=None) -> tuple[Applied, EffectiveConfig] | None:
    """Compose under ``verl_version``, else under the release the repository pins (RFTC224) and, among those or
    all bundled ones, the release the launch fits (RFTC219 says which and why when it is not the newest; RFTC226
    when it is older than the newest where every key exists, and the two train differently).
    ``refusal(attempt)``: veRL's startup refusal of a composed attempt (None: it starts). ``differ(chosen,
    newest)``: what the two attempts train differently, as RFTC226 says it (None: the same). Returns the composed
    tree and the EffectiveConfig its values go to (not yet resolved)."""
    bundled_versions = schema.versions()
    found = pins.pinned(root) if not verl_version and (root := pins.repository(inv)) is not None else ()
    pin = _pin(found, diags)
    candidates = [verl_version] if verl_version else list(pin.versions) if pin else list(bundled_versions)

    def attempt(v):
        return _compose(v, primary, config_ovs, group_ovs, auto=verl_version is None) \
            if primary.base is None or primary.base in schema.load(v).configs else None

    # a launch of the bundled config alone: keys a version lacks are looked up before composing there
    lookup = not verl_version and primary.base is not None and primary.layers == ["<base>"]
    absent = (lambda v: selection.absent_keys(v, primary.base, config_ovs)) if lookup else None
    best, tried = selection.choose(candidates, attempt, absent)
    if best is not None and lookup:
        best, tried = selection.plausible(best, tried, candidates, attempt, primary.base, config_ovs, refusal)
    if best is None:
        where = f"verl {verl_version}" if verl_version else "any bundled verl version"
        diags.add("RFTC209", f"{where} has no config named '{primary.base}'", inv.span)
        return None
    v, (applied, choice) = best.version, best.result
    diags.extend(replace(d, notes=(*d.notes, FORK_NOTE)) if d.code == "RFTC203" else d for d in best.diags)
    also = [u for u in selection.fits(candidates, primary.base, config_ovs) if u != v] \
        if lookup and v != bundled_versions[0] else []
    note = selection.note(best, tried, explicit=verl_version is not None, also=also)
    if pin is not None:
        if len(candidates) > 1:  # the launch's keys choose among the releases the pin allows
            clean = not best.rejected and not best.retired_keys and best.refused_in is None
            note = (f"the newest of {selection.spans(candidates)}, which it allows; every key the launch sets "
                    "exists in it" if clean and v == candidates[0] else f"of {selection.spans(candidates)}, which "
                    f"it allows, {note}")
        differ = [p for p in found if p.versions and p is not pin and p.versions != pin.versions]
        diags.add("RFTC224", f"the repository pins verl: {pin.text}; the launch is composed under verl {v}"
                  + (f" ({note})" if len(candidates) > 1 else "")
                  + "".join(f"; {p.where()} says '{p.text}', and {pin.file.name} decides over it" for p in differ),
                  Span(display(pin.file), pin.line, 1))
        note = f"verl {v}, pinned by {pin.where()} ({pin.text})" + (f"; {note}" if len(candidates) > 1 else "")
    elif not verl_version and (v != bundled_versions[0] or best.refused_in is not None):
        # an older release than the newest where every key exists: only then are both releases' runs modelled
        newest = best.inert_in[0] if best.inert_in is not None else None
        differs = differ(best, newest) if newest is not None and differ is not None else None
        if differs:
            diags.add("RFTC226", f"{note}; {differs}", inv.span,
                      hint=f"pass --verl-version with the release the job runs ({v} or {newest.version}), or pin "
                      f"verl in the repository (e.g. verl=={newest.version} in requirements.txt, RFTC224)")
        else:
            diags.add("RFTC219", note, inv.span)
    config_name = primary.name + (f" (model_engine={choice})" if choice and choice != _default_choice(
        v, primary) else "")
    return applied, EffectiveConfig(v, config_name, {}, {}, inv, note)


def _pin(found: tuple[pins.Pin, ...], diags: Diagnostics) -> pins.Pin | None:
    """The pin that decides the release (the first with a bundled release); RFTC225 for those passed over."""
    use = next((p for p in found if p.versions), None)
    for p in found:
        if p.passed:
            diags.add("RFTC225", f"'{p.text}' pins no bundled verl release: {p.passed}; "
                      + (f"{use.where()} decides instead" if use else "the release is chosen by the launch's keys"),
                      Span(display(p.file), p.line, 1), hint="pass --verl-version X.Y.Z to name the release the job "
                      "runs, or --verl-source DIR to compose its own config")
    return use


def _default_choice(version: str, primary: Primary) -> str | None:
    if primary.base is None:
        return None
    return schema.load(version).tree(primary.base).get(schema.SWITCHABLE_GROUP)


def _compose(version: str, primary: Primary, config_ovs: list[Override], group_ovs: list[Override], *,
             auto: bool = False) -> selection.Attempt:
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
    layered(applied, primary, base_tree)
    hint = retired = None
    if primary.base is not None:
        def hint(key: str, _v=version, _b=primary.base, _c=choice):
            return selection.elsewhere(key, _v, _b, _c)
        if auto:
            def retired(key: str, value, _v=version, _b=primary.base, _c=choice):
                return selection.retired(key, value, _v, _b, _c)
    engine = [o for o in group_ovs if o.key == schema.SWITCHABLE_GROUP and o.kind not in ("group", "delete")]
    if engine and base_tree is not None and choice == engine[-1].value:
        applied.provenance[schema.SWITCHABLE_GROUP] = provenance_of(engine[-1])
    apply(applied.tree, config_ovs, diags, applied=applied, unknown_hint=hint, retired=retired)
    return selection.Attempt(version, diags, (applied, choice), rejected + applied.unknown_keys, applied.retired_keys)
