"""The vLLM worker extension (``vllm.LLM(worker_extension_cls=...)``): its methods run in every engine
worker through ``collective_rpc``. Weights go through the worker's own reload path, which on the CPU backend
also repacks them for its kernels (calling the model's ``load_weights`` directly does not)."""

from __future__ import annotations

import io


class WeightSyncExtension:
    def rftc_load_state_dict(self, state) -> int:
        """Load a full state dict (a mapping of tensors, or ``torch.save`` bytes when it crossed a process)."""
        import torch

        if isinstance(state, (bytes, bytearray)):
            state = torch.load(io.BytesIO(state), map_location="cpu", weights_only=True)
        self.reload_weights(weights_iterator=iter(list(state.items())))
        return len(state)
