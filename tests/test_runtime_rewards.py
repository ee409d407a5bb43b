"""DAPO's reward in the runtime against veRL's own dapo reward manager on the same responses: Trinity's
math_dapo_reward (its reward_fn_args names) and the veRL reward workflow `rftc convert` writes (workflow_args
under veRL's names). Needs veRL (.venv-run); no model, no vLLM."""


import pytest

from runtime_support import require

require("verl", "torch")

from test_mapping_support import convert  # noqa: E402

from rftc.plugins import WORKFLOW  # noqa: E402
from rftc.plugins.reward import VerlReward  # noqa: E402
from rftc_runtime import rewards  # noqa: E402
from runtime_support import settings  # noqa: E402
from rftc_runtime.tasksets import Task  # noqa: E402

EOS, PAD = 0, 1


class CharTokenizer:
    """One token per character (ids are code points); EOS and PAD are special, as in a real tokenizer."""

    eos_token = "</s>"

    def decode(self, ids, skip_special_tokens=True):
        ids = [int(i) for i in ids]
        return "".join("</s>" if i == EOS else "" if i == PAD else chr(i) for i in ids
                       if not (skip_special_tokens and i in (EOS, PAD)))


def _verl_rewards(responses: list[list[int]], truths: list[str], max_resp_len: int, buffer_cfg) -> list[float]:
    """veRL's DAPORewardManager on these responses: the reward it places on each response's last token."""
    import numpy as np
    import torch
    from verl import DataProto
    from verl.workers.reward_manager.dapo import DAPORewardManager

    width = max(len(r) for r in responses)
    prompts = torch.full((len(responses), 3), PAD)
    prompts[:, -2:] = ord("q")
    resp = torch.full((len(responses), width), PAD)
    mask = torch.zeros((len(responses), 3 + width), dtype=torch.long)
    mask[:, 1:3] = 1
    for i, r in enumerate(responses):
        resp[i, :len(r)] = torch.tensor(r)
        mask[i, 3:3 + len(r)] = 1
    data = DataProto.from_dict(
        tensors={"prompts": prompts, "responses": resp, "attention_mask": mask},
        non_tensors={"data_source": np.array(["math_dapo"] * len(responses), dtype=object),
                     "reward_model": np.array([{"ground_truth": t} for t in truths], dtype=object)})
    manager = DAPORewardManager(CharTokenizer(), num_examine=0, max_resp_len=max_resp_len,
                                overlong_buffer_cfg=buffer_cfg)
    tensor = manager(data)
    return [float(tensor[i, len(r) - 1]) for i, r in enumerate(responses)]


def _tokens(text: str, eos: bool) -> list[int]:
    return [ord(c) for c in text] + ([EOS] if eos else [])


# Texts whose token counts run from well before the overlong buffer (20 - 8 = 12) to past max_resp_len (20):
# right and wrong answers, \boxed{} and "Answer:" forms, with and without a final EOS token.
CASES = [("Answer: 12", "12", True), ("x" * 8 + "Answer: 7", "12", True), ("\\boxed{12}", "12", False),
         ("so " * 4 + "\\boxed{12}", "12", True), ("Answer: 3/4", "\\frac{3}{4}", True),
         ("y" * 19, "5", True), ("z" * 14 + "Answer: 5", "5", False), ("", "1", True), ("a" * 24, "1", False)]


def _ours(args: dict) -> list[float]:
    fn = rewards.resolve("math_dapo_reward", args)
    return [rewards.score(fn, "math_dapo", text, truth, {}, len(_tokens(text, eos)))[0]
            for text, truth, eos in CASES]


