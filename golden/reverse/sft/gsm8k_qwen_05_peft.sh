#!/usr/bin/env bash
# veRL 0.7.0 fsdp_sft_trainer launch compiled by rftc from gsm8k_qwen_05_peft.yaml. Each comment names the Trinity
# key(s) an override came from (file:line where the config sets them) and the formula.
set -euo pipefail

overrides=(
    # gsm8k_qwen_05_peft.yaml:37 buffer.trainer_input.experience_buffer.path, buffer.trainer_input.experience_buffer.split (Trinity's default): the train split's parquet file under ${oc.env:HOME}/data/gsm8k
    "data.train_files=${HOME}/data/gsm8k/train.parquet"
    # gsm8k_qwen_05_peft.yaml:32 buffer.train_batch_size
    'data.train_batch_size=256'
    # gsm8k_qwen_05_peft.yaml:54 trainer.trainer_config.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu
    'data.micro_batch_size_per_gpu=4'
    # gsm8k_qwen_05_peft.yaml:22 model.max_model_len
    'data.max_length=1024'
    # buffer.trainer_input.experience_buffer.format.prompt_key
    'data.prompt_key=extra_info'
    # buffer.trainer_input.experience_buffer.format.response_key
    'data.response_key=extra_info'
    # gsm8k_qwen_05_peft.yaml:21 model.model_path
    'model.partial_pretrain=Qwen/Qwen2.5-0.5B-Instruct'
    # gsm8k_qwen_05_peft.yaml:23 model.lora_configs
    'model.lora_rank=32'
    # gsm8k_qwen_05_peft.yaml:23 model.lora_configs
    'model.lora_alpha=16'
    # gsm8k_qwen_05_peft.yaml:23 model.lora_configs
    'model.target_modules=all-linear'
    # gsm8k_qwen_05_peft.yaml:47 trainer.trainer_strategy
    'model.strategy=fsdp2'
    # trainer.ulysses_sequence_parallel_size (Trinity's default)
    'ulysses_sequence_parallel_size=1'
    # trainer.use_remove_padding (Trinity's default)
    'use_remove_padding=True'
    # gsm8k_qwen_05_peft.yaml:12 algorithm.optimizer.lr
    'optim.lr=0.0001'
    # gsm8k_qwen_05_peft.yaml:19 algorithm.optimizer.weight_decay
    'optim.weight_decay=0.01'
    # gsm8k_qwen_05_peft.yaml:16 algorithm.optimizer.betas
    'optim.betas=[0.9,0.95]'
    # algorithm.optimizer.clip_grad (Trinity's default)
    'optim.clip_grad=1.0'
    # gsm8k_qwen_05_peft.yaml:14 algorithm.optimizer.lr_scheduler_type
    'optim.lr_scheduler=cosine'
    # gsm8k_qwen_05_peft.yaml:15 algorithm.optimizer.min_lr_ratio
    'optim.min_lr_ratio=0.0'
    # gsm8k_qwen_05_peft.yaml:13 algorithm.optimizer.lr_warmup_steps_ratio
    'optim.lr_warmup_steps_ratio=0.1'
    # gsm8k_qwen_05_peft.yaml:31 buffer.total_epochs
    'trainer.total_epochs=1'
    # gsm8k_qwen_05_peft.yaml:48 trainer.total_steps
    'trainer.total_training_steps=29'
    # gsm8k_qwen_05_peft.yaml:6 project
    'trainer.project_name=gsm8k-sft'
    # gsm8k_qwen_05_peft.yaml:7 name
    'trainer.experiment_name=gsm8k-sft-qwen-2.5-0.5b-instruct'
)
# gsm8k_qwen_05_peft.yaml:28 cluster.node_num, gsm8k_qwen_05_peft.yaml:29 cluster.gpu_per_node: torchrun's world, the whole cluster (mode train)
torchrun --standalone --nnodes=1 --nproc_per_node=2 -m verl.trainer.fsdp_sft_trainer "${overrides[@]}" "$@"
