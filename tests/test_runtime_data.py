"""Tasksets and reward functions of the runtime: pure Python, run in every environment."""

import json
import sys
import types

import pytest

from runtime_support import taskset

from rftc_runtime import rewards
from rftc_runtime.errors import RuntimeFailure
from rftc_runtime.tasksets import TaskReader, chat_messages, missing_prompt_warning, read_tasks


def _write(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_hf_style_directory_by_split_and_nested_keys(tmp_path):
    _write(tmp_path / "d" / "train.jsonl", [{"q": [{"role": "user", "content": "1+1?"}],
                                             "reward_model": {"ground_truth": "2"}}])
    _write(tmp_path / "d" / "test.jsonl", [{"q": "2+2?", "reward_model": {"ground_truth": "4"}}])
    ts = taskset(name="t", path=str(tmp_path / "d"), split="test",
                 format={"prompt_key": "q", "response_key": "reward_model.ground_truth", "system_prompt": "Be brief."})
    loaded = read_tasks(ts)
    tasks = loaded.tasks
    assert loaded.missing == 0 and [t.answer for t in tasks] == ["4"]
    assert chat_messages(tasks[0], ts.format.system_prompt) == [{"role": "system", "content": "Be brief."},
                                                          {"role": "user", "content": "2+2?"}]


def test_rows_without_prompt_are_skipped_and_counted(tmp_path):
    _write(tmp_path / "t.jsonl", [{"prompt": "a", "answer": 1}, {"other": "b"}, {"prompt": "", "answer": 3},
                                  {"prompt": [{"text": "no role"}]}, {"prompt": 7}, [1, 2],
                                  {"prompt": [{"role": "user", "content": "b"}]}])
    ts = taskset(name="t", path=str(tmp_path / "t.jsonl"), format={"response_key": "answer"})
    loaded = read_tasks(ts)
    assert [t.index for t in loaded.tasks] == [0, 6] and loaded.missing == 5
    assert loaded.first_missing == "row 1: no such key (its keys: other)"
    line = missing_prompt_warning(ts, loaded)
    assert line.startswith("warning[RFTC503]: 5 row(s) of ")
    assert line.endswith("first: row 1: no such key (its keys: other)")
    _write(tmp_path / "ok.jsonl", [{"prompt": "a"}])
    assert missing_prompt_warning(ts, read_tasks(taskset(name="t", path=str(tmp_path / "ok.jsonl")))) is None


@pytest.mark.parametrize("content", ['{"question": "a"}\n{"question": "b"}\n', "", '{"prompt": "a"\n'])
def test_a_taskset_without_usable_rows_is_a_diagnostic(tmp_path, content):
    (tmp_path / "t.jsonl").write_text(content)
    with pytest.raises(RuntimeFailure) as err:
        read_tasks(taskset(name="train", path=str(tmp_path / "t.jsonl")))
    assert err.value.code == "RFTC506" and "taskset train" in err.value.message
    assert isinstance(err.value, ValueError)  # the driver puts an eval taskset's name and hint on it
    if content.startswith('{"question'):
        assert "none of its 2 row(s) has a prompt under 'prompt'; first: row 0" in err.value.message


def test_reader_positions_resume_the_data_stream(tmp_path):
    _write(tmp_path / "t.jsonl", [{"prompt": str(i)} for i in range(5)])
    tasks = read_tasks(taskset(name="t", path=str(tmp_path / "t.jsonl"))).tasks
    full = TaskReader(tasks, 2, 2, "shuffle", 7)
    batches = []
    while (b := full.next_batch()) is not None:
        batches.append([t.index for t in b])
    flat = sum(batches, [])
    assert len(flat) == 10 and sorted(flat[:5]) == list(range(5)) and sorted(flat[5:]) == list(range(5))
    resumed = TaskReader(tasks, 2, 2, "shuffle", 7, position=4)
    assert [t.index for t in resumed.next_batch()] == batches[2]


@pytest.mark.parametrize("reply,truth,score", [("7 + 5 = 12", "12", 1.0), ("It is 12.", "12", 1.0),
                                               ("12, no, 13", "12", 0.0), ("no idea", "12", 0.0),
                                               ("#### 1,234", "1234", 1.0), ("-3", "-3", 1.0)])
def test_last_number(reply, truth, score):
    assert rewards.last_number("", reply, truth) == score


def test_user_reward_function_by_module_and_function():
    fn = rewards.resolve("json:dumps")
    assert fn is json.dumps
    with pytest.raises(ValueError):
        rewards.resolve("no_colon_or_dot")
    assert rewards.score(lambda *a: {"score": 0.5, "acc": True, "pred": "x"}, "", "", "", None) == (0.5, {"acc": 1.0})


@pytest.mark.parametrize("out,why", [(float("nan"), "returned nan"), (None, "not a number"),
                                     ("high", "not a number"), ({"acc": 1}, "without 'score'")])
def test_a_reward_that_is_not_a_number_counts_as_a_failure(out, why):
    with pytest.raises(ValueError, match=why):
        rewards.score(lambda *a: out, "", "", "", None)


def raises_on_odd(data_source, solution_str, ground_truth, extra_info=None):
    if len(solution_str) % 2:
        raise KeyError("odd")
    return 1.0


class _FakeLLM:
    """vLLM's generate() as the explorer sees it: per prompt, n completions with a text and a finish reason."""

    def __init__(self, replies):
        self.replies = replies  # per prompt: [(text, finish_reason)]

    def generate(self, prompts, params, use_tqdm=False):
        def comp(text, reason):
            ids = [ord(c) for c in text] + ([0] if reason == "stop" else [])
            return types.SimpleNamespace(token_ids=ids, logprobs=None, text=text, finish_reason=reason)

        return [types.SimpleNamespace(prompt_token_ids=p["prompt_token_ids"],
                                      outputs=[comp(*r) for r in self.replies[i]]) for i, p in enumerate(prompts)]


def test_explorer_counts_raising_rewards_empty_and_truncated_responses(monkeypatch, tmp_path, capsys):
    from rftc_runtime.explorer import Explorer
    from rftc_runtime.monitor import Monitor
    from rftc_runtime.tasksets import Task

    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(SamplingParams=lambda **kw: kw))
    explorer = Explorer.__new__(Explorer)  # the scoring and counting, without an engine
    explorer.llm = _FakeLLM([[("12", "stop"), ("", "stop"), ("123", "length")], [("abc", "stop"), ("7", "stop"),
                                                                                 ("   ", "stop")]])
    explorer.tokenizer = types.SimpleNamespace(apply_chat_template=lambda msgs, **kw: [1, 2, 3])
    explorer.max_prompt_tokens, explorer.weights_version = None, 0
    ts = taskset(name="t", path="", repeat_times=3)
    tasks = [Task(0, "q0", "12", {}), Task(1, "q1", "7", {})]
    exps, m = explorer.explore(tasks, ts, f"{__name__}:raises_on_odd", group_base=0)
    assert len(exps) == 6 and [e.reward for e in exps] == [1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    assert (m["rollout/reward_fn_errors"], m["rollout/empty_responses"], m["rollout/truncated_responses"]) == (4, 2, 1)
    assert m["rollout/reward_fn_errors_examples"][0] == "task 0: KeyError: 'odd'"
    assert m["rollout/empty_responses_examples"][0] == "task 0: 1 token(s), text ''"
    assert exps[2].truncated and not exps[0].truncated

    monitor = Monitor(str(tmp_path), total_steps=2, monitor_type="none", stream=sys.stdout, live=False)
    monitor.log(1, m)
    monitor.log(2, m)  # said once, counted every time
    monitor.close()
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("warning[RFTC502]: step 1: 4 response(s) on which the reward function raised "
                             "(scored 0); first: task 0: KeyError: 'odd'")
    assert err[1].startswith("warning[RFTC504]: step 1: 2 empty response(s); first: task 0: 1 token(s)")
    assert err[2].startswith("warning[RFTC504]: step 1: 1 response(s) cut at max_tokens; first: task 0: 3 tokens")
    assert len(err) == 3
    assert monitor.counts == {"reward_fn_errors": 8, "empty_responses": 4, "truncated_responses": 2}
    logged = json.loads((tmp_path / "monitor" / "metrics.jsonl").read_text().splitlines()[0])
    assert logged["rollout/reward_fn_errors"] == 4 and logged["rollout/reward_fn_errors_examples"]


def test_a_resumed_run_replaces_the_records_of_steps_it_does_again(tmp_path):
    from rftc_runtime.monitor import Monitor

    path = tmp_path / "monitor" / "metrics.jsonl"
    path.parent.mkdir()
    # a run that died after saving step 1: steps 2 and 3 were logged, the last line cut short by the kill
    path.write_text('{"step": 1, "a": 1}\n{"step": 2, "a": 2}\n{"step": 3, "a": 3}\n{"step": 4, "a"')
    monitor = Monitor(str(tmp_path), total_steps=3, monitor_type="none", stream=sys.stdout, live=False)
    monitor.log(2, {"a": 20})
    monitor.log(3, {"a": 30})
    monitor.close()
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["step"], r["a"]) for r in records] == [(1, 1), (2, 20), (3, 30)]


def test_the_run_summary_names_the_first_example_of_each_problem(monkeypatch, capsys, tmp_path):
    import argparse
    import types

    from rftc.commands import run as run_cmd
    from rftc_runtime import driver

    result = driver.RunResult(2, 0.5, 1.0, "/ckpt", "/ckpt/monitor/metrics.jsonl",
                              counts={"reward_fn_errors": 3, "empty_responses": 0, "truncated_responses": 1},
                              examples={"reward_fn_errors": "ValueError: no number"})
    monkeypatch.setattr(driver, "run", lambda settings, **kw: result)
    (tmp_path / "run.log").write_text("ray's notices\n")
    settings = types.SimpleNamespace(stages=(), checkpoint_job_dir=str(tmp_path))
    assert run_cmd._train(settings, argparse.Namespace(address=None, no_live=True, max_steps=None)) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == f"log:         {tmp_path / 'run.log'}"
    err = err.splitlines()
    assert err == ["warning[RFTC502]: 3 reward fn errors during the run (see /ckpt/monitor/metrics.jsonl); "
                   "first: ValueError: no number",
                   "warning[RFTC504]: 1 truncated responses during the run (see /ckpt/monitor/metrics.jsonl)"]
