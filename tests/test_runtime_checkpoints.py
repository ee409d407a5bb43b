"""The job directory's checkpoints: a step is committed whole, and trainer.max_checkpoints_to_keep deletes the
oldest steps a run saved, as Trinity's trainer does."""

import json

from rftc_runtime import checkpoints
from runtime_support import settings


def _save(job, step: int, saved: list, keep: int):
    tmp = checkpoints.staging_dir(job, step)
    (tmp / "actor").mkdir()
    (tmp / "actor" / "model_world_size_1_rank_0.pt").write_bytes(b"weights")
    checkpoints.retain(saved, checkpoints.commit(job, step, {"train_step": step}), keep)


def _steps(job) -> list[str]:
    return sorted(p.name for p in job.iterdir() if p.name.startswith("global_step_"))


def test_keep_deletes_the_oldest_steps_of_this_run_only(tmp_path):
    job = tmp_path / "job"
    earlier: list = []
    _save(job, 1, earlier, keep=0)  # a previous run that kept everything
    saved: list = []
    for step in (2, 3, 4):
        _save(job, step, saved, keep=2)
    # step 1 was saved by another run: not counted, not deleted (Trinity registers only its own saves)
    assert _steps(job) == ["global_step_1", "global_step_3", "global_step_4"]
    assert checkpoints.latest(job) == checkpoints.step_dir(job, 4)
    assert json.loads((job / "global_step_4" / "state.json").read_text()) == {"train_step": 4}


def test_a_step_saved_twice_counts_once_and_zero_keeps_all(tmp_path):
    job = tmp_path / "job"
    saved: list = []
    for step in (1, 2, 2):  # the final save of the step an interval save already wrote
        _save(job, step, saved, keep=1)
    assert _steps(job) == ["global_step_2"] and saved == [checkpoints.step_dir(job, 2)]
    every: list = []
    for step in (3, 4, 5):
        _save(job, step, every, keep=0)
    assert _steps(job) == ["global_step_2", "global_step_3", "global_step_4", "global_step_5"]


def test_the_setting_comes_from_the_trainer_section():
    cfg = {"model": {"model_path": "m"}, "buffer": {"batch_size": 2}}
    assert settings(cfg).max_checkpoints_to_keep == 0
    assert settings({**cfg, "trainer": {"max_checkpoints_to_keep": 3}}).max_checkpoints_to_keep == 3
