"""rftc as a library: the one pipeline every command runs.

    from rftc import api
    result = api.compile("run.sh", api.Options(env={"HOME": "/data"}))
    result.config        # the Trinity-RFT config IR (rftc.trinity.schema.TrinityConfig); None when it does not compile
    result.yaml()        # what `rftc convert` writes: the config with a provenance comment on every key
    result.diagnostics   # at the script's lines and columns
    checked = api.check("config.yaml")       # a Trinity-RFT config file (or api.check("name", text=...))

A launch script goes through rftc.shell (the launches bash would run) -> rftc.verl (the effective veRL config of
the release it runs, and that release's startup checks) -> rftc.mapping (the Trinity config as written, with where
each value came from and what became of every veRL key) -> rftc.trinity (checked as Trinity loads and validates
it, which gives the IR) -> rftc.emit (YAML). Commands parse arguments and render what this returns; nothing here
prints, and bad input is a diagnostic, never an exception (options that cannot work raise UsageError).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.model import Span

if TYPE_CHECKING:
    from rftc.mapping.draft import Entry, Origin
    from rftc.shell.invocation import Invocation
    from rftc.trinity.schema import TrinityConfig
    from rftc.trinity.validate import CheckOptions
    from rftc.verl.effective import EffectiveConfig

OVERRIDES = "<overrides>"  # the script name of a launch given as override text


class UsageError(ValueError):
    """Options that cannot work: a value out of range, or two that exclude each other."""


@dataclass(frozen=True)
class Options:
    """How launches are read and mapped."""

    env: Mapping[str, str] = field(default_factory=dict)  # values of variables the script reads
    use_env: bool = False  # the others from this process's environment
    cwd: str | None = None  # the directory the launch starts in
    args: Sequence[str] | None = None  # the script's arguments ($1.., "$@"); None: not given
    verl_version: str | None = None  # a bundled verl release to compose on
    verl_source: str | None = None  # a veRL checkout's folder to compose its config, or "bundled"
    invocation: int | None = None  # only this launch of each script (Invocation.index)
    sync_offset: int = 0  # synchronizer.sync_offset
    explorer_gpus: int | None = None  # GPUs for the rollout engines (default: solved)
    dataset_size: int | None = None  # training rows, for the LR horizon when the data is not readable here
    total_steps: int | None = None  # the LR horizon in veRL steps
    cluster: Mapping[str, int] = field(default_factory=dict)  # veRL cluster keys the script leaves to its caller

    def __post_init__(self):
        from rftc.mapping.draft import CLUSTER_OPTIONS
        from rftc.mapping.gpu import MAX_GPUS

        for name in ("explorer_gpus", "dataset_size", "total_steps"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise UsageError(f"--{name.replace('_', '-')} must be positive")
        if self.explorer_gpus is not None and self.explorer_gpus > MAX_GPUS:
            raise UsageError(f"--explorer-gpus {self.explorer_gpus} is more than the {MAX_GPUS} GPUs of any cluster "
                             "Trinity and veRL run on")
        for key, value in self.cluster.items():
            if key not in CLUSTER_OPTIONS:
                raise UsageError(f"{key} is not a cluster key rftc takes ({', '.join(CLUSTER_OPTIONS)})")
            if value <= 0:
                raise UsageError(f"{CLUSTER_OPTIONS[key]} must be positive")
        if self.sync_offset < 0:
            raise UsageError("--sync-offset must be >= 0")
        if self.verl_source not in (None, "bundled") and self.verl_version:
            raise UsageError("give --verl-version (a bundled release) or --verl-source (a checkout's config), not both")


@dataclass
class Launches:
    """What reading the inputs found: every launch (in each script's order), the text of every file read."""

    launches: list[Invocation] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)


@dataclass
class Result:
    """One compiled launch, or one checked config file."""

    config: TrinityConfig | None  # the IR, as Trinity loads it; None when Trinity would not load or validate it
    diagnostics: Diagnostics
    sources: dict[str, str]  # every file read, by the name spans use
    document: dict | None = None  # the config as written: keys in the guide's order, ${oc.env:...} kept
    provenance: dict[str, Origin] = field(default_factory=dict)  # Trinity key -> the veRL keys it came from
    ledger: dict[str, Entry] = field(default_factory=dict)  # veRL key -> what became of it
    verl: EffectiveConfig | None = None  # the effective veRL config the launch runs (a pipeline: each stage's)
    launch: Invocation | None = None
    title: str | None = None  # a pipeline's scripts, for the header (one launch: its script)

    @property
    def ok(self) -> bool:
        return self.config is not None and not self.diagnostics.has_errors

    def yaml(self) -> str:
        """The config as `rftc convert` writes it: a header naming the launch and releases, then the document
        with a comment on every key naming the veRL key(s) and script line it came from."""
        from rftc.emit.yaml import emit

        if self.title is not None:
            return emit(self.document, self.provenance, self.verl, source=self.title)
        inv = self.launch
        script = inv.script if inv is not None and inv.script else OVERRIDES
        return emit(self.document, self.provenance, self.verl, source=os.path.basename(script),
                    launch=_launch_named(inv) if script != OVERRIDES else None)


