"""GPU allocation (RayClusterConfigValidator): engines on nodes, explorer vs trainer split, colocate."""

from __future__ import annotations

from rftc.trinity.checks._util import first_set
from rftc.trinity.derive import gpu_per_engine

C = ("cluster",)
RM = ("explorer", "rollout_model")


def check(ctx, cfg, d) -> None:
    if cfg.model.tinker.enable:
        return
    g = d.gpus
    if g is None:
        ctx.add("RFTC430", "`cluster.node_num` and `cluster.gpu_per_node` are not both set: Trinity asks the Ray "
                f"cluster at `{cfg.cluster.ray_address}` for its size (no running Ray: ConnectionError), so the GPU "
                "split is not checked", first_set(ctx, C + ("node_num",), C + ("gpu_per_node",), C),
                hint="set both, or pass --nodes M --gpus-per-node N to rftc check")
    models = [(RM, cfg.explorer.rollout_model)] + [
        (("explorer", "auxiliary_models", i), m) for i, m in enumerate(cfg.explorer.auxiliary_models)]
    for path, m in models:
        _engine(ctx, m, path, g.gpu_per_node if g else None)
    if cfg.mode == "colocate":
        _colocate(ctx, cfg)
    if g is None or cfg.explorer.rollout_model.engine_type.startswith("external"):
        return
    where = first_set(ctx, RM + ("engine_num",), RM + ("tensor_parallel_size",), RM, C + ("gpu_per_node",), C)
    cluster = first_set(ctx, C + ("gpu_per_node",), C + ("node_num",), RM + ("engine_num",), RM, C)
    numbers = (f"explorer = rollout {g.rollout_gpu_num} + auxiliary {g.auxiliary_model_gpu_num} GPUs; "
               f"cluster = {g.node_num} x {g.gpu_per_node} = {g.total_gpu_num} GPUs"
               + (" (from --nodes/--gpus-per-node)" if g.from_options else ""))
    if cfg.mode in ("explore", "bench", "serve"):
        if g.explorer_gpu_num > g.total_gpu_num:
            ctx.add("RFTC433", f"Total GPU number ({g.total_gpu_num}) is less than the number of GPUs required for "
                    f"rollout ({g.explorer_gpu_num}).", cluster, notes=[numbers])
    elif cfg.mode == "colocate":
        if g.total_gpu_num != 1:
            ctx.add("RFTC434", f"Colocate mode requires exactly 1 GPU, but got {g.total_gpu_num} GPUs. Please use "
                    "`both` mode instead.", first_set(ctx, C + ("gpu_per_node",), C + ("node_num",), ("mode",)))
    elif cfg.mode in ("both", "train"):
        if g.explorer_gpu_num >= g.total_gpu_num:
            ctx.add("RFTC431", f"Not enough GPUs for trainer. Explorer requires {g.explorer_gpu_num} GPUs, but total "
                    f"available GPUs are {g.total_gpu_num}.", cluster, notes=[numbers])
        elif g.trainer_node_num is None:
            ctx.add("RFTC432", f"Trainer must use an integer number of nodes, but got trainer_gpu_num "
                    f"({g.trainer_gpu_num}) with gpu_per_node ({g.gpu_per_node}). Please change `engine_num` or "
                    "parallelism settings in explorer config.", where, notes=[numbers])


def _engine(ctx, m, path, gpn) -> None:
    gpe = gpu_per_engine(m)
    if m.engine_type.startswith("sglang") and m.data_parallel_size > 0 and \
            m.tensor_parallel_size % m.data_parallel_size != 0:
        ctx.add("RFTC435", "SGLang inference requires tensor_parallel_size to be a multiple of data_parallel_size",
                path + ("data_parallel_size",), notes=[f"tensor_parallel_size {m.tensor_parallel_size}, "
                                                       f"data_parallel_size {m.data_parallel_size}"])
    if not gpn or gpe <= gpn:
        return
    where = first_set(ctx, path + ("tensor_parallel_size",), path + ("data_parallel_size",),
                      path + ("pipeline_parallel_size",), path)
    if gpe % gpn != 0:
        ctx.add("RFTC435", f"Multi-node inference requires gpu_per_engine to be a multiple of cluster.gpu_per_node "
                f"({gpn}), but got gpu_per_engine={gpe}.", where)
    elif m.engine_type.startswith("vllm") and m.data_parallel_size > 1:
        ctx.add("RFTC435", "vLLM does not support data parallelism in multi-node setups.",
                first_set(ctx, path + ("data_parallel_size",), path))


def _colocate(ctx, cfg) -> None:
    """Colocate runs one engine of one GPU and the trainer on the same GPU."""
    ex, t = cfg.explorer, cfg.trainer
    if ex.auxiliary_models:
        ctx.add("RFTC434", "In colocate mode, auxiliary models are not supported.", ("explorer", "auxiliary_models", 0))
    if ex.rollout_model.engine_num != 1:
        ctx.add("RFTC434", "In colocate mode, `explorer.rollout_model.engine_num` must be set to 1.", RM + ("engine_num",))
    if gpu_per_engine(ex.rollout_model) != 1:
        ctx.add("RFTC434", "In colocate mode, `explorer.rollout_model.gpu_per_engine` must be set to 1.",
                first_set(ctx, RM + ("tensor_parallel_size",), RM + ("data_parallel_size",),
                          RM + ("pipeline_parallel_size",), RM))
    if t.ulysses_sequence_parallel_size != 1:
        ctx.add("RFTC434", "In colocate mode, `trainer.ulysses_sequence_parallel_size` must be set to 1.",
                ("trainer", "ulysses_sequence_parallel_size"))
