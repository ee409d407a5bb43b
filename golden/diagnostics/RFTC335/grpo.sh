# RFTC335
python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_files=/data/gsm8k/train.parquet \
    actor_rollout_ref.model.path=/checkpoints/sft/hf actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=4 \
    trainer.n_gpus_per_node=8 trainer.total_training_steps=10 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8
