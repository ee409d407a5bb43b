python3 -m verl.trainer.main_ppo \
  algorithm.adv_estimator=grpo data.train_files=/d/train.parquet \
  actor_rollout_ref.model.path=Qwen/Qwen3-1.7B actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=1 \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 \
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 \
  distillation.enabled=True distillation.teacher_models.teacher_model.model_path=Qwen/Qwen3-8B \
  distillation.distillation_loss.use_task_rewards=True distillation.distillation_loss.loss_mode=k1 \
  distillation.distillation_loss.use_policy_gradient=True distillation.distillation_loss.loss_max_clamp=10.0
