#!/usr/bin/env bash
# golden case: the DAPO recipe's trainer, run from a veRL checkout (recipe/dapo/config beside this script)
train_prompt_bsz=64
python3 -m recipe.dapo.main_dapo \
    data.train_files=/data/dapo-math-17k.parquet \
    data.max_prompt_length=1024 \
    data.max_response_length=4096 \
    data.train_batch_size=${train_prompt_bsz} \
    data.gen_batch_size=$((train_prompt_bsz * 3)) \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=8 \
    actor_rollout_ref.actor.ppo_mini_batch_size=16 \
    actor_rollout_ref.actor.use_dynamic_bsz=True \
    actor_rollout_ref.actor.clip_ratio_low=0.2 \
    actor_rollout_ref.actor.clip_ratio_high=0.28 \
    actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.1 \
    algorithm.adv_estimator=grpo \
    algorithm.filter_groups.enable=True \
    algorithm.filter_groups.metric=acc \
    algorithm.filter_groups.max_num_gen_batches=10 \
    reward_model.overlong_buffer.enable=True \
    reward_model.overlong_buffer.len=512 \
    reward_model.overlong_buffer.penalty_factor=1.0 \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1 \
    trainer.total_epochs=2
