# golden case: release_0_2_era_detected (no --verl-version: fsdp_config.grad_offload was removed in 0.3.0.post0
# and trainer.val_before_train was no key before 0.4.0, so the launch is checked against verl 0.2.0.post2)
python3 -m verl.trainer.main_ppo \
    data.train_files=/data/countdown/train.parquet \
    data.val_files=/data/countdown/test.parquet \
    data.train_batch_size=128 \
    algorithm.adv_estimator=grpo \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-3B \
    actor_rollout_ref.actor.ppo_mini_batch_size=64 \
    actor_rollout_ref.actor.ppo_micro_batch_size=8 \
    actor_rollout_ref.actor.use_kl_loss=True \
    actor_rollout_ref.actor.fsdp_config.grad_offload=True \
    actor_rollout_ref.rollout.n=5 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=2 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size=16 \
    actor_rollout_ref.ref.log_prob_micro_batch_size=16 \
    +trainer.val_before_train=False \
    trainer.n_gpus_per_node=8 trainer.nnodes=1 trainer.total_epochs=1 $@
