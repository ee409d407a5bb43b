"""Comparisons of runs: ``diff`` says what two runs train differently (rftc.semantics' quantities), ``to_verl``
writes a Trinity config as a veRL launch and reports what the launch cannot express. Both read their inputs through
rftc.api's pipeline (a launch script as `rftc convert` reads it, a config as `rftc check` does).

    from rftc import compare
    found = compare.diff("run.sh", "config.yaml")   # found.differences: [(Quantity, Value, Value)]
    launch = compare.to_verl("config.yaml")         # launch.text: the script; launch.diagnostics: what it lacks
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from rftc.api import (OVERRIDES, Options, Result, UsageError, check, first_launch, read, trainings,
                      verl_config)
from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.model import Span
from rftc.verl.compose import some_keys, unknown_values


@dataclass
class Side:
    """One input of ``diff``: what it is, the training run it describes (None when it has none), and its result."""

    path: str
    kind: str  # "verl" (a launch script) | "trinity" (a config file)
    run: object | None  # rftc.semantics.model.TrainingRun
    result: Result
    stage: str | None = None  # the stage compared, of a config with stages


@dataclass
class Diff:
    a: Side
    b: Side
    differences: list  # [(Quantity, Value of a, Value of b)] (rftc.semantics.model.differences)
    diagnostics: Diagnostics
    sources: dict[str, str]


TRINITY_SUFFIXES = (".yaml", ".yml", ".json")


def kind_of(path: str, text: str | None = None) -> str:
    """"trinity" for a YAML or JSON file (by extension, else a top-level mapping), "verl" for a launch script."""
    if path.endswith(TRINITY_SUFFIXES):
        return "trinity"
    if path.endswith(".sh") or text is None:
        return "verl"
    import yaml

    try:
        return "trinity" if isinstance(yaml.safe_load(text), dict) else "verl"
    except yaml.YAMLError:
        return "verl"


def training_run(path: str, options: Options | None = None, *, overrides: str | None = None,
                 stage: str | None = None) -> Side:
    """The training run a veRL launch script or a Trinity config describes (rftc.semantics), or with
    ``overrides`` (path then ``OVERRIDES``) the main_ppo launch of that override text; run is None, with RFTC600
    among the result's diagnostics, when it describes none. Of a config with stages, the run of the stage named
    ``stage`` (or its 1-based position; UsageError for neither); without ``stage`` none (RFTC604)."""
    from rftc.semantics.trinity import from_trinity, stage_index, stage_view, view
    from rftc.semantics.verl import from_verl
    from rftc.sources import read_text
    from rftc.trinity.document import parse

    options = options or Options()
    got = None if overrides is not None else read_text(path, Diagnostics())
    kind = kind_of(path, got[1] if got else None)
    run = picked = None
    if kind == "trinity":
        result = check(path)
        cfg = result.config
        if cfg is not None:
            name, text = next(iter(result.sources.items()))
            names, doc = [s.stage_name for s in cfg.stages], parse(text, name)[0]
            if names and stage is None:
                result.diagnostics.add("RFTC604", f"the config runs {len(names)} stages ({', '.join(names)}): "
                                       "compare one with --stage NAME", Span(name, _stages_line(text), 1))
                return Side(path, kind, None, result)
            index = stage_index(cfg, stage) if names else None
            if names and index is None:
                raise UsageError(f"--stage {stage}: {path} has no such stage (its stages: {', '.join(names)})")
            run = from_trinity(view(cfg, doc) if index is None else stage_view(cfg, doc, index),
                               dataset_rows=options.dataset_size, cwd=os.path.dirname(os.path.abspath(path)))
            picked = names[index] if names else None
    else:
        paths = [] if overrides is not None else [path]
        found = read(paths, options, overrides=overrides)
        launches = [invs for invs in trainings(found, paths).values() if invs]
        result = verl_config(first_launch(launches[0], found.diagnostics), options) if launches else \
            Result(None, Diagnostics(), {})
        result.diagnostics = Diagnostics(found.diagnostics + result.diagnostics)
        result.sources = found.sources
        if result.verl is not None and not result.diagnostics.has_errors:
            cwd = result.launch.cwd or os.path.dirname(os.path.abspath(path))
            try:
                run = from_verl(result.verl, total_steps=options.total_steps, dataset_rows=options.dataset_size,
                                cwd=cwd)
            except (TypeError, ValueError, ArithmeticError) as e:  # a value the quantities cannot be computed from
                unknown = unknown_values(result.verl)
                why = (f"{some_keys(unknown)} only known when the script runs" if unknown else
                       f"its values give {type(e).__name__}: {e}")
                result.diagnostics.add("RFTC600", f"{path}: no training run to compare: its quantities cannot be "
                                       f"computed, {why}", result.launch.span,
                                       hint="give the values with --env NAME=VALUE" if unknown else None)
                return Side(path, kind, None, result)
    if run is None:
        what = "does not check" if kind == "trinity" else "has no training launch whose config composes"
        at = result.launch.span if result.launch is not None else Span(path, 1, 1, 1, 2)
        result.diagnostics.add("RFTC600", f"{path}: no training run to compare: it {what} (its diagnostics say why)",
                               at, hint=f"rftc {'check' if kind == 'trinity' else 'lint'} {path}")
    return Side(path, kind, run, result, picked)


def diff(a: str | None, b: str, options: Options | None = None, *, overrides: str | None = None,
         stage: str | None = None) -> Diff:
    """What A and B train differently: the quantities of rftc.semantics whose values differ (every key of every
    release and every Trinity field feeds one of them, or none: rftc.mapping.rules, trinity_fields). With
    ``overrides`` A is that override text's main_ppo launch (as `rftc convert --overrides`), ``a`` None. ``stage``
    picks the stage of a config with stages (``training_run``)."""
    from rftc.semantics.model import differences, kind

    sides = [training_run(OVERRIDES, options, overrides=overrides) if overrides is not None else
             training_run(a, options, stage=stage), training_run(b, options, stage=stage)]
    if stage is not None and all(s.run for s in sides) and not any(s.stage for s in sides):
        raise UsageError(f"--stage {stage}: neither side is a Trinity config with stages")
    diags = Diagnostics(sides[0].result.diagnostics + sides[1].result.diagnostics)
    runs = [s.run for s in sides]
    if all(runs) and type(runs[0]) is not type(runs[1]):  # no quantity in common
        diags.add("RFTC600", f"{sides[1].path}: no training run to compare with {sides[0].path}: it trains by "
                  f"{kind(runs[1])}, {sides[0].path} by {kind(runs[0])}", Span(sides[1].path, 1, 1),
                  hint="compare an SFT launch with an SFT config or stage, an RL launch with an RL one")
        sides[1].run = None
    compared = all(s.run is not None for s in sides)
    found = differences(sides[0].run, sides[1].run) if compared else []
    return Diff(sides[0], sides[1], found, diags, {**sides[0].result.sources, **sides[1].result.sources})


@dataclass
class Launch:
    """A Trinity config as a veRL launch script (``to_verl``)."""

    text: str | None  # the script; None when the config does not check
    diagnostics: Diagnostics
    sources: dict[str, str]
    release: str = ""


def to_verl(path: str, release: str | None = None, *, dataset_size: int | None = None) -> Launch:
    """A veRL launch of ``release`` (default the newest bundled) that trains what the Trinity config at
    ``path`` trains. The launch is composed as `rftc verl-config` would, and each quantity of its semantic model
    that differs from the config's is reported (RFTC601), as is each override the release has no key for
    (RFTC602): what veRL cannot express, never dropped. main_ppo for an RL config, the release's SFT trainer
    for an SFT one (rftc.reverse.launch); a config with stages is RFTC603. veRL derives
    its LR horizon from the data's rows: ``dataset_size`` where the data is not readable here."""
    from rftc.reverse.launch import launch
    from rftc.reverse.overrides import unlike_first
    from rftc.semantics.model import differences
    from rftc.semantics.trinity import from_trinity, view
    from rftc.semantics.verl import from_verl
    from rftc.shell import analyze
    from rftc.trinity.derive import derive
    from rftc.trinity.document import parse
    from rftc.verl.releases import order
    from rftc.verl.releases.schema import versions

    release = release or max(versions(), key=order.key)
    if release not in versions():
        raise UsageError(f"--verl-version {release}: not a bundled release ({', '.join(versions())})")
    checked = check(path)
    out = Launch(None, checked.diagnostics, dict(checked.sources), release)
    if checked.config is None:
        return out
    name, yaml_text = next(iter(checked.sources.items()))
    if checked.config.stages:
        out.diagnostics.add("RFTC603", f"the config runs {len(checked.config.stages)} stages; veRL has no pipeline of "
                            "trainers, and each stage after the first starts from the checkpoint the one before "
                            "saves, which only the run knows", Span(name, _stages_line(yaml_text), 1),
                            hint="write each stage as a config of its own (model.model_path: the previous stage's "
                            "saved model) and convert each with --to verl")
        return out
    doc = parse(yaml_text, name)[0]
    v = view(checked.config, doc)
    out.text, kept, lacking = launch(checked.config, v, release, checked.document or {}, os.path.basename(name))
    for index, taskset, fields in unlike_first(checked.config):
        at = doc.locate(("buffer", "explorer_input", "tasksets", index))
        out.diagnostics.add("RFTC601", f"verl {release} cannot express taskset {taskset}'s own {', '.join(fields)}: "
                            "veRL samples every prompt of data.train_files alike, as the launch samples the first "
                            "taskset's", Span(name, at.line if at else 1, 1))
    gpus, world = derive(checked.config).gpus, {o.key: o.value for o in kept}
    world = world.get("trainer.nnodes", 0) * world.get("trainer.n_gpus_per_node", 0)
    if gpus is not None and 0 < world < gpus.trainer_gpu_num:
        out.diagnostics.add("RFTC610", f"the launch trains on {world} GPUs, not the {gpus.trainer_gpu_num} of the "
                            f"config's trainer: veRL splits each step's data.train_batch_size x rollout.n responses "
                            f"evenly over all its GPUs, and {gpus.trainer_gpu_num} do not divide them",
                            _span_of(v["cluster.trainer_gpu_num"].source, name),
                            hint="make buffer.train_batch_size x sync_interval a multiple of the trainer's GPUs")
    for o in lacking:  # those the file sets; a default the release lacks is its own behaviour (RFTC601 otherwise)
        if _span_of(o.source, name).line > 1 or "trainer.trainer_config" in o.source:
            out.diagnostics.add("RFTC602", f"verl {release} has no key {o.key}: {o.key}={o.value} ({o.source}) is "
                                "not in the launch", _span_of(o.source, name))
    script = os.path.splitext(name)[0] + ".verl.sh"
    analyzed = analyze(out.text, script)
    out.sources[script] = out.text
    launched = [i for i in analyzed.invocations if i.is_training]
    composed = verl_config(launched[0], Options(verl_version=release)) if launched else None
    if composed is None or composed.verl is None:
        out.diagnostics.extend(composed.diagnostics if composed else analyzed.diagnostics)
        return out
    out.diagnostics.extend(d for d in composed.diagnostics if d.severity.label == "error")
    cwd = os.path.dirname(os.path.abspath(name))
    run = from_verl(composed.verl, dataset_rows=dataset_size, cwd=cwd)
    for q, want, got in differences(from_trinity(v, dataset_rows=dataset_size, cwd=cwd), run):
        out.diagnostics.add("RFTC601", f"verl {release} cannot express the config's {q.label}: the config trains "
                            f"with {want}{f' ({want.source})' if want.source else ''}, the launch with {got}: {q.effect}",
                            _span_of(want.source, name))
    return out


def _stages_line(text: str) -> int:
    return next((i for i, line in enumerate(text.splitlines(), 1) if line.startswith("stages:")), 1)


def _span_of(source: str, name: str) -> Span:
    """The config line a semantic value's source names first ("file.yaml:12 key, ..."), else the file's start."""
    at = re.match(r"\S+?:(\d+) ", source)
    return Span(name, int(at.group(1)) if at else 1, 1)
