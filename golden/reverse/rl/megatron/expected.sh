#!/usr/bin/env bash
# veRL 0.9.1 main_ppo launch compiled by rftc from input.yaml. Each comment names the Trinity
# key(s) an override came from (file:line where the config sets them) and the formula.
set -euo pipefail

overrides=(
    # input.yaml:6 algorithm.repeat_times
    'actor_rollout_ref.rollout.n=4'
    # algorithm.advantage_fn (Trinity's default)
    'algorithm.adv_estimator=grpo'
    # buffer.train_batch_size (Trinity's default), input.yaml:6 algorithm.repeat_times: buffer.train_batch_size / repeat_times = 256/4 prompts
    'actor_rollout_ref.actor.ppo_mini_batch_size=64'
    # buffer.train_batch_size (Trinity's default), input.yaml:34 synchronizer.sync_interval, input.yaml:6 algorithm.repeat_times: buffer.train_batch_size x trainer_sync_interval / responses a prompt = 256x2/4
    'data.train_batch_size=128'
    # trainer.trainer_config.actor_rollout_ref.actor.ppo_epochs (Trinity's default)
    'actor_rollout_ref.actor.ppo_epochs=1'
    # input.yaml:18 buffer.total_epochs
    'trainer.total_epochs=1'
    # algorithm.optimizer.lr (Trinity's default)
    'actor_rollout_ref.actor.optim.lr=1e-06'
    # algorithm.optimizer.weight_decay (Trinity's default)
    'actor_rollout_ref.actor.optim.weight_decay=0.01'
    # algorithm.optimizer.lr_warmup_steps_ratio (Trinity's default)
    'actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.0'
    # input.yaml:7 algorithm.kl_loss_fn
    'actor_rollout_ref.actor.use_kl_loss=True'
    # input.yaml:7 algorithm.kl_loss_fn
    'actor_rollout_ref.actor.kl_loss_type=low_var_kl'
    # input.yaml:8 algorithm.kl_loss_fn_args
    'actor_rollout_ref.actor.kl_loss_coef=0.001'
    # algorithm.kl_penalty_fn (Trinity's default)
    'algorithm.use_kl_in_reward=False'
    # algorithm.policy_loss_fn (Trinity's default)
    'actor_rollout_ref.actor.policy_loss.loss_mode=vanilla'
    # algorithm.policy_loss_fn_args (Trinity's default)
    'actor_rollout_ref.actor.clip_ratio_low=0.2'
    # algorithm.policy_loss_fn_args (Trinity's default)
    'actor_rollout_ref.actor.clip_ratio_high=0.2'
    # algorithm.policy_loss_fn_args (Trinity's default)
    'actor_rollout_ref.actor.clip_ratio_c=3.0'
    # algorithm.entropy_loss_fn (Trinity's default), algorithm.entropy_loss_fn_args (Trinity's default)
    'actor_rollout_ref.actor.entropy_coeff=0.0'
    # algorithm.loss_agg_mode (Trinity's default)
    'actor_rollout_ref.actor.loss_agg_mode=token-mean'
    # algorithm.bypass_old_logprobs (Trinity's default): the rollout's log-probs are the old ones: veRL's bypass mode, its ppo_clip loss the vanilla loss
    'algorithm.rollout_correction.bypass_mode=True'
    # buffer.explorer_input.tasksets.0.rollout_args.temperature (Trinity's default)
    'actor_rollout_ref.rollout.temperature=1.0'
    # model.top_p (Trinity's default)
    'actor_rollout_ref.rollout.top_p=1.0'
    # buffer.explorer_input.tasksets.0.rollout_args.top_k (Trinity's default)
    'actor_rollout_ref.rollout.top_k=-1'
    # input.yaml:12 model.max_prompt_tokens
    'data.max_prompt_length=1024'
    # input.yaml:13 model.max_response_tokens
    'data.max_response_length=1024'
    # model.enable_prompt_truncation (Trinity's default)
    'data.filter_overlong_prompts=True'
    # buffer.explorer_input.tasksets.0.path, split: the train split's parquet file under openai/gsm8k
    'data.train_files=openai/gsm8k/train.parquet'
    # buffer.explorer_input.tasksets.0.format.prompt_key
    'data.prompt_key=prompt'
    # buffer.explorer_input.tasksets.0.data_selector.selector_type: sequential: in file order
    'data.shuffle=False'
    # model.model_path
    'actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct'
    # cluster.node_num, cluster.gpu_per_node: the trainer's share of 1x8 GPUs (4 go to Trinity's explorer; veRL rolls out on the training GPUs)
    'trainer.nnodes=1'
    # cluster.gpu_per_node: the trainer's share of 1x8 GPUs (4 go to Trinity's explorer; veRL rolls out on the training GPUs)
    'trainer.n_gpus_per_node=4'
    # explorer.rollout_model.engine_type
    'actor_rollout_ref.rollout.name=vllm'
    # explorer.rollout_model.tensor_parallel_size
    'actor_rollout_ref.rollout.tensor_model_parallel_size=2'
    # explorer.rollout_model.gpu_memory_utilization
    'actor_rollout_ref.rollout.gpu_memory_utilization=0.9'
    # trainer.use_dynamic_bsz
    'actor_rollout_ref.actor.use_dynamic_bsz=False'
    # trainer.use_remove_padding
    'actor_rollout_ref.model.use_remove_padding=True'
    # project
    'trainer.project_name=demo'
    # name
    'trainer.experiment_name=megatron'
    # input.yaml:39 trainer.megatron.tensor_model_parallel_size
    'actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2'
    # input.yaml:40 trainer.megatron.pipeline_model_parallel_size
    'actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2'
    # trainer.megatron.expert_model_parallel_size (Trinity's default)
    'actor_rollout_ref.actor.megatron.expert_model_parallel_size=1'
    # trainer.megatron.context_parallel_size (Trinity's default)
    'actor_rollout_ref.actor.megatron.context_parallel_size=1'
    # trainer.megatron.sequence_parallel (Trinity's default)
    'actor_rollout_ref.actor.megatron.sequence_parallel=True'
    # trainer.param_offload (Trinity's default)
    'actor_rollout_ref.actor.megatron.param_offload=False'
    # trainer.optimizer_offload (Trinity's default)
    'actor_rollout_ref.actor.megatron.optimizer_offload=False'
    # input.yaml:39 trainer.megatron.tensor_model_parallel_size
    'actor_rollout_ref.ref.megatron.tensor_model_parallel_size=2'
    # input.yaml:40 trainer.megatron.pipeline_model_parallel_size
    'actor_rollout_ref.ref.megatron.pipeline_model_parallel_size=2'
    # trainer.megatron.expert_model_parallel_size (Trinity's default)
    'actor_rollout_ref.ref.megatron.expert_model_parallel_size=1'
    # trainer.megatron.context_parallel_size (Trinity's default)
    'actor_rollout_ref.ref.megatron.context_parallel_size=1'
    # trainer.megatron.sequence_parallel (Trinity's default)
    'actor_rollout_ref.ref.megatron.sequence_parallel=True'
    # trainer.param_offload (Trinity's default)
    'actor_rollout_ref.ref.megatron.param_offload=False'
    # trainer.trainer_config actor.ppo_micro_batch_size_per_gpu: passed through
    'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8'
    # trainer.use_dynamic_bsz: Trinity's default micro-batch size
    'actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1'
    # trainer.use_dynamic_bsz: Trinity's default micro-batch size
    'actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1'
)
python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer "${overrides[@]}" "$@"
