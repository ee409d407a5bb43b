"""The DAPO recipe's trainer (recipe.dapo.main_dapo): composed from the checkout's recipe/dapo/config, mapped as
main_ppo plus dynamic sampling (algorithm.filter_groups -> rftc's VerlFilterGroups operator, data.gen_batch_size
for the LR horizon) and the dapo reward manager built from reward_model.overlong_buffer."""

from __future__ import annotations

import shutil

import pytest

from rftc.plugins import FILTER_GROUPS
from rftc.plugins.groups import metric_value
from support import cli
from support.paths import DAPO_RECIPE

BASE = ("data.train_files=/data/train.parquet", "data.train_batch_size=64", "actor_rollout_ref.rollout.n=8",
        "actor_rollout_ref.actor.ppo_mini_batch_size=16", "actor_rollout_ref.actor.use_dynamic_bsz=True",
        "actor_rollout_ref.rollout.name=vllm", "algorithm.adv_estimator=grpo", "trainer.n_gpus_per_node=8",
        "trainer.nnodes=1")
OPS = ("data_processor", "experience_pipeline", "operators")


def convert(tmp_path, *overrides: str, options=(), module="recipe.dapo.main_dapo", checkout=True):
    """(exit code, the config written or None, the diagnostics as JSON records)."""
    if checkout:
        shutil.copytree(DAPO_RECIPE, tmp_path / "recipe")
    script = cli.launch(tmp_path, *BASE, *overrides, module=module)
    done = cli.convert(script, "--cwd", tmp_path, *options, out=tmp_path / "out", status=None)
    return done.returncode, done.config, done.diagnostics


def _get(cfg, path):
    for p in path:
        cfg = (cfg or {}).get(p)
    return cfg


def errors(diags):
    return [d["code"] for d in diags if d["severity"] == "error"]


def test_filter_groups_becomes_the_operator_and_gen_batch_the_horizon(tmp_path):
    code, cfg, diags = convert(tmp_path, "data.gen_batch_size=192", "algorithm.filter_groups.enable=True",
                               "algorithm.filter_groups.metric=score",
                               "actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.1",
                               options=("--dataset-size", "1000"))
    assert code == 0, diags
    assert _get(cfg, OPS) == [{"name": FILTER_GROUPS, "args": {"metric": "score"}}]
    # veRL's dataloader yields gen_batch_size prompts: 1000 // 192 = 5 batches x 30 epochs (veRL's default),
    # x sync_interval 64/16
    assert cfg["trainer"]["total_steps"] == 600
    assert cfg["buffer"]["batch_size"] == 16 and cfg["synchronizer"]["sync_interval"] == 4
    assert cfg["project"] == "verl-dapo"  # the recipe's own config sets it


def test_recipe_overlong_buffer_goes_to_the_reward_workflow(tmp_path):
    code, cfg, diags = convert(tmp_path, "data.max_response_length=2048",
                               "reward_model.overlong_buffer.enable=True", "reward_model.overlong_buffer.len=512",
                               "reward_model.overlong_buffer.penalty_factor=0.5")
    assert code == 0, diags
    args = cfg["buffer"]["explorer_input"]["tasksets"][0]["workflow_args"]
    assert args == {"reward_manager": "dapo", "max_resp_len": 2048,
                    "overlong_buffer_cfg": {"enable": True, "len": 512, "penalty_factor": 0.5}}
    assert _get(cfg, OPS) is None  # filter_groups is off in the recipe's config


def test_without_the_filter_each_round_of_gen_batch_size_prompts_is_the_batch(tmp_path):
    code, cfg, diags = convert(tmp_path, "data.gen_batch_size=128")
    assert code == 0, diags
    assert cfg["synchronizer"]["sync_interval"] == 8 and cfg["buffer"]["batch_size"] == 16  # 128/16, not 64/16


@pytest.mark.parametrize("overrides, code, text", [
    (("algorithm.filter_groups.enable=True",), "RFTC313", "metric is None"),
    (("algorithm.filter_groups.enable=True", "algorithm.filter_groups.metric=seq_final_reward",
      "algorithm.use_kl_in_reward=True"), "RFTC300", "after the KL penalty"),
])
def test_what_the_recipe_trainer_does_that_trinity_cannot(tmp_path, overrides, code, text):
    _, cfg, diags = convert(tmp_path, *overrides)
    assert any(d["code"] == code and text in d["message"] for d in diags), diags
    assert cfg is None if code == "RFTC313" else _get(cfg, OPS) is None


def test_one_response_per_prompt_keeps_every_prompt(tmp_path):
    code, cfg, diags = convert(tmp_path, "actor_rollout_ref.rollout.n=1", "algorithm.filter_groups.enable=True",
                               "algorithm.filter_groups.metric=acc")
    assert code == 0, diags
    assert _get(cfg, OPS) is None


def test_main_ppo_does_not_read_filter_groups(tmp_path):
    code, cfg, diags = convert(tmp_path, "trainer.use_v1=False", "algorithm.filter_groups.enable=True",
                               "algorithm.filter_groups.metric=acc", module="verl.trainer.main_ppo", checkout=False)
    assert code == 0 and _get(cfg, OPS) is None
    assert [d["code"] for d in diags if d["severity"] == "warning"].count("RFTC328") == 2


def test_main_ppo_v1_trainers_filter_groups(tmp_path):
    """verl 0.9's v1 trainers (trainer.use_v1, the default) drop the groups whose metric does not vary and refill
    them (verl/trainer/ppo/v1/replay_buffer.py); their metric "reward" is the reward's sum."""
    code, cfg, diags = convert(tmp_path, "algorithm.filter_groups.enable=True", "algorithm.filter_groups.metric=reward",
                               module="verl.trainer.main_ppo", checkout=False)
    assert code == 0, diags
    assert _get(cfg, OPS) == [{"name": FILTER_GROUPS, "args": {"metric": "seq_reward"}}]
    assert not [d for d in diags if d["code"] == "RFTC328"]


def test_recipe_without_its_checkout_names_the_folder(tmp_path):
    code, cfg, diags = convert(tmp_path, checkout=False)
    (d,) = [d for d in diags if d["code"] == "RFTC210"]
    assert code == 1 and cfg is None
    assert "'recipe/dapo/config'" in d["message"] and "--verl-source" in d["hint"]


def test_metric_missing_from_the_reward_is_named():
    assert metric_value("seq_reward", 0.5, {}) == 0.5
    assert metric_value("acc", -1.0, {"acc": 1.0, "score": 1.0}) == 1.0
    with pytest.raises(ValueError, match="'pred' is not among the reward's entries \\(acc, score\\)"):
        metric_value("pred", 1.0, {"acc": 1.0, "score": 1.0})
