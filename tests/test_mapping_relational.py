"""Golden tests of the relational rules (batch, steps, sync, GPU split): each formula on known numbers."""

import pytest
from test_mapping_support import cfg, codes, convert

from rftc.mapping.draft import Options

from rftc.mapping.batch import nearest_divisible, sync_interval
from rftc.mapping.convert import map_config
from rftc.mapping.gpu import Split, Workload, extra_nodes, rollout_share, solve, why_invalid

GUIDE_GRPO = ("algorithm.adv_estimator=grpo", "data.train_batch_size=1024", "data.max_prompt_length=512",
              "data.max_response_length=512", "actor_rollout_ref.actor.ppo_mini_batch_size=256",
              "actor_rollout_ref.actor.use_dynamic_bsz=True", "actor_rollout_ref.actor.use_kl_loss=True",
              "actor_rollout_ref.rollout.tensor_model_parallel_size=2", "actor_rollout_ref.rollout.n=8",
              "trainer.n_gpus_per_node=8", "trainer.nnodes=1", "trainer.save_freq=20", "trainer.test_freq=5",
              "trainer.total_epochs=15")


def test_batch_formulas():
    m = convert(*GUIDE_GRPO)
    c = m.config
    assert c["buffer"]["batch_size"] == 256
    assert c["algorithm"]["repeat_times"] == 8
    assert c["buffer"]["train_batch_size"] == 2048  # 256 x 8
    assert c["synchronizer"]["sync_interval"] == 4  # 1024 / 256
    assert m.origins["synchronizer.sync_interval"].note == "1024/256"


def test_sync_interval_and_nearest_choices():
    assert sync_interval(1024, 256) == 4 and sync_interval(1000, 256) is None
    assert nearest_divisible(1000, 256) == ([768, 1024], [250, 500])
    assert nearest_divisible(96, 64) == ([64, 128], [48, 96])


def test_not_divisible_is_an_error_with_choices():
    m = convert("data.train_batch_size=1000", "actor_rollout_ref.actor.ppo_mini_batch_size=256")
    (d,) = [d for d in m.diagnostics if d.code == "RFTC302"]
    assert "1000" in d.message and "256" in d.message and d.span.line == 1
    assert "data.train_batch_size=768" in d.hint and "ppo_mini_batch_size=250" in d.hint
    assert not m.ok


@pytest.mark.parametrize("release,runs", [("0.7.0", "3 mini-batch(es) of 256 and a last, smaller one of 232"),
                                          ("0.1", "asserts that a batch divides"),
                                          ("0.9.1", "asserts that a batch divides")])
def test_not_divisible_says_what_the_release_does_with_the_remainder(release, runs):
    """veRL 0.2 to 0.7 train the remainder as a last, smaller mini-batch; 0.1 and the engine workers refuse it."""
    c = cfg("data.train_batch_size=1000", "actor_rollout_ref.actor.ppo_mini_batch_size=256", release=release)
    (d,) = [d for d in map_config(c, Options()).diagnostics if d.code == "RFTC302"]
    assert f"verl {release}'s actor" in d.message and runs in d.message and "drop" not in d.message


def test_steps_scale_by_sync_interval():
    c = convert(*GUIDE_GRPO).config
    assert c["trainer"]["save_interval"] == 80 and c["explorer"]["eval_interval"] == 20
    assert c["buffer"]["total_epochs"] == 15
    c = convert(*GUIDE_GRPO, "trainer.total_training_steps=100", "actor_rollout_ref.actor.optim.lr_warmup_steps=10").config
    assert c["trainer"]["total_steps"] == 400 and c["buffer"]["total_steps"] == 400
    assert c["algorithm"]["optimizer"]["lr_warmup_steps"] == 40


def test_warmup_ratio_horizon_from_dataset_size():
    m = convert(*GUIDE_GRPO, "actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.1", dataset_size=7473)
    # veRL: 7473 // 1024 = 7 steps per epoch x 15 epochs = 105 steps; x sync_interval 4
    assert m.config["trainer"]["total_steps"] == 420
    assert m.config["algorithm"]["optimizer"]["lr_warmup_steps_ratio"] == 0.1
    m = convert(*GUIDE_GRPO, "actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.1", total_steps=50)
    assert m.config["trainer"]["total_steps"] == 200


