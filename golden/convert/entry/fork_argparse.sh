# a fork's main without Hydra: argparse takes the YAML and the key=value words, OmegaConf merges them over its own
# ppo_trainer.yaml (from_dotlist: a new key needs no `+`)
python3 -m argsfork.main cfg/args_grpo.yaml \
    data.train_files=train.parquet trainer.n_gpus_per_node=4 trainer.project_name=args_fork
