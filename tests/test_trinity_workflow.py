"""A converted config rewards in Trinity-RFT 0.6.0 as veRL did: its first training taskset goes through Trinity's
own pipeline (load_config + check_and_update, the file reader and task formatter, the workflow class the config
names; tests/trinity_ref/workflow.py in .venv-trinity) with a stand-in model, and the chat sent and the rewards
are compared with what veRL's reward manager computes on the same row and responses."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

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
    script = tmp_path / "run.sh"
    script.write_text("python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo "
                      f"data.train_files={tmp_path}/data/train.parquet data.train_batch_size=4 "
                      "actor_rollout_ref.model.path=/models/m actor_rollout_ref.rollout.name=vllm "
                      "actor_rollout_ref.actor.ppo_mini_batch_size=4 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 "
                      "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1 "
                      "actor_rollout_ref.rollout.tensor_model_parallel_size=1 actor_rollout_ref.rollout.n=4 "
                      "trainer.n_gpus_per_node=2 trainer.nnodes=1 trainer.total_training_steps=2 "
                      + " ".join(overrides) + "\n")
    out = tmp_path / "out.yaml"
    conv = subprocess.run([sys.executable, "-m", "rftc", "convert", str(script), "-o", str(out)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert conv.returncode == 0, conv.stderr
    proc = subprocess.run([str(reference.PYTHON), str(reference.VALIDATE.with_name("workflow.py")), str(out),
                           *RESPONSES], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env=dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(reference.REPO)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_gsm8k_is_scored_by_verls_gsm8k_scorer_with_veRLs_prompt(tmp_path):
    from verl.utils.reward_score import default_compute_score

    row = _data(tmp_path, "openai/gsm8k")
    got = _convert_and_run(tmp_path)
    assert got["workflow"] == "rftc.trinity.verl_workflow.VerlRewardWorkflow"
    assert got["messages"] == PROMPT  # no system prompt added (Trinity's math_workflow adds the R1 prompt)
    expected = [float(default_compute_score(row["data_source"], r, "72", row["extra_info"])) for r in RESPONSES]
    assert got["rewards"] == expected == [1.0, 0.0, 0.0, 0.0]  # veRL's strict "#### answer" format


def test_custom_reward_function_file_is_loaded_with_its_kwargs(tmp_path):
    _data(tmp_path, "my_source")
    (tmp_path / "my_reward.py").write_text(
        "def score(data_source, solution_str, ground_truth, extra_info=None, bonus=0.0):\n"
        "    assert data_source == 'my_source' and extra_info['index'] == 0\n"
        "    return {'score': float(ground_truth in solution_str) + bonus, 'length': len(solution_str)}\n")
    got = _convert_and_run(tmp_path, f"custom_reward_function.path={tmp_path}/my_reward.py",
                           "custom_reward_function.name=score", "+custom_reward_function.reward_kwargs.bonus=0.5")
    assert got["rewards"] == [1.5, 1.5, 0.5, 0.5]
    assert [m["length"] for m in got["metrics"]] == [len(r) for r in RESPONSES]
