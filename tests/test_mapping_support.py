"""Building effective veRL configs by hand for the mapping's unit tests (no shell or Hydra stage needed):
``cfg("a.b=1", "c=x")`` gives an EffectiveConfig where those keys are user-set at lines 1, 2, ... of run.sh and
every other key takes veRL's default through the mapping's fallbacks."""

from __future__ import annotations

import ast

from rftc.diagnostics.model import Span
from rftc.mapping.convert import map_config
from rftc.mapping.draft import Options
from rftc.verl.effective import EffectiveConfig, Provenance


def parse_value(text: str):
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    low = t.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("null", "none", "~"):
        return None
    for kind in (int, float):
        try:
            return kind(t)
        except ValueError:
            pass
    if t.startswith("[") and t.endswith("]"):
        try:
            return ast.literal_eval(t)
        except (ValueError, SyntaxError):
            return [x.strip().strip("'\"") for x in t[1:-1].split(",") if x.strip()]
    return t


def cfg(*overrides: str, file: str = "run.sh", release: str = "0.9.1") -> EffectiveConfig:
    values: dict = {}
    prov: dict = {}
    for line, ov in enumerate(overrides, start=1):
        key, _, text = ov.partition("=")
        key = key.lstrip("+")
        node = values
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = parse_value(text)
        prov[key] = Provenance("override", Span(file, line, 5, line, 5 + len(ov)), ov)
    return EffectiveConfig(release, "ppo_trainer", values, prov)


# the launches of convert() leave over-long prompts out, as Trinity's default does, so that a test's diagnostics are
# those of what it sets: a launch that keeps them (veRL's default) is RFTC305 (tests of their own name the keys)
LEFT_OUT = "data.filter_overlong_prompts=True"


def convert(*overrides: str, **options):
    named = any(o.lstrip("+").startswith(("data.filter_overlong_prompts=", "data.truncation=")) for o in overrides)
    return map_config(cfg(*overrides, *(() if named else (LEFT_OUT,))), Options(**options))


# the conversion's warning of the micro-batches whose losses Trinity adds up, which nearly every launch has
# (tests/test_diff_micro.py tests it)
MICRO_WARNING = "Trinity-RFT 0.6's trainer adds up the losses of"


def codes(mapped) -> list[str]:
    """The codes of a conversion's diagnostics, less its micro-batch loss warning (MICRO_WARNING)."""
    return [d.code for d in mapped.diagnostics if MICRO_WARNING not in d.message]
