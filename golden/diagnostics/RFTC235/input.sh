# RFTC235: the fork's main (argparse, not Hydra) loads a YAML whose path only its run knows (an environment variable)
python3 -m forkpkg.train trainer.n_gpus_per_node=4
