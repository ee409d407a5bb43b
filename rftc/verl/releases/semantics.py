"""How each verl release behaves where releases differ, as data: one row per change, with the release that
introduced it and the code in that release's wheel that shows it (tests/test_verl_semantics.py runs that code).

    sem = semantics.of(eff)            # for EffectiveConfig.release
    sem.value("actor_mini_unit")       # "responses" under verl 0.1, "prompts" from 0.2 on
    sem.doubt("actor_mini_unit")       # a Doubt when a development snapshot may or may not have the change

A PyPI release is certain. A checkout or fork declares a release in its verl/version/version, and veRL's main
branch carried that string for a while around a release: forks declaring "0.1" have keys that only verl 0.2's
wheel has (rollout.n, use_kl_loss), forks declaring "0.2.0.dev" keys first released in 0.3.0.post0
(rollout.val_kwargs), one declaring "0.7.0.dev" is closest to 0.6.0's keys. So a snapshot declaring X (X.dev)
may hold any change released after X (from X on) up to the next release line. For those changes the snapshot's
own config decides where a change came with a config key the new code reads (its presence shows the change; for
a key the code reads as an attribute, its absence shows the old code); otherwise rftc follows the release the
number names, and the mapping says so where the other behaviour would convert differently (RFTC320).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rftc.verl.releases import order, schema

ACTOR, CRITIC = "actor_rollout_ref.actor", "critic"
MODES4 = ("token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm")
FIRST = "0.1"


@dataclass(frozen=True)
class Change:
    fact: str  # what the mapping or the startup checks ask
    since: str  # the first PyPI release that behaves this way (FIRST: verl 0.1's behaviour)
    value: Any
    where: str  # the code in that release's wheel that shows it
    evidence: tuple[str, ...] = ()  # config keys the new code reads: present in a snapshot => it has the change
    strict: bool = False  # the new code reads the evidence key as an attribute: absent => the old code
    note: str = ""  # upstream commit and date, when known


FSDP_WORKERS = "verl/workers/fsdp_workers.py"
MEGATRON_WORKERS = "verl/workers/megatron_workers.py"
TRAINER = "verl/trainer/ppo/ray_trainer.py"

CHANGES: tuple[Change, ...] = (
    # -- batch units: what one ppo_mini_batch_size counts (an optimizer step takes that many)
    Change("actor_mini_unit", FIRST, "responses", "verl/trainer/ppo/workers/fsdp_workers.py "
           "ActorRolloutRefWorker.__init__: ppo_mini_batch_size //= world size"),
    Change("actor_mini_unit", "0.2", "prompts", f"{FSDP_WORKERS} ActorRolloutRefWorker.__init__: "
           "ppo_mini_batch_size *= rollout.n (0.8.0 on: RayPPOTrainer._update_actor)",
           note="commit 2997e5d, 2025-01-05"),
    Change("megatron_actor_mini_unit", FIRST, "responses", "verl/trainer/ppo/workers/megatron_workers.py "
           "ActorRolloutRefWorker.__init__: ppo_mini_batch_size //= data-parallel size"),
    Change("megatron_actor_mini_unit", "0.3.0.post0", "prompts", f"{MEGATRON_WORKERS} "
           "ActorRolloutRefWorker.__init__: ppo_mini_batch_size *= rollout.n"),
    Change("critic_mini_unit", FIRST, "responses", "fsdp_workers.py CriticWorker.__init__: ppo_mini_batch_size "
           "//= world size"),
    Change("critic_mini_unit", "0.4.0", "prompts", f"{FSDP_WORKERS} CriticWorker.__init__: ppo_mini_batch_size "
           "*= rollout_n (0.8.0 on: RayPPOTrainer._update_critic)", evidence=(f"{CRITIC}.rollout_n",),
           strict=True),
    # -- KL: where the KL to the reference policy goes, and when a reference policy is built
    Change("kl_in_reward", FIRST, "always", f"{TRAINER} RayPPOTrainer.fit: apply_kl_penalty on every batch"),
    Change("kl_in_reward", "0.2", "without_kl_loss", f"{TRAINER} RayPPOTrainer.fit: apply_kl_penalty unless "
           "actor.use_kl_loss", evidence=(f"{ACTOR}.use_kl_loss",)),
    Change("kl_in_reward", "0.4.0", "use_kl_in_reward", f"{TRAINER} RayPPOTrainer.fit: apply_kl_penalty when "
           "algorithm.use_kl_in_reward", evidence=("algorithm.use_kl_in_reward",), strict=True),
    Change("reference_policy", FIRST, "always", "verl/trainer/main_ppo.py: Role.RefPolicy always mapped"),
    Change("reference_policy", "0.4.0", "kl_term", "verl/trainer/main_ppo.py: Role.RefPolicy only with "
           "use_kl_in_reward or use_kl_loss", evidence=("algorithm.use_kl_in_reward",), strict=True),
    # -- the policy loss
    Change("dual_clip", FIRST, False, "verl/trainer/ppo/core_algos.py compute_policy_loss(old_log_prob, log_prob, "
           "advantages, eos_mask, cliprange)"),
    Change("dual_clip", "0.4.0", True, "verl/trainer/ppo/core_algos.py compute_policy_loss(..., clip_ratio_c=3.0)",
           evidence=(f"{ACTOR}.clip_ratio_c",)),
    Change("loss_agg_modes", FIRST, ("token-mean",), "verl/trainer/ppo/core_algos.py compute_policy_loss: "
           "masked_mean over the response tokens"),
    Change("loss_agg_modes", "0.4.0", MODES4, f"{TRAINER} RayPPOTrainer._validate_config: loss_agg_mode in ...",
           evidence=(f"{ACTOR}.loss_agg_mode",), strict=True),
    Change("loss_agg_modes", "0.9.0", ("token-mean", "token-sum", *MODES4[1:]),
           "verl/workers/config/actor.py ActorConfig.__post_init__: valid_loss_agg_modes"),
    # -- which key clips the actor's gradient (an FSDP actor; the Megatron actor's optimizer takes optim.clip_grad)
    Change("actor_clip", FIRST, "grad_clip", "verl/workers/actor/dp_actor.py DataParallelPPOActor._optimizer_step: "
           "clip_grad_norm_(max_norm=self.config.grad_clip)"),
    Change("actor_clip", "0.7.0", "grad_clip_unless_engine", "verl/trainer/main_ppo.py "
           "TaskRunner.add_actor_rollout_worker: trainer.use_legacy_worker_impl=disable runs "
           "verl/workers/engine_workers.py, whose engine clips at optimizer_config.clip_grad"),
    Change("actor_clip", "0.8.0", "optim", "verl/workers/engine/fsdp/transformer_impl.py optimizer_step: "
           "clip_grad_norm_(self.optimizer_config.clip_grad) (the legacy workers are gone)"),
    Change("critic_clip", FIRST, "grad_clip", "verl/workers/critic/dp_critic.py DataParallelPPOCritic._optimizer_step: "
           "clip_grad_norm_(max_norm=self.config.grad_clip)"),
    Change("critic_clip", "0.6.0", "grad_clip_unless_engine", "verl/trainer/main_ppo.py TaskRunner.add_critic_worker: "
           "trainer.use_legacy_worker_impl=disable runs the engine critic, which clips at optimizer_config.clip_grad "
           "(0.5.0's engine clips at the critic's grad_clip too)"),
    Change("critic_clip", "0.8.0", "optim", "verl/workers/engine/fsdp/transformer_impl.py optimizer_step (the legacy "
           "critic is gone)"),
    # -- how a step's loss is made from its micro-batches (rftc.mapping.microloss)
    Change("sum_norm", FIRST, "token_sum", "verl/trainer/ppo/core_algos.py agg_loss: seq-mean-token-sum-norm is the "
           "token sum over loss_mask.shape[-1] (0.4.0 on; no such mode before)"),
    Change("sum_norm", "0.7.1", "seq_mean", "verl/trainer/ppo/core_algos.py agg_loss: seq-mean-token-sum-norm is the "
           "sequences' mean token sum over loss_scale_factor (loss_mask.shape[-1] where null)"),
    Change("engine_micro", FIRST, "weighted", "verl/workers/engine/fsdp/transformer_impl.py "
           "FSDPEngine.forward_backward_batch: loss x local micro rows / (global batch / dp size) (0.6.0; no engine "
           "trains before it)"),
    Change("engine_micro", "0.6.1", "sum", "verl/workers/engine/fsdp/transformer_impl.py "
           "FSDPEngine.forward_backward_batch: loss.backward() as the loss function returns it (Megatron's engine "
           "multiplies by the micro-batches its schedule divides by)"),
    Change("engine_critic_loss", FIRST, "local", "verl/workers/roles/utils/losses.py value_loss: compute_value_loss "
           "aggregates within the micro-batch"),
    Change("engine_critic_loss", "0.9.0", "global", "verl/workers/utils/losses.py value_loss: compute_value_loss over "
           "the global mini-batch (dp_size, batch_num_tokens, global_batch_size)"),
    Change("engine_sft_loss", FIRST, "local", "verl/workers/roles/utils/losses.py sft_loss: masked_mean within the "
           "micro-batch (0.6.0)"),
    Change("engine_sft_loss", "0.6.1", "global", "verl/workers/roles/utils/losses.py sft_loss: masked_sum / "
           "batch_num_tokens x dp_size"),
    # -- whether the engine workers leave the reference out of the actor's worker where LoRA is on (rftc.mapping.seeds)
    Change("engine_ref_in_actor", FIRST, False, "verl/trainer/main_ppo.py TaskRunner.add_actor_rollout_worker: the "
           "engine ActorRolloutRefWorker builds the reference wherever use_kl_in_reward or use_kl_loss"),
    Change("engine_ref_in_actor", "0.7.1", True, "verl/trainer/main_ppo.py TaskRunner.add_actor_rollout_worker: "
           "need_reference_policy(config) and not ref_in_actor (lora rank > 0 or lora_adapter_path)"),
    # -- which legacy workers shuffle a rollout batch's responses into mini-batches (actor.shuffle, critic.shuffle);
    # the engine workers ("actor_clip", "critic_clip" say where they run) always do, with data_loader_seed
    Change("legacy_shuffle", FIRST, "all_unseeded", "verl/trainer/ppo/actor/dp_actor.py "
           "DataParallelPPOActor._make_minibatch_iterator: data.make_iterator(..., dataloader_kwargs={'shuffle': "
           "self.config.shuffle}) (the critic and the Megatron workers alike; no seed)"),
    Change("legacy_shuffle", "0.2", "megatron_unseeded", "verl/workers/actor/dp_actor.py "
           "DataParallelPPOActor.update_policy: batch.split(ppo_mini_batch_size) (dp_critic.py alike); "
           "verl/workers/actor/megatron_actor.py make_minibatch_iterator: make_iterator(shuffle), no seed"),
    Change("legacy_shuffle", "0.4.0", "megatron_seeded", "verl/workers/actor/megatron_actor.py "
           "MegatronPPOActor.make_minibatch_iterator: make_iterator(seed=self.config.data_loader_seed, "
           "dataloader_kwargs={\"shuffle\": self.config.shuffle}) (megatron_critic.py alike)"),
    # -- which rollout.* keys the training rollout's sampling reads besides n, temperature, top_p, top_k
    Change("rollout_sampling_keys", FIRST, "config", "verl/workers/rollout/vllm_rollout/vllm_rollout.py "
           "vLLMRollout.__init__: SamplingParams(**every config key naming one of its fields) (the sync rollout)"),
    Change("rollout_sampling_keys", "0.7.0", "fixed", "verl/experimental/agent_loop/agent_loop.py "
           "AgentLoopWorker.generate_sequences: fixed sampling params (repetition_penalty 1.0); the async servers "
           "read no ignore_eos"),
    Change("rollout_sampling_keys", "0.9.0", "ignore_eos", "verl/workers/rollout/vllm_rollout/vllm_async_server.py "
           "generate: sampling_params.setdefault(\"ignore_eos\", config.ignore_eos)"),
    # -- prompts over data.max_prompt_length: left out of the dataset, else cut as data.truncation says
    Change("prompt_filter", FIRST, "always", "verl/utils/dataset/rl_dataset.py RLHFDataset._read_files_and_tokenize: "
           "drops every prompt over max_prompt_length (the trainer builds it with truncation='error')"),
    Change("prompt_filter", "0.3.0.post0", "read", "verl/utils/dataset/rl_dataset.py "
           "RLHFDataset._read_files_and_tokenize: drops them if self.filter_overlong_prompts (data.truncation "
           "read)", evidence=("data.filter_overlong_prompts",), strict=True),
    Change("truncation_modes", FIRST, ("left", "right", "error"), "verl/utils/torch_functional.py "
           "tokenize_and_postprocess_data: assert truncation in ['left', 'right', 'error'] (every row)"),
    Change("truncation_modes", "0.4.0", ("left", "right", "middle", "error"), "verl/utils/torch_functional.py "
           "postprocess_data: assert truncation in ['left', 'right', 'middle', 'error'] (every row)"),
    # -- whether the training rollout gives the engine rollout.max_model_len (a key from 0.3.0; null: prompt +
    # response, from 0.7.1 the model's max_position_embeddings)
    Change("context_key", FIRST, "read", "verl/workers/rollout/vllm_rollout/vllm_rollout.py vLLMRollout.__init__: "
           "max_model_len = config.max_model_len or prompt_length + response_length (0.1, 0.2: their sum, no key)"),
    Change("context_key", "0.6.0", "sync", "verl/workers/rollout/vllm_rollout/vllm_async_server.py (and "
           "sglang_rollout/async_sglang_server.py): config.max_model_len = prompt_length + response_length, the async "
           "mode's; the sync rollouts read it"),
    Change("context_key", "0.7.0", "unread", "verl/workers/rollout/vllm_rollout/vllm_async_server.py (and SGLang's): "
           "config.max_model_len = hf_config.max_position_embeddings"),
    Change("context_key", "0.7.1", "read", "verl/workers/rollout/vllm_rollout/vllm_async_server.py (and SGLang's): "
           "max_position_embeddings where config.max_model_len is None"),
    # -- what computes the rule reward and serves a reward model (rftc.semantics.reward): the trainer's reward
    # function, 0.7.0's reward loop where reward_model.use_reward_loop, from 0.7.1 the reward loop over the reward
    # section (the legacy keys migrated into it where the trainer migrates them)
    Change("reward_loop", FIRST, "none", "verl/trainer/main_ppo.py (0.4.0 on: verl/trainer/ppo/reward.py "
           "load_reward_manager): the manager config.reward_model.get(\"reward_manager\", \"naive\") names (0.1: "
           "naive), default_compute_score with reward_model.sandbox_fusion; the reward model's worker"),
    Change("reward_loop", "0.7.0", "optional", "verl/trainer/ppo/ray_trainer.py RayPPOTrainer.__init__: "
           "use_reward_loop = config.reward_model.use_reward_loop; verl/experimental/reward_loop/reward_loop.py "
           "RewardLoopWorker._init_reward_fn: reward_model.reward_loop_source (no sandbox), the reward model on a "
           "rollout server (reward_loop/reward_model.py); else load_reward_manager over the top-level reward_manager"),
    Change("reward_loop", "0.7.1", "always", "verl/experimental/reward_loop/reward_loop.py "
           "migrate_legacy_reward_impl, RewardLoopWorker._init_reward_fn: load_reward_manager over config.reward "
           "(reward_manager, sandbox_fusion), the reward model on a rollout server"),
    # -- the rollout modes a release runs (rftc.semantics.reward: a sync rollout generates once, an async one runs
    # agent loops)
    Change("rollout_modes", FIRST, ("sync",), f"{TRAINER} RayPPOTrainer: actor_rollout_wg.generate_sequences (no "
           "rollout.mode)"),
    Change("rollout_modes", "0.4.0", ("sync", "async"), f"{TRAINER} RayPPOTrainer.init_workers: an async rollout "
           "manager where config.actor_rollout_ref.rollout.mode == \"async\""),
    Change("rollout_modes", "0.7.0", ("async",), "verl/workers/config/rollout.py RolloutConfig.__post_init__: "
           "\"Only 'async' mode is supported\""),
    # -- the temperature of on-policy distillation's teacher log-probs (distillation.*, from 0.8.0; rftc.mapping.distill)
    Change("teacher_temperature", FIRST, None, "no on-policy distillation before 0.8.0"),
    Change("teacher_temperature", "0.8.0", "refused", "verl/experimental/teacher_loop/teacher_manager.py "
           "_get_teacher_sampling_params: raises NotImplementedError unless inference.temperature is 1.0"),
    Change("teacher_temperature", "0.9.0", "ignored", "verl/experimental/teacher_loop/teacher_manager.py "
           "_get_teacher_sampling_params: temperature 1.0 whatever inference.temperature says (a warning)"),
    # -- the trainer loop
    Change("val_before_train", FIRST, "always", f"{TRAINER} RayPPOTrainer.fit: validates before training "
           "whenever there is a validation reward function"),
    Change("val_before_train", "0.2", "read", f"{TRAINER} RayPPOTrainer.fit: "
           "config.trainer.get('val_before_train', True)"),
    Change("val_only", FIRST, "unread", f"{TRAINER} RayPPOTrainer.fit: trains after the first validation whatever "
           "the config says"),
    Change("val_only", "0.2", "read", f"{TRAINER} RayPPOTrainer.fit: returns after the first validation where "
           "config.trainer.get('val_only', False)"),
    Change("test_freq_nonpositive", FIRST, "every_step", f"{TRAINER} RayPPOTrainer.fit: validates when "
           "(global_steps + 1) % test_freq == 0"),
    Change("test_freq_nonpositive", "0.2", "off", f"{TRAINER} RayPPOTrainer.fit: test_freq > 0 and "
           "global_steps % test_freq == 0"),
    Change("first_trainer_step", FIRST, 0, f"{TRAINER} RayPPOTrainer.fit: global_steps = 0, the actor updated where "
           "critic_warmup <= global_steps, global_steps += 1 after the step"),
    Change("first_trainer_step", "0.2", 1, f"{TRAINER} RayPPOTrainer.fit: self.global_steps += 1 before the first "
           "step (every later trainer loop alike)"),
    Change("critic_used", FIRST, "gae", f"{TRAINER} RayPPOTrainer.init_workers: a critic for adv_estimator gae"),
    Change("critic_used", "0.6.0", "enable_or_gae", "verl/trainer/ppo/utils.py need_critic: critic.enable, "
           "else adv_estimator gae"),
    # -- how a GPU's share is cut into micro-batches: the update's (ppo_micro_batch_size_per_gpu, actor and critic)
    # and the log-probs' (log_prob_micro_batch_size_per_gpu, rollout and ref)
    Change("global_micro", FIRST, "divided", f"{FSDP_WORKERS} ActorRolloutRefWorker.__init__, CriticWorker.__init__ "
           "(0.1: verl/trainer/ppo/workers/): a global micro-batch size //= the data-parallel ranks (rftc.verl.micro)"),
    Change("global_micro", "0.8.0", "ignored", "verl/workers/engine_workers.py ActorRolloutRefWorker.init_model: "
           "assert rollout.log_prob_micro_batch_size_per_gpu / actor.ppo_micro_batch_size_per_gpu is not None"),
    Change("train_mini_remainder", FIRST, "exact", "verl/trainer/ppo/actor/dp_actor.py "
           "DataParallelPPOActor._make_minibatch_iterator: DataProto.make_iterator asserts the batch divides"),
    Change("train_mini_remainder", "0.2", "smaller_last", "verl/workers/actor/dp_actor.py "
           "DataParallelPPOActor.update_policy: split(ppo_mini_batch_size), the last mini-batch smaller"),
    Change("train_mini_remainder", "0.8.0", "exact", "verl/workers/engine_workers.py TrainingWorker.train_mini_batch: "
           "tu.make_iterator asserts the batch is a multiple of the mini-batch (no legacy workers)"),
    Change("train_micro_remainder", FIRST, "smaller_last", "verl/trainer/ppo/actor/dp_actor.py "
           "DataParallelPPOActor.update_policy: split(micro batch size), the last piece smaller (the workers "
           "assert divisibility only for the global ppo_micro_batch_size)"),
    Change("train_micro_remainder", "0.4.0", "exact", f"{FSDP_WORKERS} ActorRolloutRefWorker.__init__, "
           "CriticWorker.__init__: assert ppo_mini_batch_size % ppo_micro_batch_size_per_gpu == 0"),
    Change("log_prob_micro_remainder", FIRST, "smaller_last", "verl/trainer/ppo/actor/dp_actor.py "
           "DataParallelPPOActor.compute_log_prob: split(micro batch size), the last piece smaller"),
    Change("log_prob_micro_remainder", "0.8.0", "exact", "verl/workers/engine/utils.py prepare_micro_batches: "
           "assert total_data_size % (force_group_size * micro_batch_size_per_gpu) == 0 (no legacy workers)"),
    # -- which startup checks run (rftc/verl/startup.py)
    Change("startup_checks", FIRST, None, "verl 0.1 validates no config"),
    Change("startup_checks", "0.2", "trainer", f"{TRAINER} RayPPOTrainer._validate_config",
           evidence=(f"{ACTOR}.ppo_micro_batch_size_per_gpu",), strict=True),
    Change("startup_checks", "0.6.0", "validate_config", "verl/utils/config.py validate_config with "
           "ActorConfig/CriticConfig (verl/workers/config/)"),
    Change("check_mini_within_batch", FIRST, False, "no check"),
    Change("check_mini_within_batch", "0.3.0.post0", True, f"{TRAINER} _validate_config: "
           "train_batch_size >= ppo_mini_batch_size"),
    Change("check_val_sampling", FIRST, False, "no check"),
    Change("check_val_sampling", "0.3.0.post0", True, f"{TRAINER} _validate_config: val_kwargs.do_sample needs "
           "temperature > 0"),
    Change("warn_val_batch_size", FIRST, False, "data.val_batch_size is the validation batch"),
    Change("warn_val_batch_size", "0.3.0.post0", True, f"{TRAINER} _validate_config: val_batch_size is deprecated"),
    Change("log_prob_micro_names", FIRST, False, f"{TRAINER} _validate_config: every section's keys named "
           "'<section>.micro_batch_size' in its messages"),
    Change("log_prob_micro_names", "0.4.0", True, f"{TRAINER} _validate_config: ref and rollout keys named "
           "'log_prob_micro_batch_size'"),
    Change("micro_both_message_space", FIRST, True, f"{TRAINER} _validate_config: \"... only "
           "'*_micro_batch_size_per_gpu' is supported\""),
    Change("micro_both_message_space", "0.4.0", False, f"{TRAINER} _validate_config: \"... only "
           "'*_{{param_per_gpu}}'\" + \"is supported\" (no space)"),
    Change("micro_both_message_space", "0.5.0", True, f"{TRAINER} _validate_config: the space is back"),
    Change("megatron_minimal_batch", FIRST, False, f"{TRAINER} _validate_config: the batch must split over n_gpus"),
    Change("megatron_minimal_batch", "0.4.0", True, f"{TRAINER} _validate_config: over Megatron's data-parallel "
           "ranks x micro batch"),
    Change("kl_notice", FIRST, False, "no notice"),
    Change("kl_notice", "0.4.0", True, f"{TRAINER} _validate_config: NOTICE for KL in reward and loss"),
    Change("sp_strategies", FIRST, ("fsdp",), f"{TRAINER} _validate_config: actor.strategy == 'fsdp'"),
    Change("sp_strategies", "0.5.0", ("fsdp", "fsdp2"), f"{TRAINER} _validate_config: strategy in fsdp, fsdp2"),
    Change("critic_sp_padding_check", FIRST, True, f"{TRAINER} _validate_config: critic sequence parallelism "
           "needs use_remove_padding"),
    Change("critic_sp_padding_check", "0.8.0", False, "verl/workers/config/critic.py: no such check"),
    # -- the importance-sampling correction of the rollout's log-probs, and the rollout's over-sampling
    # (rftc/mapping/correction.py)
    Change("rollout_correction", FIRST, None, f"{TRAINER}: no correction of the rollout's log-probs"),
    Change("rollout_correction", "0.6.0", "legacy", f"{TRAINER} RayPPOTrainer."
           "compute_rollout_importance_weights_and_add_to_batch: IS weights where algorithm.rollout_is_threshold is "
           "set, given to the loss where algorithm.rollout_is (verl/trainer/ppo/mismatch_helper.py)",
           evidence=("algorithm.rollout_is_threshold",)),
    Change("rollout_correction", "0.6.1", "use_policy_gradient", "verl/trainer/ppo/rollout_corr_helper.py "
           "apply_rollout_correction: bypass mode trains PPO on the rollout's log-probs without correction unless "
           "use_policy_gradient; decoupled mode: compute_rollout_correction_and_add_to_batch",
           evidence=("algorithm.rollout_correction.use_policy_gradient",)),
    Change("rollout_correction", "0.7.0", "loss_type", "verl/trainer/ppo/core_algos.py "
           "compute_policy_loss_bypass_mode: bypass mode rejects for either loss_type and weighs for reinforce "
           "only", evidence=("algorithm.rollout_correction.loss_type",)),
    Change("over_sample_reader", FIRST, None, "no rollout.over_sample_rate"),
    Change("over_sample_reader", "0.6.0", "sglang_multi_turn", "verl/workers/rollout/sglang_rollout/"
           "sglang_rollout.py SGLangRollout._req_level_generate_sequences: target_completion = int(requests x (1 - "
           "over_sample_rate)), the rest cancelled and padded"),
    Change("over_sample_reader", "0.7.0", None, "verl/workers/config/rollout.py declares over_sample_rate; no "
           "rollout reads it (the sync SGLang rollout is gone)"),
    # -- what the trainer's roles train and compute in (rftc.mapping.precision)
    Change("legacy_fsdp_dtype", FIRST, "bf16", f"{FSDP_WORKERS} ActorRolloutRefWorker._build_model_optimizer: "
           "param_dtype torch.bfloat16 where fsdp_config.mixed_precision is unset; verl/workers/actor/dp_actor.py "
           "torch.autocast(dtype=torch.bfloat16) (0.1: verl/trainer/ppo/)"),
    Change("legacy_fsdp_dtype", "0.6.1", "dtype", f"{FSDP_WORKERS} ActorRolloutRefWorker._build_model_optimizer: "
           "param_dtype = fsdp_config.dtype where mixed_precision is unset; verl/workers/actor/dp_actor.py "
           "torch.autocast(dtype=fsdp_config.get(\"dtype\", \"bfloat16\"))",
           evidence=(f"{ACTOR}.fsdp_config.dtype",), strict=True),
    Change("legacy_ref_mixed", FIRST, False, "verl/trainer/ppo/workers/fsdp_workers.py "
           "ActorRolloutRefWorker._build_model_optimizer: mixed_precision = None for the reference"),
    Change("legacy_ref_mixed", "0.2", True, f"{FSDP_WORKERS} ActorRolloutRefWorker._build_model_optimizer: the "
           "reference wrapped with the actor's MixedPrecision"),
    Change("engine_autocast", FIRST, "bf16", "verl/workers/engine/fsdp/transformer_impl.py: "
           "torch.autocast(dtype=torch.bfloat16) around the forward"),
    Change("engine_autocast", "0.8.0", "params", "verl/workers/engine/fsdp/transformer_impl.py _build_fsdp_module: "
           "self._autocast_dtype = param_dtype (none for fp32)"),
    Change("legacy_megatron_dtype", FIRST, "bf16", f"{MEGATRON_WORKERS} ActorRolloutRefWorker.init_model, "
           "CriticWorker.init_model: self.param_dtype = torch.bfloat16 (0.1: verl/trainer/ppo/)"),
    Change("legacy_megatron_dtype", "0.6.1", "megatron.dtype", f"{MEGATRON_WORKERS} ActorRolloutRefWorker.init_model: "
           "PrecisionType.to_dtype(self.config.actor.megatron.dtype) (the reference's too); CriticWorker.init_model: "
           "self.config.megatron.dtype", evidence=(f"{ACTOR}.megatron.dtype",), strict=True),
    Change("sft_model_dtype", FIRST, "fp32", "verl/trainer/fsdp_sft_trainer.py FSDPSFTTrainer._build_model_optimizer: "
           "from_pretrained(torch_dtype=torch.float32)"),
    Change("sft_model_dtype", "0.4.0", "read", "verl/trainer/fsdp_sft_trainer.py "
           "FSDPSFTTrainer._build_model_optimizer: model.fsdp_config.get(\"model_dtype\", \"fp32\")"),
    # -- SFT data (rftc/mapping/sft.py)
    Change("sft_multiturn_images", FIRST, False, "verl/utils/dataset/multiturn_sft_dataset.py: text only (or none)"),
    Change("sft_multiturn_images", "0.7.0", True, "verl/utils/dataset/multiturn_sft_dataset.py "
           "MultiTurnSFTDataset.__init__: image_key / video_key (images, videos) for a multimodal processor"),
    # -- the model's own settings (rftc/semantics/model_settings.py)
    Change("megatron_model_override", FIRST, "whole", f"{MEGATRON_WORKERS} (0.1: verl/trainer/ppo/workers/) "
           "_build_model_optimizer: update_model_config(hf config, override_model_config), all of override_config"),
    Change("megatron_model_override", "0.4.0", "model_config", "verl/single_controller/base/megatron/worker.py (0.7: "
           f"{MEGATRON_WORKERS}) _init_hf_config_and_tf_config: override_model_config.get('model_config', {{}}); "
           "moe_config.freeze_moe_router freezes the router (init_mcore_model, make_megatron_module)"),
    Change("ref_model_key", FIRST, False, f"{FSDP_WORKERS} ActorRolloutRefWorker.init_model: the reference loads "
           "model.path"),
    Change("ref_model_key", "0.6.0", True, f"{FSDP_WORKERS} ActorRolloutRefWorker.init_model: ref.model.path where "
           "ref.model is set, else model.path (0.7's config has no ref.model; a launch may add it)"),
    # -- how rows are read and rendered (rftc.semantics.data)
    Change("chat_template_kwargs", FIRST, False, "verl/utils/dataset/rl_dataset.py RLHFDataset: "
           "tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=False), no arguments of the "
           "config's"),
    Change("chat_template_kwargs", "0.6.0", True, "verl/utils/dataset/rl_dataset.py RLHFDataset.__init__: "
           "config.get('apply_chat_template_kwargs', {}) passed to every apply_chat_template (the agent loops, "
           "sft_dataset.py and multiturn_sft_dataset.py alike)", evidence=("data.apply_chat_template_kwargs",)),
    Change("datagen", FIRST, "unread", "verl/trainer/main_ppo.py create_rl_dataset: data.custom_cls, else "
           "RLHFDataset"),
    Change("datagen", "0.5.0", "main_ppo", "verl/trainer/main_ppo.py create_rl_dataset: without data.custom_cls, "
           "data.datagen.path picks verl.utils.dataset.dynamicgen_dataset.DynamicGenDataset, a module the wheel "
           "lacks (its class is in verl/experimental/dynamic_dataset/): the run stops", evidence=("data.datagen.path",)),
    Change("datagen", "0.7.0", "custom_cls", "verl/utils/dataset/rl_dataset.py get_dataset_class: data.custom_cls, "
           "else RLHFDataset; only a custom class reads data.datagen (verl/experimental/dynamic_dataset/"
           "dynamicgen_dataset.py DynamicGenDataset)"),
    Change("datagen", "0.8.0", "unread", "no data.datagen (verl/experimental/dynamic_dataset/ is gone)"),
)

FACTS: dict[str, list[Change]] = {}
for _c in CHANGES:
    FACTS.setdefault(_c.fact, []).append(_c)


@dataclass(frozen=True)
class Doubt:
    """A change a development snapshot may or may not have: rftc follows ``value``; the snapshot's code may
    behave as ``other``."""

    fact: str
    value: Any
    other: Any
    change: Change  # the change in question
    release: str  # the release the snapshot declares

    def describe(self) -> str:
        since = self.change.since + (f" ({self.change.note})" if self.change.note else "")
        return (f"the config declares verl {self.release}, a development snapshot that may or may not have "
                f"verl {since}'s change ({self.change.where})")


def _line(text: str) -> tuple[int, ...]:
    r = order.parse(text)
    return r.line if r is not None else ()


def _before(line: tuple[int, ...]) -> tuple[int, ...]:
    """A line just before ``line`` (below it, above every release line under it)."""
    return line[:-1] + (line[-1] - 1, 1 << 30)


@lru_cache(maxsize=1)
def _lines() -> tuple[tuple[int, ...], ...]:
    """The release lines the table knows, oldest first (post releases share their line)."""
    return tuple(sorted({_line(v) for v in schema.versions()} | {_line(c.since) for c in CHANGES}))


class Semantics:
    """The behaviour of one release: ``release`` is what the config declares, ``line`` the release line the
    table is read at; a snapshot's own keys may settle a fact otherwise (``settled``) or leave it in doubt."""

    def __init__(self, release: str, line: tuple[int, ...], settled: dict[str, Any] | None = None,
                 doubts: dict[str, Doubt] | None = None):
        self.release, self.line = release, line
        self._settled, self._doubts = settled or {}, doubts or {}

    def value(self, fact: str) -> Any:
        return self._settled[fact] if fact in self._settled else value_at(fact, self.line)

    def doubt(self, fact: str) -> Doubt | None:
        return self._doubts.get(fact)


