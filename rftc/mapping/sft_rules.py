"""The one-to-one part of the mapping of veRL's SFT trainers (fsdp_sft_trainer's config sft_trainer, the engine
trainer's sft_trainer_engine) to a Trinity-RFT 0.6 SFT config, as data: rows as in rftc.mapping.rules (whose
actions they share), keyed by the SFT configs' own paths. ``rule`` rows name a function of rftc/mapping/sft.py.
The keys of the two configs differ where they say the same thing differently (model.partial_pretrain and
model.path, optim.warmup_steps_ratio and optim.lr_warmup_steps_ratio); one table holds both.
"""

from __future__ import annotations

from rftc.mapping.rules import Rule

A = "actor_rollout_ref.actor"  # where Trinity's trainer_config keeps the actor's worker settings
EB = "buffer.trainer_input.experience_buffer"

SFT_RULES: list[Rule] = [
    # ---- data (rftc/mapping/sft.py)
    *[Rule(f"data.{k}", "rule", "sft.map_sft_data", n) for k, n in [
        ("train_files", f"{EB}.path and split (one file or folder)"),
        ("prompt_key", f"{EB}.format.prompt_key (prompt_type plaintext)"),
        ("response_key", f"{EB}.format.response_key (prompt_type plaintext)"),
        ("prompt_dict_keys", "no equivalent for a nested prompt column (RFTC300)"),
        ("response_dict_keys", "no equivalent for a nested response column (RFTC300)"),
        ("multiturn.enable", f"{EB}.format.prompt_type messages"),
        ("multiturn.messages_key", f"{EB}.format.messages_key"),
        ("multiturn.tools_key", f"{EB}.format.tools_key"),
        ("messages_key", f"{EB}.format.messages_key"),
        ("tools_key", f"{EB}.format.tools_key"),
        ("max_length", "model.max_model_len"),
        ("truncation", "Trinity's SFT formatter does not truncate (RFTC330)"),
        ("train_max_samples", "no equivalent for a limit on the rows read (RFTC300)"),
    ]],
    *[Rule(f"data.{k}", "rule", "sft.map_sft_batch", n) for k, n in [
        ("train_batch_size", "buffer.train_batch_size"),
        ("micro_batch_size_per_gpu", f"trainer.trainer_config.{A}.ppo_micro_batch_size_per_gpu"),
        ("use_dynamic_bsz", "trainer.use_dynamic_bsz (veRL's fsdp_sft_trainer has none: false)"),
        ("max_token_len_per_gpu", "trainer.max_token_len_per_gpu"),
    ]],
    Rule("data.micro_batch_size", "implied", "", "deprecated: veRL reads micro_batch_size_per_gpu"),
    Rule("data.val_files", "none", "", "Trinity's SFT (mode train) has no validation set; evaluate the "
         "checkpoints separately"),
    Rule("data.val_max_samples", "implied", "", "follows data.val_files"),
    Rule("data.chat_template", "map", "model.custom_chat_template"),
    Rule("data.apply_chat_template_kwargs.enable_thinking", "map", f"{EB}.format.enable_thinking"),
    Rule("data.apply_chat_template_kwargs", "none", "", "set the chat template (model.custom_chat_template)"),
    Rule("data.apply_chat_template_kwargs.*", "none", "", "set the chat template (model.custom_chat_template)"),
    Rule("data.multiturn.enable_thinking_key", "none", "", "per-row thinking switch; Trinity has one for the "
         f"dataset ({EB}.format.enable_thinking)"),
    Rule("data.enable_thinking_key", "none", "", "per-row thinking switch; Trinity has one for the dataset "
         f"({EB}.format.enable_thinking)"),
    Rule("data.enable_thinking_default", "none", "", f"set {EB}.format.enable_thinking"),
    Rule("data.custom_cls.*", "none", "", "a custom dataset class becomes a Trinity task pipeline or formatter"),
    Rule("data.balance_dp_token", "none", "", "Trinity's trainer does not balance tokens across ranks"),
    Rule("data.ignore_input_ids_mismatch", "implied", "", "Trinity renders the whole conversation at once"),
    *[Rule(f"data.{k}", "handled", "", n) for k, n in [
        ("use_shm", "data loading through /dev/shm"), ("num_workers", "data-loading parallelism"),
        ("pad_mode", "the trainer's padding layout")]],
    # ---- model (rftc/mapping/sft.py for LoRA and the strategy)
    Rule("model.partial_pretrain", "map", "model.model_path", explicit=True),
    Rule("model.path", "map", "model.model_path", explicit=True),
    Rule("model.trust_remote_code", "map", "model.trust_remote_code"),
    Rule("model.custom_chat_template", "map", "model.custom_chat_template"),
    *[Rule(f"model.{k}", "rule", "sft.map_sft_model", "model.lora_configs[0]") for k in
      ("lora_rank", "lora_alpha", "target_modules", "exclude_modules", "lora_adapter_path")],
    Rule("model.lora.*", "none", "", "Megatron LoRA settings: Trinity's LoRA is model.lora_configs (FSDP)"),
    Rule("model.strategy", "rule", "sft.map_sft_model", "trainer.trainer_strategy"),
    Rule("model.enable_gradient_checkpointing", "pass", "actor_rollout_ref.model.enable_gradient_checkpointing"),
    Rule("model.enable_activation_offload", "pass", "actor_rollout_ref.model.enable_activation_offload"),
    Rule("model.use_liger", "pass", "actor_rollout_ref.model.use_liger"),
    Rule("model.use_fused_kernels", "pass", "actor_rollout_ref.model.use_fused_kernels"),
    Rule("model.fused_kernel_options.*", "pass", "actor_rollout_ref.model.fused_kernel_options.*"),
    Rule("model.override_config", "pass", "actor_rollout_ref.model.override_config"),
    Rule("model.override_config.*", "pass", "actor_rollout_ref.model.override_config.*"),
    Rule("model.fsdp_config.*", "pass", f"{A}.fsdp_config.*"),
    Rule("model.use_remove_padding", "map", "trainer.use_remove_padding"),
    Rule("use_remove_padding", "map", "trainer.use_remove_padding"),
    Rule("ulysses_sequence_parallel_size", "map", "trainer.ulysses_sequence_parallel_size"),
    Rule("model.tokenizer_path", "implied", "", "Trinity reads the tokenizer from model.model_path"),
    Rule("model.hf_config_path", "implied", "", "Trinity reads the model config from model.model_path"),
    Rule("model.use_shm", "handled", "", "model loading through /dev/shm"),
    Rule("model.external_lib", "none", "", "load the library as a Trinity plugin (--plugin-dir)"),
    Rule("model.tiled_mlp.*", "none", "", "tiled MLP is not in the veRL workers Trinity runs"),
    Rule("model.mtp.*", "none", "", "multi-token prediction is not in Trinity-RFT 0.6"),
    # ---- engine (sft_trainer_engine): the FSDP worker settings
    Rule("engine.ulysses_sequence_parallel_size", "map", "trainer.ulysses_sequence_parallel_size"),
    Rule("engine.strategy", "rule", "sft.map_sft_model", "trainer.trainer_strategy"),
    Rule("engine.*", "pass", f"{A}.fsdp_config.*"),
    # ---- optimizer (rftc/mapping/sft.py for the schedule)
    Rule("optim.lr", "map", "algorithm.optimizer.lr", explicit=True),
    Rule("optim.weight_decay", "map", "algorithm.optimizer.weight_decay", explicit=True),
    Rule("optim.betas", "map", "algorithm.optimizer.betas", explicit=True),
    Rule("optim.clip_grad", "map", "algorithm.optimizer.clip_grad"),
    *[Rule(f"optim.{k}", "rule", "sft.map_sft_schedule", n) for k, n in [
        ("warmup_steps_ratio", "algorithm.optimizer.lr_warmup_steps_ratio"),
        ("lr_warmup_steps_ratio", "algorithm.optimizer.lr_warmup_steps_ratio"),
        ("lr_warmup_steps", "algorithm.optimizer.lr_warmup_steps"),
        ("lr_scheduler", "algorithm.optimizer.lr_scheduler_type (cosine; wsd has no equivalent)"),
        ("lr_scheduler_type", "algorithm.optimizer.lr_scheduler_type"),
        ("warmup_style", "algorithm.optimizer.lr_scheduler_type"),
        ("min_lr_ratio", "algorithm.optimizer.min_lr_ratio"),
    ]],
    Rule("optim.optimizer", "map", "algorithm.optimizer.optimizer_type", transform=lambda v: str(v).lower()),
    Rule("optim.num_cycles", "pass", f"{A}.optim.num_cycles"),
    Rule("optim.override_optimizer_config.*", "pass", f"{A}.optim.override_optimizer_config.*"),
    Rule("optim.total_training_steps", "implied", "", "Trinity sets it from trainer.total_steps"),
    Rule("optim.*", "none", "", "Trinity 0.6 sets the optimizer from algorithm.optimizer only"),
    # ---- steps and checkpoints (rftc/mapping/sft.py)
    *[Rule(f"trainer.{k}", "rule", "sft.map_sft_steps", n) for k, n in [
        ("total_epochs", "buffer.total_epochs"),
        ("total_training_steps", "trainer.total_steps and buffer.total_steps"),
        ("save_freq", "trainer.save_interval (the last step is always saved, as in veRL)"),
        ("test_freq", "no validation in Trinity's SFT (mode train)"),
        ("max_ckpt_to_keep", "trainer.max_checkpoints_to_keep"),
    ]],
    Rule("trainer.checkpoint.*", "pass", f"{A}.checkpoint.*"),
    Rule("checkpoint.*", "pass", f"{A}.checkpoint.*"),
    Rule("trainer.resume_path", "implied", "", "superseded by trainer.resume_from_path"),
    # ---- run-level settings shared with main_ppo (rftc/mapping/trainer.py)
    *[Rule(f"trainer.{k}", "rule", "trainer.map_trainer", n) for k, n in [
        ("project_name", "project"), ("experiment_name", "name"),
        ("nnodes", "cluster.node_num"), ("n_gpus_per_node", "cluster.gpu_per_node"),
        ("logger", "monitor.monitor_type"), ("default_local_dir", "checkpoint_root_dir"),
        ("resume_mode", "continue_from_checkpoint"), ("resume_from_path", "no equivalent"),
        ("balance_batch", "trainer.balance_batch"), ("device", "cuda is implied")]],
    Rule("trainer.seed", "none", "", "Trinity's trainer takes no seed; the data order follows the experience "
         "buffer's data_selector.seed"),
    *[Rule(f"{k}._target_", "implied", "", "the class veRL builds the section as") for k in
      ("model", "optim", "engine", "checkpoint", "profiler")],
    *[Rule(k, "handled", "", n) for k, n in [
        ("trainer.default_hdfs_dir", "checkpoint upload"), ("trainer.profile_interval", "profiling"),
        ("profiler.*", "profiling"), ("global_profiler.*", "profiling"), ("model_engine", "veRL worker selection")]],
]
