python3 -m verl.trainer.main_ppo \
  algorithm.adv_estimator=grpo data.train_files=/d/train.parquet \
  actor_rollout_ref.model.path=Qwen/Qwen3-1.7B actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=8 \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 \
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 \
  actor_rollout_ref.actor.policy_loss.loss_mode=sapo actor_rollout_ref.actor.tau_pos=1.0 \
  actor_rollout_ref.actor.tau_neg=1.05
