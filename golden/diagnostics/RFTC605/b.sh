# rftc diff golden case: two launches alike but for data.tokenizer, which the semantic model does not compute
python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_files=train.parquet \
  data.train_batch_size=16 actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B \
  actor_rollout_ref.actor.ppo_mini_batch_size=8 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 \
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.n=4 \
  trainer.total_training_steps=10 \
  data.tokenizer=tok_b