def test_cosine_without_horizon_warns_but_still_maps():
    m = convert(*GUIDE_GRPO, "actor_rollout_ref.actor.optim.lr_scheduler_type=cosine")
    assert codes(m) == ["RFTC303"] and m.ok
    assert m.diagnostics[0].span.line == len(GUIDE_GRPO) + 1
    assert m.config["algorithm"]["optimizer"] == {"lr_scheduler_type": "cosine", "min_lr_ratio": 0.0}
    assert "total_steps" not in m.config["trainer"]


def test_sync_offset_default_and_option():
    assert convert(*GUIDE_GRPO).config["synchronizer"] == {"sync_style": "fixed", "sync_offset": 0,
                                                           "sync_interval": 4, "sync_timeout": 1200}
    assert convert(*GUIDE_GRPO, sync_offset=1).config["synchronizer"]["sync_offset"] == 1


def _w(total=8, gpn=8, engine=1, aux=(), sp=1, exp=256, micro=(), share=0.25):
    return Workload(total, gpn, engine, list(aux), sp, exp, list(micro), share)


def test_gpu_rules():
    assert why_invalid(_w(), 0) == "no GPU left for the trainer"
    assert "whole nodes" in why_invalid(_w(total=16), 12)
    assert "sequence-parallel" in why_invalid(_w(sp=4), 6)
    assert "do not split" in why_invalid(_w(exp=2048), 6)
    assert "ppo_micro_batch_size_per_gpu 48" in why_invalid(_w(micro=[("a.ppo_micro_batch_size_per_gpu", 48)]), 4)
    assert why_invalid(_w(exp=2048), 4) is None


def test_gpu_split_of_the_guide_examples():
    # PPO: 8 GPUs, rollout TP1, one reward model TP1, critic; the guide's split is 2 + 2 + 4.
    share = rollout_share(1024, 512, 1, ref=False, critic=True)
    s, _ = solve(_w(aux=[1], micro=[("m", 16), ("c", 32)], share=share))
    assert (s.rollout_engines, s.aux_engines, s.trainer) == (2, 2, 4)
    # GRPO: TP2, 2048 experiences: 6 trainer GPUs cannot split them, so 2 engines (4 GPUs) + 4 trainer GPUs.
    s, _ = solve(_w(engine=2, exp=2048, share=rollout_share(512, 512, 1, ref=True, critic=False)))
    assert (s.rollout_engines, s.trainer) == (2, 4)


def test_gpu_split_multi_node_gives_the_trainer_whole_nodes():
    s, _ = solve(_w(total=16, engine=2, exp=4096, share=0.25))
    assert s.trainer in (8, 1, 2, 4) and (s.trainer <= 8)
    assert s.rollout_engines * 2 + s.trainer == 16


def test_explorer_gpus_override_and_impossible_split():
    m = convert(*GUIDE_GRPO, explorer_gpus=6)
    assert m.config["explorer"]["rollout_model"]["engine_num"] == 3 and codes(m) == []
    m = convert(*GUIDE_GRPO, explorer_gpus=2)  # 6 trainer GPUs cannot split 2048 experiences
    assert codes(m) == ["RFTC306"] and "rollout 2: 2048 experiences" in m.diagnostics[0].message
    assert "--explorer-gpus 2 cannot fill whole nodes of 8" in m.diagnostics[0].message  # nor on extra nodes
    m = convert(*GUIDE_GRPO, explorer_gpus=3)
    assert codes(m) == ["RFTC306"] and "multiple" in m.diagnostics[0].message
    # even veRL's own world size breaks a rule: 2 experiences over 3 data-parallel ranks
    m = convert("trainer.n_gpus_per_node=3", "actor_rollout_ref.rollout.tensor_model_parallel_size=3",
                "data.train_batch_size=4", "actor_rollout_ref.actor.ppo_mini_batch_size=2", "actor_rollout_ref.rollout.n=1")
    (d,) = [d for d in m.diagnostics if d.code == "RFTC306"]
    assert "no GPU left for the trainer" in d.message and "2 experiences per step do not split over 3" in d.message
    assert "--gpus-per-node N" in d.hint and "--explorer-gpus" not in d.hint  # no explorer size can help
    m = convert(*GUIDE_GRPO, explorer_gpus=2)
    assert "--explorer-gpus N" in m.diagnostics[0].hint  # veRL's own 8 GPUs are fine: another split may be


