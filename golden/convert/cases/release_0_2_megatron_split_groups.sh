# golden case: release_0_2_megatron_split_groups (verl 0.2's Megatron worker counts ppo_mini_batch_size in
# responses: 12 responses of n=8 split a prompt's group over two optimizer steps; grpo's advantages are computed
# per task in Trinity's explorer, so the explorer explores 3 tasks (24 responses = 2 trainer steps) a step)
python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer \
    data.train_files=/data/gsm8k/train.parquet \
    data.val_files=/data/gsm8k/test.parquet \
    data.train_batch_size=96 \
    algorithm.adv_estimator=grpo \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct \
    actor_rollout_ref.actor.ppo_mini_batch_size=12 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=3 \
    actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.1 \
    actor_rollout_ref.rollout.n=8 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8 \
    trainer.n_gpus_per_node=8 trainer.nnodes=1 trainer.total_epochs=1 \
    trainer.total_training_steps=5 trainer.test_freq=2 trainer.save_freq=2 $@
