"""Golden tests of the per-topic rules (algorithm, data, models, rewards, trainer) and of the ledger."""

import pytest

from test_mapping_support import LEFT_OUT, cfg, codes, convert

from rftc.mapping.algorithm import ESTIMATORS
from rftc.mapping.convert import map_config
from rftc.mapping.data import split_path
from rftc.mapping.draft import Options
from rftc.mapping.rules import RULES, find_rule
from rftc.plugins import ADVANTAGE_FN, GPG_LOSS_FN, VERL_ESTIMATORS, WORKFLOW

A = "actor_rollout_ref.actor"


@pytest.mark.parametrize("est,adv,algo", [("gae", "ppo", "ppo"), ("grpo", "grpo", "grpo"),
                                          ("grpo_vectorized", "grpo", "grpo"),
                                          ("reinforce_plus_plus", "reinforceplusplus", "reinforceplusplus"),
                                          ("rloo", "rloo", "rloo"), ("rloo_vectorized", "rloo", "rloo")])
def test_estimators(est, adv, algo):
    a = convert(f"algorithm.adv_estimator={est}").config["algorithm"]
    assert (a["advantage_fn"], a["algorithm_type"]) == (adv, algo)


def test_unknown_estimator_lists_the_supported_ones():
    m = convert("algorithm.adv_estimator=remax")
    (d,) = [d for d in m.diagnostics if d.code == "RFTC304"]
    assert all(e in d.message for e in ESTIMATORS) and "reward_baselines" in d.message and not m.ok


def test_a_fork_s_own_estimator_is_named_so_with_trinity_s_namesake():
    m = convert("algorithm.adv_estimator=raft")
    (d,) = [d for d in m.diagnostics if d.code == "RFTC304"]
    assert "no veRL release has it" in d.message and "algorithm_type raft" in d.hint and not m.ok
    (d,) = [d for d in convert("algorithm.adv_estimator=my_adv").diagnostics if d.code == "RFTC304"]
    assert "no veRL release has it" in d.message and "opmd" in d.hint


@pytest.mark.parametrize("defined", [True, False])
def test_an_unreleased_estimator_is_a_fork_s_only_where_its_python_defines_it(defined, tmp_path):
    """RFTC304 names the place in the fork's Python that defines the estimator, and says so where none does; a
    bundled release's trainer refuses a name it does not know."""
    code = ("from enum import Enum\nclass AdvantageEstimator(str, Enum):\n    GIGPO = 'gigpo'\n" if defined
            else "from enum import Enum\nclass AdvantageEstimator(str, Enum):\n    GRPO = 'grpo'\n")
    (tmp_path / "verl" / "trainer" / "ppo").mkdir(parents=True)
    (tmp_path / "verl" / "trainer" / "ppo" / "core_algos.py").write_text(code)
    c = cfg("algorithm.adv_estimator=gigpo")
    c.source = f"{tmp_path / 'verl'}/"
    (d,) = [d for d in map_config(c, Options()).diagnostics if d.code == "RFTC304"]
    if defined:
        assert "defines it in its own Python, verl/trainer/ppo/core_algos.py:3" in d.message
    else:
        assert "its own Python" not in d.message and "nothing in the Python of the veRL copy" in d.message
    (d,) = [d for d in convert("algorithm.adv_estimator=gigpo").diagnostics if d.code == "RFTC304"]
    assert "its own Python" not in d.message and "refuses an estimator it does not know" in d.message


@pytest.mark.parametrize("est", VERL_ESTIMATORS)
def test_verl_estimators_trinity_lacks_run_in_rftcs_class(est):
    # computed in the trainer on the whole batch (reinforceplusplus's flags), by veRL's own function
    a = convert(f"algorithm.adv_estimator={est}").config["algorithm"]
    assert (a["algorithm_type"], a["advantage_fn"], a["advantage_fn_args"]) == (
        "reinforceplusplus", ADVANTAGE_FN, {"estimator": est})


def test_gpg_loss():
    a = convert("algorithm.adv_estimator=gpg", f"{A}.policy_loss.loss_mode=gpg").config["algorithm"]
    assert a["policy_loss_fn"] == GPG_LOSS_FN and "policy_loss_fn_args" not in a


