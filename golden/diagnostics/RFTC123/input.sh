# RFTC123
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.name=vllm \
    $EXTRA_ARGS \
    trainer.nnodes=1
