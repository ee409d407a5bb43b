# RFTC239: the fork the script imports is the git submodule verl/, not checked out here
export PYTHONPATH=verl:$PYTHONPATH
python3 -m verl.trainer.main_ppo \
    trainer.n_gpus_per_node=4 actor_rollout_ref.rollout.name=vllm
