"""The runtime's plan, settings and sync schedule: pure Python, so these run in every environment."""

import json

import pytest

from rftc_runtime import plan as plans
from rftc_runtime.plan import CPU_BF16, make_plan
from runtime_support import settings
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
    s = settings(_cfg(tmp_path))
    plan = make_plan(s, gpus=0)
    assert not plan.errors
    assert plan.experiences_per_explore_step == 4 * 8
    assert plan.experiences_per_step == 32  # Trinity: train_batch_size 0 means batch_size x repeat_times
    assert plan.total_explore_steps == 20 * 2 // 4
    assert plan.total_train_steps == 10
    text = plan.describe(s)
    assert "4 task(s) x 8 response(s) = 32 experiences" in text


def test_train_batch_size_sets_experiences_per_trainer_step(tmp_path):
    s = settings(_cfg(tmp_path, buffer={"train_batch_size": 64}))
    plan = make_plan(s, gpus=0)
    assert plan.experiences_per_step == 64
    assert plan.total_train_steps == 10 * 32 // 64


def test_trainer_total_steps_bounds_training(tmp_path):
    s = settings(_cfg(tmp_path, trainer={"total_steps": 3}))
    assert make_plan(s, gpus=0).total_train_steps == 3


def test_grpo_defaults_follow_trinity(tmp_path):
    s = settings(_cfg(tmp_path))
    a = s.algorithm
    assert (a.advantage_fn, a.policy_loss_fn, a.kl_loss_fn, a.kl_penalty_fn) == ("grpo", "ppo", "k2", "none")
    assert a.kl_loss_fn_args["kl_coef"] == 0.001 and s.needs_reference


@pytest.mark.parametrize("interval,offset,explorer,trainer", [
    (1, 0, [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]),
    (2, 0, [2, 4, 6], [2, 4, 6]),
    (1, 1, [2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]),
    (2, 1, [3, 5], [2, 4, 6]),  # Trinity's trainer publishes on its own steps: the offset is the explorer's
])
def test_fixed_sync_schedule_matches_trinity(interval, offset, explorer, trainer):
    sched = FixedSchedule(interval, offset)
    assert [s for s in range(1, 7) if sched.explorer_needs_sync(s)] == explorer
    assert [t for t in range(1, 7) if sched.trainer_needs_sync(t)] == trainer


def test_explorer_and_trainer_sync_intervals_follow_trinity(tmp_path):
    # a converted verl 0.1 launch whose mini-batch splits a prompt's responses: 4 tasks x 8 = 32 experiences an
    # explorer step, 12 a trainer step; 3 explorer steps and 8 trainer steps are one veRL batch
    cfg = _cfg(tmp_path, buffer={"train_batch_size": 12}, explorer={"eval_interval": 10},
               synchronizer={"sync_interval": 8, "explorer_sync_interval": 3})
    s = settings(cfg)
    sched = s.schedule()
    assert (sched.explorer_interval, sched.trainer_interval) == (3, 8)
    assert [x for x in range(1, 10) if sched.explorer_needs_sync(x)] == [3, 6, 9]
    assert [t for t in range(1, 25) if sched.trainer_needs_sync(t)] == [8, 16, 24]
    assert sched.explorer_steps_at(16) == 6
    assert s.eval_interval == 9  # Trinity rounds it down to a multiple of the explorer's sync interval
    plan = make_plan(s, gpus=0)
    assert not plan.errors
    assert "every 3 explorer step(s) and 8 trainer step(s)" in plan.describe(s)


@pytest.mark.parametrize("style,method,ok", [("trainer_driven", "memory", True), ("dynamic_by_trainer", "checkpoint", True),
                                             ("explorer_driven", "memory", False), ("fully_async", "memory", False)])
def test_trainer_driven_sync_runs_as_fixed_without_nccl(tmp_path, style, method, ok):
    cfg = _cfg(tmp_path, synchronizer={"sync_style": style, "sync_method": method})
    errors = [c for c, *_ in make_plan(settings(cfg), gpus=0).errors]
    assert errors == ([] if ok else ["RFTC509"])


