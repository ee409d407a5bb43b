#!/bin/bash
# a learning-rate sweep: three trainings, one after the other
for lr in 1e-6 2e-6 5e-6; do
  python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_files=/data/gsm8k/train.parquet \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=4 \
    actor_rollout_ref.actor.use_dynamic_bsz=True \
    actor_rollout_ref.actor.optim.lr=$lr \
    trainer.n_gpus_per_node=4 \
    trainer.experiment_name=sweep_lr_$lr
done
