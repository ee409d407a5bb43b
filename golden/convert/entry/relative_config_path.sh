# a relative --config-path is relative to the entry module's folder (verl/trainer/), not to the script
cd scripts
python3 -m verl.trainer.main_ppo --config-path=. --config-name=here \
    data.train_files=train.parquet trainer.n_gpus_per_node=4
