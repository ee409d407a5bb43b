"""Trainer rules (TrainerConfigValidator) and the divisibility rules that only the verl<0.8 path enforces at
validation (veRLConfig.synchronize_config); with verl>=0.8 the same configs fail or misbehave when the
trainer starts, so they are warnings that name the path."""

from __future__ import annotations

from rftc.trinity import registry
from rftc.trinity.checks._util import first_set, suggest
from rftc.trinity.checks.trainer_config import sections

T = ("trainer",)
LEGACY = "the verl<0.8 path of Trinity 0.6 rejects this at validation; with verl>=0.8 it fails when the trainer starts"


def check(ctx, cfg, d) -> None:
    if not d.trains:
        return
    t = cfg.trainer
    if t.save_hf_checkpoint not in registry.SAVE_HF_CHECKPOINT:
        ctx.add("RFTC460", f"Invalid trainer.save_hf_checkpoint: {t.save_hf_checkpoint}, must be one of 'last', "
                "'always', or 'never'.", T + ("save_hf_checkpoint",))
    if t.trainer_type not in registry.TRAINER_TYPES:
        ctx.add("RFTC461", f"Invalid trainer type: {t.trainer_type}", T + ("trainer_type",),
                hint=suggest(t.trainer_type, registry.TRAINER_TYPES, "verl or tinker"))
    if t.ulysses_sequence_parallel_size < 1:
        ctx.add("RFTC416", f"Trinity resets `trainer.ulysses_sequence_parallel_size` {t.ulysses_sequence_parallel_size}"
                " to 1", T + ("ulysses_sequence_parallel_size",))
    L = d.lengths.max_model_len
    sp = d.sequence_parallel
    if t.max_token_len_per_gpu is not None and L is not None and t.max_token_len_per_gpu * sp < L:
        ctx.add("RFTC464", f"`trainer.max_token_len_per_gpu` ({t.max_token_len_per_gpu}) x SP ({sp}) is below "
                f"max_model_len ({L}): one full-length sequence does not fit a micro-batch", T + ("max_token_len_per_gpu",),
                hint=f"raise it to at least {-(-L // sp)} or leave it unset (Trinity uses ceil(2 x max_model_len / SP))")
    g = d.gpus
    known = g is not None and g.trainer_gpu_num > 0 and g.trainer_node_num is not None and g.trainer_gpu_num % sp == 0
    if not t.use_dynamic_bsz:
        _global_micro(ctx, cfg, g.trainer_gpu_num // sp if known else None, sp)
    if g is None or g.trainer_gpu_num <= 0 or g.trainer_node_num is None:
        return  # the split itself is wrong or unknown: reported by the cluster check
    W = g.trainer_gpu_num
    sp_where = first_set(ctx, T + ("ulysses_sequence_parallel_size",), ("explorer", "rollout_model", "engine_num"),
                         ("cluster", "gpu_per_node"))
    if W % sp:
        ctx.add("RFTC463", f"The number of trainer GPUs ({W}) must be divisible by "
                f"`actor.ulysses_sequence_parallel_size` ({sp}). ({LEGACY})", sp_where)
        return
    tbs = d.train_batch_size
    dp = W // sp
    if tbs is not None and tbs % dp:
        ctx.add("RFTC462", f"The batch size ({tbs}) must be divisible by the number of GPUs ({W}) divided by the "
                f"sequence parallelism size ({sp}). ({LEGACY})",
                first_set(ctx, ("buffer", "train_batch_size"), ("buffer", "batch_size"), ("algorithm", "repeat_times"),
                          ("buffer",)),
                notes=[f"train_batch_size = {tbs}; trainer GPUs = {W} (cluster {g.total_gpu_num} - explorer "
                       f"{g.explorer_gpu_num}); SP = {sp}"],
                hint=f"use a train_batch_size that is a multiple of {dp}")
        return
    if not t.use_dynamic_bsz and tbs is not None:
        micro = _micro_batch(ctx)
        if micro:
            mini = tbs // dp
            if mini <= 0 or mini % micro:
                ctx.add("RFTC465", f"normalized ppo_mini_batch_size {mini} should be divisible by "
                        f"ppo_micro_batch_size_per_gpu {micro} (train_batch_size {tbs} / (trainer GPUs {W} / SP {sp}))",
                        _micro_path(ctx))


def _micro_path(ctx) -> tuple:
    tc = ("trainer", "trainer_config")
    return first_set(ctx, tc + ("actor_rollout_ref", "actor", "ppo_micro_batch_size_per_gpu"),
                     tc + ("actor", "ppo_micro_batch_size_per_gpu"), ("trainer", "use_dynamic_bsz"))


def _micro_batch(ctx) -> int | None:
    value = ctx.raw(_micro_path(ctx))
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


# trainer_config's global micro-batch sizes, by section (Trinity's names)
GLOBAL_MICRO = {"actor": "ppo_micro_batch_size", "rollout": "log_prob_micro_batch_size",
                "ref": "log_prob_micro_batch_size", "critic": "ppo_micro_batch_size"}


def _global_micro(ctx, cfg, dp: int | None, sp: int) -> None:
    """A global micro-batch size in trainer_config: with verl>=0.8 Trinity's workers read only the per-GPU one
    (engine_workers.py asserts it is set; ActorConfig refuses both), so the trainer fails when it starts; the
    verl<0.8 path divides it by the trainer's data-parallel ranks (``dp``), which gives the per-GPU size to write."""
    tc = cfg.trainer.trainer_config
    for section, path, body in sections(tc if isinstance(tc, dict) else {}):
        key = GLOBAL_MICRO.get(section)
        size = body.get(key) if key else None
        if not isinstance(size, int) or isinstance(size, bool):
            continue
        per, both = f"{key}_per_gpu", body.get(f"{key}_per_gpu") is not None
        legacy = (f"; the verl<0.8 path divides it by the trainer's {dp} data-parallel ranks (trainer GPUs / SP {sp})"
                  if dp else "")
        share = f": {size // dp}" if dp and size // dp > 0 else ""
        ctx.add("RFTC466", f"`{section}.{key}` ({size}) is a global micro-batch size: with verl>=0.8 Trinity's "
                f"workers read only `{per}`" + (" and refuse both" if both else " and fail when the trainer starts")
                + legacy, path + (key,), hint=f"remove `{key}`" if both else f"write `{per}{share}` instead")
