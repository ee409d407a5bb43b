# `python -m main_ppo` from the module's own folder: the working directory is first on sys.path
cd forkpkg/trainer
python3 -m main_ppo \
    data.train_files=train.parquet trainer.n_gpus_per_node=4
