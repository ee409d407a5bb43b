"""The training worker: veRL's ``TrainingWorker`` (one FSDP engine per process, driven through a Ray worker
group) with what this runtime adds: the platform's preparation before veRL initialises (rftc_runtime.verl_cpu),
the weights exported for the rollout engine, checkpoints with an optional Hugging Face copy, and a description
of what it built.

veRL's own worker code runs unchanged: ``infer_batch`` (log-probs, values), ``train_mini_batch`` (mini-batches,
micro-batches, the loss set by ``set_loss_fn``, the optimizer and LR schedule), ``save_checkpoint`` and
``load_checkpoint`` (model, optimizer, LR schedule and RNG through the engine's checkpoint manager).
"""

from __future__ import annotations

from verl.single_controller.base.decorator import Dispatch, register
from verl.workers.engine_workers import TrainingWorker

from rftc_runtime import verl_cpu


class EngineWorker(TrainingWorker):
    def __init__(self, config):
        verl_cpu.prepare_worker()
        super().__init__(config)

    @register(dispatch_mode=Dispatch.ONE_TO_ALL, blocking=False)
    def export_weights(self, dtype: str):
        """The model's full state dict under its Hugging Face names, in ``dtype``, on rank 0 (None elsewhere).

        ``get_per_tensor_param`` gathers every shard: every rank iterates it, so this runs on all of them."""
        import torch

        target = getattr(torch, dtype)
        params, _ = self.engine.get_per_tensor_param()
        state = {name: tensor.detach().to("cpu", target) for name, tensor in params}
        return state if self.rank == 0 else None

    @register(dispatch_mode=Dispatch.ONE_TO_ALL, blocking=False)
    def save(self, local_path: str, global_step: int, hf_model: bool) -> None:
        """The engine's checkpoint (sharded model and optimizer, LR schedule, RNG) in ``local_path``, and a full
        Hugging Face model under ``local_path/huggingface`` when ``hf_model``."""
        manager = self.engine.checkpoint_manager
        manager.checkpoint_save_contents = [c for c in manager.checkpoint_save_contents if c != "hf_model"] + (
            ["hf_model"] if hf_model else [])
        self.engine.save_checkpoint(local_path, global_step=global_step)

    @register(dispatch_mode=Dispatch.ONE_TO_ALL)
    def describe(self) -> dict:
        """What this rank built, read from the objects themselves (the plan's words are checked against it)."""
        import torch
        from verl.utils.fsdp_utils import fsdp_version

        engine = self.engine
        param = next(engine.module.parameters())
        return {"engine": type(engine).__name__, "strategy": {1: "fsdp", 2: "fsdp2"}[fsdp_version(engine.module)],
                "compute_dtype": str(engine._autocast_dtype).removeprefix("torch."),
                "param_dtype": str(param.dtype).removeprefix("torch."), "device": param.device.type,
                "forward_only": bool(self.engine_config.forward_only), "world_size": torch.distributed.get_world_size(),
                "backend": torch.distributed.get_backend(), "rank": self.rank,
                "worker": f"{type(self).__module__}.{type(self).__qualname__}"}
