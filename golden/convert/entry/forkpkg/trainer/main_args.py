"""A fork's main that reads its YAML with argparse: not a Hydra app."""
import argparse

from omegaconf import OmegaConf
from verl.trainer.main_ppo import run_ppo

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    run_ppo(OmegaConf.load(parser.parse_args().config))
