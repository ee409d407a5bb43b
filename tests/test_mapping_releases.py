"""The mapping follows the release the config comes from (rftc.verl.semantics): batch units, KL in the reward,
dual clip and loss aggregation, the critic's mini-batch, validation, and what a development snapshot leaves in
doubt (RFTC326)."""

from __future__ import annotations

import pytest
from test_mapping_support import cfg, codes

from rftc.diagnostics.collector import Diagnostics
from rftc.mapping.convert import map_config
from rftc.verl import effective_config, invocation_from_text
from rftc.verl.effective import EffectiveConfig

BASE = ("data.train_batch_size=128 actor_rollout_ref.actor.ppo_mini_batch_size=32 actor_rollout_ref.rollout.n=4 "
        "trainer.n_gpus_per_node=8 actor_rollout_ref.rollout.tensor_model_parallel_size=1 ")


def convert(text: str, release: str):
    diags = Diagnostics()
    eff = effective_config(invocation_from_text(text, diags=diags), verl_version=release, diags=diags)
    assert eff is not None and not diags.has_errors, [d.message for d in diags]
    return map_config(eff)


def snapshot(release: str, *overrides: str) -> EffectiveConfig:
    """A checkout's own config declaring ``release`` (its keys are the overrides, nothing else)."""
    plain = cfg(*overrides)
    return EffectiveConfig("0.2.0.post2", "ppo_trainer", plain.values, plain.provenance, release=release)


@pytest.mark.parametrize("release,batch,train,sync", [
    ("0.2", 32, 128, 4),  # prompts x n
    ("0.9.1", 32, 128, 4),
])
def test_mini_batch_of_fsdp_counts_prompts_from_0_2(release, batch, train, sync):
    c = convert(BASE + "algorithm.adv_estimator=grpo", release).config
    assert (c["buffer"]["batch_size"], c["buffer"]["train_batch_size"], c["synchronizer"]["sync_interval"]) == \
        (batch, train, sync)


def test_mini_batch_of_megatron_counts_responses_before_0_3():
    text = "--config-name=ppo_megatron_trainer algorithm.adv_estimator=grpo " + BASE
    old, new = convert(text, "0.2").config, convert(text, "0.3.0.post0").config
    # 32 responses of n=4: 8 prompts per optimizer step, 16 steps per batch of 128 x 4
    assert (old["buffer"]["batch_size"], old["buffer"]["train_batch_size"], old["synchronizer"]["sync_interval"]) \
        == (8, 32, 16)
    assert (new["buffer"]["batch_size"], new["buffer"]["train_batch_size"], new["synchronizer"]["sync_interval"]) \
        == (32, 128, 4)


MEGATRON_SPLIT = ("--config-name=ppo_megatron_trainer data.train_batch_size=96 "
                  "actor_rollout_ref.actor.ppo_mini_batch_size=6 actor_rollout_ref.rollout.n=4 algorithm.adv_estimator=")


def test_a_split_mini_batch_converts_to_explorer_and_trainer_intervals():
    m = convert(MEGATRON_SPLIT + "grpo", "0.2")
    c = m.config
    # 96 x 4 = 384 responses; 6 a trainer step: 64 trainer steps; 3 tasks (12 responses) an explorer step: 32
    assert (c["algorithm"]["repeat_times"], c["buffer"]["batch_size"], c["buffer"]["train_batch_size"]) == (4, 3, 6)
    assert (c["synchronizer"]["sync_interval"], c["synchronizer"]["explorer_sync_interval"]) == (64, 32)
    (d,) = [d for d in m.diagnostics if d.code == "RFTC329"]
    assert "Trinity explores 3 task(s) a step (12 responses, 2 trainer step(s) of 6)" in d.message
    assert "syncs after 32 explorer and 64 trainer steps" in d.message and m.ok


def test_a_split_mini_batch_scales_explorer_and_trainer_steps_apart():
    m = convert(MEGATRON_SPLIT + "grpo "
                "trainer.total_training_steps=10 trainer.test_freq=5 trainer.save_freq=2", "0.2")
    c = m.config
    assert (c["trainer"]["total_steps"], c["buffer"]["total_steps"]) == (640, 320)  # trainer x 64, explorer x 32
    assert (c["trainer"]["save_interval"], c["explorer"]["eval_interval"]) == (128, 160)


@pytest.mark.parametrize("estimator,algorithm", [("rloo", "rloo"), ("gae", "ppo")])
def test_a_split_mini_batch_is_refused_where_the_trainer_computes_advantages(estimator, algorithm):
    m = convert(MEGATRON_SPLIT + estimator, "0.2")
    (d,) = [d for d in m.diagnostics if d.code == "RFTC302"]
    assert f"Trinity's {algorithm} algorithm computes advantages on each trainer step's experiences" in d.message
    assert "ppo_mini_batch_size=4 or actor_rollout_ref.actor.ppo_mini_batch_size=8" in d.hint and not m.ok