def value_at(fact: str, line: tuple[int, ...]) -> Any:
    """The behaviour of release line ``line``: that of the last change at or before it."""
    value = FACTS[fact][0].value
    for c in FACTS[fact]:
        if _line(c.since) <= line:
            value = c.value
    return value


def resolve(release: str, *, snapshot: bool, keys: frozenset[str] = frozenset()) -> Semantics:
    """The behaviour of ``release``. ``snapshot``: the config is a checkout's or fork's own, not a PyPI
    release's; ``keys``: the dotted keys of that config (the evidence). A string that is not a version number
    is read as the newest release."""
    lines = _lines()
    r = order.parse(release)
    if r is None:
        return Semantics(release, lines[-1])
    line = max((ln for ln in lines if ln <= r.line), default=lines[0])
    sem = Semantics(release, line)
    if not snapshot:
        return sem
    upper = next((ln for ln in lines if ln > r.line), None)
    for fact, changes in FACTS.items():
        window = [c for c in changes if upper is not None and _line(c.since) <= upper
                  and (r.line <= _line(c.since) if r.dev else r.line < _line(c.since))]
        if window:
            value, doubt = _place(fact, window, r, keys)
            if value != sem.value(fact):
                sem._settled[fact] = value
            if doubt is not None:
                sem._doubts[fact] = doubt
    return sem


