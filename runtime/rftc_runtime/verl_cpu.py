"""veRL's training engine on a CPU: a ``cpu`` platform for veRL's platform registry and the few patches its FSDP
engine needs there. Nothing in veRL's files is edited.

veRL routes every device call through ``verl.plugin.platform`` and ships cuda/npu/rocm platforms only. This
module registers :class:`PlatformCPU` as ``cpu``; a process selects it with ``VERL_PLATFORM=cpu`` and imports
this module through ``VERL_USE_EXTERNAL_MODULES`` (``import verl`` imports it, in Ray workers too), before anything
asks veRL for its platform. :func:`environment` gives those variables. The rest is what the engine needs on
CPU and cannot be configured (checked against the versions in :data:`CHECKED`; :func:`check_versions` refuses
others):

- the FSDP engines are registered for cuda/npu only: veRL's own ``VERL_ENGINE_DEVICE=cuda`` selects them;
- a forward-only engine (the reference model) offloads its FSDP2 parameters with pinned memory, which needs an
  accelerator: its ``CPUOffloadPolicy`` is replaced by one that never pins;
- veRL asks torch for the process-group backend ``cpu:gloo,<device>:<backend>``, which torch rejects when both
  are cpu: the gloo group is created first, with veRL's own function;
- the value model (the critic) is loaded by ``verl.utils.model.load_valuehead_model``, which asks transformers for
  flash_attention_2 whatever the config says: without the flash-attn package (never on a CPU, and optional on a
  GPU) it loads with the config's attention (sdpa) instead, the same ``AutoModelForTokenClassification``
  otherwise. This one applies on any platform.

The last three are :func:`prepare_worker`, which every training worker calls before veRL builds anything.
"""

from __future__ import annotations

import contextlib
import os
import types

# The releases these patches were checked against (tests/test_runtime_engine.py checks them).
CHECKED = {"verl": "0.9.1", "torch": "2.13"}
MODULE = __name__


def environment() -> dict[str, str]:
    """What a process needs in its environment to run veRL's engine on this CPU platform."""
    return {"VERL_PLATFORM": "cpu", "VERL_ENGINE_DEVICE": "cuda", "VERL_USE_EXTERNAL_MODULES": MODULE}


def check_versions() -> str | None:
    """Why the installed verl or torch is not one the patches were checked against (None when it is)."""
    import importlib.metadata

    for package, release in CHECKED.items():
        found = importlib.metadata.version(package)
        if found != release and not found.startswith(release + "."):
            return (f"{package} {found} is installed; running veRL's engine on a CPU was checked with {package} "
                    f"{release} only (scripts/setup-runtime.sh installs it)")
    return None


def _no_op(*args, **kwargs):
    return None


def _zero(*args, **kwargs):
    return 0


def _device_module():
    """What veRL calls on ``torch.cuda``, for a CPU: torch.cpu's own functions where it has them, no-ops for
    caches and streams, zeros for memory statistics (veRL's memory metrics then read 0)."""
    import torch

    class _Nvtx:
        range = staticmethod(contextlib.nullcontext)
        range_push = range_pop = mark = staticmethod(_no_op)

    return types.SimpleNamespace(
        is_available=lambda: True, device_count=lambda: 1, current_device=lambda: "cpu", set_device=_no_op,
        synchronize=_no_op, empty_cache=_no_op, ipc_collect=_no_op, set_per_process_memory_fraction=_no_op,
        current_stream=torch.cpu.current_stream, stream=torch.cpu.stream, Stream=torch.cpu.Stream,
        Event=torch.cpu.Event, manual_seed=torch.manual_seed, manual_seed_all=torch.manual_seed,
        get_rng_state=torch.get_rng_state, set_rng_state=torch.set_rng_state, get_device_name=lambda *a: "cpu",
        memory_allocated=_zero, memory_reserved=_zero, max_memory_allocated=_zero, max_memory_reserved=_zero,
        reset_peak_memory_stats=_no_op, mem_get_info=lambda *a: (0, 0), nvtx=_Nvtx)


