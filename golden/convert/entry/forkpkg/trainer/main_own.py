"""A fork's entry module whose trainer is its own subclass of veRL's."""
import hydra

from forkpkg.trainer.ray_trainer import CurriculumTrainer


@hydra.main(config_path="config", config_name="fork_grpo", version_base=None)
def main(config):
    from verl.utils.fs import copy_to_local

    copy_to_local(config.actor_rollout_ref.model.path)
    CurriculumTrainer(config=config).fit()


if __name__ == "__main__":
    main()
