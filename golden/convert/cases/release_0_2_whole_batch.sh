# golden case: release_0_2_whole_batch (ppo_mini_batch_size 256 x n=16 exceeds the 8 x 16 responses of a batch:
# verl 0.2 has no startup check for it and trains each batch as one mini-batch)
python3 -m verl.trainer.main_ppo \
    data.train_files=/data/gsm8k/train.parquet \
    data.val_files=/data/gsm8k/test.parquet \
    data.train_batch_size=8 \
    algorithm.adv_estimator=grpo \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct \
    actor_rollout_ref.actor.ppo_mini_batch_size=256 \
    actor_rollout_ref.actor.ppo_micro_batch_size=64 \
    actor_rollout_ref.actor.use_kl_loss=True \
    actor_rollout_ref.rollout.n=16 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size=160 \
    actor_rollout_ref.ref.log_prob_micro_batch_size=160 \
    trainer.n_gpus_per_node=4 trainer.nnodes=1 trainer.total_epochs=1 $@
