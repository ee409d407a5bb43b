"""Tasksets and reward functions of the runtime: pure Python, run in every environment."""

import json

import pytest

from rftc_runtime import rewards
from rftc_runtime.settings import Taskset
from rftc_runtime.tasksets import TaskReader, chat_messages, load_tasks


def _write(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_hf_style_directory_by_split_and_nested_keys(tmp_path):
    _write(tmp_path / "d" / "train.jsonl", [{"q": [{"role": "user", "content": "1+1?"}],
                                             "reward_model": {"ground_truth": "2"}}])
    _write(tmp_path / "d" / "test.jsonl", [{"q": "2+2?", "reward_model": {"ground_truth": "4"}}])
    ts = Taskset(name="t", path=str(tmp_path / "d"), split="test", prompt_key="q",
                 response_key="reward_model.ground_truth", system_prompt="Be brief.")
    tasks, missing = load_tasks(ts)
    assert missing == 0 and [t.answer for t in tasks] == ["4"]
    assert chat_messages(tasks[0], ts.system_prompt) == [{"role": "system", "content": "Be brief."},
                                                          {"role": "user", "content": "2+2?"}]


def test_rows_without_prompt_are_skipped_and_counted(tmp_path):
    _write(tmp_path / "t.jsonl", [{"prompt": "a", "answer": 1}, {"other": "b"}, {"prompt": "", "answer": 3}])
    tasks, missing = load_tasks(Taskset(name="t", path=str(tmp_path / "t.jsonl"), response_key="answer"))
    assert [t.index for t in tasks] == [0] and missing == 2


def test_reader_positions_resume_the_data_stream(tmp_path):
    _write(tmp_path / "t.jsonl", [{"prompt": str(i)} for i in range(5)])
    tasks, _ = load_tasks(Taskset(name="t", path=str(tmp_path / "t.jsonl")))
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
    assert rewards.score(lambda *a: {"score": 0.5}, "", "", "", None) == 0.5