def test_loss_modes_pick_the_trinity_algorithm():
    a = convert("algorithm.adv_estimator=grpo", f"{A}.policy_loss.loss_mode=gspo",
                f"{A}.clip_ratio_low=0.0003", f"{A}.clip_ratio_high=0.0004").config["algorithm"]
    assert (a["algorithm_type"], a["advantage_fn"], a["policy_loss_fn"]) == ("gspo", "grpo", "gspo")
    assert a["policy_loss_fn_args"] == {"clip_range_low": 0.0003, "clip_range_high": 0.0004,
                                        "loss_agg_mode": "token-mean"}


def test_the_critic_keeps_the_actors_loss_aggregation():
    # veRL's critic.loss_agg_mode follows the actor's; Trinity's critic is token-mean unless trainer_config says
    m = convert("algorithm.adv_estimator=gae", f"{A}.loss_agg_mode=seq-mean-token-mean")
    assert m.config["trainer"]["trainer_config"]["critic"]["loss_agg_mode"] == "seq-mean-token-mean"
    assert m.origins["trainer.trainer_config.critic.loss_agg_mode"].keys == (f"{A}.loss_agg_mode",)
    m = convert("algorithm.adv_estimator=gae", f"{A}.loss_agg_mode=seq-mean-token-mean",
                "critic.loss_agg_mode=token-mean")
    assert "loss_agg_mode" not in m.config["trainer"].get("trainer_config", {}).get("critic", {})
    m = convert("algorithm.adv_estimator=grpo", f"{A}.loss_agg_mode=seq-mean-token-mean")
    assert "critic" not in m.config["trainer"].get("trainer_config", {})


def test_kl_off_is_explicit_and_on_carries_the_coefficient():
    a = convert("algorithm.adv_estimator=grpo").config["algorithm"]
    assert a["kl_loss_fn"] == "none" and a["kl_penalty_fn"] == "none"
    a = convert(f"{A}.use_kl_loss=True", f"{A}.kl_loss_type=k3", "algorithm.use_kl_in_reward=True",
                "algorithm.kl_penalty=kl", "algorithm.kl_ctrl.type=adaptive").config["algorithm"]
    assert a["kl_loss_fn"] == "low_var_kl" and a["kl_loss_fn_args"] == {"kl_coef": 0.001}
    assert a["kl_penalty_fn"] == "k1"
    assert a["kl_penalty_fn_args"] == {"kl_coef": 0.001, "adaptive": True, "target_kl": 0.1, "horizon": 10000}


def test_old_logprobs_are_verls_recomputed_ones_unless_bypass_mode():
    # Trinity's default bypass_old_logprobs true takes the rollout engine's log-probs; veRL recomputes them
    m = convert("algorithm.adv_estimator=grpo")
    assert m.config["algorithm"]["bypass_old_logprobs"] is False
    assert "recomputes the old log-probs with the actor" in m.origins["algorithm.bypass_old_logprobs"].note
    m = convert("algorithm.adv_estimator=grpo", "algorithm.rollout_correction.bypass_mode=False")
    assert m.config["algorithm"]["bypass_old_logprobs"] is False
    m = convert("algorithm.adv_estimator=grpo", "algorithm.rollout_correction.bypass_mode=True",
                "algorithm.rollout_correction.loss_type=ppo_clip")
    a = m.config["algorithm"]
    assert a["bypass_old_logprobs"] is True
    assert a["rollout_correction"] == {"bypass_mode": True, "loss_type": "ppo_clip"}  # still passed on
    assert m.origins["algorithm.bypass_old_logprobs"].keys == ("algorithm.rollout_correction.bypass_mode",)


