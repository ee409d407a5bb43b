#!/usr/bin/env bash
# veRL 0.2 main_ppo launch compiled by rftc from input.yaml. Each comment names the Trinity
# key(s) an override came from (file:line where the config sets them) and the formula.
set -euo pipefail

overrides=(
    # input.yaml:7 algorithm.repeat_times
    'actor_rollout_ref.rollout.n=16'
    # algorithm.advantage_fn (Trinity's default)
    'algorithm.adv_estimator=grpo'
    # buffer.train_batch_size (Trinity's default), input.yaml:7 algorithm.repeat_times: buffer.train_batch_size / repeat_times = 128/16 prompts
    'actor_rollout_ref.actor.ppo_mini_batch_size=8'
    # buffer.train_batch_size (Trinity's default), input.yaml:34 synchronizer.sync_interval, input.yaml:7 algorithm.repeat_times: buffer.train_batch_size x trainer_sync_interval / responses a prompt = 128x16/16
    'data.train_batch_size=128'
    # trainer.trainer_config.actor_rollout_ref.actor.ppo_epochs (Trinity's default)
    'actor_rollout_ref.actor.ppo_epochs=1'
    # input.yaml:19 buffer.total_epochs
    'trainer.total_epochs=10'
    # algorithm.optimizer.lr (Trinity's default)
    'actor_rollout_ref.actor.optim.lr=1e-06'
    # algorithm.optimizer.lr_scheduler_type (Trinity's default)
    'actor_rollout_ref.actor.optim.warmup_style=constant'
    # algorithm.optimizer.lr_warmup_steps_ratio (Trinity's default)
    'actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.0'
    # input.yaml:8 algorithm.kl_loss_fn
    'actor_rollout_ref.actor.use_kl_loss=True'
    # input.yaml:8 algorithm.kl_loss_fn
    'actor_rollout_ref.actor.kl_loss_type=low_var_kl'
    # input.yaml:9 algorithm.kl_loss_fn_args
    'actor_rollout_ref.actor.kl_loss_coef=0.001'
    # algorithm.entropy_loss_fn (Trinity's default), algorithm.entropy_loss_fn_args (Trinity's default)
    'actor_rollout_ref.actor.entropy_coeff=0.0'
    # buffer.explorer_input.tasksets.0.rollout_args.temperature (Trinity's default)
    'actor_rollout_ref.rollout.temperature=1.0'
    # model.top_p (Trinity's default)
    'actor_rollout_ref.rollout.top_p=1.0'
    # buffer.explorer_input.tasksets.0.rollout_args.top_k (Trinity's default)
    'actor_rollout_ref.rollout.top_k=-1'
    # input.yaml:13 model.max_prompt_tokens
    'data.max_prompt_length=768'
    # input.yaml:14 model.max_response_tokens
    'data.max_response_length=4000'
    # buffer.explorer_input.tasksets.0.path, split: the train split's parquet file under data/math
    'data.train_files=data/math/train.parquet'
    # buffer.explorer_input.tasksets.0.format.prompt_key
    'data.prompt_key=prompt'
    # buffer.explorer_input.tasksets.0.data_selector.selector_type: sequential: in file order
    'data.shuffle=False'
    # model.model_path
    'actor_rollout_ref.model.path=Qwen/Qwen2.5-1.5B-Instruct'
    # cluster.node_num, cluster.gpu_per_node: the trainer's share of 2x8 GPUs (8 go to Trinity's explorer; veRL rolls out on the training GPUs)
    'trainer.nnodes=1'
    # cluster.gpu_per_node: the trainer's share of 2x8 GPUs (8 go to Trinity's explorer; veRL rolls out on the training GPUs)
    'trainer.n_gpus_per_node=8'
    # explorer.rollout_model.engine_type
    'actor_rollout_ref.rollout.name=vllm'
    # explorer.rollout_model.tensor_parallel_size
    'actor_rollout_ref.rollout.tensor_model_parallel_size=1'
    # explorer.rollout_model.gpu_memory_utilization
    'actor_rollout_ref.rollout.gpu_memory_utilization=0.9'
    # trainer.use_dynamic_bsz
    'actor_rollout_ref.actor.use_dynamic_bsz=False'
    # trainer.ulysses_sequence_parallel_size
    'actor_rollout_ref.actor.ulysses_sequence_parallel_size=1'
    # trainer.use_remove_padding
    'actor_rollout_ref.model.use_remove_padding=True'
    # project
    'trainer.project_name=demo'
    # name
    'trainer.experiment_name=micro'
    # trainer.trainer_config.actor_rollout_ref.ref.fsdp_config.model_dtype (Trinity's default): verl 0.2's legacy worker loads the reference in bf16 where it is unset
    '+actor_rollout_ref.ref.fsdp_config.model_dtype=fp32'
    # trainer.trainer_config actor.ppo_micro_batch_size: Trinity's trainer divides 64 by its 8 data-parallel ranks: 8 a GPU
    'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8'
    # trainer.trainer_config rollout.log_prob_micro_batch_size: Trinity's trainer divides 128 by its 8 data-parallel ranks: 16 a GPU
    'actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16'
    # trainer.trainer_config ref.log_prob_micro_batch_size: Trinity's trainer divides 128 by its 8 data-parallel ranks: 16 a GPU
    'actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=16'
)
python3 -m verl.trainer.main_ppo "${overrides[@]}" "$@"