def _register() -> None:
    from verl.plugin.platform import PlatformBase, PlatformRegistry

    @PlatformRegistry.register(platform="cpu")
    class PlatformCPU(PlatformBase):
        """The CPU as a veRL platform: gloo for collectives, Ray's CPU resource, no accelerator features."""

        _module = None

        @property
        def device_name(self) -> str:
            return "cpu"

        @property
        def vendor_name(self) -> str:
            return "cpu"

        @property
        def device_module(self):
            if PlatformCPU._module is None:
                PlatformCPU._module = _device_module()
            return PlatformCPU._module

        def is_available(self) -> bool:
            return True

        def is_platform_available(self, use_smi_check=False) -> bool:
            return False  # chosen by VERL_PLATFORM only, never by veRL's auto-detection

        def current_device(self):
            return "cpu"  # veRL moves tensors with .to(get_device_id()): an int would mean cuda:N

        def device_count(self) -> int:
            return 1

        def set_device(self, device_index) -> None:
            return None

        def synchronize(self, device_index=None) -> None:
            return None

        def manual_seed(self, seed: int) -> None:
            import torch

            torch.manual_seed(seed)

        manual_seed_all = manual_seed

        def set_allocator_settings(self, settings: str) -> None:
            return None

        def empty_cache(self) -> None:
            return None

        def get_device_capability(self, device_index: int = 0):
            return None, None

        def communication_backend_name(self) -> str:
            return "gloo"

        def visible_devices_envvar(self) -> str:
            return "CUDA_VISIBLE_DEVICES"

        @contextlib.contextmanager
        def nvtx_range(self, msg: str):
            yield

        def profiler_start(self) -> None:
            return None

        def profiler_stop(self) -> None:
            return None

        def ray_resource_name(self) -> str:
            return "CPU"

        def ray_noset_envvars(self) -> list[str]:
            return []

        def is_ipc_supported(self) -> bool:
            return False

        def cudart(self):
            return None


def _unpinned_offload() -> None:
    """A forward-only FSDP2 engine offloads with ``CPUOffloadPolicy(pin_memory=True)``; pinning needs an
    accelerator. The engine module's name for the class is replaced by one that never pins."""
    from verl.workers.engine.fsdp import transformer_impl

    base = transformer_impl.CPUOffloadPolicy
    if getattr(base, "rftc_unpinned", False):
        return

    class UnpinnedCPUOffloadPolicy(base):
        rftc_unpinned = True

        def __init__(self, pin_memory: bool = False):
            super().__init__(pin_memory=False)

    transformer_impl.CPUOffloadPolicy = UnpinnedCPUOffloadPolicy


def use() -> None:
    """Select this platform in the current process (the driver): its environment for veRL and for the Ray
    workers it starts, and veRL's platform singleton set to it should something have resolved it already.
    Refuses verl and torch releases the patches were not checked with."""
    problem = check_versions()
    if problem:
        raise RuntimeError(problem)
    os.environ.update(environment())
    from verl.plugin.platform import get_platform, set_platform
    from verl.plugin.platform.platform_manager import PlatformRegistry

    if get_platform().device_name != "cpu":
        set_platform(PlatformRegistry.get("cpu")())


def _value_model_attention() -> None:
    from verl.utils import model as verl_model

    original = verl_model.load_valuehead_model
    if getattr(original, "rftc_config_attention", False):
        return

    def load_valuehead_model(local_path, torch_dtype, model_config, trust_remote_code):
        from transformers import AutoModelForTokenClassification

        return AutoModelForTokenClassification.from_pretrained(
            local_path, dtype=torch_dtype, config=model_config, trust_remote_code=trust_remote_code,
            attn_implementation=model_config._attn_implementation)

    load_valuehead_model.rftc_config_attention = True
    verl_model.load_valuehead_model = load_valuehead_model


def selected() -> bool:
    return os.environ.get("VERL_PLATFORM", "").strip().lower() == "cpu"


def prepare_worker() -> None:
    """In a training worker, before veRL's TrainingWorker initialises: on this platform the gloo process group
    (from the RANK/WORLD_SIZE/MASTER_* variables veRL's worker group sets) and the unpinned offload policy; on
    any, the value model's attention when flash-attn is not installed."""
    import importlib.util

    if selected():
        import torch.distributed
        from verl.utils.distributed import initialize_global_process_group_ray

        if not torch.distributed.is_initialized():
            initialize_global_process_group_ray(backend="gloo")
        _unpinned_offload()
    if importlib.util.find_spec("flash_attn") is None:
        _value_model_attention()


_register()