def test_a_loss_bypass_mode_replaces_is_reported():
    # veRL's bypass mode (verl >= 0.7) trains its own loss whatever loss_mode says: ppo_clip (vanilla) or reinforce
    # (on the rollout's log-probs, without which it stops: rftc.mapping.correction)
    bypass = ("algorithm.rollout_correction.bypass_mode=True", "actor_rollout_ref.rollout.calculate_log_probs=True",
              "actor_rollout_ref.rollout.logprobs_mode=processed_logprobs")
    assert codes(convert("algorithm.adv_estimator=grpo", *bypass)) == []
    m = convert("algorithm.adv_estimator=grpo", *bypass, "algorithm.rollout_correction.loss_type=reinforce")
    assert codes(m) == ["RFTC305"] and "REINFORCE" in m.diagnostics[0].message and m.ok
    m = convert("algorithm.adv_estimator=grpo", *bypass, "algorithm.rollout_correction.loss_type=ppo_clip",
                f"{A}.policy_loss.loss_mode=gspo")
    assert codes(m) == ["RFTC305"] and "whatever loss_mode says" in m.diagnostics[0].message
    # verl 0.6.1's bypass mode keeps loss_mode unless use_policy_gradient
    bypass = bypass[:2]
    m = map_config(cfg("algorithm.adv_estimator=grpo", *bypass, f"{A}.policy_loss.loss_mode=gspo", LEFT_OUT,
                       release="0.6.1"))
    assert not [d for d in m.diagnostics if "loss" in d.message]
    m = map_config(cfg("algorithm.adv_estimator=grpo", *bypass, "algorithm.rollout_correction.use_policy_gradient=True",
                       LEFT_OUT, release="0.6.1"))
    assert [d.key for d in m.diagnostics if "veRL's bypass mode trains REINFORCE" in d.message] == [
        "algorithm.rollout_correction.use_policy_gradient"]


def test_straight_through_kl_and_std_normalisation_are_reported():
    m = convert("algorithm.adv_estimator=grpo", f"{A}.use_kl_loss=True", f"{A}.kl_loss_type=k3+",
                "algorithm.norm_adv_by_std_in_grpo=False")
    assert codes(m) == ["RFTC305", "RFTC305"] and m.ok
    assert sorted(d.span.line for d in m.diagnostics) == [3, 4]


def test_clip_ratios_and_dual_clip():
    a = convert(f"{A}.clip_ratio_low=0.2", f"{A}.clip_ratio_high=0.28", f"{A}.clip_ratio_c=10.0",
                f"{A}.loss_agg_mode=seq-mean-token-mean").config["algorithm"]
    assert a["policy_loss_fn_args"] == {"clip_range_low": 0.2, "clip_range_high": 0.28, "clip_ratio_c": 10.0,
                                        "loss_agg_mode": "seq-mean-token-mean"}
    assert a["loss_agg_mode"] == "seq-mean-token-mean"
    m = convert(f"{A}.loss_agg_mode=token-sum")
    assert codes(m) == ["RFTC305"]


def test_ppo_epochs_go_to_actor_and_critic():
    tc = convert(f"{A}.ppo_epochs=2").config["trainer"]["trainer_config"]
    assert tc["actor_rollout_ref"]["actor"]["ppo_epochs"] == 2 and tc["critic"]["ppo_epochs"] == 2


def test_gamma_lam_for_gae_only():
    a = convert("algorithm.gamma=0.99", "algorithm.lam=0.95").config["algorithm"]
    assert a["advantage_fn_args"] == {"gamma": 0.99, "lam": 0.95}
    m = convert("algorithm.adv_estimator=grpo", "algorithm.gamma=0.99")
    assert "advantage_fn_args" not in m.config["algorithm"] and m.ledger["algorithm.gamma"].status == "implied"


@pytest.mark.parametrize("path,expected", [
    ("${oc.env:HOME}/data/gsm8k/train.parquet", ("${oc.env:HOME}/data/gsm8k", "train")),
    ("/d/math/test.parquet", ("/d/math", "test")),
    ("/d/dapo-math-17k.parquet", ("/d/dapo-math-17k.parquet", "train")),
    ("train.parquet", ("train.parquet", "train")),
])
def test_split_path(path, expected):
    assert split_path(path) == expected


def test_data_lists_names_and_eval_sampling():
    c = convert("data.train_files=['/d/gsm8k/train.parquet', '/e/gsm8k/train.parquet']",
                "data.val_files=/d/aime-2024.parquet", "actor_rollout_ref.rollout.val_kwargs.do_sample=True",
                "actor_rollout_ref.rollout.val_kwargs.temperature=0.6", "actor_rollout_ref.rollout.val_kwargs.n=16",
                "data.shuffle=False", "data.prompt_key=question").config["buffer"]["explorer_input"]
    assert [t["name"] for t in c["tasksets"]] == ["gsm8k", "gsm8k_2"]
    assert all("data_selector" not in t for t in c["tasksets"])
    assert c["tasksets"][0]["format"]["prompt_key"] == "question"
    (e,) = c["eval_tasksets"]
    assert (e["name"], e["path"], e["split"], e["repeat_times"]) == ("aime-2024_eval", "/d/aime-2024.parquet", "train", 16)
    assert e["rollout_args"] == {"temperature": 0.6}
    # veRL's reward manager picks the scorer per row (data_source): the workflow that does the same, no name
    assert e["default_workflow_type"] == WORKFLOW and "default_reward_fn_type" not in e


