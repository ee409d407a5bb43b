"""Eval metrics: mean reward, per-response accuracy and pass@k over an eval taskset's responses."""

from rftc_runtime.evaluation import eval_metrics, group_rewards
from rftc_runtime.experience import Experience


def _exp(task: int, reward: float) -> Experience:
    return Experience(task, task, [1], [2], [0.0], reward)


def test_pass_at_k_counts_a_task_once_when_any_response_is_correct():
    exps = [_exp(0, 1.0), _exp(0, 0.0), _exp(0, 1.0), _exp(1, 0.0), _exp(1, 0.0), _exp(1, 0.0),
            _exp(2, 0.0), _exp(2, 0.5), _exp(2, 1.0)]
    m = eval_metrics("arith_eval", group_rewards(exps))
    assert m["eval/arith_eval/tasks"] == 3
    assert m["eval/arith_eval/reward_mean"] == sum(e.reward for e in exps) / 9
    assert m["eval/arith_eval/accuracy"] == 3 / 9
    assert m["eval/arith_eval/pass@3"] == 2 / 3  # task 1 never passes; a partial reward (0.5) is not a pass


def test_greedy_eval_is_pass_at_1():
    m = eval_metrics("t", group_rewards([_exp(0, 1.0), _exp(1, 0.0)]))
    assert m["eval/t/pass@1"] == m["eval/t/accuracy"] == 0.5


def test_no_responses_gives_zeros_not_an_error():
    assert eval_metrics("t", {}) == {"eval/t/reward_mean": 0.0, "eval/t/accuracy": 0.0, "eval/t/pass@0": 0.0,
                                     "eval/t/tasks": 0}
