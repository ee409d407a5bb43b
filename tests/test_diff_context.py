"""`rftc diff` names the rollout engine's context length, which bounds prompt and response together, on both sides:
veRL's rollout.max_model_len (null: max_prompt_length + max_response_length), Trinity-RFT's model.max_model_len
(unset: max_prompt_tokens + max_response_tokens, as its validator fills it in). A launch with one override changed
at a time, a Trinity config with one field changed, the null against the sum spelled out, and a launch and its own
conversion, whose warnings name what differs."""

from __future__ import annotations

import pytest

from test_convert_equivalence import MICRO_WARNING
from test_diff_optimizer import TRINITY, _with
from test_diff_prompts import _convert_and_diff
from test_diff_steps import _differences

ML = "actor_rollout_ref.rollout.max_model_len"


@pytest.mark.parametrize("release", ["0.3.0.post1", "0.6.1", "0.9.1"])
@pytest.mark.parametrize("base, changed, quantities", [
    ((), (f"{ML}=2048",), {"context_length"}),
    ((), (f"{ML}=1024",), set()),  # the null, prompt + response (512 + 512 in every release), spelled out
    ((), (f"{ML}=null",), set()),  # the default of every release that has the key, spelled out
    ((f"{ML}=2048",), (f"{ML}=4096",), {"context_length"}),
    ((f"{ML}=800",), (f"{ML}=900",), {"context_length"}),  # below the sum: it ends long prompts' responses
    (("data.max_prompt_length=256",), ("data.max_prompt_length=256", f"{ML}=768"), set()),
    (("data.max_prompt_length=256",), ("data.max_prompt_length=512",), {"max_prompt_length", "context_length"}),
])
def test_one_override_is_its_quantity(tmp_path, release, base, changed, quantities):
    assert _differences(tmp_path, base, changed, "--verl-version", release) == quantities


@pytest.mark.parametrize("release, mode", [("0.6.1", "async"), ("0.7.0", "async")])
def test_a_rollout_that_does_not_read_it(tmp_path, release, mode):
    """verl 0.6's async servers give the engine prompt + response, 0.7.0's the model's max_position_embeddings,
    whatever rollout.max_model_len says; 0.6's sync rollout reads it."""
    base = (f"actor_rollout_ref.rollout.mode={mode}",)
    assert _differences(tmp_path / "a", base, (*base, f"{ML}=2048"), "--verl-version", release) == set()
    (tmp_path / "b").mkdir()
    stderr, model, _ = _convert_and_diff(tmp_path / "b", release, *base, f"{ML}=800", part="model")
    assert model["max_model_len"] == 1024 and model["max_prompt_tokens"] == 512
    assert not [w for w in stderr.splitlines() if "RFTC305" in w and MICRO_WARNING not in w], stderr


# (the token budget of the micro-batches Trinity adds up is ceil(2 x max_model_len / SP) where unset)
@pytest.mark.parametrize("model, quantities", [
    (dict(max_model_len=400), {"context_length", "max_prompt_length", "microbatch_loss"}),  # max_prompt_tokens 300
    (dict(max_model_len=400, max_prompt_tokens=200), {"context_length", "microbatch_loss"}),
    (dict(max_model_len=None, max_prompt_tokens=200), set()),  # the validator's 200 + 100, as the base's 300
])
def test_one_field_of_a_trinity_config_is_its_quantity(tmp_path, model, quantities):
    base = _with(model={**TRINITY["model"], "max_prompt_tokens": 200})
    changed = _with(model={**TRINITY["model"], **model})
    changed["model"] = {k: v for k, v in changed["model"].items() if v is not None}
    assert _differences(tmp_path, base, changed, ext=".yaml") == quantities


@pytest.mark.parametrize("release, overrides, written", [
    ("0.9.1", (), 1024),  # null: the conversion writes the sum
    ("0.9.1", (f"{ML}=2048",), 2048),
    ("0.3.0.post1", (f"{ML}=4096",), 4096),
])
def test_a_launch_and_its_conversion_have_one_context_length(tmp_path, release, overrides, written):
    stderr, model, quantities = _convert_and_diff(tmp_path, release, *overrides, part="model")
    assert model["max_model_len"] == written
    assert "max_model_len" not in stderr, stderr
    assert not {"context_length", "max_prompt_length"} & quantities


def test_a_context_below_prompt_and_response_is_warned_and_kept(tmp_path):
    """veRL's vLLM rollout ends a response where prompt and response reach max_model_len; Trinity takes the context
    and sets max_prompt_tokens to its difference with max_response_tokens: the conversion warns of the prompt
    length, and the context is the same."""
    stderr, model, quantities = _convert_and_diff(tmp_path, "0.9.1", f"{ML}=800", part="model")
    assert model["max_model_len"] == 800 and "max_prompt_tokens" not in model
    assert "RFTC305" in stderr and f"{ML} (800) is less than" in stderr, stderr
    assert {"context_length", "max_prompt_length"} & quantities == {"max_prompt_length"}
