"""A converted config rewards in Trinity-RFT 0.6.0 as veRL did: its first training taskset goes through Trinity's
own pipeline (load_config + check_and_update, the file reader and task formatter, the workflow class the config
names; tests/trinity_ref/workflow.py in .venv-trinity) with a stand-in model, and the chat sent and the rewards
are compared with what veRL's reward manager computes on the same row and responses."""

from __future__ import annotations

import shutil

import pytest

from support.paths import DAPO_RECIPE
from trinity_ref import reference

pytestmark = pytest.mark.skipif(not reference.available(), reason=reference.MISSING)

PROMPT = [{"role": "user", "content": "Natalia sold 48 clips in April and half as many in May. How many in all? "
           "Let's think step by step and output the final answer after \"####\"."}]
RESPONSES = ["48 + 24 = 72\n#### 72", "The answer is 72", "#### 71", ""]


def _data(tmp_path, data_source: str):
    pd = pytest.importorskip("pandas")
    row = {"data_source": data_source, "prompt": PROMPT, "ability": "math",
           "reward_model": {"style": "rule", "ground_truth": "72"}, "extra_info": {"split": "train", "index": 0}}
    (tmp_path / "data").mkdir()
    pd.DataFrame([row] * 4).to_parquet(tmp_path / "data" / "train.parquet")
    return row


def _convert_and_run(tmp_path, *overrides: str) -> dict:
    out = reference.convert_launch(tmp_path, "algorithm.adv_estimator=grpo", "actor_rollout_ref.rollout.n=4",
                                   f"data.train_files={tmp_path}/data/train.parquet", *overrides)
    return reference.harness("workflow.py", str(out), *RESPONSES, cwd=tmp_path)


def test_gsm8k_is_scored_by_verls_gsm8k_scorer_with_veRLs_prompt(tmp_path):
    from verl.utils.reward_score import default_compute_score

    row = _data(tmp_path, "openai/gsm8k")
    got = _convert_and_run(tmp_path)
    # the config names rftc.trinity.verl_workflow.VerlRewardWorkflow, which re-exports rftc's class
    assert got["workflow"] == "rftc.plugins.workflow.VerlRewardWorkflow"
    assert got["messages"] == PROMPT  # no system prompt added (Trinity's math_workflow adds the R1 prompt)
    expected = [float(default_compute_score(row["data_source"], r, "72", row["extra_info"])) for r in RESPONSES]
    assert got["rewards"] == expected == [1.0, 0.0, 0.0, 0.0]  # veRL's strict "#### answer" format


def test_custom_reward_function_file_is_loaded_with_its_kwargs(tmp_path):
    _data(tmp_path, "my_source")
    (tmp_path / "my_reward.py").write_text(
        "def score(data_source, solution_str, ground_truth, extra_info=None, bonus=0.0):\n"
        "    assert data_source == 'my_source' and extra_info['index'] == 0\n"
        "    return {'score': float(ground_truth in solution_str) + bonus, 'length': len(solution_str)}\n")
    # the keys verl 0.9's main_ppo reads (it no longer migrates the legacy top-level custom_reward_function)
    got = _convert_and_run(tmp_path, f"reward.custom_reward_function.path={tmp_path}/my_reward.py",
                           "reward.custom_reward_function.name=score",
                           "+reward.custom_reward_function.reward_kwargs.bonus=0.5")
    assert got["rewards"] == [1.5, 1.5, 0.5, 0.5]
    assert [m["length"] for m in got["metrics"]] == [len(r) for r in RESPONSES]


@pytest.mark.parametrize("metric", ["acc", "seq_reward"])
def test_dapo_recipe_dynamic_sampling_keeps_groups_whose_metric_varies(tmp_path, metric):
    """recipe.dapo.main_dapo with filter_groups: the converted config's operator, built by Trinity from the config,
    keeps a task's responses when some are right and drops them when all are (RayDAPOTrainer: np.std of the
    metric > 0), on the entries veRL's dapo reward manager records (math_dapo's acc) or the reward."""
    shutil.copytree(DAPO_RECIPE, tmp_path / "recipe")
    _data(tmp_path, "math_dapo")
    out = reference.convert_launch(tmp_path, "algorithm.adv_estimator=grpo", "actor_rollout_ref.rollout.n=3",
                                   f"data.train_files={tmp_path}/data/train.parquet",
                                   "algorithm.filter_groups.enable=True", f"algorithm.filter_groups.metric={metric}",
                                   module="recipe.dapo.main_dapo")
    mixed = reference.harness("workflow.py", str(out), "Answer: 72", "Answer: 71", "Answer: 72", cwd=tmp_path)
    same = reference.harness("workflow.py", str(out), "Answer: 72", "Answer: 72", "Answer: 72", cwd=tmp_path)
    assert mixed["rewards"] == [1.0, -1.0, 1.0] and [m["acc"] for m in mixed["metrics"]] == [1.0, 0.0, 1.0]
    assert mixed["kept"] == 3 and same["kept"] == 0


DISTILL = ("distillation.enabled=True", "distillation.nnodes=1", "distillation.n_gpus_per_node=1",
           "distillation.teacher_models.teacher_model.model_path=/models/teacher",
           "distillation.teacher_models.teacher_model.inference.tensor_model_parallel_size=1",
           "distillation.distillation_loss.loss_mode=k1", "distillation.distillation_loss.use_policy_gradient=True",
           "distillation.distillation_loss.use_task_rewards=False")


def test_on_policy_distillation_asks_the_teacher_about_veRLs_chat_messages(tmp_path):
    """veRL's agent loop samples the student from the prompt column's chat messages and asks the teacher for the
    log-prob of each token of prompt + response at temperature 1.0 (teacher_manager); the converted config's
    workflow (Trinity's on_policy_distill_workflow on veRL's chat) sends the same chat, asks the first auxiliary
    model at 1.0, keeps the response's part of the teacher's log-probs for the on_policy_distill advantage, and
    rewards nothing."""
    _data(tmp_path, "openai/gsm8k")
    got = _convert_and_run(tmp_path, *DISTILL)
    assert got["workflow"] == "rftc.plugins.distill_workflow.VerlDistillWorkflow"
    assert got["messages"] == PROMPT
    assert got["temperatures"] == [[1.0] * len(RESPONSES)]
    assert got["rewards"] == [0.0] * len(RESPONSES)
    # the canned sequences are 3 prompt tokens and 1 + a word per response token; the teacher's log-prob of token
    # i is -i/100, so the response's tokens 3.. have -3/100 on
    for logprobs, response in zip(got["teacher_logprobs"], RESPONSES):
        assert logprobs == pytest.approx([-i / 100 for i in range(3, 4 + len(response.split()))])
