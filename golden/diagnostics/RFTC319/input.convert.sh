# RFTC319
python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_files=/data/gsm8k/train.parquet \
    data.train_batch_size=220 \
    actor_rollout_ref.actor.ppo_mini_batch_size=220 \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=5 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=2 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=12 \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=12 \
    trainer.n_gpus_per_node=4 \
    trainer.total_epochs=1
