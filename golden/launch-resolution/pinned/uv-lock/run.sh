python3 -m verl.trainer.main_ppo data.train_files=x.parquet actor_rollout_ref.model.path=m \
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 \
  critic.ppo_micro_batch_size_per_gpu=2
