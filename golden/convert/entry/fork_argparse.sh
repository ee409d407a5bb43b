# a fork's main that reads its YAML with argparse: its config is its own code's
python3 -m forkpkg.trainer.main_args cfg/container_grpo.yaml
