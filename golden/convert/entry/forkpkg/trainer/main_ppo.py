"""A fork's entry module: veRL's run_ppo on the fork's own config."""
import hydra

from verl.trainer.main_ppo import run_ppo


@hydra.main(config_path="config", config_name="fork_grpo", version_base=None)
def main(config):
    run_ppo(config)


if __name__ == "__main__":
    main()
