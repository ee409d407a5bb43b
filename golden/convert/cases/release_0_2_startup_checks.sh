# golden case: release_0_2_startup_checks (verl 0.2 always builds the reference model, so it needs its log-prob
# micro batch even without a KL term, and names every section's key '<section>.micro_batch_size')
python3 -m verl.trainer.main_ppo \
    data.train_files=/data/gsm8k/train.parquet \
    data.val_files=/data/gsm8k/test.parquet \
    algorithm.adv_estimator=grpo \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.rollout.n=4 \
    trainer.n_gpus_per_node=8 trainer.nnodes=1 $@
