"""The one-to-one part of the veRL -> Trinity-RFT 0.6 mapping, as data.

Each row says what becomes of one veRL key (or a subtree, ``key.*``):

map      the value goes to the Trinity field ``trinity`` (through ``transform``)
pass     the value goes to ``trainer.trainer_config`` at the same path (or at ``trinity``'s path where verl 0.8, the
         version Trinity 0.6 runs, moved the key): only keys Trinity 0.6 merges into the veRL worker config
         (trinity-0.6.md §3.3; never a frozen key or a dropped section)
implied  Trinity already behaves this way; nothing to write (the note says why)
handled  RFTC301: a knob of veRL's own workers, logging or processes that Trinity replaces
none     RFTC300: Trinity 0.6 has no equivalent; the note says what to do instead
rule     a relational rule computes it: ``trinity`` names the function (rftc/mapping/<module>.py)

``explicit`` rows are written even when the script leaves the key at veRL's default, because Trinity's
default differs in a way that changes training. docs/mapping.md is generated from this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from rftc.mapping.draft import Draft


@dataclass(frozen=True)
class Rule:
    verl: str
    action: str
    trinity: str = ""
    note: str = ""
    transform: Callable[[Any], Any] | None = None
    explicit: bool = False

    def matches(self, key: str) -> bool:
        if self.verl.endswith(".*"):
            return key.startswith(self.verl[:-1])
        return key == self.verl


def _lower(v):
    return v.lower() if isinstance(v, str) else v


def _optimizer(v):
    return {"adamw": "adamw", "adam": "adam", "sgd": "sgd"}.get(str(v).lower(), v)


A, R, C, M, D, T = ("actor_rollout_ref.actor", "actor_rollout_ref.rollout", "critic", "actor_rollout_ref.model",
                    "data", "trainer")
RM = "explorer.rollout_model"
MICRO = ("trainer.trainer_config's *_per_gpu: the global size / the data-parallel ranks (GPUs / SP; Megatron: "
         "/ TP x PP x CP), as the release's workers divide it")

RULES: list[Rule] = [
    # ---- batch sizes, steps, synchronisation (rftc/mapping/batch.py, steps.py, sync.py)
    Rule(f"{D}.train_batch_size", "rule", "batch.map_batch",
         "synchronizer.sync_interval = train_batch_size / ppo_mini_batch_size"),
    Rule(f"{A}.ppo_mini_batch_size", "rule", "batch.map_batch", "buffer.batch_size; buffer.train_batch_size = mini x n"),
    Rule(f"{R}.n", "rule", "batch.map_batch", "algorithm.repeat_times"),
    Rule(f"{T}.total_epochs", "rule", "steps.map_steps", "buffer.total_epochs"),
    Rule(f"{T}.total_training_steps", "rule", "steps.map_steps",
         "trainer.total_steps and buffer.total_steps, x sync_interval (Trinity counts mini-batch steps)"),
    Rule(f"{T}.save_freq", "rule", "steps.map_steps", "trainer.save_interval, x sync_interval"),
    Rule(f"{T}.test_freq", "rule", "steps.map_steps", "explorer.eval_interval, x sync_interval"),
    Rule(f"{A}.optim.lr_warmup_steps", "rule", "steps.map_steps", "algorithm.optimizer.lr_warmup_steps, x sync_interval"),
    # ---- algorithm (rftc/mapping/algorithm.py)
    *[Rule(k, "rule", "algorithm.map_algorithm", n) for k, n in [
        ("algorithm.adv_estimator", "algorithm.advantage_fn and algorithm.algorithm_type"),
        ("algorithm.gamma", "algorithm.advantage_fn_args.gamma (ppo, reinforceplusplus)"),
        ("algorithm.lam", "algorithm.advantage_fn_args.lam (ppo)"),
        ("algorithm.norm_adv_by_std_in_grpo", "no Trinity 0.6 equivalent for False (RFTC305)"),
        ("algorithm.use_kl_in_reward", "algorithm.kl_penalty_fn (none when False)"),
        ("algorithm.kl_penalty", "algorithm.kl_penalty_fn"),
        ("algorithm.kl_ctrl.*", "algorithm.kl_penalty_fn_args (kl_coef, adaptive, target_kl, horizon)"),
        (f"{A}.use_kl_loss", "algorithm.kl_loss_fn (none when False: Trinity's default is k2)"),
        (f"{A}.kl_loss_type", "algorithm.kl_loss_fn"),
        (f"{A}.kl_loss_coef", "algorithm.kl_loss_fn_args.kl_coef"),
        (f"{A}.entropy_coeff", "algorithm.entropy_loss_fn_args.entropy_coef"),
        (f"{A}.clip_ratio", "algorithm.policy_loss_fn_args.clip_range_low/high"),
        (f"{A}.clip_ratio_low", "algorithm.policy_loss_fn_args.clip_range_low"),
        (f"{A}.clip_ratio_high", "algorithm.policy_loss_fn_args.clip_range_high"),
        (f"{A}.clip_ratio_c", "algorithm.policy_loss_fn_args.clip_ratio_c"),
        (f"{A}.loss_agg_mode", "algorithm.loss_agg_mode (and policy_loss_fn_args.loss_agg_mode)"),
        (f"{A}.policy_loss.loss_mode", "algorithm.policy_loss_fn (and algorithm_type gspo/cispo/sapo)"),
        (f"{A}.tau_pos", "algorithm.policy_loss_fn_args.tau_pos (sapo)"),
        (f"{A}.tau_neg", "algorithm.policy_loss_fn_args.tau_neg (sapo)"),
        (f"{A}.ppo_epochs", "trainer.trainer_config.actor_rollout_ref.actor.ppo_epochs (and critic's)"),
        ("algorithm.rollout_correction.bypass_mode", "algorithm.bypass_old_logprobs (false when False, or where "
         "the release has no bypass mode: Trinity's default is true), and algorithm.rollout_correction.bypass_mode"),
    ]],
    Rule("algorithm.rollout_correction.*", "map", "algorithm.rollout_correction",
         "passed to veRL's policy_loss.rollout_correction by Trinity"),
    Rule("algorithm.filter_groups.*", "rule", "sampling.map_dynamic_sampling",
         "the DAPO recipe's dynamic sampling -> rftc's VerlFilterGroups in "
         "data_processor.experience_pipeline.operators (main_ppo ignores it)"),
    Rule("algorithm.use_pf_ppo", "none", "", "preference-feedback PPO resampling has no Trinity equivalent"),
    Rule("algorithm.pf_ppo.*", "none", "", "preference-feedback PPO resampling has no Trinity equivalent"),
    # ---- data (rftc/mapping/data.py)
    *[Rule(k, "rule", "data.map_data", n) for k, n in [
        (f"{D}.train_files", "buffer.explorer_input.tasksets[i] (dir/split.parquet -> path dir, split)"),
        (f"{D}.val_files", "buffer.explorer_input.eval_tasksets[i]"),
        (f"{D}.prompt_key", "tasksets[i].format.prompt_key"),
        (f"{D}.response_key", "tasksets[i].format.response_key"),
        (f"{D}.image_key", "tasksets[i].format.image_key"),
        (f"{D}.video_key", "tasksets[i].format.video_key"),
        (f"{D}.max_prompt_length", "model.max_prompt_tokens (+ model.max_model_len)"),
        (f"{D}.max_response_length", "model.max_response_tokens (+ model.max_model_len)"),
        (f"{R}.max_model_len", "model.max_model_len"),
        (f"{D}.filter_overlong_prompts", "model.enable_prompt_truncation (Trinity's default is true)"),
        (f"{D}.truncation", "implied by enable_prompt_truncation (truncated prompts are masked out of the loss)"),
        (f"{D}.shuffle", "tasksets[i].data_selector.selector_type shuffle (veRL's default is true)"),
        (f"{D}.seed", "tasksets[i].data_selector.seed"),
        (f"{R}.val_kwargs.*", "eval_tasksets[i].rollout_args and repeat_times"),
        (f"{R}.temperature", "model.temperature"),
        (f"{R}.top_p", "model.top_p"),
        (f"{R}.top_k", "model.top_k"),
        (f"{R}.do_sample", "model.temperature 0 when false (the hf and naive rollouts; vLLM and SGLang do not read it)"),
    ]],
    Rule(f"{D}.val_batch_size", "handled", "", "deprecated in veRL; Trinity evaluates with buffer.batch_size"),
    Rule(f"{D}.return_raw_chat", "implied", "", "Trinity's workflows always receive the chat messages"),
    Rule(f"{D}.return_full_prompt", "handled", "", "prompt logging only"),
    Rule(f"{D}.return_multi_modal_inputs", "implied", "", "Trinity's multimodal workflows read the inputs"),
    Rule(f"{D}.filter_overlong_prompts_workers", "handled", "", "pre-processing parallelism"),
    Rule(f"{D}.dataloader_num_workers", "handled", "", "data-loading parallelism"),
    Rule(f"{D}.reward_fn_key", "rule", "data.map_data", "tasksets[i].workflow_args.reward_fn_key"),
    Rule(f"{D}.trust_remote_code", "map", "model.trust_remote_code"),
    Rule(f"{D}.apply_chat_template_kwargs.enable_thinking", "map", "model.enable_thinking"),
    Rule(f"{D}.apply_chat_template_kwargs.*", "none", "", "set the chat template (model.custom_chat_template)"),
    Rule(f"{D}.custom_cls.*", "none", "", "a custom dataset class becomes a Trinity workflow or task pipeline"),
    Rule(f"{D}.sampler.*", "none", "", "use a Trinity data_selector (difficulty_based, offline_easy2hard, ...)"),
    Rule(f"{D}.datagen.*", "none", "", "dynamic data generation has no Trinity 0.6 equivalent"),
    Rule(f"{D}.gen_batch_size", "rule", "sampling.map_dynamic_sampling",
         "the DAPO recipe's prompts per generation round (main_ppo: no equivalent)"),
    Rule(f"{D}.tool_config_path", "none", "", "tools are part of a Trinity workflow (tool_call_workflow)"),
    # ---- model, optimizer, actor (rftc/mapping/models.py for the relational parts)
    Rule(f"{M}.path", "map", "model.model_path", explicit=True),
    Rule(f"{M}.trust_remote_code", "map", "model.trust_remote_code"),
    Rule(f"{M}.custom_chat_template", "map", "model.custom_chat_template"),
    Rule(f"{M}.use_remove_padding", "rule", "models.map_models", "trainer.use_remove_padding"),
    Rule(f"{M}.enable_gradient_checkpointing", "pass"),
    Rule(f"{M}.override_config.*", "pass"),
    Rule(f"{M}.use_liger", "pass"),
    Rule(f"{M}.use_fused_kernels", "pass"),
    Rule(f"{M}.fused_kernel_options.*", "pass"),
    Rule(f"{M}.enable_activation_offload", "pass"),
    Rule(f"{M}.use_shm", "handled", "", "model loading through /dev/shm"),
    Rule(f"{M}.external_lib", "none", "", "load the library as a Trinity plugin (--plugin-dir)"),
    Rule(f"{M}.tokenizer_path", "implied", "", "Trinity reads the tokenizer from model.model_path"),
    *[Rule(f"{M}.{k}", "rule", "models.map_models", "model.lora_configs[0]") for k in
      ("lora_rank", "lora_alpha", "target_modules", "exclude_modules", "lora_adapter_path")],
    Rule(f"{A}.optim.lr", "map", "algorithm.optimizer.lr"),
    Rule(f"{A}.optim.lr_warmup_steps_ratio", "map", "algorithm.optimizer.lr_warmup_steps_ratio"),
    Rule(f"{A}.optim.weight_decay", "map", "algorithm.optimizer.weight_decay"),
    Rule(f"{A}.optim.betas", "map", "algorithm.optimizer.betas"),
    Rule(f"{A}.optim.clip_grad", "rule", "models.map_models",
         "algorithm.optimizer.clip_grad where the release's actor clips at it"),
    Rule(f"{A}.optim.grad_clip", "rule", "models.map_models",
         "algorithm.optimizer.clip_grad where the release's actor clips at it (deprecated name)"),
    Rule(f"{A}.optim.optimizer", "map", "algorithm.optimizer.optimizer_type", transform=_optimizer),
    Rule(f"{A}.optim.lr_scheduler_type", "rule", "models.map_models", "algorithm.optimizer.lr_scheduler_type"),
    Rule(f"{A}.optim.warmup_style", "rule", "models.map_models", "algorithm.optimizer.lr_scheduler_type"),
    Rule(f"{A}.optim.lr_decay_style", "rule", "models.map_models", "algorithm.optimizer.lr_scheduler_type"),
    Rule(f"{A}.optim.min_lr_ratio", "rule", "models.map_models",
         "algorithm.optimizer.min_lr_ratio (veRL 0.0, Trinity 0.01: written for cosine schedules)"),
    Rule(f"{A}.optim.num_cycles", "pass"),
    Rule(f"{A}.optim.override_optimizer_config.*", "pass"),
    Rule(f"{A}.optim.total_training_steps", "implied", "", "Trinity sets it from trainer.total_steps"),
    Rule(f"{A}.optim.*", "none", "", "Trinity 0.6 sets the actor optimizer from algorithm.optimizer only"),
    Rule(f"{A}.use_dynamic_bsz", "rule", "models.map_models", "trainer.use_dynamic_bsz (veRL false, Trinity true)"),
    Rule(f"{A}.ppo_max_token_len_per_gpu", "map", "trainer.max_token_len_per_gpu"),
    Rule(f"{A}.ulysses_sequence_parallel_size", "map", "trainer.ulysses_sequence_parallel_size"),
    Rule(f"{A}.grad_clip", "rule", "models.map_models",
         "algorithm.optimizer.clip_grad where the release's actor clips at it (the legacy FSDP actor)"),
    Rule(f"{A}.strategy", "rule", "models.map_models", "trainer.trainer_strategy"),
    Rule(f"{A}.ppo_micro_batch_size_per_gpu", "pass"),
    Rule(f"{A}.ppo_micro_batch_size", "rule", "micro.map_micro", MICRO),
    Rule(f"{A}.shuffle", "pass"),
    Rule(f"{A}.data_loader_seed", "pass"),
    Rule(f"{A}.use_torch_compile", "pass"),
    Rule(f"{A}.loss_scale_factor", "pass"),
    Rule(f"{A}.calculate_entropy", "pass"),
    Rule(f"{A}.entropy_from_logits_with_chunking", "pass"),
    Rule(f"{A}.entropy_checkpointing", "pass"),
    Rule(f"{A}.checkpoint.*", "pass"),
    Rule(f"{A}.fsdp_config.ulysses_sequence_parallel_size", "map", "trainer.ulysses_sequence_parallel_size"),
    Rule(f"{A}.fsdp_config.*", "pass"),
    Rule(f"{A}.megatron.*", "rule", "models.map_megatron",
         "trainer.megatron.* (parallel sizes), trainer.*_offload, the rest passed through"),
    Rule(f"{A}.profiler.*", "handled", "", "profiling"),
    Rule(f"{A}.use_fused_kernels", "implied", "", "follows actor_rollout_ref.model.use_fused_kernels"),
    Rule(f"{A}.use_remove_padding", "implied", "", "follows actor_rollout_ref.model.use_remove_padding"),
    Rule(f"{A}.rollout_n", "implied", "", "Trinity sets it from algorithm.repeat_times"),
    # ---- reference policy
    Rule("actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu", "pass"),
    Rule("actor_rollout_ref.ref.log_prob_micro_batch_size", "rule", "micro.map_micro", MICRO),
    Rule("actor_rollout_ref.ref.fsdp_config.*", "pass"),
    Rule("actor_rollout_ref.ref.use_torch_compile", "pass"),
    Rule("actor_rollout_ref.ref.entropy_from_logits_with_chunking", "pass"),
    Rule("actor_rollout_ref.ref.entropy_checkpointing", "pass"),
    *[Rule(f"actor_rollout_ref.ref.{k}", "rule", "models.map_models", n) for k, n in [
        ("log_prob_use_dynamic_bsz", "follows trainer.use_dynamic_bsz"),
        ("log_prob_max_token_len_per_gpu", "follows trainer.max_token_len_per_gpu"),
        ("ulysses_sequence_parallel_size", "follows trainer.ulysses_sequence_parallel_size"),
        ("strategy", "follows trainer.trainer_strategy")]],
    Rule("actor_rollout_ref.ref.megatron.*", "rule", "models.map_megatron", "passed through under megatron"),
    Rule("actor_rollout_ref.ref.profiler.*", "handled", "", "profiling"),
    Rule("actor_rollout_ref.hybrid_engine", "implied", "", "Trinity separates explorer and trainer"),
    Rule("actor_rollout_ref.nccl_timeout", "map", "synchronizer.sync_timeout"),
    # ---- rollout -> explorer.rollout_model
    Rule(f"{R}.name", "rule", "models.map_models", f"{RM}.engine_type (vllm, sglang)"),
    Rule(f"{R}.tensor_model_parallel_size", "rule", "gpu.map_gpus", f"{RM}.tensor_parallel_size"),
    Rule(f"{R}.data_parallel_size", "map", f"{RM}.data_parallel_size"),
    Rule(f"{R}.pipeline_model_parallel_size", "map", f"{RM}.pipeline_parallel_size"),
    Rule(f"{R}.expert_parallel_size", "map", f"{RM}.enable_expert_parallel", transform=lambda v: int(v) > 1),
    Rule(f"{R}.gpu_memory_utilization", "map", f"{RM}.gpu_memory_utilization"),
    Rule(f"{R}.enforce_eager", "map", f"{RM}.enforce_eager"),
    Rule(f"{R}.enable_chunked_prefill", "map", f"{RM}.enable_chunked_prefill"),
    Rule(f"{R}.enable_prefix_caching", "map", f"{RM}.enable_prefix_caching"),
    Rule(f"{R}.dtype", "map", f"{RM}.dtype"),
    Rule(f"{R}.ignore_eos", "rule", "models.map_models", f"{RM}.ignore_eos where the release's rollout reads it"),
    *[Rule(f"{R}.{k}", "rule", "models.map_models", f"model.{t} where the release's rollout samples with it")
      for k, t in (("repetition_penalty", "repetition_penalty"), ("min_tokens", "min_response_tokens"))],
    Rule(f"{R}.seed", "rule", "models.map_models", f"{RM}.seed (0 where the release has no rollout.seed)"),
    Rule(f"{R}.max_num_batched_tokens", "map", f"{RM}.extra_engine_args.max_num_batched_tokens"),
    Rule(f"{R}.max_num_seqs", "map", f"{RM}.extra_engine_args.max_num_seqs"),
    Rule(f"{R}.engine_kwargs.vllm.*", "rule", "models.map_models", f"{RM}.extra_engine_args.*"),
    Rule(f"{R}.log_prob_micro_batch_size_per_gpu", "pass"),
    Rule(f"{R}.log_prob_micro_batch_size", "rule", "micro.map_micro", MICRO),
    Rule(f"{R}.log_prob_use_dynamic_bsz", "rule", "models.map_models", "follows trainer.use_dynamic_bsz"),
    Rule(f"{R}.log_prob_max_token_len_per_gpu", "rule", "models.map_models", "follows trainer.max_token_len_per_gpu"),
    Rule(f"{R}.prompt_length", "implied", "", "Trinity uses model.max_prompt_tokens"),
    Rule(f"{R}.response_length", "implied", "", "Trinity uses model.max_response_tokens"),
    Rule(f"{R}.calculate_log_probs", "implied", "", "Trinity's explorer always returns rollout log-probs"),
    Rule(f"{R}.mode", "implied", "", "Trinity's vLLM engines are asynchronous"),
    Rule(f"{R}.multi_turn.enable", "none", "", "multi-turn rollouts are a Trinity workflow (e.g. a multi-step one)"),
    Rule(f"{R}.multi_turn.*", "none", "", "multi-turn settings belong to a Trinity workflow"),
    Rule(f"{R}.agent.*", "none", "", "agent loops are Trinity workflows"),
    *[Rule(f"{R}.{k}", "handled", "", n) for k, n in [
        ("free_cache_engine", "the explorer keeps its own engines"),
        ("load_format", "weights are synchronised by Trinity's synchronizer"),
        ("layered_summon", "weights are synchronised by Trinity's synchronizer"),
        ("update_weights_bucket_megabytes", "weights are synchronised by Trinity's synchronizer"),
        ("checkpoint_engine.*", "weights are synchronised by Trinity's synchronizer"),
        ("disable_log_stats", "vLLM logging"),
        ("skip_tokenizer_init", "engine start-up"),
        ("enable_sleep_mode", "engine memory management"),
        ("max_num_batched_tokens_per_gpu", "engine tuning"),
        ("cudagraph_capture_sizes", "engine tuning"),
        ("engine_kwargs.*", "engine kwargs of another engine"),
        ("trace.*", "rollout tracing"),
        ("profiler.*", "profiling"),
        ("nnodes", "placement is Trinity's"),
        ("n_gpus_per_node", "placement is Trinity's"),
    ]],
    # ---- critic
    Rule(f"{C}.model.path", "map", "model.critic_model_path"),
    Rule(f"{C}.model.use_remove_padding", "rule", "models.map_models", "trainer.use_remove_padding"),
    Rule(f"{C}.model.tokenizer_path", "implied", "", "Trinity uses the critic model's tokenizer"),
    Rule(f"{C}.model.enable_gradient_checkpointing", "pass"),
    Rule(f"{C}.model.override_config.*", "pass"),
    Rule(f"{C}.model.fsdp_config.*", "pass", f"{C}.fsdp.*", "verl 0.8 moved the critic's FSDP settings to critic.fsdp"),
    Rule(f"{C}.model.*", "pass"),
    Rule(f"{C}.fsdp.*", "pass"),
    *[Rule(f"{C}.optim.{k}", "rule", "models.map_models",
           "trainer_config.critic.optim.clip_grad where the release's critic clips at it") for k in
      ("clip_grad", "grad_clip")],
    Rule(f"{C}.optim.*", "pass"),
    Rule(f"{C}.ppo_micro_batch_size_per_gpu", "pass"),
    Rule(f"{C}.ppo_micro_batch_size", "rule", "micro.map_micro", MICRO),
    Rule(f"{C}.forward_micro_batch_size", "rule", "micro.map_micro", MICRO),
    Rule(f"{C}.forward_micro_batch_size_per_gpu", "pass"),
    Rule(f"{C}.cliprange_value", "pass"),
    Rule(f"{C}.ppo_epochs", "pass"),
    Rule(f"{C}.shuffle", "pass"),
    Rule(f"{C}.loss_agg_mode", "rule", "models.map_models",
         "trainer.trainer_config.critic.loss_agg_mode unless token-mean (Trinity's critic default)"),
    Rule(f"{C}.checkpoint.*", "pass"),
    Rule(f"{C}.megatron.*", "rule", "models.map_megatron", "passed through under megatron"),
    *[Rule(f"{C}.{k}", "rule", "models.map_models", n) for k, n in [
        ("enable", "implied by algorithm.algorithm_type (ppo trains a critic)"),
        ("strategy", "follows trainer.trainer_strategy"),
        ("ppo_mini_batch_size", "follows buffer.train_batch_size"),
        ("use_dynamic_bsz", "follows trainer.use_dynamic_bsz"),
        ("ppo_max_token_len_per_gpu", "follows trainer.max_token_len_per_gpu"),
        ("forward_max_token_len_per_gpu", "follows trainer.max_token_len_per_gpu"),
        ("grad_clip", "trainer_config.critic.optim.clip_grad where the release's critic clips at it"),
        ("ulysses_sequence_parallel_size", "follows trainer.ulysses_sequence_parallel_size"),
        ("rollout_n", "follows algorithm.repeat_times")]],
    Rule(f"{C}.profiler.*", "handled", "", "profiling"),
    # ---- rewards (rftc/mapping/rewards.py)
    Rule("reward_model.*", "rule", "rewards.map_rewards", "explorer.auxiliary_models (enable, model.path, rollout.*)"),
    Rule("reward.*", "rule", "rewards.map_rewards", "explorer.auxiliary_models (reward_model.*); custom reward"),
    Rule("custom_reward_function.*", "rule", "rewards.map_rewards", "the reward workflow's workflow_args"),
    Rule("sandbox_fusion.*", "none", "", "code-execution rewards need a Trinity workflow that calls the sandbox"),
    # ---- trainer (rftc/mapping/trainer.py)
    *[Rule(f"{T}.{k}", "rule", "trainer.map_trainer", n) for k, n in [
        ("project_name", "project"), ("experiment_name", "name"),
        ("nnodes", "cluster.node_num"), ("n_gpus_per_node", "cluster.gpu_per_node"),
        ("logger", "monitor.monitor_type (the first Trinity supports)"),
        ("val_before_train", "explorer.eval_on_startup"),
        ("default_local_dir", "checkpoint_root_dir (Trinity appends <project>/<name>)"),
        ("resume_mode", "continue_from_checkpoint"),
        ("resume_from_path", "no equivalent: Trinity resumes from the latest checkpoint in the job dir"),
        ("critic_warmup", "trainer.critic_warmup"),
        ("balance_batch", "trainer.balance_batch"),
        ("max_actor_ckpt_to_keep", "trainer.max_checkpoints_to_keep"),
        ("max_critic_ckpt_to_keep", "trainer.max_checkpoints_to_keep"),
        ("val_only", "mode: bench"),
        ("device", "cuda is implied"),
    ]],
    *[Rule(f"{T}.{k}", "handled", "", n) for k, n in [
        ("log_val_generations", "logging"), ("log_train_generations", "logging"),
        ("rollout_data_dir", "rollout dumps (Trinity keeps experiences in its buffer)"),
        ("validation_data_dir", "validation dumps"), ("ray_wait_register_center_timeout", "Ray start-up"),
        ("use_legacy_worker_impl", "veRL worker selection"), ("esi_redundant_time", "checkpoint timing"),
        ("del_local_ckpt_after_load", "checkpoint housekeeping"), ("hdfs_dir", "checkpoint upload"),
        ("profile_steps", "profiling"), ("profile_continuous_steps", "profiling"), ("npu_profile.*", "profiling"),
        ("remove_previous_ckpt_in_save", "checkpoint housekeeping"), ("checkpoint_callback_class", "checkpoint hooks"),
        ("save_hf_model", "Trinity's trainer.save_hf_checkpoint defaults to the last step"),
    ]],
    # ---- veRL's trainer loops: what each batch is generated with (rftc/mapping/offpolicy.py)
    *[Rule(k, "rule", "offpolicy.map_schedule", n) for k, n in [
        (f"{T}.use_v1", "synchronizer.sync_offset (the trainer loop: veRL 0.9's v1 trainers)"),
        (f"{T}.v1.*", "synchronizer.sync_offset / sync_interval (warmup batches, parameter sync); RFTC340-RFTC342"),
        ("async_training.*", "synchronizer.sync_offset / sync_interval (staleness, parameter sync); RFTC340-RFTC342"),
        ("rollout.*", "the explorer's GPUs (rollout.nnodes x n_gpus_per_node of the off-policy trainers)"),
    ]],
    Rule("global_profiler.*", "handled", "", "profiling"),
    Rule("ray_kwargs.*", "handled", "", "Ray is started outside Trinity (ray start --head)"),
    Rule("ray_init.*", "handled", "", "Ray is started outside Trinity (ray start --head)"),
    Rule("transfer_queue.*", "handled", "", "veRL's data transfer layer; Trinity has its buffer"),
    Rule("model_engine", "rule", "models.map_models", "trainer.trainer_strategy (megatron)"),
    Rule("distillation.*", "none", "", "on-policy distillation is Trinity's algorithm_type on_policy_distill with a "
         "teacher in explorer.auxiliary_models"),
]


def find_rule(key: str, rules: list[Rule] = RULES) -> Rule | None:
    best: Rule | None = None
    for r in rules:
        if r.matches(key) and (best is None or _specificity(r) > _specificity(best)):
            best = r
    return best


def _specificity(r: Rule) -> tuple[int, int]:
    return (0 if r.verl.endswith(".*") else 1, len(r.verl))


def apply_rules(d: Draft, rules: list[Rule] = RULES) -> None:
    """Apply the table (main_ppo's, or another trainer's: rftc.mapping.sft_rules) to every key the script set
    that no relational rule has accounted for, then the ``explicit`` rows; finally report any key no rule
    covers (nothing is dropped silently)."""
    for key in d.cfg.user_keys():
        if d.done(key):
            continue
        r = _rule_for(d, key, rules)
        if r is None:
            _unmapped(d, key)
        elif r.action == "map":
            _map(d, r, key)
        elif r.action == "pass":
            d.passthrough(key, under=_target(r, key) if r.trinity else None)
        elif r.action == "implied":
            d.implied(key, r.note)
        elif r.action == "handled":
            d.report("RFTC301", f"{key} is left out: {r.note}, which Trinity manages itself", key)
        elif r.action == "none":
            d.report("RFTC300", f"{key} has no Trinity-RFT 0.6 equivalent; {r.note}", key)
        # "rule" rows whose function did not account for the key fall through to the safety net below
    for r in rules:
        if r.explicit and r.action == "map" and not d.done(r.verl) and d.val(r.verl) is not None:
            _map(d, r, r.verl)
    stopped = d.diags.has_errors
    for key in d.cfg.user_keys():
        if d.done(key):
            continue
        r = _rule_for(d, key, rules)
        if stopped and r is not None and r.action == "rule":
            d.implied(key, "not converted: the conversion stopped at an error")  # its rule needed that value
        else:
            _unmapped(d, key)


def _rule_for(d: Draft, key: str, rules: list[Rule]) -> Rule | None:
    """The row for ``key``. A key a fork adds takes a section's row only where the row drops or implies it: a
    row that passes or maps a whole section names the fields of upstream veRL, which the fork's key is not."""
    r = find_rule(key, rules)
    if r is not None and key in d.cfg.fork_keys and r.verl.endswith(".*") and r.action in ("map", "pass"):
        return None
    return r


def _unmapped(d: Draft, key: str) -> None:
    if key in d.cfg.fork_keys:
        d.report("RFTC327", f"{key}={d.fmt_value(key)} is a feature of the veRL fork at {d.cfg.source}, not of "
                 "upstream veRL; Trinity's workflow must provide it", key,
                 hint="implement it in the Trinity workflow or plugin that runs this job, or drop the override")
    else:
        d.report("RFTC300", f"{key} has no Trinity-RFT 0.6 equivalent; it is not in the converted config", key)


def _target(r: Rule, key: str) -> str:
    """``trinity`` for ``key``; for a subtree row, the key's path below the subtree appended."""
    if r.verl.endswith(".*"):
        return r.trinity.removesuffix(".*") + key[len(r.verl) - 2:]
    return r.trinity


def _map(d: Draft, r: Rule, key: str) -> None:
    value = d.val(key)
    target = _target(r, key)
    try:
        value = r.transform(value) if r.transform else value
    except (TypeError, ValueError):
        d.report("RFTC313", f"{key} has an unexpected value {value!r}", key)
        return
    d.set(target, value, key, note="" if d.user(key) else "veRL default")