@pytest.mark.parametrize("interval,offset,stale", [(1, 0, 0), (1, 1, 1), (2, 2, 1), (2, 3, 2)])
def test_the_plan_states_the_staleness_it_runs_with(tmp_path, interval, offset, stale):
    """A fixed schedule with an offset runs here (veRL's one-step-off and asynchronous trainers convert to one);
    the plan says how many weight updates a rollout may lag: ceil(offset / explorer interval)."""
    s = settings(_cfg(tmp_path, synchronizer={"sync_interval": interval, "sync_offset": offset}))
    plan = make_plan(s, gpus=0)
    assert not plan.errors
    text = plan.describe(s)
    assert (f"staleness: rollouts up to {stale} weight update(s) older" in text) == (stale > 0)
    assert ("every rollout trained from the weights that generated it" in text) == (stale == 0)


@pytest.mark.parametrize("style", ["explorer_driven", "fully_async"])
def test_sync_styles_this_runtime_does_not_run_point_to_trinity(tmp_path, style):
    (error,) = make_plan(settings(_cfg(tmp_path, synchronizer={"sync_style": style})), gpus=0).errors
    assert error[0] == "RFTC509" and "--engine trinity" in error[2]


def test_plan_reports_what_cannot_run(tmp_path):
    cfg = _cfg(tmp_path, algorithm={"advantage_fn": "opmd"}, synchronizer={"sync_style": "explorer_driven"},
               model={"model_path": str(tmp_path / "nope")})
    codes = sorted(c for c, *_ in make_plan(settings(cfg), gpus=0).errors)
    assert codes == ["RFTC505", "RFTC507", "RFTC509"]


def test_rows_without_the_prompt_key_are_counted(tmp_path):
    cfg = _cfg(tmp_path)
    path = cfg["buffer"]["explorer_input"]["taskset"]["path"]
    with open(path, "a") as f:
        f.write(json.dumps({"question": "x", "answer": 1}) + "\n")
    plan = make_plan(settings(cfg), gpus=0)
    assert [w[0] for w in plan.warnings] == ["RFTC503"]
    assert plan.taskset_rows == 20


@pytest.mark.parametrize("bf16,compute", [("0", "float32"), ("1", "bfloat16")])
def test_ppo_trains_a_critic_with_trinitys_critic_defaults(tmp_path, monkeypatch, bf16, compute):
    monkeypatch.setenv(CPU_BF16, bf16)  # the precision this CPU computes in, whatever it has natively
    s = settings(_cfg(tmp_path, algorithm={"algorithm_type": "ppo"}))
    plan = make_plan(s, gpus=0)
    assert not plan.errors
    c = s.critic
    assert c.model_path == s.model_path  # Trinity: critic_model_path defaults to model_path
    assert (c.optimizer.lr, c.optimizer.lr_scheduler_type, c.optimizer.weight_decay, c.optimizer.clip_grad) == (
        1e-5, "constant", 0.01, 1.0)
    assert (c.cliprange_value, c.loss_agg_mode, c.ppo_epochs, c.warmup) == (0.5, "token-mean", 1, 0)
    assert [r.name for r in plan.roles] == ["actor", "ref", "critic"]  # Trinity's ppo: k2 KL loss, so a reference
    text = plan.describe(s)
    assert f"    critic    FSDPEngineWithValueHead (fsdp2, {compute} compute, float32 weights): value model from " \
        + s.model_path in text
    assert "adamw lr 1e-05 constant, cliprange_value 0.5, loss_agg_mode token-mean, 1 epoch(s)" in text
    assert "critic_warmup" not in text


def test_critic_settings_come_from_trainer_config_critic(tmp_path):
    critic_dir = tmp_path / "critic"
    critic_dir.mkdir()
    (critic_dir / "config.json").write_text("{}")
    cfg = _cfg(tmp_path, algorithm={"algorithm_type": "ppo", "loss_agg_mode": "seq-mean-token-mean"},
               model={"critic_model_path": str(critic_dir)},
               trainer={"critic_warmup": 3, "trainer_config": {"critic": {
                   "optim": {"lr": 2e-6, "warmup_style": "cosine", "optimizer": "AdamW", "clip_grad": 0.5,
                             "lr_warmup_steps_ratio": 0.1},
                   "ppo_epochs": 2, "cliprange_value": 0.2, "ppo_micro_batch_size_per_gpu": 4}}})
    s = settings(cfg)
    c = s.critic
    assert c.model_path == str(critic_dir)
    assert (c.optimizer.lr, c.optimizer.lr_scheduler_type, c.optimizer.optimizer_type, c.optimizer.clip_grad,
            c.optimizer.lr_warmup_steps_ratio) == (2e-6, "cosine", "adamw", 0.5, 0.1)
    assert (c.ppo_epochs, c.cliprange_value, c.micro_batch_size, c.warmup) == (2, 0.2, 4, 3)
    assert c.loss_agg_mode == "token-mean"  # Trinity's critic keeps its own loss_agg_mode
    text = make_plan(s, gpus=0).describe(s)
    assert "2 epoch(s) of 8 micro-batch(es) of 4" in text and "actor updated from step 3 (critic_warmup)" in text


