# RFTC238: verl/ beside the script holds only YAML (no __init__.py, no module): Python imports the installed veRL
python3 -m verl.trainer.main_ppo \
    trainer.n_gpus_per_node=4 actor_rollout_ref.rollout.name=vllm
