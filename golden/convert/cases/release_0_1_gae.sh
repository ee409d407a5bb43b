# golden case: release_0_1_gae (verl 0.1: KL always in the reward, no dual clip, ppo_mini_batch_size in responses,
# val_before_train not read, test_freq=-1 validates after every step)
python3 -m verl.trainer.main_ppo \
    data.train_files=/data/gsm8k/train.parquet \
    data.val_files=/data/gsm8k/test.parquet \
    data.train_batch_size=256 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct \
    actor_rollout_ref.actor.ppo_mini_batch_size=64 \
    actor_rollout_ref.actor.ppo_micro_batch_size=8 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size=16 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    critic.model.path=Qwen/Qwen2.5-0.5B-Instruct \
    critic.ppo_micro_batch_size=8 \
    algorithm.kl_ctrl.kl_coef=0.002 \
    +trainer.val_before_train=False \
    trainer.test_freq=-1 \
    trainer.n_gpus_per_node=8 trainer.nnodes=1 trainer.total_epochs=15 $@
