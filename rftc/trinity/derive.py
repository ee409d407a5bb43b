"""The values Trinity-RFT 0.6.0's validator computes from a config (trinity-0.6.md §2), without side
effects: function defaults, train_batch_size, the length window, the GPU split, sync cadence, token budget.

``derive`` never raises and never decides what is an error; the checks compare its numbers with Trinity's
rules. A value Trinity cannot compute is None (for example the GPU split when the cluster size comes from
a running Ray cluster).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from rftc.trinity import registry
from rftc.trinity.schema import InferenceModelConfig, TrinityConfig


@dataclass
class Lengths:
    max_model_len: int | None
    max_prompt_tokens: int | None
    max_response_tokens: int | None
    min_response_tokens: int
    notes: list[tuple[str, str]] = field(default_factory=list)  # (field, what Trinity did)


@dataclass
class GpuSplit:
    node_num: int
    gpu_per_node: int
    total_gpu_num: int
    rollout_gpu_num: int
    auxiliary_model_gpu_num: int
    explorer_gpu_num: int
    trainer_gpu_num: int  # may be <= 0: the checks report it
    trainer_node_num: int | None  # None when the trainer's GPUs are not whole nodes
    trainer_gpu_num_per_node: int | None
    from_options: bool = False  # the cluster size came from --nodes/--gpus-per-node


@dataclass
class Derived:
    mode: str
    algorithm: registry.Algorithm | None
    functions: dict[str, str | None]  # advantage_fn, policy_loss_fn, ... after defaults
    loss_agg_mode: str
    repeat_times: int
    train_batch_size: int | None  # None: required but not set
    lengths: Lengths
    gpus: GpuSplit | None  # None: Trinity asks a Ray cluster (or the cluster step is skipped)
    rollout_gpu_per_engine: int
    sync_method: str
    sync_interval: int
    explorer_sync_interval: int
    trainer_sync_interval: int
    eval_interval: int
    sequence_parallel: int
    max_token_len_per_gpu: int | None
    lr_horizon: int | None  # trainer.total_steps; None means sys.maxsize
    checkpoint_job_dir: str
    explores: bool  # the mode runs an explorer that reads tasksets
    trains: bool  # the mode runs the trainer


def eval_interval(interval: int, explorer_sync_interval: int, mode: str, algorithm: str | None) -> int:
    """Trinity's IntervalConfigValidator: evaluation happens at the explorer's sync points, so outside mode bench
    and the offline algorithms (dpo, sft) explorer.eval_interval is rounded down to a multiple of the explorer's
    sync interval (at least one)."""
    if mode == "bench" or algorithm in ("dpo", "sft") or explorer_sync_interval <= 0 \
            or interval % explorer_sync_interval == 0:
        return interval
    return max(interval // explorer_sync_interval, 1) * explorer_sync_interval


def gpu_per_engine(m: InferenceModelConfig) -> int:
    """TP x DP x PP; engines served remotely (tinker, external) take no GPUs."""
    if m.engine_type.startswith(("tinker", "external")):
        return 0
    return m.tensor_parallel_size * m.data_parallel_size * m.pipeline_parallel_size


def lengths(cfg: TrinityConfig) -> Lengths:
    """Trinity's _check_model_len: max_model_len = P + R when unset; P and R split the window when unset
    (P = L // 2); one set limit is clamped to L - 1 and the other takes the rest; min_response_tokens is
    lowered to R - 1 when it reaches R."""
    m = cfg.model
    L, P, R = m.max_model_len, m.max_prompt_tokens, m.max_response_tokens
    out = Lengths(L, P, R, m.min_response_tokens)
    if L is None:
        if P is None or R is None:
            return out
        out.max_model_len = L = P + R
        out.notes.append(("max_model_len", f"set to max_prompt_tokens + max_response_tokens = {L}"))
    if P is None and R is None:
        out.max_prompt_tokens, out.max_response_tokens = L // 2, L - L // 2
        out.notes.append(("max_prompt_tokens", f"set to max_model_len // 2 = {L // 2}, "
                          f"max_response_tokens to {L - L // 2}"))
    elif P is None:
        out.max_response_tokens = min(R, L - 1)
        out.max_prompt_tokens = L - out.max_response_tokens
        out.notes.append(("max_response_tokens", f"max_prompt_tokens set to max_model_len - max_response_tokens"
                          f" = {out.max_prompt_tokens}"))
    elif R is None:
        out.max_prompt_tokens = min(P, L - 1)
        out.max_response_tokens = L - out.max_prompt_tokens
        out.notes.append(("max_prompt_tokens", f"max_response_tokens set to max_model_len - max_prompt_tokens"
                          f" = {out.max_response_tokens}"))
    R = out.max_response_tokens
    if R is not None and out.min_response_tokens >= R:
        out.min_response_tokens = max(R - 1, 0)
        out.notes.append(("min_response_tokens", f"lowered to {out.min_response_tokens} (below max_response_tokens)"))
    return out


def gpu_split(cfg: TrinityConfig, mode: str, nodes: int | None = None, gpus_per_node: int | None = None
              ) -> GpuSplit | None:
    """Trinity's RayClusterConfigValidator: explorer GPUs = rollout engines (engine_num x TP x DP x PP) plus
    auxiliary models (none in train mode); the trainer gets total - explorer, on one node if that fits,
    else on (trainer_gpu_num / gpu_per_node) whole nodes; in colocate mode explorer and trainer share the one GPU
    (the validator sets both counts to 1 and refuses another total)."""
    c = cfg.cluster
    from_options = False
    node_num, gpn = c.node_num or 0, c.gpu_per_node or 0
    if not node_num or not gpn:
        if not (nodes and gpus_per_node):
            return None
        node_num, gpn, from_options = nodes, gpus_per_node, True
    ex = cfg.explorer
    rollout = aux = 0
    if mode != "train":
        rollout = gpu_per_engine(ex.rollout_model) * ex.rollout_model.engine_num
        aux = sum(gpu_per_engine(m) * m.engine_num for m in ex.auxiliary_models)
    total = node_num * gpn
    explorer = rollout + aux
    trainer = 1 if mode == "colocate" else total - explorer
    t_nodes = t_per_node = None
    if trainer > 0:
        if trainer <= gpn:
            t_nodes, t_per_node = 1, trainer
        elif trainer % gpn == 0:
            t_nodes, t_per_node = trainer // gpn, gpn
    return GpuSplit(node_num, gpn, total, rollout, aux, explorer, trainer, t_nodes, t_per_node, from_options)


def experience_storage(cfg: TrinityConfig) -> str:
    """The storage the trainer reads its experiences from, as Trinity's buffer validator leaves it
    (config_validator.py _check_trainer_input): a queue where no experience buffer is set, and in place of a file in
    modes both and colocate (the explorer writes while the trainer reads); else the buffer's storage_type."""
    eb = cfg.buffer.trainer_input.experience_buffer
    if eb is None or eb.storage_type == "file" and cfg.mode in ("both", "colocate"):
        return "queue"
    return eb.storage_type


def derive(cfg: TrinityConfig, *, nodes: int | None = None, gpus_per_node: int | None = None) -> Derived:
    a = cfg.algorithm
    mode = cfg.mode
    algo = registry.ALGORITHMS.get(a.algorithm_type)
    functions = {}
    for name in registry.FUNCTION_FIELDS:
        value = getattr(a, name)
        functions[name] = value if value is not None else (
            algo.default(name) if algo else registry.GLOBAL_DEFAULTS.get(name))
    algo_name = algo.name if algo else a.algorithm_type
    repeat = a.repeat_times
    if algo_name == "dpo":
        repeat = 2
        if functions["kl_loss_fn"] in (None, "none"):
            functions["kl_loss_fn"] = "k2"
    offline = algo_name in registry.OFFLINE_ALGORITHMS
    tbs = cfg.buffer.train_batch_size
    if tbs == 0:
        tbs = None if (mode == "train" or algo_name in ("sft", "dpo")) else cfg.buffer.batch_size * repeat

    s = cfg.synchronizer
    method = s.sync_method
    if offline:
        method = "checkpoint"
    elif method == "nccl":
        if mode in ("train", "explore", "bench", "serve") or cfg.model.lora_configs:
            method = "checkpoint"
        elif mode == "colocate":
            method = "memory"
    interval = cfg.trainer.save_interval if offline else s.sync_interval
    esi = s.explorer_sync_interval if s.explorer_sync_interval is not None else interval
    tsi = s.trainer_sync_interval if s.trainer_sync_interval is not None else interval
    evaluate = eval_interval(cfg.explorer.eval_interval, esi, mode, algo_name)

    lens = lengths(cfg)
    t = cfg.trainer
    sp = max(t.ulysses_sequence_parallel_size, 1)
    parallel = t.megatron.context_parallel_size if t.trainer_strategy == "megatron" else sp
    budget = t.max_token_len_per_gpu
    if budget is None and lens.max_model_len is not None and parallel > 0:
        budget = math.ceil(2 * lens.max_model_len / parallel)

    gpus = None if cfg.model.tinker.enable else gpu_split(cfg, mode, nodes, gpus_per_node)
    job_dir = os.path.join(os.path.abspath(cfg.checkpoint_root_dir or "."), cfg.project, cfg.group, cfg.name)
    return Derived(
        mode=mode, algorithm=algo, functions=functions,
        loss_agg_mode=a.loss_agg_mode or registry.GLOBAL_DEFAULTS["loss_agg_mode"], repeat_times=repeat,
        train_batch_size=tbs, lengths=lens, gpus=gpus,
        rollout_gpu_per_engine=gpu_per_engine(cfg.explorer.rollout_model), sync_method=method,
        sync_interval=interval, explorer_sync_interval=esi, trainer_sync_interval=tsi, eval_interval=evaluate,
        sequence_parallel=sp, max_token_len_per_gpu=budget, lr_horizon=t.total_steps, checkpoint_job_dir=job_dir,
        explores=mode in ("both", "explore", "colocate", "bench", "serve"),
        trains=mode in ("both", "train", "colocate"),
    )
