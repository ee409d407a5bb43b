"""``trainer.trainer_config`` as Trinity 0.6 reads it on the verl>=0.8 path (trinity-0.6.md §3.3): only the
model, actor, ref, rollout and critic sections are kept (old layout under actor_rollout_ref, or flat), frozen
keys are ignored with a warning, the other strategy's engine block is stripped, and keys verl does not have
fail when the trainer builds its config."""

from __future__ import annotations

from rftc.trinity.checks._util import suggest
from rftc.trinity.generated.verl_trainer_keys import SECTIONS, VERL_VERSION

TC = ("trainer", "trainer_config")
KEPT = ("model", "actor", "ref", "rollout", "critic")
# frozen key -> the Trinity field that controls it
_SP = "trainer.ulysses_sequence_parallel_size"
_TOK = "trainer.max_token_len_per_gpu"
FROZEN = {
    "model": {"path": "model.model_path", "trust_remote_code": "model.trust_remote_code",
              "use_remove_padding": "trainer.use_remove_padding", "custom_chat_template": "model.custom_chat_template",
              **{k: "model.lora_configs" for k in ("lora_rank", "lora_alpha", "target_modules", "exclude_modules",
                                                   "lora_adapter_path")}},
    "actor": {"strategy": "trainer.trainer_strategy", "ppo_mini_batch_size": "buffer.train_batch_size",
              "use_dynamic_bsz": "trainer.use_dynamic_bsz", "ppo_max_token_len_per_gpu": _TOK,
              "ppo_infer_max_token_len_per_gpu": _TOK, "use_kl_loss": "algorithm.kl_loss_fn",
              "loss_agg_mode": "algorithm.loss_agg_mode", "rollout_n": "algorithm.repeat_times",
              "grad_clip": "trainer.grad_clip", "ulysses_sequence_parallel_size": _SP,
              "use_remove_padding": "trainer.use_remove_padding"},
    "ref": {"strategy": "trainer.trainer_strategy", "rollout_n": "algorithm.repeat_times",
            "log_prob_use_dynamic_bsz": "trainer.use_dynamic_bsz", "log_prob_max_token_len_per_gpu": _TOK,
            "ulysses_sequence_parallel_size": _SP, "use_remove_padding": "trainer.use_remove_padding"},
    "rollout": {"temperature": "model.temperature (or a taskset's rollout_args.temperature)",
                "n": "algorithm.repeat_times", "log_prob_use_dynamic_bsz": "trainer.use_dynamic_bsz",
                "log_prob_max_token_len_per_gpu": _TOK},
    "critic": {"enable": "algorithm.algorithm_type (ppo uses a critic)", "strategy": "trainer.trainer_strategy",
               "ppo_mini_batch_size": "buffer.train_batch_size", "use_dynamic_bsz": "trainer.use_dynamic_bsz",
               "ppo_max_token_len_per_gpu": _TOK, "ppo_infer_max_token_len_per_gpu": _TOK,
               "rollout_n": "algorithm.repeat_times", "grad_clip": "trainer.grad_clip",
               "ulysses_sequence_parallel_size": _SP, "forward_max_token_len_per_gpu": _TOK},
}
# dropped key -> the Trinity field to use instead
INSTEAD = {
    ("trainer", "critic_warmup"): "trainer.critic_warmup", ("trainer", "balance_batch"): "trainer.balance_batch",
    ("trainer", "max_actor_ckpt_to_keep"): "trainer.max_checkpoints_to_keep",
    ("trainer", "max_critic_ckpt_to_keep"): "trainer.max_checkpoints_to_keep",
    ("trainer", "total_training_steps"): "trainer.total_steps", ("trainer", "save_freq"): "trainer.save_interval",
    ("trainer", "test_freq"): "explorer.eval_interval", ("trainer", "total_epochs"): "buffer.total_epochs",
}
ENGINE_BLOCKS = {"fsdp_config": "fsdp", "fsdp": "fsdp", "megatron": "megatron"}


