# RFTC228: run from a fork whose verl/trainer/ppo/ray_trainer.py has no check of the mini-batch against the batch
python3 -m verl.trainer.main_ppo \
    data.train_batch_size=16 \
    actor_rollout_ref.actor.ppo_mini_batch_size=32 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4
