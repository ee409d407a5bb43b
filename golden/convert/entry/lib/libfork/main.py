"""The fork imported through PYTHONPATH=lib (a regular package, before the namespace folder libfork/ here)."""
import hydra

from verl.trainer.main_ppo import run_ppo


@hydra.main(config_path="../../forkpkg/trainer/config", config_name="fork_grpo", version_base=None)
def main(config):
    run_ppo(config)


if __name__ == "__main__":
    main()
