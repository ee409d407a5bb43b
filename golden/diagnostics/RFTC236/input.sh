# RFTC236: the repository mounted at /workspace/proj in a container; its cfg/ is here
python3 -m verl.trainer.main_ppo --config-path=/workspace/proj/cfg --config-name=grpo \
    trainer.n_gpus_per_node=4 actor_rollout_ref.rollout.name=vllm
