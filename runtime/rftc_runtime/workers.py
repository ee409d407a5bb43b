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
from rftc_runtime.placement import node_id


class EngineWorker(TrainingWorker):
    def __init__(self, config):
        verl_cpu.prepare_worker()
        super().__init__(config)

    def _full_weights(self, dtype: str):
        """(name, full tensor in ``dtype``) of every weight under its Hugging Face name. ``get_per_tensor_param``
        gathers the shards: every rank iterates it, only rank 0 keeps what it yields."""
        import torch

        target = getattr(torch, dtype)
        params, _ = self.engine.get_per_tensor_param()
        for name, tensor in params:
            yield name, tensor.detach().to(dtype=target)

    @register(dispatch_mode=Dispatch.ONE_TO_ALL, blocking=False)
    def export_weights(self, dtype: str, path: str | None = None):
        """The model's full state dict on rank 0 (None elsewhere): returned through Ray's object store (sync
        method ``memory``), or written to ``path`` for the explorer to read (``checkpoint``)."""
        state = {name: tensor.cpu() for name, tensor in self._full_weights(dtype)}
        if self.rank != 0:
            return None
        if path is None:
            return state
        import os

        import torch

        torch.save(state, path + ".tmp")
        os.replace(path + ".tmp", path)  # the explorer never reads a partial file
        return path

    @register(dispatch_mode=Dispatch.ONE_TO_ALL)
    def weight_specs(self, dtype: str) -> list | None:
        """(name, dtype, shape) of every weight in export order, on rank 0: what a receiver allocates."""
        specs = [(name, dtype, tuple(t.shape)) for name, t in self._full_weights(dtype)]
        return specs if self.rank == 0 else None

    @register(dispatch_mode=Dispatch.ONE_TO_ALL)
    def join_weight_group(self, host: str, port: int, world_size: int) -> None:
        """Rank 0 joins the NCCL group it broadcasts weights in, as rank 0, beside the rollout engines' workers
        (vLLM's StatelessProcessGroup and PyNcclCommunicator, vLLM's documented weight-update path)."""
        if self.rank == 0:
            from rftc_runtime.weight_group import join

            self._weight_group = join(host, port, 0, world_size)

    @register(dispatch_mode=Dispatch.ONE_TO_ALL, blocking=False)
    def broadcast_weights(self, dtype: str) -> None:
        """Sync method ``nccl``: every rank gathers the weights, rank 0 broadcasts each in :meth:`weight_specs`'
        order to the rollout engines' workers, which load them as they arrive."""
        import torch

        for _, tensor in self._full_weights(dtype):
            if self.rank == 0:
                self._weight_group.broadcast(tensor.contiguous(), src=0, stream=torch.cuda.current_stream())

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

        from verl.utils.device import get_device_name

        engine = self.engine
        param = next(engine.module.parameters())
        device = get_device_name()  # where it computes: veRL's FSDP1 keeps a forward-only model's params on the CPU
        return {"engine": type(engine).__name__, "strategy": {1: "fsdp", 2: "fsdp2"}[fsdp_version(engine.module)],
                "compute_dtype": str(engine._autocast_dtype).removeprefix("torch."),
                "param_dtype": str(param.dtype).removeprefix("torch."), "device": device,
                "params_on": param.device.type,
                "forward_only": bool(self.engine_config.forward_only), "world_size": torch.distributed.get_world_size(),
                "backend": _device_backend(torch.distributed.get_backend(), device), "rank": self.rank,
                "node": node_id(),
                "worker": f"{type(self).__module__}.{type(self).__qualname__}"}


def _device_backend(backend: str, device: str) -> str:
    """The collective backend that carries ``device``'s tensors: veRL initialises one group with a backend per device
    ("cpu:gloo,cuda:nccl"), so the group's backend string names several."""
    if ":" not in backend:
        return backend
    return dict(pair.split(":", 1) for pair in backend.split(","))[device]