def test_lengths_and_truncation():
    m = convert("data.max_prompt_length=1024", "data.max_response_length=3072", "data.filter_overlong_prompts=False",
                "data.truncation=error")
    assert m.config["model"]["max_model_len"] == 4096
    assert m.config["model"]["enable_prompt_truncation"] is False
    assert codes(m) == []  # veRL stops at an over-long prompt: the prompts it trains on are whole, as Trinity's
    m = convert("data.max_prompt_length=1024", "data.max_response_length=3072", "data.filter_overlong_prompts=False",
                "data.truncation=left")
    assert codes(m) == ["RFTC305"]  # veRL cuts it, Trinity gives vLLM the whole prompt


def test_a_context_shorter_than_prompt_plus_response_is_what_vllm_runs():
    # veRL's vLLM rollout caps prompt + response at max_model_len; Trinity takes that with max_prompt_tokens left out
    lengths = ("data.max_prompt_length=2048", "data.max_response_length=1024",
               "actor_rollout_ref.rollout.max_model_len=2560")
    for truncate in (False, True):
        m = convert(*lengths, f"data.filter_overlong_prompts={truncate}")
        model = m.config["model"]
        assert (model["max_model_len"], model["max_response_tokens"]) == (2560, 1024)
        assert "max_prompt_tokens" not in model and m.ok
        (d,) = [d for d in m.diagnostics if d.code == "RFTC305" and d.key == "actor_rollout_ref.rollout.max_model_len"]
        assert d.span.line == 3
        # kept: veRL's default truncation stops at an over-long prompt, so the prompts it trains on are whole
        assert not any(d.message.startswith("data.truncation") for d in m.diagnostics)
        assert "ends a response at 1024 tokens or where prompt and response reach 2560" in d.message
        assert "sets it to 1536" in d.message
        assert ("truncates prompts to 1536 tokens" in d.message) is truncate
    m = convert(*lengths, "actor_rollout_ref.rollout.name=sglang")
    (d,) = [d for d in m.diagnostics if d.code == "RFTC313"]
    assert "SGLang rollout asserts max_model_len >= prompt_length + response_length" in d.message and not m.ok


def test_on_policy_distillation_is_refused_naming_what_differs_from_trinitys():
    on = ("algorithm.adv_estimator=grpo", "distillation.enabled=True",
          "distillation.teacher_models.teacher_model.model_path=/models/teacher", "actor_rollout_ref.rollout.n=1")
    m = convert(*on, "distillation.distillation_loss.loss_mode=k3",
                "distillation.distillation_loss.use_policy_gradient=False",
                "distillation.distillation_loss.use_task_rewards=True",
                "distillation.distillation_loss.loss_max_clamp=10.0", "actor_rollout_ref.actor.ppo_epochs=2")
    (d,) = [d for d in m.diagnostics if d.code == "RFTC339"]
    assert d.key == "distillation.enabled" and d.span.line == 2 and not m.ok
    assert "algorithm_type" not in m.config["algorithm"]
    for why in ("loss_mode k3 is not the reverse KL k1", "backpropagates the distillation loss itself",
                "task rewards", "clamps the distillation loss at +-10.0 (loss_max_clamp)", "2 epochs over each batch"):
        assert why in d.message, why
    assert "RFTC300" not in codes(m)  # the distillation keys are the refusal's
    m = convert(*on, "distillation.distillation_loss.loss_mode=k1",
                "distillation.distillation_loss.use_policy_gradient=True",
                "distillation.distillation_loss.use_task_rewards=False",
                "+distillation.teacher_models.second.model_path=/models/second",
                "+distillation.teacher_models.second.key=math", "+distillation.teacher_models.third.key=code")
    (d,) = [d for d in m.diagnostics if d.code == "RFTC339"]
    assert "routes rows to 2 teachers by their data_source" in d.message and not m.ok  # teacher_model is dropped