def verl_source(options: Options):
    """The veRL copy options.verl_source names: None (the one each launch imports), "bundled", or a
    VerlSource; UsageError for a folder without a veRL config."""
    from rftc.verl.checkout.find import BUNDLED, from_dir

    given = options.verl_source
    if given is None or given == BUNDLED:
        return given
    found = from_dir(given)
    if found is None:
        raise UsageError(f"--verl-source {given}: no veRL config there (looked for verl/trainer/config in it, in its "
                         "verl/ and in its src/verl/)")
    return found


def read(paths: Sequence[str] = (), options: Options | None = None, *, overrides: str | None = None,
         every_launch: bool = False) -> Launches:
    """The launches of launch scripts (paths, folders of *.sh, or "-" for stdin) or of override text. Each
    script's launches are those in the branches rftc takes where it cannot decide a condition (another branch's
    launch is an alternative) unless ``every_launch``; options.invocation picks one by index."""
    from rftc.shell import analyze
    from rftc.shell.invocation import COMMAND_LINE, Arg
    from rftc.sources import expand_paths, read_text
    from rftc.verl.overrides.text import OVERRIDES_FILE, invocation_from_text
    from rftc.verl.trainers import release_era, resolve

    options = options or Options()
    source = verl_source(options)
    out = Launches()
    extra = list(options.args or [])
    if overrides is not None:
        if paths:
            raise UsageError("give either scripts or --overrides, not both")
        cl = [Arg(t, Span(COMMAND_LINE, 1, i + 1)) for i, t in enumerate(extra)]
        inv = invocation_from_text(overrides, diags=out.diagnostics, extra=cl)
        out.sources[OVERRIDES_FILE] = overrides
        if extra:
            out.sources[COMMAND_LINE] = " ".join(extra)
        if inv is not None:
            inv.cwd = os.getcwd()  # a relative --config-path in the overrides is looked up from here
            out.launches.append(inv)
        return out
    if not paths:
        raise UsageError("give one or more scripts ('-' for stdin), or --overrides '...'")
    cwd = os.path.abspath(options.cwd) if options.cwd else None
    args = None if options.args is None else tuple(options.args)
    for path in expand_paths(list(paths), (".sh",)):
        got = read_text(path, out.diagnostics)
        if got is None:
            continue
        name, text = got
        result = analyze(text, name, env=dict(options.env), use_env=options.use_env, extra_args=args, cwd=cwd)
        out.diagnostics.extend(result.diagnostics)
        out.sources.update(result.sources)
        out.sources.setdefault(name, text)
        # a module rftc does not know by name may be a fork's own entry module: resolved from its source
        invocations = [resolve(i, out.diagnostics) or i if i.kind == "other" else
                       _checkout_main(i, source, out.diagnostics) for i in map(release_era, result.invocations)]
        for inv in _chosen(invocations, options.invocation, every_launch):
            inv.script = inv.script or name
            out.launches.append(inv)
    return out


def _checkout_main(inv: Invocation, source, diags: Diagnostics) -> Invocation:
    """A launch of veRL's main_ppo, read from the checkout's main_ppo.py where the veRL it imports is a checkout
    (``source``: --verl-source's, or the one the launch finds), as Python runs that file."""
    from rftc.verl.checkout.find import BUNDLED, find
    from rftc.verl.trainers import MAIN_PPO, checkout_main

    if inv.module != MAIN_PPO or source == BUNDLED:
        return inv
    found = source if source is not None else find(inv)
    return inv if found is None else checkout_main(inv, found.package, diags)


def _chosen(invocations: list[Invocation], index: int | None, every_launch: bool) -> list[Invocation]:
    if index is not None:
        return [inv for inv in invocations if inv.index == index]
    if every_launch or not any(inv.primary and inv.is_training for inv in invocations):
        return invocations
    return [inv for inv in invocations if inv.primary]


