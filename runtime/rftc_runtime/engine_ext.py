"""The vLLM worker extension (``vllm.LLM(worker_extension_cls=...)``): its methods run in every engine
worker through ``collective_rpc``. A state dict (sync methods ``memory`` and ``checkpoint``) goes through the
worker's own reload path, which on the CPU backend also repacks the weights for its kernels (calling the model's
``load_weights`` directly does not). Over NCCL (GPU) each weight is received and loaded as it arrives, as vLLM's
documented weight-update example does."""

from __future__ import annotations

import io


class WeightSyncExtension:
    def rftc_load_state_dict(self, state) -> int:
        """Load a full state dict: a mapping of tensors, ``torch.save`` bytes when it crossed a process, or the
        path of a file the trainer wrote."""
        import torch

        if isinstance(state, (bytes, bytearray)):
            state = torch.load(io.BytesIO(state), map_location="cpu", weights_only=True)
        elif isinstance(state, str):
            state = torch.load(state, map_location="cpu", weights_only=True)
        self.reload_weights(weights_iterator=iter(list(state.items())))
        return len(state)

    def rftc_join_weight_group(self, host: str, port: int, rank_offset: int, world_size: int) -> None:
        from vllm.distributed.parallel_state import get_world_group

        from rftc_runtime.weight_group import join

        self.rftc_weight_group = join(host, port, get_world_group().rank + rank_offset, world_size, self.device)

    def rftc_receive_weights(self, specs) -> int:
        """Receive every (name, dtype, shape) in the trainer's broadcast order and load each one."""
        import torch

        for name, dtype, shape in specs:
            weight = torch.empty(shape, dtype=getattr(torch, dtype), device=self.device)
            self.rftc_weight_group.broadcast(weight, src=0, stream=torch.cuda.current_stream())
            self.model_runner.model.load_weights(weights=[(name, weight)])
            del weight
        return len(specs)