def test_rollout_spanning_every_gpu_gets_extra_nodes():
    # TP 2 on 2 GPUs: the trainer keeps both, the explorer gets one more node of 2 (RFTC317, a warning)
    m = convert("trainer.n_gpus_per_node=2", "actor_rollout_ref.rollout.tensor_model_parallel_size=2")
    (d,) = [d for d in m.diagnostics if d.code == "RFTC317"]
    assert "2 more (1 more node of 2): cluster.node_num 2" in d.message and m.ok
    assert m.config["cluster"] == {"node_num": 2, "gpu_per_node": 2}
    assert m.config["explorer"]["rollout_model"]["engine_num"] == 1
    # megatron TP x PP = 8 on 8 GPUs: no in-budget split; one extra node of 8 holds 4 engines of TP 2
    s, k, why = extra_nodes(_w(engine=2, exp=2048, sp=8))
    assert (s.rollout_engines, s.trainer, k, why) == (4, 8, 1, None)
    # an engine of 32 GPUs and a reward model of 4 on nodes of 8: 36 GPUs are not whole nodes; 5 nodes hold
    # one engine and two reward-model engines
    s, k, _ = extra_nodes(_w(total=96, engine=32, aux=[4], exp=256, sp=96))
    assert (k, s.rollout_engines, s.aux_engines) == (5, 1, 2)
    # one extra node of 8 for TP 2 and a reward model of 1: sized alike, 2 engines (4 GPUs) + 4 reward engines
    assert extra_nodes(_w(engine=2, aux=[1], exp=2048, sp=8))[:2] == (Split(2, 4, 8), 1)
    # --explorer-gpus fixes the rollout GPUs: they (plus auxiliary models) must fill whole nodes
    assert extra_nodes(_w(engine=2, exp=2048, sp=8), 16)[:2] == (Split(8, 0, 8), 2)
    assert "--explorer-gpus 6 cannot fill whole nodes of 8" in extra_nodes(_w(engine=2, exp=2048, sp=8), 6)[2]
    # the trainer on veRL's world size must itself be valid
    assert "even the trainer on all 8 GPUs" in extra_nodes(_w(engine=8, exp=12))[2]


