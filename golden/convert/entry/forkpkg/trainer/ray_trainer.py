from verl.trainer.ppo.ray_trainer import RayPPOTrainer


class CurriculumTrainer(RayPPOTrainer):
    """Orders the prompts by difficulty before each epoch."""
