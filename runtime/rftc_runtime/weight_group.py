"""The NCCL group that carries weights from the trainer's rank 0 to the rollout engines' workers (sync method
``nccl``), built as vLLM's documented weight-update example builds it: a ``StatelessProcessGroup`` (a TCP store,
independent of torch.distributed's default group, which both sides already use for themselves) and vLLM's
``PyNcclCommunicator`` on it. Rank 0 is the trainer; the engines' workers follow."""

from __future__ import annotations


def join(host: str, port: int, rank: int, world_size: int, device=None):
    import torch
    from vllm.distributed.device_communicators.pynccl import PyNcclCommunicator
    from vllm.distributed.utils import StatelessProcessGroup

    group = StatelessProcessGroup.create(host=host, port=port, rank=rank, world_size=world_size)
    return PyNcclCommunicator(group, device=device if device is not None else torch.cuda.current_device())
