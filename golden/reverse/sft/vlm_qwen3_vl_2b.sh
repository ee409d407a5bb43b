#!/usr/bin/env bash
# veRL 0.9.1 sft_trainer launch compiled by rftc from vlm_qwen3_vl_2b.yaml. Each comment names the Trinity
# key(s) an override came from (file:line where the config sets them) and the formula.
set -euo pipefail

overrides=(
    # vlm_qwen3_vl_2b.yaml:35 buffer.trainer_input.experience_buffer.path, buffer.trainer_input.experience_buffer.split (Trinity's default): the train split's parquet file under ${oc.env:HOME}/data/pokemon-gpt4o-captions
    "data.train_files=${HOME}/data/pokemon-gpt4o-captions/train.parquet"
    # vlm_qwen3_vl_2b.yaml:30 buffer.train_batch_size
    'data.train_batch_size=96'
    # vlm_qwen3_vl_2b.yaml:49 trainer.use_dynamic_bsz
    'data.use_dynamic_bsz=True'
    # vlm_qwen3_vl_2b.yaml:50 trainer.max_token_len_per_gpu
    'data.max_token_len_per_gpu=65536'
    # vlm_qwen3_vl_2b.yaml:24 model.max_model_len
    'data.max_length=2048'
    # buffer.trainer_input.experience_buffer.format.messages_key
    'data.messages_key=messages'
    # buffer.trainer_input.experience_buffer.format.tools_key
    'data.tools_key=tools'
    # vlm_qwen3_vl_2b.yaml:23 model.model_path
    "model.path=${PWD}/model/Qwen3-VL-2B-Instruct"
    # vlm_qwen3_vl_2b.yaml:46 trainer.trainer_strategy
    'engine.strategy=fsdp2'
    # vlm_qwen3_vl_2b.yaml:51 trainer.ulysses_sequence_parallel_size
    'engine.ulysses_sequence_parallel_size=2'
    # vlm_qwen3_vl_2b.yaml:52 trainer.use_remove_padding
    'model.use_remove_padding=True'
    # vlm_qwen3_vl_2b.yaml:38 buffer.trainer_input.experience_buffer.format: format.enable_thinking
    'data.enable_thinking_default=True'
    # vlm_qwen3_vl_2b.yaml:13 algorithm.optimizer.lr
    'optim.lr=2e-05'
    # vlm_qwen3_vl_2b.yaml:20 algorithm.optimizer.weight_decay
    'optim.weight_decay=0.1'
    # vlm_qwen3_vl_2b.yaml:17 algorithm.optimizer.betas
    'optim.betas=[0.9,0.95]'
    # vlm_qwen3_vl_2b.yaml:21 algorithm.optimizer.clip_grad
    'optim.clip_grad=1.0'
    # vlm_qwen3_vl_2b.yaml:15 algorithm.optimizer.lr_scheduler_type
    'optim.lr_scheduler_type=cosine'
    # vlm_qwen3_vl_2b.yaml:16 algorithm.optimizer.min_lr_ratio
    'optim.min_lr_ratio=0.1'
    # vlm_qwen3_vl_2b.yaml:14 algorithm.optimizer.lr_warmup_steps_ratio
    'optim.lr_warmup_steps_ratio=0.01'
    # vlm_qwen3_vl_2b.yaml:29 buffer.total_epochs
    'trainer.total_epochs=10'
    # vlm_qwen3_vl_2b.yaml:47 trainer.total_steps
    'trainer.total_training_steps=80'
    # vlm_qwen3_vl_2b.yaml:48 trainer.save_interval
    'trainer.save_freq=4000'
    # vlm_qwen3_vl_2b.yaml:53 trainer.max_checkpoints_to_keep
    'trainer.max_ckpt_to_keep=5'
    # vlm_qwen3_vl_2b.yaml:6 project
    'trainer.project_name=verl_sft_test'
    # vlm_qwen3_vl_2b.yaml:7 name
    'trainer.experiment_name=pokemon-qwen3-2b-fsdp-fsdp2-sp2-fsdp-1202a1'
)
# vlm_qwen3_vl_2b.yaml:26 cluster.node_num, vlm_qwen3_vl_2b.yaml:27 cluster.gpu_per_node: torchrun's world, the whole cluster (mode train)
torchrun --standalone --nnodes=1 --nproc_per_node=8 -m verl.trainer.sft_trainer "${overrides[@]}" "$@"
