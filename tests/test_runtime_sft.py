"""algorithm_type sft and multi-stage configs: the dataset formatting, the loss, the settings and the plan."""

import json
import os

import pytest

from runtime_support import model_dir, settings

from rftc_runtime.errors import RuntimeFailure
from rftc_runtime.plan import make_plan
from rftc.trinity.expand import stage_configs
from rftc.trinity.schema import ExperienceBufferConfig, FormatConfig
from rftc_runtime import sft


def test_plaintext_and_messages_rows_become_chat_messages():
    plain = FormatConfig(prompt_type="plaintext", prompt_key="q", response_key="a", system_prompt="Be brief.")
    assert sft.messages({"q": "1+1?", "a": 2}, plain) == [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "1+1?"},
        {"role": "assistant", "content": "2"}]
    keyed = FormatConfig(prompt_type="plaintext", system_prompt_key="sys", system_prompt="ignored")
    assert sft.messages({"sys": "S", "prompt": "p", "response": "r"}, keyed)[0] == {"role": "system", "content": "S"}
    msgs = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    data = FormatConfig(messages_key="messages")
    assert sft.messages({"messages": msgs}, data) == msgs
    assert sft.messages({"messages": json.dumps(msgs)}, data) == msgs  # a JSON string, as Trinity accepts


@pytest.mark.parametrize("row,expected", [
    ({"message": []}, "no 'messages' key"),
    ({"messages": [{"role": "user", "content": "hi"}]}, "does not end with an assistant message"),
    ({"messages": "not json"}, "not JSON"),
    ({"messages": [{"text": "x"}]}, "not a list of chat messages"),
])
def test_rows_without_usable_messages_stop_the_run_before_it_starts(tmp_path, row, expected):
    path = tmp_path / "sft.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "a"},
                                             {"role": "assistant", "content": "b"}]}) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(RuntimeFailure) as err:
        sft.read(ExperienceBufferConfig(path=str(path), format=FormatConfig(messages_key="messages")))
    assert err.value.code == "RFTC506" and "row 1: " in err.value.message and expected in err.value.message


def test_the_sft_loss_mask_selects_the_response_tokens():
    """veRL's sft_loss on the trainer's no-padding batch (its loss mask) is the token-mean negative log-likelihood
    of exactly the response tokens, the ones the RL losses read (Trinity's sft loss, token-mean)."""
    import torch
    from verl.utils import tensordict_utils as tu
    from verl.workers.utils.losses import sft_loss
    from verl.workers.utils.padding import no_padding_2_padding

    from rftc_runtime.batch import collate, engine_batch, sft_loss_mask
    from rftc_runtime.experience import Experience

    exps = [Experience(i, i, list(range(1, 2 + i % 3)), list(range(10, 11 + (i * 2) % 5)), [], 0.0)
            for i in range(6)]
    for e in exps:
        e.logprobs = [0.0] * len(e.response_ids)
    data = collate(exps, pad_id=0)
    batch = engine_batch(data, ())
    batch["loss_mask"] = sft_loss_mask(data, batch)
    tokens = int(data["response_mask"].sum())
    assert int(batch["loss_mask"].values().sum()) == tokens
    torch.manual_seed(0)
    log_prob = torch.nested.nested_tensor_from_jagged(-torch.rand(batch["input_ids"].values().shape[0]),
                                                      offsets=batch["input_ids"].offsets())
    tu.assign_non_tensor(batch, dp_size=1, batch_num_tokens=tokens)
    loss, _ = sft_loss(None, {"log_probs": log_prob}, batch)
    responses = no_padding_2_padding(log_prob, batch)  # where the RL losses read each response token
    torch.testing.assert_close(loss, -(responses * data["response_mask"]).sum() / tokens)


MODEL = model_dir()


@pytest.mark.skipif(not (MODEL / "tokenizer_config.json").is_file(), reason="no model (scripts/setup-runtime.sh)")
def test_the_loss_covers_the_reply_and_its_end_of_turn_only():
    from transformers import AutoTokenizer

    from rftc_runtime.batch import collate
    from rftc_runtime.experience import Experience

    tok = AutoTokenizer.from_pretrained(MODEL)
    msgs = [{"role": "user", "content": "What is 4 + 7?"}, {"role": "assistant", "content": "11"}]
    prompt, response = sft.tokenize(tok, msgs)
    assert tok.decode(prompt).endswith("What is 4 + 7?<|im_end|>\n<|im_start|>assistant\n")
    assert tok.decode(response) == "11<|im_end|>\n"
    assert prompt + response == tok.apply_chat_template(msgs, tokenize=True, return_dict=False)
    short = sft.tokenize(tok, [msgs[0], {"role": "assistant", "content": "7"}])
    data = collate([Experience(0, 0, prompt, response, [0.0] * len(response), 0.0),
                    Experience(1, 1, *short, [0.0] * len(short[1]), 0.0)], tok.pad_token_id)
    assert data["response_mask"].tolist() == [[1.0] * len(response), [1.0] * len(short[1]) + [0.0]]
    assert data["responses"][1, :len(short[1])].tolist() == short[1]


