#!/bin/bash
# Nested arithmetic: 8 GPUs * 2 nodes * 16 prompts each.
GPUS=8
NODES=2
PER_GPU=16
BATCH=$(($(($GPUS * $NODES)) * $PER_GPU))
python3 -m verl.trainer.main_ppo data.train_files=x.parquet algorithm.adv_estimator=grpo \
    actor_rollout_ref.model.path=m actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=4 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 \
    data.train_batch_size=$BATCH trainer.nnodes=$NODES