def test_grpo_has_no_critic(tmp_path):
    s = settings(_cfg(tmp_path))
    assert s.critic is None
    text = make_plan(s, gpus=0).describe(s)
    assert [r.name for r in make_plan(s, gpus=0).roles] == ["actor", "ref"] and "ValueHead" not in text


def test_a_missing_critic_model_is_reported(tmp_path):
    cfg = _cfg(tmp_path, algorithm={"algorithm_type": "ppo"}, model={"critic_model_path": str(tmp_path / "nope")})
    assert [(c, k) for c, _, _, k in make_plan(settings(cfg), gpus=0).errors] == [
        ("RFTC507", "model.critic_model_path")]


@pytest.mark.parametrize("algorithm,expected", [
    ({"algorithm_type": "opmd"}, "algorithm_type: opmd"),
    ({"algorithm_type": "grpo", "advantage_fn": "ppo"}, "advantage_fn: ppo (needs a critic: algorithm_type ppo)"),
])
def test_what_still_cannot_run_is_refused(tmp_path, algorithm, expected):
    plan = make_plan(settings(_cfg(tmp_path, algorithm=algorithm)), gpus=0)
    assert [(c, m) for c, m, *_ in plan.errors] == [("RFTC505", f"this runtime cannot run {expected}")]


@pytest.mark.parametrize("algorithm_type,loss", [("gspo", "gspo"), ("cispo", "cispo"), ("sapo", "ppo")])
def test_gspo_cispo_and_sapo_run_with_trinitys_defaults(tmp_path, algorithm_type, loss):
    """Trinity's grpo with another policy loss: gspo's clip range 3e-4/4e-4, cispo's 1.0/0.28; sapo's own loss is
    refused (below), so its type runs with a loss the runtime has (tests/test_trinity_algorithms.py: the same loss
    and gradient as Trinity's)."""
    alg = {"algorithm_type": algorithm_type, **({"policy_loss_fn": loss} if loss != algorithm_type else {})}
    s = settings(_cfg(tmp_path, algorithm=alg))
    plan = make_plan(s, gpus=0)
    assert not plan.errors
    a = s.algorithm
    assert (a.advantage_fn, a.policy_loss_fn, a.kl_loss_fn, a.repeat_times) == ("grpo", loss, "k2", 8)
    assert f"algorithm     {algorithm_type}: advantage grpo, policy loss {loss}, kl loss k2" in plan.describe(s)
    args = {k: a.policy_loss_fn_args.get(k) for k in ("clip_range_low", "clip_range_high", "loss_agg_mode")}
    assert args == {"gspo": {"clip_range_low": 3e-4, "clip_range_high": 4e-4, "loss_agg_mode": "token-mean"},
                    "cispo": {"clip_range_low": 1.0, "clip_range_high": 0.28, "loss_agg_mode": "token-mean"},
                    "ppo": {"clip_range_low": None, "clip_range_high": None, "loss_agg_mode": "token-mean"}}[loss]


