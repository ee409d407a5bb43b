"""The fork's trainer: data.train_batch_size counts environments, and every turn of an episode is a sample."""


class RayPPOTrainer:
    def __init__(self, config):
        self.config = config
        self._validate_config()

    def _validate_config(self):
        n_gpus = self.config.trainer.n_gpus_per_node * self.config.trainer.nnodes
        real = self.config.data.train_batch_size * self.config.actor_rollout_ref.rollout.n
        assert real % n_gpus == 0, f"train_batch_size x rollout.n ({real}) must divide by {n_gpus} GPUs"
