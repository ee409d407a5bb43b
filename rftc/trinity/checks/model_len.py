"""Model rules (ModelConfigValidator): the length window, external and Tinker models, LoRA count."""

from __future__ import annotations

from rftc.trinity.checks._util import first_set

M = ("model",)


def check(ctx, cfg, d) -> None:
    m = cfg.model
    L, P, R = m.max_model_len, m.max_prompt_tokens, m.max_response_tokens
    if None not in (L, P, R) and P + R > L:
        ctx.add("RFTC420", f"`max_prompt_tokens` + `max_response_tokens` ({P} + {R}) exceeds `max_model_len` ({L}). "
                "Please adjust them accordingly.", M + ("max_model_len",))
    if L is None and (P is None or R is None):
        ctx.add("RFTC421", "Unable to determine `max_model_len`, please set it manually.",
                first_set(ctx, M + ("max_prompt_tokens",), M + ("max_response_tokens",), M),
                hint="set model.max_model_len (or both max_prompt_tokens and max_response_tokens)")
    for field, what in d.lengths.notes:
        if field == "max_model_len" or (field == "max_prompt_tokens" and P is None and R is None):
            continue  # the documented defaults: the window is the sum, or split in halves
        ctx.add("RFTC422", f"Trinity derives a length: `model.{field}` {what}", first_set(ctx, M + (field,), M))
    ext = m.external_model
    if ext.enable:
        if cfg.mode != "bench":
            ctx.add("RFTC423", "External model is only supported in `bench` mode.", M + ("external_model", "enable"))
        for key in ("base_url_env", "api_key_env", "model_name"):
            if not getattr(ext, key):
                ctx.add("RFTC423", f"`model.external_model.{key}` is required for external engine.",
                        M + ("external_model",))
    if m.tinker.enable and d.algorithm is not None and d.algorithm.use_critic:
        ctx.add("RFTC423", "Critic model is not supported when using tinker!", M + ("tinker", "enable"))
    if m.lora_configs and len(m.lora_configs) > 1:
        ctx.add("RFTC424", "Only one lora adapter is supported for now.", M + ("lora_configs", 1))