def _staged(tmp_path):
    model = tmp_path / "model"
    model.mkdir(exist_ok=True)
    (model / "config.json").write_text("{}")
    (tmp_path / "sft.jsonl").write_text("".join(json.dumps({"messages": [
        {"role": "user", "content": str(i)}, {"role": "assistant", "content": str(i)}]}) + "\n" for i in range(10)))
    (tmp_path / "tasks.jsonl").write_text(json.dumps({"prompt": "q", "answer": 1}) + "\n")
    return {
        "name": "run", "checkpoint_root_dir": str(tmp_path / "ckpt"),
        "model": {"model_path": str(model)},
        "algorithm": {"algorithm_type": "grpo", "repeat_times": 2},
        "buffer": {"batch_size": 1, "explorer_input": {"taskset": {"path": str(tmp_path / "tasks.jsonl")},
                                                       "default_reward_fn_type": "last_number"}},
        "synchronizer": {"sync_method": "memory"},
        "trainer": {"save_interval": 5, "save_hf_checkpoint": "never"},
        "stages": [
            {"stage_name": "warmup", "mode": "train", "algorithm": {"algorithm_type": "sft"},
             "buffer": {"train_batch_size": 3, "total_epochs": 2, "trainer_input": {"experience_buffer": {
                 "path": str(tmp_path / "sft.jsonl"), "format": {"messages_key": "messages"}}}}},
            {"stage_name": "rft"},
        ],
    }


def test_stages_replace_whole_sections_as_trinity_builds_them(tmp_path):
    cfg = _staged(tmp_path)
    s = settings(cfg)
    (name0, c0), (name1, c1) = [(name, c.model_dump(exclude_unset=True)) for name, c in stage_configs(s.given)]
    assert (name0, c0["name"], c0["mode"]) == ("warmup", "run/warmup", "train")
    assert "explorer_input" not in c0["buffer"]  # replaced, not merged
    assert c0["trainer"] == {"save_interval": 5, "save_hf_checkpoint": "last"}  # forced, so the next stage can load it
    assert (c1["name"], c1["algorithm"], c1.get("mode")) == ("run/rft", cfg["algorithm"], None)
    assert "stages" not in c0 and "stages" not in c1
    warm, rft = s.stages
    assert warm.algorithm.algorithm_type == "sft" and warm.sft_data.format.messages_key == "messages"
    assert warm.checkpoint_job_dir == os.path.join(s.checkpoint_job_dir, "warmup")
    moved = rft.starting_from("/ckpt/warmup/global_step_6/huggingface")
    assert moved.model_path == "/ckpt/warmup/global_step_6/huggingface" and moved.taskset.path == rft.taskset.path


def test_the_plan_shows_every_stage(tmp_path):
    s = settings(_staged(tmp_path))
    plan = make_plan(s, gpus=0)
    assert plan.errors == []
    warm, rft = plan.stages
    assert warm.total_train_steps == 10 * 2 // 3 and warm.experiences_per_step == 3  # last partial batch dropped
    assert rft.total_train_steps == 1
    text = plan.describe(s)
    assert "stage 1/2: warmup (mode train)" in text and "stage 2/2: rft (mode both)" in text
    assert "veRL's sft_loss" in text and "6 trainer step(s) (10 sample(s) x 2 epoch(s) / 3" in text
    assert "model         the latest Hugging Face checkpoint of stage warmup" in text


def test_a_later_stage_model_is_not_checked_but_the_first_is(tmp_path):
    cfg = _staged(tmp_path)
    cfg["model"]["model_path"] = str(tmp_path / "nope")
    errors = make_plan(settings(cfg), gpus=0).errors
    assert [(c, k) for c, _, _, k in errors] == [("RFTC507", "model.model_path")]
    assert errors[0][1].startswith("stage warmup: model directory")


@pytest.mark.parametrize("change,expected", [
    # the stage no longer sets mode: the global mode (both) is the one to fix
    (lambda st: st.pop("mode"), ("RFTC505", "mode", "algorithm_type sft in mode both")),
    (lambda st: st["buffer"].pop("trainer_input"), ("RFTC506", "stages.0.buffer", "needs buffer.trainer_input")),
    (lambda st: st["buffer"].pop("train_batch_size"), ("RFTC505", "stages.0.buffer.train_batch_size",
                                                       "without buffer.train_batch_size")),
    (lambda st: st["buffer"]["trainer_input"]["experience_buffer"].update(
        data_selector={"selector_type": "difficulty_based"}),
     ("RFTC505", "stages.0.buffer.trainer_input.experience_buffer.data_selector.selector_type", "difficulty_based")),
    (lambda st: st["algorithm"].update(loss_agg_mode="seq-mean-token-mean"),
     ("RFTC505", "stages.0.algorithm.loss_agg_mode", "loss_agg_mode: seq-mean-token-mean")),
])
def test_what_an_sft_stage_cannot_run_is_refused_where_the_stage_sets_it(tmp_path, change, expected):
    cfg = _staged(tmp_path)
    change(cfg["stages"][0])
    errors = make_plan(settings(cfg), gpus=0).errors
    code, key, text = expected
    assert [(c, k) for c, _, _, k in errors] == [(code, key)]
    assert text in errors[0][1]


