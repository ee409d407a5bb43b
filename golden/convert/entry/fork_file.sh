# the same entry module run by its path
python3 forkpkg/trainer/main_ppo.py \
    data.train_files=train.parquet trainer.n_gpus_per_node=4