def _place(fact: str, window: list[Change], r: order.ReleaseNumber, keys: frozenset[str]):
    """(value, Doubt or None) of ``fact`` for a snapshot declaring ``r``, whose ``window`` of changes (oldest
    first) may or may not be in it. Each is in when the snapshot shows its evidence key, out when a strict one
    is missing, else follows the number (a change of the declared line is in, a later one out)."""
    shown = max((i for i, c in enumerate(window) if any(k in keys for k in c.evidence)), default=-1)
    lacking = min((i for i, c in enumerate(window) if c.strict and not any(k in keys for k in c.evidence)),
                  default=len(window))
    if shown >= lacking:  # contradicting evidence settles nothing
        shown, lacking = -1, len(window)
    has = [i <= shown or (i < lacking and _line(c.since) <= r.line) for i, c in enumerate(window)]
    before = value_at(fact, _before(_line(window[0].since)))

    def value(included: list[bool]):
        return next((c.value for c, inc in zip(reversed(window), reversed(included)) if inc), before)

    follow = value(has)
    for i, c in enumerate(window):
        if shown < i < lacking:  # undecided: would the other choice behave differently?
            other = [j < i if has[i] else j <= i for j in range(len(window))]
            if value(other) != follow:
                return follow, Doubt(fact, follow, value(other), c, r.text)
    return follow, None


