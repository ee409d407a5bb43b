import argparse
import os

from omegaconf import OmegaConf
from verl.trainer.main_ppo import run_ppo

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    config = OmegaConf.load(os.environ["TRAIN_CONFIG"])
    run_ppo(OmegaConf.merge(config, OmegaConf.from_dotlist(args.overrides)))