@pytest.mark.parametrize("factor", [1.0, 0.5])
def test_math_dapo_reward_equals_verls_dapo_manager(factor):
    from omegaconf import OmegaConf

    buffer = OmegaConf.create({"enable": True, "len": 8, "penalty_factor": factor, "log": True})
    expected = _verl_rewards([_tokens(t, eos) for t, _, eos in CASES], [g for _, g, _ in CASES], 20, buffer)
    ours = _ours({"enable_overlong_penalty": True, "cache_length": 8, "penalty_factor": factor,
                  "max_response_length": 20})
    assert ours == pytest.approx(expected, abs=1e-6)
    # the cases cover right and wrong answers, no penalty, a partial one inside the buffer, and one past
    # max_resp_len (veRL does not clip it at -penalty_factor)
    fn = rewards.resolve("math_dapo_reward", {"enable_overlong_penalty": True, "cache_length": 8,
                                              "penalty_factor": factor, "max_response_length": 20})
    parts = [rewards.score(fn, "math_dapo", t, g, {}, len(_tokens(t, eos)))[1] for t, g, eos in CASES]
    assert {p["acc"] for p in parts} == {0.0, 1.0}
    penalties = [p["overlong_reward"] for p in parts]
    assert 0 in penalties and any(-factor < p < 0 for p in penalties) and min(penalties) < -factor

def test_without_the_overlong_buffer_only_the_answer_counts():
    from omegaconf import OmegaConf

    off = OmegaConf.create({"enable": False, "len": 8, "penalty_factor": 1.0, "log": False})
    expected = _verl_rewards([_tokens(t, eos) for t, _, eos in CASES], [g for _, g, _ in CASES], 20, off)
    assert _ours({"enable_overlong_penalty": False}) == pytest.approx(expected) == _ours({})
    assert set(expected) == {1.0, -1.0}


def test_overlong_penalty_is_reported_beside_the_reward():
    fn = rewards.resolve("math_dapo_reward", {"enable_overlong_penalty": True, "cache_length": 4,
                                              "penalty_factor": 1.0, "max_response_length": 10})
    reward, extras = rewards.score(fn, "", "Answer: 2", "2", {}, response_length=8)
    assert reward == pytest.approx(1.0 - 2 / 4)
    assert extras == {"acc": 1.0, "overlong_reward": pytest.approx(-0.5), "overlong": 1.0}


@pytest.mark.parametrize("args", [{"cache_length": 8, "penalty_factor": 1.0},
                                  {"cache_length": 0, "penalty_factor": 1.0, "max_response_length": 20},
                                  {"cache_length": 30, "penalty_factor": 1.0, "max_response_length": 20}])
def test_arguments_veRL_refuses_are_refused(args):
    from omegaconf import OmegaConf
    from verl.workers.reward_manager.dapo import DAPORewardManager

    buffer = OmegaConf.create({"enable": True, "len": args["cache_length"], "penalty_factor": 1.0, "log": False})
    with pytest.raises(AssertionError):
        DAPORewardManager(CharTokenizer(), 0, max_resp_len=args.get("max_response_length"),
                          overlong_buffer_cfg=buffer)
    with pytest.raises(ValueError, match="math_dapo_reward"):
        rewards.resolve("math_dapo_reward", {"enable_overlong_penalty": True, **args})
    with pytest.raises(ValueError, match="does not take"):
        rewards.resolve("math_dapo_reward", {"overlong_buffer_len": 8})


def test_converted_dapo_script_drives_the_runtime_reward():
    kw = "+reward_model.reward_kwargs"
    m = convert("data.train_files=/d/dapo-math-17k.parquet", "reward_model.reward_manager=dapo",
                f"{kw}.overlong_buffer_cfg.enable=True", f"{kw}.overlong_buffer_cfg.len=4",
                f"{kw}.overlong_buffer_cfg.penalty_factor=1.0", f"{kw}.overlong_buffer_cfg.log=False",
                f"{kw}.max_resp_len=10")
    ts = settings(m.config).taskset
    assert ts.default_workflow_type == WORKFLOW
    score = rewards.scorer(ts)
    row = {"data_source": "math_dapo", "reward_model": {"ground_truth": "2"}}
    assert score(Task(0, "q", None, row), "Answer: 2", 9)[0] == pytest.approx(1 - 3 / 4)
    assert score(Task(0, "q", None, row), "Answer: 3", 6)[0] == -1.0


