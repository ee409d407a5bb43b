# the repository mounted at /workspace/myproject in a container: its cfg/ is composed from here
python3 -m verl.trainer.main_ppo --config-path=/workspace/myproject/cfg --config-name=container_grpo \
    data.train_files=train.parquet trainer.n_gpus_per_node=4