@pytest.mark.parametrize("algorithm,key,expected", [
    ({"algorithm_type": "sapo"}, "policy_loss_fn", "policy_loss_fn: sapo (veRL's sapo loss is the gate"),
    ({"algorithm_type": "cispo", "policy_loss_fn_args": {"enable_mask_clip": True}},
     "policy_loss_fn_args.enable_mask_clip", "policy_loss_fn_args.enable_mask_clip: true (veRL's cispo loss has no "),
    ({"algorithm_type": "grpo", "policy_loss_fn_args": {"clip_range": 0.2, "enable_sequence_masking": True}},
     "policy_loss_fn_args.enable_sequence_masking", "policy_loss_fn_args.enable_sequence_masking: true"),
    ({"algorithm_type": "gspo", "loss_agg_mode": "seq-mean-token-sum-norm"}, "loss_agg_mode",
     "loss_agg_mode: seq-mean-token-sum-norm (Trinity divides the token sum by the response length only"),
    # arguments without a loss_agg_mode keep the loss's own (gspo's seq-mean-token-mean), the KL loss the algorithm's
    ({"algorithm_type": "gspo", "loss_agg_mode": "token-mean", "policy_loss_fn_args": {"clip_range_low": 0.2,
                                                                                       "clip_range_high": 0.3}},
     "policy_loss_fn_args.loss_agg_mode", "policy_loss_fn_args.loss_agg_mode: seq-mean-token-mean (the KL and "
     "entropy losses aggregate token-mean"),
])
def test_what_trinity_computes_otherwise_than_verl_is_refused(tmp_path, algorithm, key, expected):
    plan = make_plan(settings(_cfg(tmp_path, algorithm=algorithm)), gpus=0)
    [(code, message, hint, at)] = plan.errors
    assert (code, at) == ("RFTC505", f"algorithm.{key}")
    assert message.startswith(f"this runtime cannot run {expected}")
    assert "`rftc run --engine trinity` runs it on Trinity-RFT itself" in hint


def test_experience_operators_are_refused_not_skipped(tmp_path):
    """The runtime trains every explored experience: a filter (the DAPO recipe's dynamic sampling) it would skip."""
    ops = {"experience_pipeline": {"operators": [{"name": "rftc.trinity.verl_operators.VerlFilterGroups",
                                                  "args": {"metric": "acc"}}]}}
    plan = make_plan(settings(_cfg(tmp_path, data_processor=ops)), gpus=0)
    assert [(c, k) for c, _, _, k in plan.errors] == [("RFTC505", "data_processor.experience_pipeline.operators")]
    assert "VerlFilterGroups" in plan.errors[0][1]


@pytest.mark.parametrize("reward,args,expected", [
    ("math_dapo_reward", {"enable_overlong_penalty": True, "penalty_factor": 1.0},
     "enable_overlong_penalty needs max_response_length, cache_length"),
    ("math_dapo_reward", {"overlong_buffer_len": 4}, "does not take reward_fn_args ['overlong_buffer_len']"),
    ("last_number", {"format_score": 0.1}, "does not take reward_fn_args ['format_score']"),
])
def test_reward_fn_args_a_builtin_cannot_take_are_refused_before_the_run(tmp_path, reward, args, expected):
    cfg = _cfg(tmp_path)
    cfg["buffer"]["explorer_input"]["default_reward_fn_type"] = reward
    cfg["buffer"]["explorer_input"]["taskset"]["reward_fn_args"] = args
    errors = make_plan(settings(cfg), gpus=0).errors
    assert [(c, k) for c, _, _, k in errors] == [("RFTC508", "buffer.explorer_input.taskset.reward_fn_args")]
    assert expected in errors[0][1]


def test_usable_reward_fn_args_pass_the_plan(tmp_path):
    cfg = _cfg(tmp_path)
    cfg["buffer"]["explorer_input"]["default_reward_fn_type"] = "math_dapo_reward"
    cfg["buffer"]["explorer_input"]["taskset"]["reward_fn_args"] = {
        "enable_overlong_penalty": True, "penalty_factor": 1.0, "max_response_length": 64, "cache_length": 16}
    assert make_plan(settings(cfg), gpus=0).errors == []


def test_an_unknown_reward_names_the_builtins(tmp_path):
    cfg = _cfg(tmp_path)
    cfg["buffer"]["explorer_input"]["default_reward_fn_type"] = "no_such_module:score"
    (error,) = make_plan(settings(cfg), gpus=0).errors
    assert error[0] == "RFTC508" and "math_dapo_reward" in error[2]


