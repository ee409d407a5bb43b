# golden case: release_0_3_kl_in_reward (no --verl-version: every key exists from 0.1 to 0.9.1, but
# algorithm.kl_ctrl.kl_coef only acts where the KL goes into the reward without use_kl_loss, before 0.4.0; the
# critic there counts its mini-batch in responses, so with n=4 it steps 4 times per actor step)
python3 -m verl.trainer.main_ppo \
    data.train_files=/data/gsm8k/train.parquet \
    data.val_files=/data/gsm8k/test.parquet \
    data.train_batch_size=256 \
    algorithm.adv_estimator=gae \
    algorithm.kl_ctrl.kl_coef=0.05 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct \
    actor_rollout_ref.actor.ppo_mini_batch_size=64 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \
    actor_rollout_ref.actor.clip_ratio=0.28 \
    actor_rollout_ref.rollout.n=4 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8 \
    critic.model.path=Qwen/Qwen2.5-0.5B-Instruct \
    critic.ppo_micro_batch_size_per_gpu=4 \
    trainer.n_gpus_per_node=8 trainer.nnodes=1 trainer.total_epochs=1 $@