def trainings(found: Launches, paths: Sequence[str] = ()) -> dict[str, list[Invocation]]:
    """The launches of the trainers rftc converts, by script. A script with none gets RFTC312 (in
    ``found.diagnostics``), and so does each file of ``paths`` that was read but launches nothing."""
    from rftc.shell.invocation import place
    from rftc.sources import STDIN, expand_paths
    from rftc.verl.trainers import maps

    diags = found.diagnostics
    by_script: dict[str, list[Invocation]] = {}
    for inv in found.launches:
        by_script.setdefault(inv.script or OVERRIDES, []).append(inv)
    out = {s: [i for i in invs if maps(i) and composable(i)] for s, invs in by_script.items()}
    for s, invs in by_script.items():
        if not out[s] and not any(d.code == "RFTC235" and d.span.file == s for d in diags):  # said why already
            where = ", ".join(f"{i.module or '(script)'} at {place(i)}{_not_found(i)}" for i in invs)
            diags.add("RFTC312", f"no launch of a trainer rftc converts (found {where}): it converts veRL's main_ppo, "
                      "its one-step-off, fully async and SFT trainers and the DAPO recipe; other trainers and "
                      "recipes have their own semantics",
                      invs[0].span)
    # a script with no launch at all has nothing to convert, whatever else it reported (e.g. RFTC112's warning);
    # one that could not be read has its RFTC001 already
    for p in expand_paths(list(paths), (".sh",)):
        name = "<stdin>" if p == STDIN else p  # the name read_text gives stdin
        if name in found.sources and name not in by_script:
            diags.add("RFTC312", "no training launch found in the script", Span(name, 1, 1))
    return out


def _not_found(inv: Invocation) -> str:
    """", which Python does not find ..." for a launch of a module rftc does not know that is nowhere Python would
    look for it here (the launch's directory, the PYTHONPATH the script sets, the repository's projects), naming the
    first part of its name that is missing, as Python's error does; "" otherwise."""
    import re

    from rftc.verl.checkout.modules import find_spec, search_path

    if inv.kind != "other" or not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", inv.module):
        return ""
    path = search_path(inv)
    parts = inv.module.split(".")
    missing = next((".".join(parts[:k]) for k in range(1, len(parts) + 1)
                    if find_spec(".".join(parts[:k]), path) is None), None)
    if missing is None:
        return ""
    return (f", which Python does not find: there is no module {missing} in the launch's directory, the PYTHONPATH "
            f"the script sets or the repository, so where it is not installed python fails with \"No module named "
            f"{missing}\"")


def stage_of(found: Launches) -> dict[int, str]:
    """Where several scripts make one config: the stage each script's first converted launch becomes
    (``id(launch)`` -> "stage N: name"), as `rftc convert SCRIPT SCRIPT ...` builds it; empty for one script."""
    from rftc.mapping.stages import stage_names
    from rftc.verl.trainers import maps

    firsts: dict[str, Invocation] = {}
    for inv in found.launches:
        if inv.primary and maps(inv) and composable(inv):
            firsts.setdefault(inv.script or OVERRIDES, inv)
    if len({inv.script for inv in found.launches}) < 2:
        return {}
    names = stage_names(list(firsts))
    return {id(inv): f"stage {i + 1}: {name}" for i, (inv, name) in enumerate(zip(firsts.values(), names))}


def first_launch(launches: list[Invocation], diags: Diagnostics) -> Invocation:
    """The launch one config is made of when a script trains several times: the first it runs (RFTC232 names the
    others and how to pick one)."""
    from rftc.shell.invocation import circumstances, place

    first = launches[0]
    if len(launches) > 1:
        shown = [f"#{i.index} ({place(i, caller=False)}" + (f", {c}" if (c := circumstances(i, launches)) else "") + ")"
                 for i in launches]
        listing = ", ".join(shown[:6]) + (f" and {len(shown) - 6} more" if len(shown) > 6 else "")
        diags.add("RFTC232", f"the script launches training {len(launches)} times: {listing}; this config is "
                  f"#{first.index}'s, the first it runs", first.span,
                  hint="--invocation N converts another; --out-dir DIR writes one config per launch")
    return first


def composable(inv: Invocation) -> bool:
    """Whether the veRL stage composes the launch's config: the verl trainers and recipes rftc knows, and any
    training launch naming a config (or whose command line Hydra refuses or prints instead of running)."""
    from rftc.verl.trainers import entry_of

    return entry_of(inv.module) is not None or inv.fork is not None or (inv.is_training and (
        inv.config_name is not None or inv.hydra_refusal is not None or inv.hydra_prints is not None))


