# a fork's entry module by its name: Python imports forkpkg/trainer/main_ppo.py from here
python3 -m forkpkg.trainer.main_ppo \
    data.train_files=train.parquet trainer.n_gpus_per_node=4
