"""The runtime's plan, settings and sync schedule: pure Python, so these run in every environment."""

import json

import pytest

from rftc_runtime.plan import make_plan
from rftc_runtime.settings import from_mapping
from rftc_runtime.synchronizer import FixedSchedule


def _cfg(tmp_path, **over):
    model = tmp_path / "model"
    model.mkdir(exist_ok=True)
    (model / "config.json").write_text("{}")
    data = tmp_path / "tasks.jsonl"
    data.write_text("".join(json.dumps({"prompt": f"q{i}", "answer": i}) + "\n" for i in range(20)))
    cfg = {
        "algorithm": {"algorithm_type": "grpo", "repeat_times": 8},
        "model": {"model_path": str(model)},
        "buffer": {"batch_size": 4, "total_epochs": 2,
                   "explorer_input": {"taskset": {"path": str(data)}, "default_reward_fn_type": "last_number"}},
        "synchronizer": {"sync_method": "memory"},
        "checkpoint_root_dir": str(tmp_path / "ckpt"),
    }
    for k, v in over.items():
        cfg[k] = {**cfg.get(k, {}), **v}
    return cfg


def test_batch_arithmetic_per_step(tmp_path):
    s = from_mapping(_cfg(tmp_path))
    plan = make_plan(s, gpus=0)
    assert not plan.errors
    assert plan.experiences_per_explore_step == 4 * 8
    assert plan.experiences_per_step == 32  # Trinity: train_batch_size 0 means batch_size x repeat_times
    assert plan.total_explore_steps == 20 * 2 // 4
    assert plan.total_train_steps == 10
    text = plan.describe(s)
    assert "4 task(s) x 8 response(s) = 32 experiences" in text


def test_train_batch_size_sets_experiences_per_trainer_step(tmp_path):
    s = from_mapping(_cfg(tmp_path, buffer={"train_batch_size": 64}))
    plan = make_plan(s, gpus=0)
    assert plan.experiences_per_step == 64
    assert plan.total_train_steps == 10 * 32 // 64


def test_trainer_total_steps_bounds_training(tmp_path):
    s = from_mapping(_cfg(tmp_path, trainer={"total_steps": 3}))
    assert make_plan(s, gpus=0).total_train_steps == 3


def test_grpo_defaults_follow_trinity(tmp_path):
    a = from_mapping(_cfg(tmp_path)).algorithm
    assert (a.advantage_fn, a.policy_loss_fn, a.kl_loss_fn, a.kl_penalty_fn) == ("grpo", "ppo", "k2", "none")
    assert a.kl_loss_fn_args["kl_coef"] == 0.001 and a.needs_reference


@pytest.mark.parametrize("interval,offset,expected", [
    (1, 0, [1, 2, 3, 4, 5, 6]),
    (2, 0, [2, 4, 6]),
    (1, 1, [2, 3, 4, 5, 6]),
    (2, 1, [3, 5]),
])
def test_fixed_sync_schedule_matches_trinity(interval, offset, expected):
    sched = FixedSchedule(interval, offset)
    assert [s for s in range(1, 7) if sched.explorer_needs_sync(s)] == expected
    assert [t for t in range(1, 7) if sched.trainer_needs_sync(t)] == expected


def test_plan_reports_what_cannot_run(tmp_path):
    cfg = _cfg(tmp_path, algorithm={"advantage_fn": "opmd"}, synchronizer={"sync_style": "explorer_driven"},
               model={"model_path": str(tmp_path / "nope")})
    codes = sorted(c for c, *_ in make_plan(from_mapping(cfg), gpus=0).errors)
    assert codes == ["RFTC505", "RFTC507", "RFTC509"]


def test_rows_without_the_prompt_key_are_counted(tmp_path):
    cfg = _cfg(tmp_path)
    path = cfg["buffer"]["explorer_input"]["taskset"]["path"]
    with open(path, "a") as f:
        f.write(json.dumps({"question": "x", "answer": 1}) + "\n")
    plan = make_plan(from_mapping(cfg), gpus=0)
    assert [w[0] for w in plan.warnings] == ["RFTC503"]
    assert plan.taskset_rows == 20


def test_ppo_with_a_critic_is_refused_until_the_trainer_has_one(tmp_path):
    plan = make_plan(from_mapping(_cfg(tmp_path, algorithm={"algorithm_type": "ppo"})), gpus=0)
    assert [(c, m) for c, m, *_ in plan.errors] == [
        ("RFTC505", "this runtime cannot run algorithm_type: ppo (a critic model; this runtime trains none yet)")]