def verl_config(inv: Invocation, options: Options | None = None, *, startup: bool = True) -> Result:
    """The veRL stage alone: the effective veRL config the launch runs (``result.verl``) and, with ``startup``,
    the startup checks of its release. A training launch whose config rftc cannot compose gets RFTC218."""
    from rftc.verl import effective_config
    from rftc.verl.startup import check_startup
    from rftc.verl.trainers import RECIPE_ERA, era_releases, own_trainer

    options = options or Options()
    result = Result(None, Diagnostics(), {}, launch=inv)
    if not composable(inv):
        if inv.is_training:
            result.diagnostics.add("RFTC218", f"no bundled veRL config for the entry point '{inv.module}'; its "
                                   "overrides are not checked", inv.span,
                                   hint="pass --config-path/--config-name if it uses a config of its own")
        return result
    version, release = options.verl_version, None
    if inv.named in RECIPE_ERA:  # a release-era trainer name: the config its trainer's module bundles
        versions = era_releases(inv, version, result.diagnostics)
        if versions is None:
            return result
        version, release = versions
    result.verl = effective_config(inv, verl_version=version, source=verl_source(options),
                                   diags=result.diagnostics, compare=_trains_differently, env=start_env(options))
    if result.verl is not None and release is not None:
        result.verl.release = release
    if result.verl is not None:
        own_trainer(result.verl, result.diagnostics)
    if result.verl is not None and startup:
        check_startup(result.verl, result.diagnostics)  # its errors keep a config from being written
    return result


def _trains_differently(a: EffectiveConfig, b: EffectiveConfig) -> list:
    """The quantities two effective configs of one launch train differently (rftc.semantics.model.differences)."""
    from rftc.semantics.model import differences
    from rftc.semantics.verl import from_verl

    cwd = a.invocation.data_dir() if a.invocation is not None else None
    return differences(from_verl(a, cwd=cwd), from_verl(b, cwd=cwd))


# Trinity-check warnings that repeat what a mapping diagnostic already says about the same value (and how to fix it)
SAID_BY_MAPPING = {"RFTC479": "RFTC303"}


def compile_launch(inv: Invocation, options: Options | None = None) -> Result:
    """One launch through every stage. The result's diagnostics are this launch's (those of reading its script
    are the Launches')."""
    from rftc.mapping.convert import map_config
    from rftc.trinity.validate import CheckOptions, check_config

    options = options or Options()
    result = verl_config(inv, options)
    diags, eff = result.diagnostics, result.verl
    if eff is None:
        return result
    mapped = map_config(eff, _mapping_options(inv, options))
    diags.extend(mapped.diagnostics)
    result.document, result.provenance, result.ledger = mapped.config, mapped.origins, mapped.ledger
    if not mapped.ok:
        return result
    ir, found = check_config(mapped.config, _locator(mapped), CheckOptions(path_checks=False))
    said = {d.code for d in mapped.diagnostics}
    diags.extend(d for d in found if SAID_BY_MAPPING.get(d.code) not in said)
    unlearnable = _fork_without_groups(eff, found, diags)
    result.config = None if found.has_errors or unlearnable else ir
    return result


def _fork_without_groups(eff, found: Diagnostics, diags: Diagnostics) -> bool:
    """RFTC343 where the converted run does not learn (RFTC478, one rollout per task) and the fork the launch runs
    declares keys rftc leaves out that could hold a group size or a batch (integers above 1): its code may read
    one of them in place of rollout.n."""
    if not eff.fork_keys or not any(d.code == "RFTC478" for d in found):
        return False
    sizes = sorted((k for k in eff.fork_keys if type(eff.get(k, None)) is int and eff.get(k) > 1),
                   key=lambda k: (not eff.user_set(k), k))  # the launch's own first
    if not sizes:
        return False
    span = eff.prov(sizes[0]).span or (eff.invocation.span if eff.invocation is not None else None)
    shown = ", ".join(f"{k}={eff.get(k)}" for k in sizes[:6]) + (f" and {len(sizes) - 6} more" if len(sizes) > 6
                                                                   else "")
    diags.add("RFTC343", f"the converted run trains one rollout per task (RFTC478: it would not learn), and the "
              f"config of the veRL fork at {eff.source} declares counts rftc cannot read ({shown}): if the fork's "
              "code takes the group size or the batch from one of them, the conversion does not have it", span,
              key=sizes[0], hint="set actor_rollout_ref.rollout.n to the group size the fork's code uses")
    return True


