"""The one-to-one part of the mapping of veRL's SFT trainers (fsdp_sft_trainer's config sft_trainer, the engine
trainer's sft_trainer_engine) to a Trinity-RFT 0.6 SFT config, as data: rows as in rftc.mapping.rules (whose
actions they share), keyed by the SFT configs' own paths. ``rule`` rows name a function of rftc/mapping/sft.py.
The keys of the two configs differ where they say the same thing differently (model.partial_pretrain and
model.path, optim.warmup_steps_ratio and optim.lr_warmup_steps_ratio); one table holds both.
"""

from __future__ import annotations

from rftc.mapping.classes import (BATCHING, CADENCE, CLASS, FOLLOWS, KERNELS, MEMORY, NAMES, PLACEMENT, PROCESSES,
                                  PROFILING, UNREAD, no, to)
from rftc.mapping.rules import Rule

A = "actor_rollout_ref.actor"  # where Trinity's trainer_config keeps the actor's worker settings
EB = "buffer.trainer_input.experience_buffer"

SFT_RULES: list[Rule] = [
    # ---- data (rftc/mapping/sft.py)
    *[Rule(f"data.{k}", "rule", "sft.map_sft_data", n, **c) for k, n, c in [
        ("train_files", f"{EB}.path and split (one file or folder)", to("data")),
        ("prompt_key", f"{EB}.format.prompt_key (prompt_type plaintext)", to("loss_tokens", "single_turn_sft")),
        ("response_key", f"{EB}.format.response_key (prompt_type plaintext)", to("loss_tokens", "single_turn_sft")),
        ("prompt_dict_keys", "no equivalent for a nested prompt column (RFTC300)",
         to("loss_tokens", "single_turn_sft")),
        ("response_dict_keys", "no equivalent for a nested response column (RFTC300)",
         to("loss_tokens", "single_turn_sft")),
        ("multiturn.enable", f"{EB}.format.prompt_type messages", to("loss_tokens")),
        ("multiturn.messages_key", f"{EB}.format.messages_key", to("loss_tokens", "multiturn_sft")),
        ("multiturn.tools_key", f"{EB}.format.tools_key", to("loss_tokens", "multiturn_sft")),
        ("messages_key", f"{EB}.format.messages_key", to("loss_tokens")),
        ("tools_key", f"{EB}.format.tools_key", to("loss_tokens")),
        ("max_length", "model.max_model_len", to("max_length")),
        ("truncation", "Trinity's SFT formatter does not truncate (RFTC330)", to("overlong_rows")),
        ("train_max_samples", "no equivalent for a limit on the rows read (RFTC300)", to("max_samples")),
    ]],
    *[Rule(f"data.{k}", "rule", "sft.map_sft_batch", n, **c) for k, n, c in [
        ("train_batch_size", "buffer.train_batch_size", to("examples_per_step microbatch_loss")),
        ("micro_batch_size_per_gpu", f"trainer.trainer_config.{A}.ppo_micro_batch_size_per_gpu",
         to("micro_batch microbatch_loss", "static_bsz_sft")),
        ("use_dynamic_bsz", "trainer.use_dynamic_bsz (veRL's fsdp_sft_trainer has none: false)",
         to("micro_batch microbatch_loss")),
        ("max_token_len_per_gpu", "trainer.max_token_len_per_gpu", to("micro_batch microbatch_loss", "dynamic_bsz")),
    ]],
    Rule("data.micro_batch_size", "implied", "", "deprecated: veRL reads micro_batch_size_per_gpu", inert=UNREAD),
    Rule("data.val_files", "none", "", "Trinity's SFT (mode train) has no validation set; evaluate the "
         "checkpoints separately", inert=CADENCE),
    Rule("data.val_max_samples", "implied", "", "follows data.val_files", inert=CADENCE),
    Rule("data.chat_template", "map", "model.custom_chat_template", inert=UNREAD),  # fsdp_sft_trainer's datasets
    #   render with the tokenizer's template (rftc.semantics.sft_verl)
    Rule("data.apply_chat_template_kwargs.enable_thinking", "map", f"{EB}.format.enable_thinking",
         feeds="chat_template", when="thinking_switch_sft"),
    Rule("data.apply_chat_template_kwargs", "none", "", "set the chat template (model.custom_chat_template)",
         feeds="chat_template"),
    Rule("data.apply_chat_template_kwargs.*", "none", "", "set the chat template (model.custom_chat_template)",
         feeds="chat_template"),
    Rule("data.multiturn.enable_thinking_key", "none", "", "per-row thinking switch; Trinity has one for the "
         f"dataset ({EB}.format.enable_thinking)", feeds="data_columns", when="multiturn_sft"),
    Rule("data.enable_thinking_key", "none", "", "per-row thinking switch; Trinity has one for the dataset "
         f"({EB}.format.enable_thinking)", feeds="data_columns"),
    Rule("data.enable_thinking_default", "rule", "sft.map_sft_data", f"{EB}.format.enable_thinking = bool(it) where "
         "not None (veRL's default, the string 'none', is true)", feeds="chat_template"),
    Rule("data.custom_cls.*", "none", "", "a custom dataset class becomes a Trinity task pipeline or formatter",
         feeds="dataset_class"),
    Rule("data.custom_cls.name", "none", "", "a custom dataset class becomes a Trinity task pipeline or formatter",
         feeds="dataset_class", when="custom_dataset"),
    Rule("data.balance_dp_token", "none", "", "Trinity's trainer does not balance tokens across ranks",
         feeds="microbatch_loss", when="legacy_sft"),  # the engine SFT trainer's config has it, unread
    Rule("data.ignore_input_ids_mismatch", "implied", "", "Trinity renders the whole conversation at once",
         inert=UNREAD),
    *[Rule(f"data.{k}", "handled", "", n, **c) for k, n, c in [
        ("use_shm", "data loading through /dev/shm", no(PROCESSES)),
        ("num_workers", "data-loading parallelism", no(PROCESSES)),
        ("pad_mode", "the trainer's padding layout", no(KERNELS))]],
    # ---- model (rftc/mapping/sft.py for LoRA and the strategy)
    Rule("model.partial_pretrain", "map", "model.model_path", explicit=True, feeds="model"),
    Rule("model.path", "map", "model.model_path", explicit=True, feeds="model"),
    Rule("model.trust_remote_code", "map", "model.trust_remote_code", inert=PROCESSES),
    Rule("model.custom_chat_template", "map", "model.custom_chat_template", feeds="chat_template"),
    *[Rule(f"model.{k}", "rule", "sft.map_sft_model", "model.lora_configs[0]", feeds="lora", when=w) for k, w in
      (("lora_rank", "fsdp_sft"), ("lora_alpha", "lora_sft"), ("target_modules", "lora_sft"))],
    *[Rule(f"model.{k}", "rule", "sft.map_sft_model", "model.lora_configs[0]", feeds="lora", when="lora_sft")
      for k in ("exclude_modules", "lora_adapter_path")],
    Rule("model.lora.*", "none", "", "Megatron LoRA settings: Trinity's LoRA is model.lora_configs (FSDP)",
         feeds="lora", when="megatron_lora_sft"),
    *[Rule(f"model.lora.{k}", "none", "", "Megatron LoRA settings: Trinity's LoRA is model.lora_configs (FSDP)",
           inert=KERNELS) for k in ("merge", "a2a_experimental")],  # how weights reach a rollout; communication
    Rule("model.strategy", "rule", "sft.map_sft_model", "trainer.trainer_strategy", inert=PLACEMENT),
    Rule("model.enable_gradient_checkpointing", "pass", "actor_rollout_ref.model.enable_gradient_checkpointing",
         inert=MEMORY),
    Rule("model.enable_activation_offload", "pass", "actor_rollout_ref.model.enable_activation_offload",
         inert=MEMORY),
    Rule("model.use_liger", "pass", "actor_rollout_ref.model.use_liger", inert=KERNELS),
    Rule("model.use_fused_kernels", "pass", "actor_rollout_ref.model.use_fused_kernels", inert=KERNELS),
    Rule("model.fused_kernel_options.*", "pass", "actor_rollout_ref.model.fused_kernel_options.*", inert=KERNELS),
    Rule("model.override_config", "pass", "actor_rollout_ref.model.override_config", feeds="model_config"),
    Rule("model.override_config.*", "pass", "actor_rollout_ref.model.override_config.*", feeds="model_config"),
    Rule("model.fsdp_config.*", "pass", f"{A}.fsdp_config.*", inert=MEMORY),
    Rule("model.fsdp_config.model_dtype", "pass", f"{A}.fsdp_config.model_dtype", feeds="precision",
         when="model_dtype_sft"),
    # fsdp_sft_trainer's mixed precision is fixed: bf16 parameters, fp32 gradient reduce and buffers
    Rule("model.fsdp_config.mixed_precision.*", "pass", f"{A}.fsdp_config.mixed_precision.*", inert=UNREAD),
    Rule("model.use_remove_padding", "map", "trainer.use_remove_padding", inert=KERNELS),
    Rule("use_remove_padding", "map", "trainer.use_remove_padding", inert=KERNELS),
    Rule("ulysses_sequence_parallel_size", "map", "trainer.ulysses_sequence_parallel_size", inert=PLACEMENT),
    Rule("model.tokenizer_path", "none", "", "Trinity tokenizes with model.model_path's tokenizer",
         feeds="chat_template"),
    Rule("model.hf_config_path", "none", "", "Trinity reads the model config from model.model_path",
         feeds="model_config"),
    Rule("model.use_shm", "handled", "", "model loading through /dev/shm", inert=PROCESSES),
    Rule("model.external_lib", "none", "", "load the library as a Trinity plugin (--plugin-dir)", inert=PROCESSES),
    Rule("model.tiled_mlp.*", "none", "", "tiled MLP is not in the veRL workers Trinity runs", inert=MEMORY),
    Rule("model.mtp.*", "none", "", "speculative decoding settings: Trinity's SFT has no rollout", inert=KERNELS),
    *[Rule(f"model.mtp.{k}", "pass", f"actor_rollout_ref.model.mtp.{k}", feeds="mtp", when="mtp_train_sft")
      for k in ("enable", "enable_train", "mtp_loss_scaling_factor", "detach_encoder")],
    # ---- engine (sft_trainer_engine): the FSDP worker settings
    Rule("engine.ulysses_sequence_parallel_size", "map", "trainer.ulysses_sequence_parallel_size", inert=PLACEMENT),
    Rule("engine.strategy", "rule", "sft.map_sft_model", "trainer.trainer_strategy", feeds="trainer_seed",
         when="unseeded_sft"),
    Rule("engine.*", "pass", f"{A}.fsdp_config.*", inert=MEMORY),
    *[Rule(f"engine.{k}", "pass", f"{A}.fsdp_config.{k}", **c) for k, c in [
        ("dtype", to("precision", "megatron_sft")), ("model_dtype", to("precision", "fsdp_sft")),
        ("mixed_precision.*", to("precision", "fsdp_sft")), ("seed", to("trainer_seed", "process_seed_sft")),
        ("qat.*", no(UNREAD)), ("qat._target_", no(CLASS)), ("qat.enable", to("precision", "qat_sft")),
        *((f"qat.{k}", to("precision", "qat_train_sft")) for k in ("mode", "ignore_patterns")),
        *((f"qat.{k}", to("precision", "qat_fsdp_sft")) for k in ("group_size", "activation_observer")),
        *((f"turbo_config.distributed.fsdp_plan.{k}_dtype", to("precision", "turbo_sft"))
          for k in ("param", "reduce", "output")),
        ("turbo_config.distributed.*", no(PLACEMENT)), ("fsdp_size", no(PLACEMENT)),
        ("full_determinism", to("trainer_seed", "determinism_sft")), ("use_torch_compile", no(KERNELS)),
        ("pad_to_length", no(KERNELS)),
        ("pad_to_length_bucket", no(KERNELS)), ("forward_only", no(UNREAD)), ("wrap_policy.*", no(PLACEMENT)),
        ("use_no_sync_for_gradient_accumulation", no(BATCHING)), ("use_orig_params", no(KERNELS))]],
    # ---- optimizer (rftc/mapping/sft.py for the schedule)
    Rule("optim.lr", "map", "algorithm.optimizer.lr", explicit=True, feeds="lr"),
    Rule("optim.weight_decay", "map", "algorithm.optimizer.weight_decay", explicit=True, feeds="weight_decay"),
    Rule("optim.betas", "map", "algorithm.optimizer.betas", explicit=True, feeds="betas"),
    Rule("optim.clip_grad", "map", "algorithm.optimizer.clip_grad", feeds="clip_grad"),
    *[Rule(f"optim.{k}", "rule", "sft.map_sft_schedule", n, **c) for k, n, c in [
        ("warmup_steps_ratio", "algorithm.optimizer.lr_warmup_steps_ratio", to("warmup_ratio")),
        ("lr_warmup_steps_ratio", "algorithm.optimizer.lr_warmup_steps_ratio", to("warmup_ratio")),
        ("lr_warmup_steps", "algorithm.optimizer.lr_warmup_steps", to("warmup_steps")),
        ("lr_scheduler", "algorithm.optimizer.lr_scheduler_type (cosine; wsd has no equivalent)",
         to("lr_scheduler", "legacy_sft")),
        ("lr_scheduler_type", "algorithm.optimizer.lr_scheduler_type", to("lr_scheduler", "scheduler_type_sft")),
        ("warmup_style", "algorithm.optimizer.lr_scheduler_type", to("lr_scheduler", "engine_sft")),
        ("min_lr_ratio", "algorithm.optimizer.min_lr_ratio", to("min_lr_ratio", "cosine")),
    ]],
    Rule("optim.optimizer", "map", "algorithm.optimizer.optimizer_type", transform=lambda v: str(v).lower(),
         feeds="optimizer"),
    Rule("optim.num_cycles", "pass", f"{A}.optim.num_cycles", feeds="lr_cycles", when="cosine"),
    Rule("optim.override_optimizer_config.*", "pass", f"{A}.optim.override_optimizer_config.*", feeds="optimizer"),
    Rule("optim.total_training_steps", "implied", "", "Trinity sets it from trainer.total_steps", inert=FOLLOWS),
    Rule("optim.*", "none", "", "Trinity 0.6 sets the optimizer from algorithm.optimizer only", feeds="optimizer"),
    Rule("optim.zero_indexed_step", "rule", "loss.map_sft_loss", "trainer_config's actor optim zero_indexed_step",
         feeds="lr_schedule_args", when="sft_engine_cosine"),
    # ---- Megatron's optimizer (optim=megatron: verl/workers/config/optimizer.py McoreOptimizerConfig)
    Rule("optim.lr_decay_style", "rule", "sft.map_sft_schedule", "algorithm.optimizer.lr_scheduler_type",
         feeds="lr_scheduler"),
    Rule("optim.min_lr", "rule", "sft.map_sft_schedule", "algorithm.optimizer.min_lr_ratio = min_lr / lr",
         feeds="min_lr_ratio", when="cosine"),
    *[Rule(f"optim.{k}", "rule", "loss.map_sft_loss", n, **c) for k, n, c in [
        ("lr_warmup_init", "trainer_config's actor optim lr_warmup_init (Trinity's default is min_lr_ratio x lr)",
         to("lr_schedule_args")),
        ("lr_decay_steps", "trainer_config's actor optim lr_decay_steps", to("lr_horizon")),
        ("lr_wsd_decay_style", "read only by the wsd schedule, which Trinity has not", to("lr_schedule_args")),
        ("lr_wsd_decay_steps", "read only by the wsd schedule, which Trinity has not", to("lr_schedule_args")),
        ("weight_decay_incr_style", "start and end weight decay are weight_decay: the style changes nothing",
         no(UNREAD)),
        ("use_checkpoint_opt_param_scheduler", "read when resuming", no(CADENCE)),
        ("override_optimizer_config", "its entries pass through", to("optimizer")),
        ("muon_*", "no equivalent in verl 0.8, which Trinity runs (RFTC300, one for all)", to("optimizer")),
        ("use_precision_aware_optimizer", "no equivalent in verl 0.8, which Trinity runs, unless off (RFTC300, one "
         "for all)", to("precision")),
        *((k, "no equivalent in verl 0.8, which Trinity runs, unless fp32 (RFTC300, one for all)",
           to("precision", "sft_precision_aware")) for k in ("main_grads_dtype", "exp_avg_dtype", "exp_avg_sq_dtype")),
        ("use_layer_wise_distributed_optimizer", "no equivalent in verl 0.8, which Trinity runs (RFTC300, one for "
         "all)", no(PLACEMENT))]],
    # ---- steps and checkpoints (rftc/mapping/sft.py)
    *[Rule(f"trainer.{k}", "rule", "sft.map_sft_steps", n, **c) for k, n, c in [
        ("total_epochs", "buffer.total_epochs", to("total_epochs")),
        ("total_training_steps", "trainer.total_steps and buffer.total_steps", to("total_steps")),
        ("save_freq", "trainer.save_interval (the last step is always saved, as in veRL)", no(CADENCE)),
        ("test_freq", "no validation in Trinity's SFT (mode train)", no(CADENCE)),
        ("max_ckpt_to_keep", "trainer.max_checkpoints_to_keep", no(CADENCE)),
    ]],
    Rule("trainer.checkpoint.*", "pass", f"{A}.checkpoint.*", inert=CADENCE),
    Rule("checkpoint.*", "pass", f"{A}.checkpoint.*", inert=CADENCE),
    Rule("trainer.resume_path", "implied", "", "superseded by trainer.resume_from_path", inert=CADENCE),
    # ---- run-level settings shared with main_ppo (rftc/mapping/trainer.py)
    *[Rule(f"trainer.{k}", "rule", "trainer.map_trainer", n, **c) for k, n, c in [
        ("project_name", "project", no(NAMES)), ("experiment_name", "name", no(NAMES)),
        ("nnodes", "cluster.node_num", no(PLACEMENT)), ("n_gpus_per_node", "cluster.gpu_per_node", no(PLACEMENT)),
        ("logger", "monitor.monitor_type", no(NAMES)), ("default_local_dir", "checkpoint_root_dir", no(CADENCE)),
        ("resume_mode", "continue_from_checkpoint", no(CADENCE)), ("resume_from_path", "no equivalent", no(CADENCE)),
        ("balance_batch", "trainer.balance_batch", no(BATCHING)), ("device", "cuda is implied", no(PLACEMENT))]],
    Rule("trainer.seed", "none", "", "Trinity's trainer takes no seed; the data order follows the experience "
         "buffer's data_selector.seed", inert=UNREAD),  # the trainers' DistributedSampler keeps its seed 0
    *[Rule(f"{k}._target_", "implied", "", "the class veRL builds the section as", inert=CLASS) for k in
      ("model", "optim", "engine", "checkpoint", "profiler")],
    *[Rule(k, "handled", "", n, **c) for k, n, c in [
        ("trainer.default_hdfs_dir", "checkpoint upload", no(CADENCE)),
        ("trainer.profile_interval", "profiling", no(PROFILING)), ("profiler.*", "profiling", no(PROFILING)),
        ("global_profiler.*", "profiling", no(PROFILING)), ("model_engine", "veRL worker selection", no(PLACEMENT))]],
]