def test_rl_in_mode_train_is_refused(tmp_path):
    cfg = _staged(tmp_path)
    del cfg["stages"]
    cfg["mode"] = "train"
    assert [(c, k) for c, _, _, k in make_plan(settings(cfg), gpus=0).errors] == [("RFTC505", "mode")]


TRINITY_FORMATTER = '''
import json, sys, types
# trinity's mm_utils imports vLLM (absent from the reference environment) for multi-modal data only:
# stand-ins for the names it takes; text-only formatting never reaches them.
for name, attrs in {"vllm": [], "vllm.config": ["ModelConfig"], "vllm.entrypoints": [],
                    "vllm.entrypoints.chat_utils": ["ChatTemplateContentFormat", "ConversationMessage",
                                                    "parse_chat_messages", "parse_chat_messages_async"],
                    "vllm.inputs": ["MultiModalDataDict"]}.items():
    mod = types.ModuleType(name)
    for a in attrs:
        setattr(mod, a, object)
    sys.modules[name] = mod
from trinity.buffer.schema.formatter import SFTFormatter
from trinity.common.config import FormatConfig
from trinity.common.constants import PromptType
req = json.load(sys.stdin)
out = []
for fmt, row in req["cases"]:
    fmt = dict(fmt, prompt_type=PromptType(fmt["prompt_type"]))
    exp = SFTFormatter(req["model"], FormatConfig(**fmt)).format(row)
    mask = exp.action_mask.tolist() if fmt.get("enable_concatenated_multi_turn") else None
    out.append([exp.tokens.tolist(), int(exp.prompt_length), mask])
print(json.dumps(out))
'''


@pytest.mark.skipif(not (MODEL / "tokenizer_config.json").is_file(), reason="no model (scripts/setup-runtime.sh)")
def test_formatting_matches_trinitys_sft_formatter():
    import subprocess

    from transformers import AutoTokenizer
    from trinity_ref import reference

    if not reference.available():
        pytest.skip(reference.MISSING)
    chat = [{"role": "user", "content": "What is 4 + 7?"}, {"role": "assistant", "content": "11"},
            {"role": "user", "content": "And 2 + 2?"}, {"role": "assistant", "content": "4"}]
    cases = [
        ({"prompt_type": "plaintext", "prompt_key": "q", "response_key": "a", "system_prompt": "Be brief."},
         {"q": "1+1?", "a": "2"}),
        ({"prompt_type": "plaintext", "system_prompt_key": "sys"}, {"sys": "S", "prompt": "p", "response": "r"}),
        ({"prompt_type": "messages", "messages_key": "messages"}, {"messages": chat}),
        ({"prompt_type": "messages"}, {"message": json.dumps(chat[:2])}),  # Trinity's default key, a JSON string
        ({"prompt_type": "messages", "messages_key": "messages", "enable_concatenated_multi_turn": True},
         {"messages": chat}),  # every assistant turn learned
        ({"prompt_type": "messages", "messages_key": "messages", "enable_concatenated_multi_turn": True},
         {"messages": [{"role": "system", "content": "Be brief."}, *chat, {"role": "user", "content": "3 + 3?"},
                       {"role": "assistant", "content": "6"}]}),
    ]
    done = subprocess.run([str(reference.PYTHON), "-c", TRINITY_FORMATTER], capture_output=True, text=True,
                          input=json.dumps({"model": str(MODEL), "cases": cases}), timeout=600,
                          env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert done.returncode == 0, done.stderr[-2000:]
    tok = AutoTokenizer.from_pretrained(MODEL)
    for (fmt, row), (tokens, prompt_length, mask) in zip(cases, json.loads(done.stdout)):
        msgs = sft.messages(row, FormatConfig(**fmt))
        if mask is None:
            prompt, response = sft.tokenize(tok, msgs)
        else:
            prompt, response, ours = sft.tokenize_every_turn(tok, msgs)
            assert ours == mask, fmt
            learned = tok.decode([t for t, m in zip(response, ours) if m])
            assert learned == "".join(f"{m['content']}<|im_end|>\n" for m in msgs if m["role"] == "assistant")
        assert (prompt + response, len(prompt)) == (tokens, prompt_length), fmt