def compile_pipeline(launches: Sequence[Invocation], options: Options | None = None) -> Result:
    """Several launches (one per script, in order: an SFT warm-up, then RL) as one config with ``stages:``
    (rftc.mapping.stages), checked as Trinity loads it. Each launch is compiled on its own first; the
    diagnostics are all of theirs and the pipeline's."""
    from rftc.mapping.convert import Mapped
    from rftc.mapping.stages import Launch, pipeline, stage_names
    from rftc.trinity.validate import CheckOptions, check_config

    diags = Diagnostics()
    results = [compile_launch(inv, options) for inv in launches]
    for r in results:
        diags.extend(r.diagnostics)
    title = " + ".join(os.path.basename(inv.script or OVERRIDES) for inv in launches)
    if any(r.config is None for r in results):
        return Result(None, diags, {}, title=title)
    names = stage_names([inv.script or OVERRIDES for inv in launches])
    staged = [Launch(n, r.document, r.provenance, r.verl, r.launch.span) for n, r in zip(names, results)]
    document, origins, view = pipeline(staged, diags)
    mapped = Mapped(document, origins, {}, diags, view)
    ir, found = check_config(document, _locator(mapped), CheckOptions(path_checks=False))
    said = {(d.code, d.message) for r in results for d in r.diagnostics}
    diags.extend(d for d in found if (d.code, d.message) not in said)  # a stage's own verdicts are its launch's
    return Result(None if found.has_errors else ir, diags, {}, document=document, provenance=origins, verl=view,
                  title=title)


def compile(source: str | None = None, options: Options | None = None, *, overrides: str | None = None) -> Result:
    """One config from a launch script (its first training launch, or options.invocation) or override text."""
    paths = [source] if source is not None else []
    found = read(paths, options, overrides=overrides)
    launches = [invs for invs in trainings(found, paths).values() if invs]
    if not launches:
        return Result(None, found.diagnostics, found.sources)
    result = compile_launch(first_launch(launches[0], found.diagnostics), options)
    result.diagnostics = Diagnostics(found.diagnostics + result.diagnostics)
    result.sources = found.sources
    return result


def check(path: str, options: CheckOptions | None = None, *, text: str | None = None) -> Result:
    """A Trinity-RFT config file (``text``, when given, is its content; "-" reads stdin) as Trinity 0.6.0 loads
    and validates it, plus the traps it lets through, at the YAML's lines and columns."""
    from rftc.sources import read_text
    from rftc.trinity.document import parse
    from rftc.trinity.validate import check_config

    diags = Diagnostics()
    if text is None:
        got = read_text(path, diags)
        if got is None:
            return Result(None, diags, {})
        path, text = got
    doc, parse_diags = parse(text, path)
    diags.extend(parse_diags)
    if doc is None:
        return Result(None, diags, {path: text})
    ir, found = check_config(doc.data, doc.locate, options)
    diags.extend(found)
    return Result(None if found.has_errors else ir, diags, {path: text}, document=doc.data)


def start_env(options: Options) -> dict[str, str]:
    """The environment the script starts in, as far as rftc is told: --env, with --use-env this process's."""
    return {**(dict(os.environ) if options.use_env else {}), **options.env}


def _mapping_options(inv: Invocation, options: Options):
    from rftc.mapping.draft import Options as MappingOptions

    return MappingOptions(sync_offset=options.sync_offset, explorer_gpus=options.explorer_gpus,
                          dataset_size=options.dataset_size, total_steps=options.total_steps, env=start_env(options),
                          cwd=inv.data_dir(),
                          fixed=dict(options.cluster))


def _locator(mapped):
    """Trinity key path -> the script span of the veRL key it came from (the nearest key that has one)."""
    def locate(path: tuple):
        parts = list(path)
        while parts:
            origin = mapped.origins.get(".".join(str(p) for p in parts))
            if origin is not None:
                for key in origin.keys:
                    span = mapped.cfg.prov(key).span
                    if span is not None:
                        return span
            parts.pop()
        prefix = ".".join(str(p) for p in path) + "."
        for tkey, origin in mapped.origins.items():  # a section Trinity names: where its first key came from
            if tkey.startswith(prefix):
                for key in origin.keys:
                    if mapped.cfg.prov(key).span is not None:
                        return mapped.cfg.prov(key).span
        return None
    return locate


def _launch_named(inv: Invocation) -> str:
    """"launch at line 30" ("launch at train.sh:3" in a file the script runs or sources), with the loop values of
    this iteration when a loop launches it."""
    from rftc.shell.invocation import place

    loop = " ".join(f"{k}={v}" for k, v in inv.loop.items())
    return f"launch at {place(inv)}" + (f", {loop}" if loop else "")
