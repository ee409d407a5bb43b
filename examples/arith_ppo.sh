#!/usr/bin/env bash
# PPO with a critic (GAE) on the task of examples/arith_grpo.sh: single-digit addition with
# SmolLM2-135M-Instruct. The critic starts from the same model with a new value head (veRL's default when
# critic.model.path is not set) and is trained alone for the first step (trainer.critic_warmup=2: the actor is
# updated from step 2), so the first advantages the actor sees come from a critic that has seen one batch.
# A veRL launch script: `rftc run` compiles it into a Trinity-RFT config (algorithm_type ppo) and trains it on
# CPU; veRL itself would run it on a GPU. Model and data: scripts/setup-runtime.sh, as for arith_grpo.sh.
set -x

MODEL=${RFTC_MODEL_DIR:-$HOME/.cache/rftc/models/smollm2-135m-instruct}
DATA=${RFTC_DATA_DIR:-$HOME/.cache/rftc/data/arith}
CKPT=${RFTC_CHECKPOINT_DIR:-$HOME/.cache/rftc/checkpoints}

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=gae \
    algorithm.gamma=1.0 \
    algorithm.lam=0.95 \
    data.train_files=$DATA/train.parquet \
    data.val_files=$DATA/test.parquet \
    data.prompt_key=prompt \
    data.train_batch_size=8 \
    data.max_prompt_length=64 \
    data.max_response_length=10 \
    actor_rollout_ref.model.path=$MODEL \
    actor_rollout_ref.model.enable_gradient_checkpointing=False \
    actor_rollout_ref.actor.optim.lr=5e-5 \
    actor_rollout_ref.actor.ppo_mini_batch_size=8 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=16 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4 \
    actor_rollout_ref.actor.use_kl_loss=False \
    actor_rollout_ref.actor.entropy_coeff=0 \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=2 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    actor_rollout_ref.rollout.temperature=1.0 \
    critic.optim.lr=1e-5 \
    critic.model.enable_gradient_checkpointing=False \
    critic.ppo_micro_batch_size_per_gpu=16 \
    critic.cliprange_value=0.5 \
    reward.custom_reward_function.path=examples/arith_reward.py \
    reward.custom_reward_function.name=last_number \
    trainer.critic_warmup=2 \
    trainer.logger='["console"]' \
    trainer.project_name=rftc-examples \
    trainer.experiment_name=arith_ppo \
    trainer.default_local_dir=$CKPT/rftc-examples/arith_ppo \
    trainer.n_gpus_per_node=2 \
    trainer.nnodes=1 \
    trainer.val_before_train=False \
    trainer.test_freq=-1 \
    trainer.save_freq=3 \
    trainer.total_training_steps=6 "$@"