# the teacher's inference section as veRL 0.9.1's distillation.yaml composes it (this module's configs are bare)
TEACHER_DEFAULTS = tuple(f"distillation.teacher_models.teacher_model.inference.{k}" for k in (
    "dtype=bfloat16", "tensor_model_parallel_size=2", "data_parallel_size=1", "gpu_memory_utilization=0.5",
    "prompt_length=512", "response_length=1024", "temperature=1.0"))


def test_on_policy_distillation_trinity_trains_alike_is_converted():
    """k1 as the advantage without task rewards or clamps (the top-k loss's settings, and log_prob_min_clamp, are not
    read by k1): Trinity's on_policy_distill with the teacher as the first auxiliary model, the actor's KL loss and
    entropy dropped as veRL drops them."""
    m = convert("algorithm.adv_estimator=grpo", "distillation.enabled=True",
                "distillation.teacher_models.teacher_model.model_path=/models/teacher",
                "distillation.distillation_loss.loss_mode=kl",
                "distillation.distillation_loss.use_policy_gradient=True",
                "distillation.distillation_loss.use_task_rewards=False",
                "distillation.distillation_loss.log_prob_min_clamp=-10.0", "distillation.distillation_loss.topk=64",
                "distillation.nnodes=1", "distillation.n_gpus_per_node=2", *TEACHER_DEFAULTS,
                "actor_rollout_ref.actor.use_kl_loss=True", "actor_rollout_ref.actor.entropy_coeff=0.01")
    assert m.ok, [str(d) for d in m.diagnostics]
    a = m.config["algorithm"]
    assert a["algorithm_type"] == "on_policy_distill" and a["advantage_fn_args"] == {"kl_coef": 1.0}
    assert a["kl_loss_fn"] == a["entropy_loss_fn"] == a["kl_penalty_fn"] == "none"
    assert a["bypass_old_logprobs"] is False  # the trainer's old log-probs: the policy each step trains
    (teacher,) = m.config["explorer"]["auxiliary_models"]
    assert teacher["model_path"] == "/models/teacher" and teacher["enable_prompt_truncation"] is False
    assert teacher["engine_num"] == 1 and teacher["tensor_parallel_size"] == 2  # veRL's default teacher TP
    assert teacher["max_model_len"] == 512 + 1024 + 1 and teacher["dtype"] == "bfloat16"
    assert not {"RFTC300", "RFTC301"} & set(codes(m))


def test_dynamic_bsz_and_remove_padding_conflict():
    m = convert("actor_rollout_ref.model.use_remove_padding=True", "critic.model.use_remove_padding=False")
    assert m.config["trainer"]["use_remove_padding"] is True and m.config["trainer"]["use_dynamic_bsz"] is False
    assert codes(m) == ["RFTC310"] and m.diagnostics[0].span.line == 2


def test_frozen_role_copies_are_reported_when_they_differ():
    m = convert(f"{A}.ppo_max_token_len_per_gpu=16384", "critic.ppo_max_token_len_per_gpu=32768",
                "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=16384")
    assert codes(m) == ["RFTC316"] and m.diagnostics[0].key == "critic.ppo_max_token_len_per_gpu"
    assert m.ledger["actor_rollout_ref.ref.log_prob_max_token_len_per_gpu"].status == "implied"


def test_megatron_settings():
    c = convert("model_engine=megatron", f"{A}.megatron.tensor_model_parallel_size=2",
                f"{A}.megatron.param_offload=True", f"{A}.megatron.use_mbridge=True",
                "trainer.n_gpus_per_node=8").config
    t = c["trainer"]
    assert t["trainer_strategy"] == "megatron" and t["megatron"] == {"tensor_model_parallel_size": 2}
    assert t["param_offload"] is True
    assert t["trainer_config"]["actor_rollout_ref"]["actor"]["megatron"] == {"use_mbridge": True}


