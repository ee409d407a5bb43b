"""The driver's explore/train/sync loop with stand-ins for the explorer actor and the trainer (no Ray, vLLM or model): which weights each explorer
step runs on for Trinity's fixed schedule, and a schedule that can never sync is an error, not a quiet stop."""

from types import SimpleNamespace

import pytest

from runtime_support import require

require("ray")

from rftc_runtime import driver  # noqa: E402
from rftc_runtime.errors import RuntimeFailure  # noqa: E402
from rftc_runtime.synchronizer import FixedSchedule  # noqa: E402
from rftc_runtime.tasksets import Task  # noqa: E402


class Explorer:
    """The explorer pool's interface: each call returns what ray.get resolves (here the value itself)."""

    def __init__(self):
        self.version, self.used = 0, []

    def explore(self, batch, ts, reward_fn, base):
        self.used.append(self.version)
        return [("exp", self.version)] * len(batch), {}

    def update_weights(self, state, version):
        self.version = state
        return 0.0


class Trainer:
    """The trainer's interface as the driver calls it (it lives in the driver's process)."""

    def __init__(self, schedule: FixedSchedule):
        self.step, self.schedule = 0, schedule

    def train_step(self, batch):
        self.step += 1
        return {"train/step": self.step}

    def need_sync(self):
        return self.schedule.trainer_needs_sync(self.step)

    def upload_state_dict(self, path=None):
        return self.step  # the weights' version stands for the weights

    def need_save(self):
        return False

    def save_checkpoint(self, **kw):
        return ""

    def wait_for_save(self):
        return None


def _run(interval, offset, steps=6, train_batches=1, batch_size=2, per_step=None, explorer_interval=None,
         trainer_interval=None):
    schedule = FixedSchedule(interval, offset, explorer_interval, trainer_interval)
    s = SimpleNamespace(taskset=SimpleNamespace(data_selector=SimpleNamespace(selector_type="sequential", seed=0),
                                                default_reward_fn_type=None), batch_size=batch_size,
                        total_epochs=1, sync_offset=offset, explore_total_steps=None, schedule=lambda: schedule,
                        eval_on_startup=False, eval_interval=0, save_hf_checkpoint="never", checkpoint_job_dir="")
    plan = SimpleNamespace(experiences_per_step=per_step or 2 * train_batches)
    tasks = [Task(index=i, prompt=f"q{i}", answer=i, row={}) for i in range(100)]
    explorer, trainer = Explorer(), Trainer(schedule)
    monitor = SimpleNamespace(log=lambda step, metrics: None)
    ray = SimpleNamespace(get=lambda x: x)
    sync = driver.WeightSync("memory", trainer, explorer, "")
    result = driver._loop(ray, s, plan, tasks, {}, trainer, explorer, sync, monitor, steps)
    return result, explorer.used


@pytest.mark.parametrize("interval,offset,versions", [
    (1, 0, [0, 1, 2, 3, 4, 5]),  # on-policy: each step runs on the weights of the step before
    (2, 0, [0, 0, 2, 2, 4, 4]),
    (1, 1, [0, 0, 1, 2, 3, 4]),  # one step ahead
    (2, 1, [0, 0, 0, 2, 2, 4]),  # Trinity: the explorer pulls after step 3 and gets the trainer's step-2 weights
])
def test_each_explorer_step_runs_on_the_weights_trinity_gives_it(interval, offset, versions):
    result, used = _run(interval, offset)
    assert result.steps == 6 and used[:6] == versions


def test_a_schedule_that_can_never_sync_is_an_error():
    # two explorer batches per trainer step, but the explorer waits for new weights after every step
    with pytest.raises(RuntimeFailure) as exc:
        _run(1, 0, train_batches=2)
    assert exc.value.code == "RFTC509" and "train_batch_size" in exc.value.hint


def test_explorer_and_trainer_intervals_cover_the_same_experiences():
    # 3 experiences per explorer step, 2 per trainer step: 2 explorer steps and 3 trainer steps make one
    # on-policy round (a veRL batch whose mini-batch splits a prompt's responses, rftc.mapping.batch)
    result, used = _run(3, 0, steps=9, batch_size=3, per_step=2, explorer_interval=2)
    assert result.steps == 9 and used[:6] == [0, 0, 3, 3, 6, 6]
    # with one interval for both the explorer would run 3 steps (9 experiences) on the same weights
    _, same = _run(3, 0, steps=9, batch_size=3, per_step=2)
    assert same[:6] == [0, 0, 0, 3, 3, 3]
