"""`rftc diff` names what becomes of a prompt over the length limit, on both sides: veRL's dataset leaves it out
(always before 0.3.0; where data.filter_overlong_prompts is set after), else cuts it as data.truncation says or
stops; Trinity-RFT masks it out of the loss (model.enable_prompt_truncation), else gives vLLM all of it. A launch with
one override changed at a time, a Trinity config with one field changed, the default spelled out, and a launch and
its own conversion, whose warnings name what differs."""

from __future__ import annotations

import json

import pytest
import yaml

from support.cli import launch, rftc
from test_diff_steps import _differences
from test_diff_optimizer import BASE, TRINITY, _with

FILTER, CUT = "data.filter_overlong_prompts", "data.truncation"


@pytest.mark.parametrize("release, base, changed, quantities", [
    ("0.9.1", (), (f"{CUT}=left",), {"prompt_truncation"}),
    ("0.9.1", (), (f"{CUT}=middle",), {"prompt_truncation"}),
    ("0.9.1", (), (f"{CUT}=error",), set()),  # the default of every release, spelled out
    ("0.9.1", (), (f"{FILTER}=True",), {"overlong_prompts", "prompt_truncation"}),
    ("0.9.1", (f"{FILTER}=True",), (f"{FILTER}=True", f"{CUT}=left"), set()),  # no over-long prompt is kept
    ("0.4.0", (f"{CUT}=right",), (f"{CUT}=middle",), {"prompt_truncation"}),
    ("0.3.0.post1", (f"{CUT}=error",), (f"{CUT}=middle",), {"prompt_truncation"}),  # unknown there: it stops too
])
def test_one_override_is_its_quantity(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


@pytest.mark.parametrize("model, quantities", [
    (dict(enable_prompt_truncation=False), {"overlong_prompts", "prompt_truncation"}),
    (dict(enable_prompt_truncation=True), set()),  # Trinity's default
])
def test_one_field_of_a_trinity_config_is_its_quantity(tmp_path, model, quantities):
    changed = _with(model={**TRINITY["model"], **model})
    assert _differences(tmp_path, TRINITY, changed, ext=".yaml") == quantities


def _convert_and_diff(tmp_path, release: str, *overrides: str, part: str = "",
                      module: str = "verl.trainer.main_ppo", base: tuple = BASE) -> tuple[str, dict, set[str]]:
    """The conversion's diagnostics, the config it writes (its section ``part``, dotted; {} where unset) and the
    quantities `rftc diff` of the launch and it reports (Hydra's options before the overrides)."""
    script = launch(tmp_path, *sorted((*base, *overrides), key=lambda w: not w.startswith("--")), module=module)
    out = tmp_path / "out.yaml"
    done = rftc("convert", script, "--verl-version", release, "--format", "concise", "-o", out, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    diff = rftc("diff", script, out, "--verl-version", release, "--format", "json", cwd=tmp_path)
    assert diff.returncode in (0, 1), diff.stderr
    config = yaml.safe_load(out.read_text())
    for key in filter(None, part.split(".")):
        config = (config or {}).get(key) or {}
    return done.stderr, config, {d["quantity"] for d in json.loads(diff.stdout)["differences"]}

def test_a_launch_that_stops_at_over_long_prompts_trains_as_its_conversion(tmp_path):
    """veRL's default (truncation=error, no filter) stops at the first prompt over the limit, so the prompts a run
    that trains meets are whole, as Trinity without enable_prompt_truncation gives them to vLLM: no warning."""
    stderr, model, quantities = _convert_and_diff(tmp_path, "0.9.1", part="model")
    assert model["enable_prompt_truncation"] is False
    assert "truncation" not in stderr, stderr
    assert not {"overlong_prompts", "prompt_truncation"} & quantities


@pytest.mark.parametrize("release, overrides, warned", [
    ("0.9.1", (f"{CUT}=left",), "data.truncation=left: veRL gives the rollout its last max_prompt_length tokens"),
    ("0.3.0.post1", (f"{CUT}=middle",), "verl 0.3.0.post1 stops at its first prompt (it has no truncation middle)"),
])
def test_a_launch_that_keeps_over_long_prompts_and_its_conversion(tmp_path, release, overrides, warned):
    """Trinity cannot cut a prompt as veRL does, nor stop at it: the conversion warns, and the diff names it."""
    stderr, model, quantities = _convert_and_diff(tmp_path, release, *overrides, part="model")
    assert model["enable_prompt_truncation"] is False
    assert "RFTC305" in stderr and warned in stderr, stderr
    assert {"overlong_prompts", "prompt_truncation"} & quantities == {"prompt_truncation"}


@pytest.mark.parametrize("release, overrides", [("0.9.1", (f"{FILTER}=True", f"{CUT}=left")), ("0.2", ())])
def test_a_launch_that_leaves_them_out_and_its_conversion_train_alike(tmp_path, release, overrides):
    """veRL's filter (0.2's dataset always filters) and Trinity's enable_prompt_truncation both leave them out."""
    stderr, model, quantities = _convert_and_diff(tmp_path, release, *overrides, part="model")
    assert model["enable_prompt_truncation"] is True
    assert "truncation" not in stderr, stderr
    assert not {"overlong_prompts", "prompt_truncation"} & quantities
