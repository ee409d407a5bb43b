# a fork whose trainer class is its own (forkpkg/trainer/ray_trainer.py: CurriculumTrainer)
python3 -m forkpkg.trainer.main_own \
    data.train_files=train.parquet trainer.n_gpus_per_node=4
