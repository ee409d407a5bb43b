"""Several launches (an SFT warm-up, then RL) as one Trinity-RFT 0.6 config with ``stages:``, as Trinity runs
them (trinity-0.6.md 1.13, rftc.trinity.expand): a stage's mode, algorithm, buffer, data_processor, explorer and
trainer replace the global sections whole; the other sections are one for every stage; every stage after the
first starts from the previous stage's latest Hugging Face checkpoint in place of model.model_path.

The global sections are the last launch's (its stage sets nothing of its own, as in examples/arith_sft_grpo.yaml)
with the first launch's model path, which the first stage starts from; each earlier launch's stage holds its own
replaceable sections. Where the launches differ on a shared setting the last launch's value is kept (RFTC335).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from rftc.diagnostics.collector import Diagnostics
from rftc.dotted import get
from rftc.mapping.draft import Origin
from rftc.trinity.expand import STAGE_SECTIONS
from rftc.verl.effective import EffectiveConfig, Provenance

MODEL_PATH = "model.model_path"
TAG = "\x00"  # separates a launch's index from its veRL key in the pipeline's provenance


@dataclass
class Launch:
    """One launch's mapped config, as the pipeline reads it."""

    name: str  # the stage's name
    config: dict  # its Trinity document
    origins: dict[str, Origin]
    cfg: EffectiveConfig
    span: object  # where the launch is written


class Staged:
    """The provenance of a pipeline: the veRL keys of each launch, told apart by the launch's index (the emitter
    and the checker's locator read it as they read one launch's EffectiveConfig)."""

    def __init__(self, launches: list[Launch]):
        self.launches = launches
        self.verl_version = ", ".join(_composed(x) for x in launches)  # what the emitter's header names
        self.config_name, self.version_note, self.source = "", "", ""

    def prov(self, key: str) -> Provenance:
        index, _, verl_key = key.partition(TAG)
        if not verl_key:
            return Provenance("default")
        p = self.launches[int(index)].cfg.prov(verl_key)
        return replace(p, source_key=f"{index}{TAG}{p.source_key}") if p.source_key else p

    @staticmethod
    def display(key: str) -> str:
        return key.partition(TAG)[2] or key


def _composed(launch: Launch) -> str:
    cfg = launch.cfg
    where = f"the config of {cfg.source}" if cfg.source else cfg.verl_version
    return f"{where} ({launch.name}: {cfg.config_name})"


def stage_names(scripts: list[str]) -> list[str]:
    """Each stage's name: its script's file stem (letters, digits, ``-`` and ``_``), made unique in order."""
    names: list[str] = []
    for s in scripts:
        stem = re.sub(r"\.sh$", "", s.rsplit("/", 1)[-1])
        base = re.sub(r"[^A-Za-z0-9_-]+", "_", stem).strip("_") or "stage"
        name, n = base, 2
        while name in names:
            name, n = f"{base}_{n}", n + 1
        names.append(name)
    return names


def pipeline(launches: list[Launch], diags: Diagnostics) -> tuple[dict, dict[str, Origin], Staged]:
    """The one config of ``launches`` in order, its provenance, and the Staged view of their veRL configs."""
    last = len(launches) - 1
    config = dict(launches[last].config)
    origins = {k: _tagged(o, last) for k, o in launches[last].origins.items()}
    first = launches[0]
    if first.config.get("model", {}).get("model_path") is not None:
        config["model"] = {**config.get("model", {}), "model_path": first.config["model"]["model_path"]}
        origins[MODEL_PATH] = _tagged(first.origins.get(MODEL_PATH, Origin()), 0)
    for i, launch in enumerate(launches[1:], 1):
        _replaced_model(launch, launches[i - 1], diags)
    for launch in launches[:-1]:
        _shared(launch, launches[last], diags)
    stages = []
    for i, launch in enumerate(launches):
        stage = {"stage_name": launch.name}
        if i < last:
            for section in STAGE_SECTIONS:
                if section in launch.config:
                    stage[section] = launch.config[section]
                    prefix = f"{section}."
                    origins.update({f"stages.{i}.{k}": _tagged(o, i) for k, o in launch.origins.items()
                                    if k == section or k.startswith(prefix)})
                elif section in config and section == "data_processor":
                    stage[section] = {}  # the last launch's pipeline of operators is not this stage's
                    origins[f"stages.{i}.{section}"] = Origin((), "none in this launch (the stage replaces the "
                                                              "global one)")
        stages.append(stage)
    config["stages"] = stages
    origins["stages"] = Origin((), f"{len(stages)} launches in order; each stage after the first starts from the "
                               "previous stage's latest Hugging Face checkpoint")
    return config, origins, Staged(launches)


def _tagged(origin: Origin, index: int) -> Origin:
    return Origin(tuple(f"{index}{TAG}{k}" for k in origin.keys), origin.note)


def _replaced_model(launch: Launch, previous: Launch, diags: Diagnostics) -> None:
    path = launch.config.get("model", {}).get("model_path")
    keys = launch.origins.get(MODEL_PATH, Origin()).keys
    span = launch.cfg.prov(keys[0]).span if keys else None
    diags.add("RFTC334", f"stage {launch.name} starts from the latest Hugging Face checkpoint of stage "
              f"{previous.name}, as Trinity runs stages; the launch's own model path {path!r} is not used",
              span or launch.span, key=keys[0] if keys else None,
              hint="convert the launch on its own to train from that path")


def _shared(launch: Launch, kept: Launch, diags: Diagnostics) -> None:
    """RFTC335 for each setting outside the stage sections that ``launch`` sets from its script and ``kept``
    (the last launch, whose value the pipeline keeps) sets otherwise."""
    for tkey, origin in launch.origins.items():
        top = tkey.split(".", 1)[0]
        given = [k for k in origin.keys if launch.cfg.user_set(k)]
        if top in STAGE_SECTIONS or top == "stages" or tkey == MODEL_PATH or not (given or top == "cluster"):
            continue  # a value of the script's (or of its launcher: the GPUs torchrun starts), not a default
        path = tuple(int(p) if p.isdigit() else p for p in tkey.split("."))  # origins index lists by number
        mine, theirs = get(launch.config, path), get(kept.config, path)
        if mine != theirs:
            by = given[0] if given else origin.note
            diags.add("RFTC335", f"{tkey} is {mine!r} in stage {launch.name} ({by}) and {theirs!r} in stage "
                      f"{kept.name}; Trinity has one {top} for every stage: the pipeline keeps {theirs!r}",
                      (launch.cfg.prov(given[0]).span if given else None) or launch.span,
                      key=given[0] if given else None,
                      hint="make the scripts agree, or convert them as separate configs")

