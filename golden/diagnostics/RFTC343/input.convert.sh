# RFTC343: run from the fork's checkout, whose verl/ config declares policy_rollout_n; rollout.n is 1
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.n=1 \
    policy_rollout_n=8
