# RFTC116
EXP_NAME=qwen2-7b-tp2${EXP_NAME_SUFFIX:+"-"}${EXP_NAME_SUFFIX}
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.name=vllm \
    trainer.experiment_name=$EXP_NAME