def kl_in_reward(sem: Semantics, get) -> bool | None:
    """Whether the KL to the reference policy goes into the reward (None: a switch only known at run time).
    ``get(key)`` reads the config."""
    rule = sem.value("kl_in_reward")
    if rule == "always":
        return True
    key = f"{ACTOR}.use_kl_loss" if rule == "without_kl_loss" else "algorithm.use_kl_in_reward"
    v = get(key)
    v = False if v is None else v
    if not isinstance(v, bool):
        return None
    return not v if rule == "without_kl_loss" else v


def inert(sem: Semantics, get, keys) -> list[tuple[str, str]]:
    """(key, why) for each of ``keys`` (set by a launch) that the release does not act on."""
    out = []
    kl = kl_in_reward(sem, get)
    for key in keys:
        why = None
        if kl is False and (key == "algorithm.kl_penalty" or key.startswith("algorithm.kl_ctrl.")):
            rule = sem.value("kl_in_reward")
            why = ("no KL in the reward: algorithm.use_kl_in_reward is false" if rule == "use_kl_in_reward" else
                   "no KL in the reward: actor.use_kl_loss is on")
        elif key == "trainer.val_before_train" and sem.value("val_before_train") == "always":
            why = "not read: verl 0.1 always validates before training"
        elif key == f"{ACTOR}.clip_ratio_c" and not sem.value("dual_clip"):
            why = "not read: no dual-clip PPO before verl 0.4.0"
        elif key == f"{ACTOR}.loss_agg_mode" and len(sem.value("loss_agg_modes")) == 1:
            why = "not read: the loss is a token mean before verl 0.4.0"
        if why:
            out.append((key, why))
    return out


def of(eff) -> Semantics:
    """The semantics an EffectiveConfig follows: its ``release``; a config that is not that release's bundled
    schema (a checkout's or fork's own) is a snapshot, placed by its own keys."""
    snapshot = bool(eff.source) or eff.release != eff.verl_version
    return resolve(eff.release, snapshot=snapshot, keys=schema.key_paths(eff.values) if snapshot else frozenset())
