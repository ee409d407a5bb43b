"""Never imported: libfork/ here has no __init__.py (a namespace package), so the regular lib/libfork wins."""
import hydra

from verl.trainer.main_ppo import run_ppo


@hydra.main(config_path="missing", config_name="missing", version_base=None)
def main(config):
    run_ppo(config)
