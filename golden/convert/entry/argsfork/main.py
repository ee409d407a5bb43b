"""A fork's main without Hydra: its own ppo_trainer.yaml, the launch's YAML merged over it, then the launch's
`key=value` words (OmegaConf.from_dotlist)."""
import argparse
import os

from omegaconf import OmegaConf
from verl.trainer.main_ppo import run_ppo

CONFIG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "config")


def main(args):
    base = OmegaConf.load(os.path.join(CONFIG_DIR, "ppo_trainer.yaml"))
    config = OmegaConf.merge(base, OmegaConf.load(args.config), OmegaConf.from_dotlist(args.overrides))
    run_ppo(config)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("config", help="a YAML merged over the fork's ppo_trainer.yaml")
    parser.add_argument("overrides", nargs="*", help="key=value items, merged last")
    main(parser.parse_args())