@pytest.mark.parametrize("release,kl_loss,in_reward", [
    ("0.1", None, "k1"),  # always
    ("0.2", False, "k1"), ("0.3.0.post1", False, "k1"), ("0.3.0.post1", True, "none"),  # unless the loss has it
    ("0.4.0", False, "none"), ("0.9.1", False, "none"),  # only with use_kl_in_reward
])
def test_kl_in_the_reward_by_release(release, kl_loss, in_reward):
    text = (BASE if release != "0.1" else BASE.replace("actor_rollout_ref.rollout.n=4 ", "")) + \
        "algorithm.adv_estimator=gae algorithm.kl_ctrl.kl_coef=0.05"
    if kl_loss is not None:
        text += f" actor_rollout_ref.actor.use_kl_loss={kl_loss}"
    m = convert(text, release)
    assert m.config["algorithm"]["kl_penalty_fn"] == in_reward
    if in_reward != "none":
        assert m.config["algorithm"]["kl_penalty_fn_args"]["kl_coef"] == 0.05
    else:
        assert m.ledger["algorithm.kl_ctrl.kl_coef"].status == "implied"


@pytest.mark.parametrize("release,dual", [("0.3.0.post1", False), ("0.4.0", True)])
def test_dual_clip_arrived_in_0_4(release, dual):
    args = convert(BASE + "algorithm.adv_estimator=grpo", release).config["algorithm"].get("policy_loss_fn_args", {})
    if dual:
        assert "clip_ratio_c" not in args  # Trinity's default dual clip (3.0) is veRL's
    else:
        assert args["clip_ratio_c"] >= 1e9 and args["clip_range_low"] == args["clip_range_high"] == 0.2


def test_loss_agg_mode_is_not_read_before_0_4():
    m = convert(BASE + "algorithm.adv_estimator=grpo +actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-sum",
                "0.3.0.post1")
    assert m.config["algorithm"]["policy_loss_fn_args"]["loss_agg_mode"] == "token-mean"
    assert "loss_agg_mode" not in m.config["algorithm"]
    assert m.ledger["actor_rollout_ref.actor.loss_agg_mode"].status == "implied"


@pytest.mark.parametrize("release,warned", [("0.3.0.post1", True), ("0.4.0", False)])
def test_the_critic_counts_responses_before_0_4(release, warned):
    m = convert(BASE + "algorithm.adv_estimator=gae", release)
    found = [d for d in m.diagnostics if d.code == "RFTC316" and d.key == "critic.ppo_mini_batch_size"]
    assert bool(found) == warned
    if warned:
        assert "takes 32 responses per optimizer step" in found[0].message
        assert "critic.ppo_mini_batch_size=128" in found[0].hint


def test_a_mini_batch_larger_than_the_batch():
    text = ("algorithm.adv_estimator=grpo data.train_batch_size=8 actor_rollout_ref.actor.ppo_mini_batch_size=16 "
            "actor_rollout_ref.rollout.n=4")
    whole = convert(text, "0.2")  # no startup check yet: one mini-batch holds the batch
    assert "RFTC325" in codes(whole) and whole.config["buffer"]["train_batch_size"] == 32
    assert whole.config["synchronizer"]["sync_interval"] == 1
    refused = map_config(effective_config(invocation_from_text(text, diags=Diagnostics()), verl_version="0.3.0.post1",
                                          diags=Diagnostics()))
    assert "RFTC325" not in codes(refused) and "RFTC302" in codes(refused)  # its startup check refuses it


def test_validation_under_0_1():
    m = convert(BASE.replace("actor_rollout_ref.rollout.n=4 ", "").replace("32", "128")
                + "+trainer.val_before_train=False trainer.test_freq=-1", "0.1")
    assert "eval_on_startup" not in m.config.get("explorer", {})  # 0.1 always validates first, as Trinity's default
    assert m.ledger["trainer.val_before_train"].status == "implied"
    assert m.config["explorer"]["eval_interval"] == 1  # after every step (sync_interval 1)


def test_a_snapshot_declaring_0_1_counts_responses_and_says_so():
    eff = snapshot("0.1", "data.train_batch_size=32", "actor_rollout_ref.actor.ppo_mini_batch_size=64",
                   "actor_rollout_ref.rollout.n=8", "algorithm.adv_estimator=grpo")
    m = map_config(eff)
    c = m.config
    assert (c["buffer"]["batch_size"], c["buffer"]["train_batch_size"], c["synchronizer"]["sync_interval"]) == \
        (8, 64, 4)
    (d,) = [d for d in m.diagnostics if d.code == "RFTC326"]
    assert "counted in prompts it would be 256" in d.message and "2997e5d" in d.message
    # the snapshot's use_kl_loss key shows 0.2's KL switch: no KL in the reward with the loss on
    eff = snapshot("0.1", "data.train_batch_size=32", "actor_rollout_ref.actor.ppo_mini_batch_size=64",
                   "actor_rollout_ref.rollout.n=8", "algorithm.adv_estimator=grpo",
                   "actor_rollout_ref.actor.use_kl_loss=True")
    assert map_config(eff).config["algorithm"]["kl_penalty_fn"] == "none"


def test_a_pypi_release_has_no_doubt():
    m = convert(BASE + "algorithm.adv_estimator=grpo", "0.2")
    assert "RFTC326" not in codes(m)
