# golden case: fully_async_4_4, abridged from veRL's
# verl/experimental/fully_async_policy/shell/dapo_7b_math_fsdp2_4_4.sh (Apache-2.0) with GRPO: a trainer step of
# ppo_mini_batch_size x require_batches = 32 prompts, weights every 4 steps, 0.5 x 4 steps of prompts ahead
python3 -m verl.experimental.fully_async_policy.fully_async_main \
    algorithm.adv_estimator=grpo \
    data.train_files=$HOME/data/gsm8k/train.parquet \
    data.train_batch_size=0 \
    data.gen_batch_size=1 \
    data.max_prompt_length=1024 \
    data.max_response_length=2048 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    actor_rollout_ref.actor.optim.lr=1e-6 \
    actor_rollout_ref.hybrid_engine=False \
    actor_rollout_ref.actor.ppo_mini_batch_size=32 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=8 \
    trainer.total_epochs=10 \
    trainer.test_freq=10 \
    trainer.nnodes=1 \
    trainer.n_gpus_per_node=4 \
    rollout.nnodes=1 \
    rollout.n_gpus_per_node=4 \
    rollout.total_rollout_steps=25600 \
    async_training.staleness_threshold=0.5 \
    async_training.trigger_parameter_sync_step=4 \
    async_training.require_batches=1 \
    async_training.partial_rollout=False
