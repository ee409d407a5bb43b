"""A launch composed on the bundled releases: under the release it names (--verl-version), else the one it fits
(rftc.verl.releases.selection), that release's base config under the launch's model_engine choice (precomposed)
and its other config group choices (composed by Hydra on the release's own files: rftc.verl.releases.folder), then
the launch's own config files (rftc.verl.primary) and its overrides, in order."""

from __future__ import annotations

from dataclasses import replace

from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.model import Span
from rftc.shell.invocation import Invocation
from rftc.verl.effective import EffectiveConfig
from rftc.verl.overrides.apply import Applied, apply, chosen, provenance_of
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
    lookup = not verl_version and primary.base is not None and primary.layers == ["<base>"] and not (
        primary.group_choices or any(not _engine(o) for o in group_ovs))  # other groups' keys are not bundled
    absent = (lambda v: selection.absent_keys(v, primary.base, config_ovs)) if lookup else None
    best, tried = selection.choose(candidates, attempt, absent)
    if best is not None and lookup:
        best, tried = selection.plausible(best, tried, candidates, attempt, primary.base, config_ovs, refusal)
    if best is None:
        where = f"verl {verl_version}" if verl_version else "any bundled verl version"
        diags.add("RFTC209", f"{where} has no config named '{primary.base}'", inv.span)
        return None
    v, (applied, choice, composed) = best.version, best.result
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
    choices = ([f"model_engine={choice}"] if choice and choice != _default_choice(v, primary) else []) + composed
    config_name = primary.name + (f" ({', '.join(choices)})" if choices else "")
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


def _engine(o: Override) -> bool:
    """A plain choice of model_engine, whose trees are bundled."""
    return o.kind not in ("group", "delete") and o.key == schema.SWITCHABLE_GROUP and isinstance(o.value, str)


def _choices(sch: schema.VersionSchema, primary: Primary, choice: str | None,
             group_ovs: list[Override]) -> list[Override]:
    """The launch's group overrides that change the composition: not model_engine's plain choice, nor the option
    the config already uses."""
    current = sch.current_choices(primary.base, choice) if primary.base in sch.configs else {}
    return [o for o in group_ovs if not _engine(o) and not (
        o.kind != "delete" and current.get(f"{o.key}@{o.package}" if o.package else o.key, ...) == o.value)]


def _compose(version: str, primary: Primary, config_ovs: list[Override], group_ovs: list[Override], *,
             auto: bool = False) -> selection.Attempt:
    """Compose under one version; the attempt's result is (Applied, model_engine choice, the other group choices
    composed). When rftc chooses the version (``auto``), an override of a removed key that changes nothing there
    is dropped with RFTC220; under a version the user names, it is the error Hydra gives."""
    sch = schema.load(version)
    diags = Diagnostics()
    rejected: list[str] = []
    # Hydra reads `key=value` as a group choice where the release has that config group, else as a value
    values = [o for o in group_ovs if o.kind != "group" and o.key not in sch.groups]
    group_ovs = [o for o in group_ovs if o not in values]
    config_ovs = config_ovs + values
    choice = primary.choice
    for o in group_ovs:
        if _engine(o):
            choice = o.value
    chosen_ovs = _choices(sch, primary, choice, group_ovs)
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
            choice, base_tree = None, sch.tree(primary.base)
    default_tree = base_tree
    if base_tree is None:  # a launch of its own config files alone: no release config to choose in
        for o in chosen_ovs:
            rejected.append(o.key)
            diags.add("RFTC207", f"'{o.text}' chooses in the config group '{o.key}', which the launch's config "
                      "files do not compose", o.arg.span, key=o.key)
    elif chosen_ovs or primary.group_choices:
        base_tree = _hydra(version, sch, primary, choice, chosen_ovs, diags, rejected) or default_tree
    applied = Applied({})
    layered(applied, primary, base_tree)
    if base_tree is not default_tree and chosen_ovs:  # what the launch's own choices bring, over its files'
        files = _hydra(version, sch, primary, choice, [], Diagnostics(), []) if primary.group_choices else None
        chosen(applied, base_tree, files or default_tree, chosen_ovs)
    hint = retired = None
    if primary.base is not None:
        def hint(key: str, _v=version, _b=primary.base, _c=choice):
            return selection.elsewhere(key, _v, _b, _c)
        if auto:
            def retired(key: str, value, _v=version, _b=primary.base, _c=choice):
                return selection.retired(key, value, _v, _b, _c)
    engine = [o for o in group_ovs if _engine(o)]
    if engine and base_tree is not None and choice == engine[-1].value:
        applied.provenance[schema.SWITCHABLE_GROUP] = provenance_of(engine[-1])
    apply(applied.tree, config_ovs, diags, applied=applied, unknown_hint=hint, retired=retired)
    composed = [o.text for o in chosen_ovs] if base_tree is not default_tree else []
    return selection.Attempt(version, diags, (applied, choice, composed), rejected + applied.unknown_keys,
                             applied.retired_keys)


def _hydra(version: str, sch: schema.VersionSchema, primary: Primary, choice: str | None,
           chosen_ovs: list[Override], diags: Diagnostics, rejected: list[str]) -> dict | None:
    """The release's config composed by Hydra under the group choices of the launch (and of its files); None,
    with RFTC207 at the choice Hydra refuses, where it does not compose. An option the release does not ship is
    looked up in its list of files first."""
    bad = False
    for o in chosen_ovs:
        options = sch.groups.get(o.key)
        if options is not None and (o.kind == "delete" or not isinstance(o.value, str) or o.value in options):
            continue
        bad = True
        rejected.append(o.key)
        diags.add("RFTC207", f"'{o.text}': verl {version} has no "
                  + (f"option '{o.value}' in the config group '{o.key}'" if options is not None else
                     f"config group '{o.key}'"), o.arg.span, key=o.key,
                  hint=f"its options: {', '.join(options)}" if options else
                  f"its config groups: {', '.join(sorted(sch.groups)) or 'none'}")
    if bad:
        return None
    from rftc.verl.checkout.config_folder import ComposeError  # only for a launch that chooses another option
    from rftc.verl.releases import folder

    texts = ([f"{schema.SWITCHABLE_GROUP}={choice}"] if choice else []) + list(primary.group_choices) + \
        [o.text for o in chosen_ovs]
    try:
        return folder.folder(version).compose(primary.base, tuple(texts)).tree
    except ComposeError as exc:
        # the choice Hydra names: the launch's, else its files' (at their defaults entry), else the launch's last
        culprit = next((o for o in chosen_ovs if o.text == exc.override), None)
        in_file = primary.choice_spans.get(exc.override) if culprit is None else None
        culprit = culprit or (chosen_ovs[-1] if chosen_ovs and in_file is None else None)
        rejected.append(culprit.key if culprit else exc.override.partition("=")[0] if exc.override else
                        schema.SWITCHABLE_GROUP)
        diags.add("RFTC207", f"Hydra cannot compose {primary.base} of verl {version} with "
                  f"{', '.join(texts[len(texts) - len(chosen_ovs) - len(primary.group_choices):])}: "
                  f"{str(exc).partition(' Config search path:')[0]}",  # its search path: rftc's cache folders
                  culprit.arg.span if culprit else in_file or next(iter(primary.choice_spans.values()), None),
                  key=culprit.key if culprit else None,
                  hint=f"the config groups of verl {version}: {', '.join(sorted(sch.groups))}")
        return None
