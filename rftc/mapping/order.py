"""Key order of the emitted config: the Trinity guide's section order, then each section's natural order.
Keys not listed keep their insertion order after the listed ones."""

from __future__ import annotations

TASKSET = ["name", "storage_type", "path", "subset_name", "split", "repeat_times", "format", "rollout_args",
           "data_selector", "default_workflow_type", "default_reward_fn_type", "reward_fn_args"]
ORDER: dict[str, list[str]] = {
    "": ["mode", "project", "name", "checkpoint_root_dir", "continue_from_checkpoint", "algorithm", "model",
         "cluster", "buffer", "explorer", "synchronizer", "trainer", "monitor"],
    "algorithm": ["algorithm_type", "repeat_times", "optimizer", "advantage_fn", "advantage_fn_args",
                  "kl_penalty_fn", "kl_penalty_fn_args", "kl_loss_fn", "kl_loss_fn_args", "entropy_loss_fn_args",
                  "policy_loss_fn", "policy_loss_fn_args", "loss_agg_mode", "bypass_old_logprobs",
                  "rollout_correction"],
    "algorithm.optimizer": ["lr", "lr_warmup_steps", "lr_warmup_steps_ratio", "lr_scheduler_type", "min_lr_ratio",
                            "optimizer_type", "betas", "weight_decay", "clip_grad"],
    "model": ["model_path", "critic_model_path", "trust_remote_code", "custom_chat_template", "max_prompt_tokens",
              "max_response_tokens", "max_model_len", "enable_prompt_truncation", "temperature", "top_p", "top_k",
              "enable_thinking", "lora_configs"],
    "cluster": ["node_num", "gpu_per_node"],
    "buffer": ["total_epochs", "total_steps", "batch_size", "train_batch_size", "explorer_input"],
    "buffer.explorer_input": ["default_workflow_type", "default_reward_fn_type", "tasksets", "eval_tasksets"],
    "buffer.explorer_input.tasksets.*": TASKSET,
    "buffer.explorer_input.eval_tasksets.*": TASKSET,
    "explorer": ["eval_interval", "eval_on_startup", "rollout_model", "auxiliary_models"],
    "explorer.rollout_model": ["engine_type", "engine_num", "tensor_parallel_size", "data_parallel_size",
                               "pipeline_parallel_size", "enable_expert_parallel", "gpu_memory_utilization",
                               "enforce_eager", "enable_prefix_caching", "enable_chunked_prefill", "dtype",
                               "ignore_eos", "extra_engine_args"],
    "explorer.auxiliary_models.*": ["model_path", "engine_num", "tensor_parallel_size", "gpu_memory_utilization"],
    "synchronizer": ["sync_style", "sync_offset", "sync_interval", "explorer_sync_interval", "sync_timeout"],
    "trainer": ["trainer_strategy", "total_steps", "save_interval", "use_dynamic_bsz", "max_token_len_per_gpu",
                "ulysses_sequence_parallel_size", "grad_clip", "use_remove_padding", "param_offload",
                "optimizer_offload", "grad_offload", "critic_warmup", "balance_batch", "max_checkpoints_to_keep",
                "megatron", "trainer_config"],
    "trainer.trainer_config": ["actor_rollout_ref", "critic"],
    "trainer.trainer_config.actor_rollout_ref": ["model", "actor", "ref", "rollout"],
    "trainer.trainer_config.critic": ["model", "optim"],
}


def ordered(node, path: str = ""):
    if isinstance(node, list):
        return [ordered(x, f"{path}.*" if path else "*") for x in node]
    if not isinstance(node, dict):
        return node
    order = ORDER.get(path, [])
    rank = {k: i for i, k in enumerate(order)}
    keys = sorted(node, key=lambda k: (rank.get(k, len(order)), list(node).index(k)))
    return {k: ordered(node[k], f"{path}.{k}" if path else k) for k in keys}