def test_micro_batches_that_only_rule_out_every_split_are_fitted_to_the_trainers_share():
    job = ("trainer.n_gpus_per_node=4", "data.train_batch_size=220", "actor_rollout_ref.actor.ppo_mini_batch_size=220",
           "actor_rollout_ref.rollout.n=5", "actor_rollout_ref.rollout.tensor_model_parallel_size=2")
    tc = "trainer_config"
    # verl 0.3 cuts a smaller last micro-batch: the 2 trainer GPUs take 550 experiences each; 8 -> 5, 12 -> 11,
    # and the reference model's size, derived from the rollout's, follows it
    m = map_config(cfg(*job, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8",
                       "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=12", release="0.3.0.post1"))
    assert m.ok and codes(m).count("RFTC319") == 2, m.diagnostics
    arr = m.config["trainer"][tc]["actor_rollout_ref"]
    assert (arr["actor"]["ppo_micro_batch_size_per_gpu"], arr["rollout"]["log_prob_micro_batch_size_per_gpu"],
            arr["ref"]["log_prob_micro_batch_size_per_gpu"]) == (5, 11, 11)
    assert m.config["explorer"]["rollout_model"]["engine_num"] == 1  # rollout 2 + trainer 2
    # sizes a split accepts are kept: 10 divides 550
    m = map_config(cfg(*job, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=10", release="0.3.0.post1"))
    assert m.ok and "RFTC319" not in codes(m)
    # verl 0.9.1 needs 8 to divide its own share (275 on 4 GPUs): the script's error, nothing fitted
    m = convert(*job, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8")
    assert codes(m) == ["RFTC306"] and "even the trainer on all 4 GPUs" in m.diagnostics[0].message


def test_single_gpu_is_colocate():
    m = convert("trainer.n_gpus_per_node=1", "actor_rollout_ref.rollout.tensor_model_parallel_size=1")
    assert m.config["mode"] == "colocate" and codes(m) == ["RFTC315"] and m.ok
    assert m.config["cluster"] == {"node_num": 1, "gpu_per_node": 1}


def test_gpu_count_only_the_environment_knows_is_assumed_loudly():
    m = convert(*GUIDE_GRPO, "trainer.n_gpus_per_node=${oc.env:GPUS_PER_NODE}", "trainer.nnodes=${oc.env:NNODES}")
    assert m.ok and codes(m) == ["RFTC318", "RFTC318"]
    nodes, gpn = (d for d in m.diagnostics if d.code == "RFTC318")
    assert "veRL's default 8" in gpn.message and gpn.span.line == len(GUIDE_GRPO) + 1
    assert gpn.hint == "pass --gpus-per-node N, or --env GPUS_PER_NODE=N, or --use-env"
    assert "veRL's default 1" in nodes.message and "--nodes N" in nodes.hint
    assert m.config["cluster"] == {"node_num": 1, "gpu_per_node": 8}
    # every value computed from an assumed count says so in its provenance comment
    assert m.origins["cluster.gpu_per_node"].note == "8 assumed for $GPUS_PER_NODE (RFTC318)"
    assert m.origins["explorer.rollout_model.engine_num"].note.endswith(
        "8 assumed for $GPUS_PER_NODE (RFTC318); 1 assumed for $NNODES (RFTC318)")
    # the key is still mapped (to cluster.*), not settled as reported
    assert m.ledger["trainer.n_gpus_per_node"].status == "mapped"


def test_gpu_count_given_on_the_command_line_is_not_assumed():
    m = convert(*GUIDE_GRPO, "trainer.n_gpus_per_node=${oc.env:GPUS_PER_NODE}", fixed={"trainer.n_gpus_per_node": 4})
    assert m.ok and "RFTC318" not in codes(m) and m.config["cluster"]["gpu_per_node"] == 4


def test_rollout_tensor_parallel_size_only_the_environment_knows_is_assumed_loudly():
    tp = "actor_rollout_ref.rollout.tensor_model_parallel_size"
    m = convert(*GUIDE_GRPO, f"{tp}=${{oc.env:ROLLOUT_TP_SIZE}}")
    assert m.ok and codes(m) == ["RFTC318"]
    (d,) = (d for d in m.diagnostics if d.code == "RFTC318")
    assert "veRL's default 2" in d.message and "rollout engines' size" in d.message
    assert d.hint == "pass --rollout-tp N, or --env ROLLOUT_TP_SIZE=N, or --use-env"
    assert m.config["explorer"]["rollout_model"]["tensor_parallel_size"] == 2
    assert m.origins["explorer.rollout_model.tensor_parallel_size"].note == "2 assumed for $ROLLOUT_TP_SIZE (RFTC318)"
    # the engine count rests on it, and says so
    assert m.origins["explorer.rollout_model.engine_num"].note.endswith("2 assumed for $ROLLOUT_TP_SIZE (RFTC318)")
    # on one GPU veRL's default cannot run: the assumption is the one GPU there is (Trinity's colocate mode)
    m = convert(*GUIDE_GRPO, f"{tp}=${{oc.env:TP}}", "trainer.n_gpus_per_node=1")
    assert m.ok and "RFTC306" not in codes(m) and m.config["mode"] == "colocate"
    assert "assumes 1, as veRL's default 2 needs more GPUs than the job has" in m.diagnostics[0].message
    # --rollout-tp gives it
    m = convert(*GUIDE_GRPO, f"{tp}=${{oc.env:TP}}", fixed={tp: 4})
    assert m.ok and "RFTC318" not in codes(m)
    assert m.config["explorer"]["rollout_model"]["tensor_parallel_size"] == 4
    assert m.origins["explorer.rollout_model.tensor_parallel_size"].note == "--rollout-tp"


def test_values_that_change_training_are_never_assumed():
    m = convert(*GUIDE_GRPO, "data.train_batch_size=${oc.env:BATCH}")
    assert codes(m) == ["RFTC311"] and not m.ok
    # a GPU count computed from more than one unknown is not a single variable to assume
    m = convert(*GUIDE_GRPO, "trainer.n_gpus_per_node=${oc.env:A}x${oc.env:B}")
    assert "RFTC311" in codes(m) and not m.ok