@pytest.mark.parametrize("model,expected", [
    ({"max_model_len": 1024}, (1024, 512, 512)),
    ({"max_model_len": 1025}, (1025, 512, 513)),
    ({"max_model_len": 1024, "max_response_tokens": 256}, (1024, 768, 256)),
    ({"max_model_len": 1024, "max_response_tokens": 4096}, (1024, 1, 1023)),
    ({"max_model_len": 1024, "max_prompt_tokens": 100}, (1024, 100, 924)),
    ({"max_model_len": 1024, "max_prompt_tokens": 2000}, (1024, 1023, 1)),
    ({"max_model_len": 1024, "max_prompt_tokens": 100, "max_response_tokens": 200}, (1024, 100, 200)),
    ({"max_prompt_tokens": 100, "max_response_tokens": 200}, (300, 100, 200)),
    ({}, (None, None, None)),
])
def test_model_lengths_are_filled_as_trinity_fills_them(tmp_path, model, expected):
    s = settings(_cfg(tmp_path, model=model))
    assert (s.max_model_len, s.max_prompt_tokens, s.max_response_tokens) == expected
    # the filled response limit is what the taskset's rollouts are capped at, as in Trinity
    assert s.taskset.rollout_args.max_tokens == expected[2]


def test_weights_go_by_checkpoint_anywhere_and_nccl_only_between_gpus(tmp_path):
    assert make_plan(settings(_cfg(tmp_path, synchronizer={"sync_method": "checkpoint"})), gpus=0).sync_method \
        == "checkpoint"
    plan = make_plan(settings(_cfg(tmp_path, synchronizer={"sync_method": "nccl"})), gpus=0)
    assert plan.sync_method == "memory" and [c for c, *_ in plan.infos] == ["RFTC509"]
    assert make_plan(settings(_cfg(tmp_path, synchronizer={"sync_method": "nccl"})), gpus=4).sync_method == "nccl"


def test_the_trainer_runs_veRLs_fsdp_engines_on_whole_nodes_of_gpus(tmp_path):
    s = settings(_cfg(tmp_path, cluster={"node_num": 1, "gpu_per_node": 4}))
    plan = make_plan(s, gpus=4)  # 1 GPU for the engine, 3 for the trainer: 32 experiences do not split over 3
    assert (plan.device, plan.trainer_ranks, plan.train_dtype) == ("cuda", 3, "bfloat16")
    assert [(c, k) for c, _, _, k in plan.errors] == [("RFTC509", "buffer.train_batch_size")]
    assert "3 rank(s) on GPU, NCCL" in plan.describe(s)
    fsdp = make_plan(settings(_cfg(tmp_path, trainer={"trainer_strategy": "fsdp"})), gpus=0)
    assert fsdp.strategy == "fsdp2" and "trainer_strategy fsdp runs as fsdp2 on a CPU" in fsdp.describe(
        settings(_cfg(tmp_path, trainer={"trainer_strategy": "fsdp"})))
    megatron = make_plan(settings(_cfg(tmp_path, trainer={"trainer_strategy": "megatron"})), gpus=0)
    assert [(c, k) for c, _, _, k in megatron.errors] == [("RFTC509", "trainer.trainer_strategy")]


@pytest.mark.parametrize("native,bf16,dtype,why", [
    (True, None, "bfloat16", None), (False, None, "float32", "this CPU has no native bfloat16"),
    (True, "0", "float32", "RFTC_CPU_BF16=0"), (False, "1", "bfloat16", None)])
def test_on_a_cpu_bfloat16_follows_the_cpu_unless_RFTC_CPU_BF16_says(tmp_path, monkeypatch, native, bf16, dtype, why):
    monkeypatch.setattr(plans, "cpu_has_bf16", lambda: native)
    if bf16 is None:
        monkeypatch.delenv(CPU_BF16, raising=False)
    else:
        monkeypatch.setenv(CPU_BF16, bf16)
    s = settings(_cfg(tmp_path))
    assert s.dtype == "bfloat16"
    plan = make_plan(s, gpus=0)
    assert (plan.dtype, plan.train_dtype) == (dtype, dtype)
    line = next(line for line in plan.describe(s).splitlines() if line.startswith("  precision"))
    assert line == f"  precision   rollout {dtype}, training {dtype}" + (f" (config: bfloat16; {why})" if why else "")
    assert make_plan(s, gpus=2).train_dtype == "bfloat16"  # on GPUs the switch has no say
