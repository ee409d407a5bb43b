# Adapted from volcengine/verl examples/grpo_trainer/run_qwen2-7b_math.sh (Apache-2.0), shortened.
set -x
gsm8k_train_path=$HOME/data/gsm8k/train.parquet
math_train_path=$HOME/data/math/train.parquet
train_files="['$gsm8k_train_path', '$math_train_path']"

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_files="$train_files" \
    data.train_batch_size=1024 \
    data.max_prompt_length=1024 \
    actor_rollout_ref.actor.ppo_mini_batch_size=256 \
    actor_rollout_ref.actor.use_kl_loss=True \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=5 \
    reward_model.reward_manager=dapo \
    trainer.logger='["console","wandb"]' \
    trainer.project_name='verl_grpo_example_gsm8k_math' \
    trainer.experiment_name='qwen2_7b_function_rm' \
    trainer.total_epochs=15 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=16 \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=16 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16 $@