@pytest.mark.parametrize("factor", [1.0, 0.5])
def test_verl_workflow_reward_equals_verls_dapo_manager(factor):
    """The reward rftc's Trinity workflow and this runtime compute for a converted dapo launch (rftc.plugins.reward,
    workflow_args under veRL's names) is veRL's DAPORewardManager's, token for token."""
    from omegaconf import OmegaConf

    cfg = {"enable": True, "len": 8, "penalty_factor": factor, "log": True}
    reward = VerlReward({"reward_manager": "dapo", "overlong_buffer_cfg": cfg, "max_resp_len": 20})
    ours = [reward({"data_source": "math_dapo", "reward_model": {"ground_truth": g}}, t, len(_tokens(t, eos)))[0]
            for t, g, eos in CASES]
    theirs = _verl_rewards([_tokens(t, eos) for t, _, eos in CASES], [g for _, g, _ in CASES], 20,
                           OmegaConf.create(cfg))
    assert ours == pytest.approx(theirs)


def test_custom_function_gets_its_reward_kwargs_as_verl_passes_them():
    fn = rewards.resolve("test_runtime_rewards:scaled", {"scale": 3.0})
    assert rewards.score(fn, "", "abcd", None, None) == (12.0, {})
    with pytest.raises(ValueError, match="does not take"):
        rewards.resolve("test_runtime_rewards:scaled", {"scael": 3.0})
    with pytest.raises(ValueError, match="does not take"):
        rewards.resolve("last_number", {"scale": 3.0})
    gsm8k = rewards.resolve("gsm8k", {"format_score": 0.25})  # veRL's compute_score keywords pass through
    assert rewards.score(gsm8k, "", "#### 5", "4", None)[0] == 0.25


def scaled(data_source, solution_str, ground_truth, extra_info=None, scale=1.0):
    return {"score": scale * len(solution_str), "text": solution_str}


def test_explorer_scores_math_dapo_on_the_token_count_eos_included(monkeypatch):
    """vLLM's token_ids end with the EOS token its text leaves out; veRL's response mask counts it too."""
    import sys
    import types

    from test_runtime_data import _FakeLLM

    from rftc_runtime.explorer import Explorer
    from runtime_support import taskset

    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(SamplingParams=lambda **kw: kw))
    explorer = Explorer.__new__(Explorer)
    explorer.llm = _FakeLLM([[("Answer: 2", "stop"), ("Answer: 20000", "length")]])  # 10 and 13 tokens
    explorer.tokenizer = types.SimpleNamespace(apply_chat_template=lambda msgs, **kw: [1, 2, 3])
    explorer.max_prompt_tokens, explorer.weights_version = None, 0
    ts = taskset(name="dapo", path="", repeat_times=2, default_reward_fn_type="math_dapo_reward",
                 reward_fn_args={"enable_overlong_penalty": True, "cache_length": 4, "penalty_factor": 1.0,
                                 "max_response_length": 12})
    exps, m = explorer.explore([Task(0, "1+1?", "2", {})], ts, ts.default_reward_fn_type, group_base=0)
    assert [len(e.response_ids) for e in exps] == [10, 13]
    assert [e.reward for e in exps] == pytest.approx([1 - 2 / 4, -1 - 5 / 4])
    assert m["rollout/acc_mean"] == 0.5 and m["rollout/overlong_mean"] == 1.0
    assert m["rollout/overlong_reward_mean"] == pytest.approx((-0.5 - 1.25) / 2)


def test_argument_errors_of_built_in_functions_are_found_without_running():
    assert rewards.argument_error("math_dapo_reward", {"enable_overlong_penalty": True, "cache_length": 4}) == (
        "math_dapo_reward: enable_overlong_penalty needs max_response_length, penalty_factor in reward_fn_args")
    assert "does not take" in rewards.argument_error("last_number", {"scale": 2})
    assert rewards.argument_error("math_dapo_reward", {"enable_overlong_penalty": False}) is None
    assert rewards.argument_error("gsm8k", {"no_such": 1}) is None  # bound to veRL's module: the explorer checks
    assert rewards.argument_error("mymodule:fn", {"x": 1}) is None
