# RFTC229: the fully asynchronous trainer under the recipe name veRL 0.6.1 to 0.7.0 shipped it with
python3 -m recipe.fully_async_policy.fully_async_main \
  data.train_files=data/train.parquet \
  data.train_batch_size=0 \
  data.gen_batch_size=1 \
  actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct \
  actor_rollout_ref.hybrid_engine=False \
  actor_rollout_ref.rollout.name=vllm \
  actor_rollout_ref.rollout.mode=async \
  actor_rollout_ref.rollout.n=8 \
  actor_rollout_ref.actor.ppo_mini_batch_size=32 \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 \
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 \
  critic.ppo_micro_batch_size_per_gpu=2 \
  trainer.nnodes=1 trainer.n_gpus_per_node=4 \
  rollout.nnodes=1 rollout.n_gpus_per_node=4 \
  rollout.total_rollout_steps=3200 \
  async_training.staleness_threshold=0.5 \
  async_training.trigger_parameter_sync_step=4