def test_lora_and_cosine_schedule():
    c = convert("actor_rollout_ref.model.lora_rank=64", "actor_rollout_ref.model.lora_alpha=32",
                f"{A}.optim.warmup_style=cosine", "trainer.total_training_steps=10").config
    assert c["model"]["lora_configs"] == [{"lora_rank": 64, "lora_alpha": 32, "target_modules": "all-linear"}]
    assert c["algorithm"]["optimizer"]["lr_scheduler_type"] == "cosine"
    assert c["algorithm"]["optimizer"]["min_lr_ratio"] == 0.0


def test_reward_model_becomes_an_auxiliary_model_and_no_rule_workflow():
    m = convert("reward_model.enable=True", "reward_model.model.path=/m/rm",
                "reward_model.rollout.tensor_model_parallel_size=2", "reward_model.reward_manager=dapo")
    assert set(codes(m)) == {"RFTC308", "RFTC300"}
    aux = m.config["explorer"]["auxiliary_models"][0]
    assert aux["model_path"] == "/m/rm" and aux["tensor_parallel_size"] == 2 and aux["engine_num"] >= 1
    # the model's scores replace veRL's rule reward: no rule workflow is written (RFTC308 says to choose one)
    assert "default_workflow_type" not in m.config["buffer"]["explorer_input"]["tasksets"][0]


@pytest.mark.parametrize("path,relative", [("r.py", True), ("/abs/r.py", False)])
def test_custom_reward_function_goes_to_the_workflow(path, relative):
    m = convert(f"custom_reward_function.path={path}", "custom_reward_function.name=score",
                "+custom_reward_function.reward_kwargs.scale=2", "data.val_files=/d/gsm8k/test.parquet")
    ei = m.config["buffer"]["explorer_input"]
    for t in [*ei["tasksets"], *ei["eval_tasksets"]]:  # veRL's val_reward_fn loads the same function
        assert t["default_workflow_type"] == WORKFLOW
        assert t["workflow_args"] == {"custom_reward_function": {"path": path, "name": "score",
                                                                 "reward_kwargs": {"scale": 2}}}
    assert ("RFTC307" in codes(m)) == relative


def test_trainer_settings():
    c = convert("trainer.logger=['console','wandb','tensorboard']", "trainer.default_local_dir=/ck/p/e",
                "trainer.project_name=p", "trainer.experiment_name=e", "trainer.resume_mode=disable",
                "trainer.val_before_train=False", "trainer.max_actor_ckpt_to_keep=2")
    cfg = c.config
    assert cfg["monitor"]["monitor_type"] == "wandb" and codes(c) == ["RFTC309"]
    assert cfg["checkpoint_root_dir"] == "/ck" and cfg["continue_from_checkpoint"] is False
    assert cfg["explorer"]["eval_on_startup"] is False and cfg["trainer"]["max_checkpoints_to_keep"] == 2
    # an empty folder: veRL writes its global_step_N folders where it runs
    m = convert("trainer.default_local_dir=''")
    assert m.config["checkpoint_root_dir"] == "." and not codes(m)
    assert m.ledger["trainer.default_local_dir"].status == "mapped"


def test_symbolic_and_invalid_values():
    m = convert("data.train_batch_size=${oc.env:BATCH}")
    assert codes(m) == ["RFTC311"] and "--env BATCH=" in m.diagnostics[0].hint
    m = convert("actor_rollout_ref.rollout.n=lots")
    assert codes(m) == ["RFTC313"]
    m = convert("data.train_files=[]")
    assert "RFTC314" in codes(m)


def test_every_user_key_is_accounted_for():
    keys = ["actor_rollout_ref.rollout.free_cache_engine=True", "algorithm.use_pf_ppo=True",
            "some.unknown.key=1", "actor_rollout_ref.rollout.enforce_eager=True", "data.return_raw_chat=True"]
    m = convert(*keys)
    for k in (x.split("=")[0] for x in keys):
        assert k in m.ledger, k
    assert m.ledger["some.unknown.key"].status == "reported"
    assert m.config["explorer"]["rollout_model"]["enforce_eager"] is True
    assert sorted(codes(m)) == ["RFTC300", "RFTC300", "RFTC301"]


