import hydra

from verl.trainer.ppo.ray_trainer import RayPPOTrainer


class MyRayTrainer(RayPPOTrainer):
    def fit(self):
        return super().fit()


@hydra.main(config_path="config", config_name="grpo", version_base=None)
def main(config):
    MyRayTrainer(config=config).fit()


if __name__ == "__main__":
    main()