def sections(tc: dict) -> list[tuple[str, tuple, dict]]:
    """(section, path, mapping) for the sections Trinity keeps, in either layout."""
    out = []
    arr = tc.get("actor_rollout_ref")
    if isinstance(arr, dict):
        out += [(k, TC + ("actor_rollout_ref", k), arr[k]) for k in KEPT[:4] if isinstance(arr.get(k), dict)]
    out += [(k, TC + (k,), tc[k]) for k in KEPT if isinstance(tc.get(k), dict)]
    return out


def check(ctx, cfg, d) -> None:
    tc = cfg.trainer.trainer_config
    if tc in (None, {}):
        return
    if not isinstance(tc, dict):
        ctx.add("RFTC402", f"`trainer.trainer_config` must be a mapping, got {type(tc).__name__}", TC)
        return
    _dropped(ctx, tc, TC, set(KEPT) | {"actor_rollout_ref"})
    if isinstance(tc.get("actor_rollout_ref"), dict):
        _dropped(ctx, tc["actor_rollout_ref"], TC + ("actor_rollout_ref",), set(KEPT[:4]))
    megatron = cfg.trainer.trainer_strategy == "megatron"
    for section, path, body in sections(tc):
        for key, value in body.items():
            here = path + (key,)
            if key == "strategy" and section != "model":
                if str(value).startswith("megatron") and not megatron:
                    ctx.add("RFTC476", f"`{section}.strategy: {value}` in trainer_config is ignored (Trinity freezes "
                            f"the strategy to trainer.trainer_strategy = {cfg.trainer.trainer_strategy}): this trains "
                            "with FSDP", here, hint="set `trainer.trainer_strategy: megatron` and `trainer.megatron.*`")
                    continue
            if key in ENGINE_BLOCKS and section != "model":
                block_megatron = ENGINE_BLOCKS[key] == "megatron"
                if block_megatron != megatron:
                    ctx.add("RFTC476", f"`{section}.{key}` in trainer_config is stripped: trainer.trainer_strategy is "
                            f"{cfg.trainer.trainer_strategy}" + (" (use `trainer.megatron.*` and "
                                                                 "`trainer.trainer_strategy: megatron`)"
                                                                 if block_megatron else ""), here)
                    continue
            if key in FROZEN.get(section, {}):
                ctx.add("RFTC475", f"Ignoring trainer_config override for '{section}.{key}' — this field is "
                        "controlled by global_config", here, hint=f"set `{FROZEN[section][key]}` instead")
                continue
            if section == "critic" and key == "model":
                continue  # Trinity builds the critic's model config itself; the reference run of the guide's PPO
                # example (critic.model.fsdp_config) starts its trainer, so these keys are not checked
            _unknown(ctx, SECTIONS[section], section, key, value, here)


def _dropped(ctx, tc: dict, path: tuple, kept: set) -> None:
    for key, value in tc.items():
        if key in kept:
            continue
        subs = list(value) if isinstance(value, dict) else []
        instead = [f"{key}.{s} -> {INSTEAD[(key, s)]}" for s in subs if (key, s) in INSTEAD]
        ctx.add("RFTC474", f"trainer_config section `{key}` is dropped by Trinity 0.6 (verl>=0.8 path keeps only "
                "model, actor, ref, rollout, critic): its values have no effect", path + (key,),
                hint=("use the Trinity fields: " + "; ".join(instead)) if instead else None)


def _unknown(ctx, tree, dotted: str, key, value, path: tuple) -> None:
    if tree is None or "*" in tree:
        return
    if key not in tree:
        ctx.add("RFTC477", f"`{dotted}.{key}` is not a verl {VERL_VERSION} setting: the trainer fails when it builds "
                f"its config (unexpected keyword argument '{key}')", path, hint=suggest(key, tree))
        return
    sub = tree[key]
    if isinstance(sub, dict) and isinstance(value, dict):
        for k, v in value.items():
            _unknown(ctx, sub, f"{dotted}.{key}", k, v, path + (k,))