def test_rule_table_is_consistent():
    actions = {"map", "pass", "implied", "handled", "none", "rule"}
    for r in RULES:
        assert r.action in actions, r
        assert (r.action in ("map", "rule")) <= bool(r.trinity) and (not r.trinity or r.action != "pass"
                                                                 or r.verl.endswith(".*") == r.trinity.endswith(".*")), r
        assert not r.trinity or r.action in ("map", "rule", "pass"), r
        if r.action in ("handled", "none", "implied"):
            assert r.note, r
    assert find_rule("actor_rollout_ref.actor.fsdp_config.param_offload").action == "pass"
    assert find_rule("actor_rollout_ref.actor.fsdp_config.ulysses_sequence_parallel_size").action == "map"


def test_critic_fsdp_settings_go_where_verl_0_8_reads_them():
    c = convert("algorithm.adv_estimator=gae", "critic.model.fsdp_config.param_offload=True",
                "critic.model.fsdp_config.optimizer_offload=False").config
    assert c["trainer"]["trainer_config"]["critic"] == {"fsdp": {"param_offload": True, "optimizer_offload": False}}


def test_cluster_options_replace_environment_values():
    over = ("trainer.nnodes=${oc.env:SLURM_JOB_NUM_NODES}", "trainer.n_gpus_per_node=${oc.env:GPUS}")
    m = convert(*over)
    assert m.ok and [d.code for d in m.diagnostics] == ["RFTC318", "RFTC318"]  # veRL's defaults, assumed loudly
    assert "--nodes N" in m.diagnostics[0].hint and m.config["cluster"] == {"node_num": 1, "gpu_per_node": 8}
    m = convert(*over, fixed={"trainer.nnodes": 2, "trainer.n_gpus_per_node": 4})
    assert m.ok and m.config["cluster"] == {"node_num": 2, "gpu_per_node": 4}
    assert m.origins["cluster.node_num"].note == "--nodes"


def test_reference_model_gets_a_micro_batch_size_when_verl_builds_none():
    # gae without any KL term: veRL builds no reference model, Trinity's ppo does and needs its micro batch size
    m = convert("algorithm.adv_estimator=gae", f"{A}.ppo_micro_batch_size_per_gpu=16",
                "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=32")
    tc = m.config["trainer"]["trainer_config"]["actor_rollout_ref"]
    assert tc["ref"] == {"log_prob_micro_batch_size_per_gpu": 32} and tc["rollout"]["log_prob_micro_batch_size_per_gpu"] == 32
    assert m.origins["trainer.trainer_config.actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu"].keys == (
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",)
    # dynamic batch sizes, or a value the script sets, leave it alone
    assert "ref" not in convert("algorithm.adv_estimator=gae", f"{A}.use_dynamic_bsz=True",
                                f"{A}.ppo_micro_batch_size_per_gpu=16").config["trainer"].get("trainer_config", {}).get(
        "actor_rollout_ref", {})
    m = convert("algorithm.adv_estimator=gae", "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8",
                f"{A}.ppo_micro_batch_size_per_gpu=16")
    assert m.config["trainer"]["trainer_config"]["actor_rollout_ref"]["ref"] == {"log_prob_micro_batch_size_per_gpu": 8}


def test_dapo_reward_manager_goes_to_the_workflow():
    kw = "+reward_model.reward_kwargs"
    m = convert("data.train_files=/d/dapo-math-17k.parquet", "reward_model.reward_manager=dapo",
                f"{kw}.overlong_buffer_cfg.enable=True", f"{kw}.overlong_buffer_cfg.len=4096",
                f"{kw}.overlong_buffer_cfg.penalty_factor=1.0", f"{kw}.overlong_buffer_cfg.log=False",
                f"{kw}.max_resp_len=8192")
    ts = m.config["buffer"]["explorer_input"]["tasksets"][0]
    assert ts["default_workflow_type"] == WORKFLOW
    assert ts["workflow_args"] == {"reward_manager": "dapo", "overlong_buffer_cfg": {
        "enable": True, "len": 4096, "penalty_factor": 1.0}, "max_resp_len": 8192}
    assert "RFTC300" not in codes(m)
    # any data: veRL's dapo manager scores every data source it dispatches
    m = convert("data.train_files=/d/gsm8k/train.parquet", "reward_model.reward_manager=dapo",
                f"{kw}.max_resp_len=8192")
    assert m.config["buffer"]["explorer_input"]["tasksets"][0]["workflow_args"] == {
        "reward_manager": "dapo", "max_resp_len": 8192}
