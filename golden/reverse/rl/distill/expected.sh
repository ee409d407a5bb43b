#!/usr/bin/env bash
# veRL 0.9.1 main_ppo launch compiled by rftc from input.yaml. Each comment names the Trinity
# key(s) an override came from (file:line where the config sets them) and the formula.
set -euo pipefail

overrides=(
    # input.yaml:9 algorithm.repeat_times
    'actor_rollout_ref.rollout.n=8'
    # algorithm.advantage_fn (Trinity's default): the distillation loss reads no task advantage; grpo trains no critic (veRL's default gae would)
    'algorithm.adv_estimator=grpo'
    # buffer.train_batch_size (Trinity's default), input.yaml:9 algorithm.repeat_times: buffer.train_batch_size / repeat_times = 256/8 prompts
    'actor_rollout_ref.actor.ppo_mini_batch_size=32'
    # buffer.train_batch_size (Trinity's default), input.yaml:46 synchronizer.sync_interval, input.yaml:9 algorithm.repeat_times: buffer.train_batch_size x trainer_sync_interval / responses a prompt = 256x1/8
    'data.train_batch_size=32'
    # trainer.trainer_config.actor_rollout_ref.actor.ppo_epochs (Trinity's default)
    'actor_rollout_ref.actor.ppo_epochs=1'
    # input.yaml:20 buffer.total_epochs
    'trainer.total_epochs=1'
    # input.yaml:11 algorithm.optimizer.lr
    'actor_rollout_ref.actor.optim.lr=1e-06'
    # algorithm.optimizer.weight_decay (Trinity's default)
    'actor_rollout_ref.actor.optim.weight_decay=0.01'
    # algorithm.optimizer.lr_scheduler_type (Trinity's default)
    'actor_rollout_ref.actor.optim.lr_scheduler_type=constant'
    # algorithm.optimizer.lr_warmup_steps_ratio (Trinity's default)
    'actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.0'
    # algorithm.policy_loss_fn (Trinity's default)
    'actor_rollout_ref.actor.policy_loss.loss_mode=vanilla'
    # algorithm.loss_agg_mode (Trinity's default)
    'actor_rollout_ref.actor.loss_agg_mode=token-mean'
    # algorithm.advantage_fn (Trinity's default)
    'distillation.enabled=True'
    # algorithm.advantage_fn (Trinity's default), algorithm.advantage_fn_args (Trinity's default): kl_coef x (teacher - student log-prob) as the advantage, no task rewards
    'distillation.distillation_loss.loss_mode=k1'
    # algorithm.advantage_fn (Trinity's default), algorithm.advantage_fn_args (Trinity's default): kl_coef x (teacher - student log-prob) as the advantage, no task rewards
    'distillation.distillation_loss.use_policy_gradient=True'
    # algorithm.advantage_fn (Trinity's default), algorithm.advantage_fn_args (Trinity's default): kl_coef x (teacher - student log-prob) as the advantage, no task rewards
    'distillation.distillation_loss.use_task_rewards=False'
    # algorithm.policy_loss_fn_args (Trinity's default)
    'distillation.distillation_loss.clip_ratio_low=0.2'
    # algorithm.policy_loss_fn_args (Trinity's default)
    'distillation.distillation_loss.clip_ratio_high=0.2'
    # explorer.auxiliary_models.0.model_path
    'distillation.teacher_models.teacher_model.model_path=Qwen/Qwen2.5-7B-Instruct'
    # explorer.auxiliary_models.0.dtype
    'distillation.teacher_models.teacher_model.inference.dtype=bfloat16'
    # explorer.auxiliary_models.0.tensor_parallel_size
    'distillation.teacher_models.teacher_model.inference.tensor_model_parallel_size=2'
    # explorer.auxiliary_models.0.data_parallel_size
    'distillation.teacher_models.teacher_model.inference.data_parallel_size=1'
    # explorer.auxiliary_models.0.gpu_memory_utilization
    'distillation.teacher_models.teacher_model.inference.gpu_memory_utilization=0.9'
    # explorer.auxiliary_models.0.max_model_len
    'distillation.teacher_models.teacher_model.inference.max_model_len=3073'
    # explorer.auxiliary_models.0.engine_num, cluster.gpu_per_node: the teacher's 2 GPUs (engine_num x GPUs an engine), on nodes of 2
    'distillation.nnodes=1'
    # explorer.auxiliary_models.0.engine_num, cluster.gpu_per_node: the teacher's 2 GPUs (engine_num x GPUs an engine), on nodes of 2
    'distillation.n_gpus_per_node=2'
    # algorithm.bypass_old_logprobs (Trinity's default): the rollout's log-probs are the old ones: veRL's bypass mode, its ppo_clip loss the vanilla loss
    'algorithm.rollout_correction.bypass_mode=True'
    # input.yaml:32 buffer.explorer_input.tasksets.0.rollout_args.temperature
    'actor_rollout_ref.rollout.temperature=1.0'
    # model.top_p (Trinity's default)
    'actor_rollout_ref.rollout.top_p=1.0'
    # buffer.explorer_input.tasksets.0.rollout_args.top_k (Trinity's default)
    'actor_rollout_ref.rollout.top_k=-1'
    # input.yaml:14 model.max_prompt_tokens
    'data.max_prompt_length=1024'
    # input.yaml:15 model.max_response_tokens
    'data.max_response_length=2048'
    # model.enable_prompt_truncation (Trinity's default)
    'data.filter_overlong_prompts=True'
    # buffer.explorer_input.tasksets.0.path, split: the train split's parquet file under /data/gsm8k
    'data.train_files=/data/gsm8k/train.parquet'
    # buffer.explorer_input.tasksets.0.format.prompt_key
    'data.prompt_key=question'
    # buffer.explorer_input.tasksets.0.data_selector.selector_type: sequential: in file order
    'data.shuffle=False'
    # model.model_path
    'actor_rollout_ref.model.path=Qwen/Qwen2.5-1.5B-Instruct'
    # cluster.node_num, cluster.gpu_per_node: the trainer's share of 1x8 GPUs (4 go to Trinity's explorer; veRL rolls out on the training GPUs)
    'trainer.nnodes=1'
    # cluster.gpu_per_node: the trainer's share of 1x8 GPUs (4 go to Trinity's explorer; veRL rolls out on the training GPUs)
    'trainer.n_gpus_per_node=4'
    # explorer.rollout_model.engine_type
    'actor_rollout_ref.rollout.name=vllm'
    # explorer.rollout_model.tensor_parallel_size
    'actor_rollout_ref.rollout.tensor_model_parallel_size=1'
    # explorer.rollout_model.gpu_memory_utilization
    'actor_rollout_ref.rollout.gpu_memory_utilization=0.9'
    # trainer.use_dynamic_bsz
    'actor_rollout_ref.actor.use_dynamic_bsz=True'
    # trainer.max_token_len_per_gpu: Trinity's default: ceil(2 x max_model_len / sequence parallel)
    'actor_rollout_ref.actor.ppo_max_token_len_per_gpu=6144'
    # trainer.ulysses_sequence_parallel_size
    'actor_rollout_ref.actor.ulysses_sequence_parallel_size=1'
    # trainer.use_remove_padding
    'actor_rollout_ref.model.use_remove_padding=True'
    # project
    'trainer.project_name=opd'
    # name
    'trainer.experiment_name=gsm8k_opd'
    # trainer.trainer_config actor.ppo_micro_batch_size_per_gpu: passed through
    'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4'
    # trainer.trainer_config rollout.log_prob_micro_batch_size_per_gpu: passed through
    'actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8'
)
python3 -m verl.trainer.main_ppo "${overrides[@]}" "$@"
