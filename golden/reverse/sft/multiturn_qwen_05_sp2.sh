#!/usr/bin/env bash
# veRL 0.6.1 fsdp_sft_trainer launch compiled by rftc from multiturn_qwen_05_sp2.yaml. Each comment names the Trinity
# key(s) an override came from (file:line where the config sets them) and the formula.
set -euo pipefail

overrides=(
    # multiturn_qwen_05_sp2.yaml:34 buffer.trainer_input.experience_buffer.path, buffer.trainer_input.experience_buffer.split (Trinity's default): the train split's parquet file under ${oc.env:HOME}/data/multiturn
    "data.train_files=${HOME}/data/multiturn/train.parquet"
    # multiturn_qwen_05_sp2.yaml:29 buffer.train_batch_size
    'data.train_batch_size=256'
    # multiturn_qwen_05_sp2.yaml:53 trainer.trainer_config.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu
    'data.micro_batch_size_per_gpu=4'
    # multiturn_qwen_05_sp2.yaml:22 model.max_model_len
    'data.max_length=1024'
    # buffer.trainer_input.experience_buffer.format.prompt_type: messages: veRL's multi-turn dataset
    'data.multiturn.enable=True'
    # buffer.trainer_input.experience_buffer.format.messages_key
    'data.multiturn.messages_key=messages'
    # buffer.trainer_input.experience_buffer.format.tools_key
    'data.multiturn.tools_key=tools'
    # multiturn_qwen_05_sp2.yaml:21 model.model_path
    'model.partial_pretrain=Qwen/Qwen2.5-0.5B-Instruct'
    # multiturn_qwen_05_sp2.yaml:44 trainer.trainer_strategy
    'model.strategy=fsdp2'
    # multiturn_qwen_05_sp2.yaml:48 trainer.ulysses_sequence_parallel_size
    'ulysses_sequence_parallel_size=2'
    # multiturn_qwen_05_sp2.yaml:49 trainer.use_remove_padding
    'use_remove_padding=True'
    # multiturn_qwen_05_sp2.yaml:12 algorithm.optimizer.lr
    'optim.lr=1e-05'
    # multiturn_qwen_05_sp2.yaml:19 algorithm.optimizer.weight_decay
    'optim.weight_decay=0.01'
    # multiturn_qwen_05_sp2.yaml:16 algorithm.optimizer.betas
    'optim.betas=[0.9,0.95]'
    # algorithm.optimizer.clip_grad (Trinity's default)
    'optim.clip_grad=1.0'
    # multiturn_qwen_05_sp2.yaml:14 algorithm.optimizer.lr_scheduler_type
    'optim.lr_scheduler=cosine'
    # multiturn_qwen_05_sp2.yaml:15 algorithm.optimizer.min_lr_ratio
    'optim.min_lr_ratio=0.0'
    # multiturn_qwen_05_sp2.yaml:13 algorithm.optimizer.lr_warmup_steps_ratio
    'optim.lr_warmup_steps_ratio=0.1'
    # multiturn_qwen_05_sp2.yaml:27 buffer.total_epochs
    'trainer.total_epochs=4'
    # multiturn_qwen_05_sp2.yaml:45 trainer.total_steps, multiturn_qwen_05_sp2.yaml:28 buffer.total_steps
    'trainer.total_training_steps=1'
    # multiturn_qwen_05_sp2.yaml:6 project
    'trainer.project_name=multiturn-sft'
    # multiturn_qwen_05_sp2.yaml:7 name
    'trainer.experiment_name=multiturn-sft-qwen-2.5-0.5b-instruct-sp2'
)
# multiturn_qwen_05_sp2.yaml:24 cluster.node_num, multiturn_qwen_05_sp2.yaml:25 cluster.gpu_per_node: torchrun's world, the whole cluster (mode train)
torchrun --standalone --nnodes=1 --nproc_per_node=2 -m verl.trainer.fsdp_sft_trainer "${overrides[@]}" "$@"
