"""Trinity's SFT expansion (algorithm_type sft) -> the overrides of veRL's SFT trainer of one release: the trainer
that release's users launch with torchrun, as veRL's own examples/sft scripts do: fsdp_sft_trainer (config
sft_trainer) where the release ships it (verl 0.1 to 0.7.0), else the engine trainer sft_trainer (config
sft_trainer_engine). The inverse of rftc.mapping.sft, read from the view the semantic model reads
(rftc.semantics.trinity.view, sft_view), so each override names the Trinity keys it came from."""

from __future__ import annotations

from rftc.mapping.sft import NEVER, ratio_key
from rftc.reverse.overrides import Override, as_written
from rftc.semantics.data import THINKING_DEFAULT
from rftc.semantics.model import Value
from rftc.semantics.sft_trinity import EB, MICRO, OPT, parquet_of
from rftc.semantics.sft_verl import THINKING
from rftc.trinity.schema import TrinityConfig
from rftc.verl.releases.schema import leaf_paths, load

LEGACY_MODULE, ENGINE_MODULE = "verl.trainer.fsdp_sft_trainer", "verl.trainer.sft_trainer"


def trainer_of(release: str) -> tuple[str, str]:
    """(module, config name) of the SFT trainer a release's users launch."""
    if "sft_trainer" in load(release).configs:
        return LEGACY_MODULE, "sft_trainer"
    return ENGINE_MODULE, "sft_trainer_engine"


def sft_overrides(x: TrinityConfig, v: dict[str, Value], release: str, raw: dict | None = None
                  ) -> tuple[list[Override], list[Override]]:
    """The overrides of the release's SFT trainer that train what ``v`` (view(x)) describes, and those whose key
    the release lacks."""
    module, config = trainer_of(release)
    legacy = module == LEGACY_MODULE
    keys = leaf_paths(release, config)
    out: dict[str, Override] = {}
    raw = raw or {}

    def val(key, default=None):
        got = v.get(key)
        return default if got is None or got.value is None else got.value

    def put(key, value, *trinity_keys, formula="", source=None):
        if value is not None:
            out[key] = Override(key, value, source or ", ".join(v[k].source for k in trinity_keys if k in v), formula)

    def first(*names):
        return next((k for k in names if k in keys), names[0])

    eb, t = x.buffer.trainer_input.experience_buffer, x.trainer
    if eb is not None and eb.path:
        path = as_written(raw, f"{EB}.path", eb.path)
        put("data.train_files", parquet_of(path, eb.split), f"{EB}.path", f"{EB}.split",
            formula=f"the {eb.split} split's parquet file under {path}")
    put("data.train_batch_size", val("buffer.train_batch_size"), "buffer.train_batch_size")
    if not legacy:
        put("data.use_dynamic_bsz", t.use_dynamic_bsz, "trainer.use_dynamic_bsz")
    if t.use_dynamic_bsz and not legacy:
        put("data.max_token_len_per_gpu", val("trainer.max_token_len_per_gpu"), "trainer.max_token_len_per_gpu")
    else:  # fsdp_sft_trainer has fixed micro-batches only (a dynamic batch is reported: RFTC601)
        put("data.micro_batch_size_per_gpu", val(MICRO, 1), MICRO)
    put("data.max_length", val("model.max_model_len"), "model.max_model_len")
    _format(put, eb, legacy, f"{EB}.format", load(release).tree(config).get("data", {}))
    m = x.model
    put("model.partial_pretrain" if legacy else "model.path", as_written(raw, "model.model_path", m.model_path),
        "model.model_path")
    put("model.trust_remote_code", m.trust_remote_code or None, "model.trust_remote_code")
    if m.lora_configs:
        lora = m.lora_configs[0]
        for key, value in (("lora_rank", lora.lora_rank), ("lora_alpha", lora.lora_alpha),
                           ("target_modules", lora.target_modules), ("exclude_modules", lora.exclude_modules),
                           ("lora_adapter_path", lora.path)):
            put(f"model.{key}", value, "model.lora_configs")
    put("model.strategy" if legacy else "engine.strategy", t.trainer_strategy, "trainer.trainer_strategy")
    put(first("ulysses_sequence_parallel_size", "engine.ulysses_sequence_parallel_size"),
        t.ulysses_sequence_parallel_size, "trainer.ulysses_sequence_parallel_size")
    put(first("use_remove_padding", "model.use_remove_padding"), t.use_remove_padding, "trainer.use_remove_padding")
    if eb is not None and not legacy:  # fsdp_sft_trainer's datasets read no chat template (RFTC601)
        put("model.custom_chat_template", eb.format.chat_template or m.custom_chat_template, f"{EB}.format",
            "model.custom_chat_template")
    if eb is not None:
        _thinking(out, put, eb.format.enable_thinking, legacy, keys, v)
    _optimizer(put, val, first, keys, legacy)
    _steps(put, val)

    def has(key: str) -> bool:
        return key in keys or key.startswith("+") and key[1:].rsplit(".", 1)[0] in keys

    return [o for o in out.values() if has(o.key)], [o for o in out.values() if not has(o.key)]


def _thinking(out: dict, put, thinking, legacy: bool, keys, v: dict) -> None:
    """Trinity's thinking switch (format.enable_thinking). The engine trainer's multi-turn dataset renders with
    data.enable_thinking_default where that is not None, over the switch of apply_chat_template_kwargs (its default,
    the string 'none', reads as true: rftc.semantics.data.chat_kwargs), so where the release has that key it carries
    the switch, null for none; elsewhere apply_chat_template_kwargs does (a free-form mapping: a new key)."""
    if not legacy and THINKING_DEFAULT in keys:
        source = v[f"{EB}.format"].source if f"{EB}.format" in v else f"{EB}.format"
        out[THINKING_DEFAULT] = Override(THINKING_DEFAULT, thinking, source, "format.enable_thinking" + (
            " (none: null, which leaves the rows' thinking switch to apply_chat_template_kwargs)" if thinking is None
            else ""))
    elif thinking is not None:
        put(f"+{THINKING}", thinking, f"{EB}.format")


def _format(put, eb, legacy: bool, at: str, nested_default: dict) -> None:
    """Single-turn rows for fsdp_sft_trainer; chat messages under the multi-turn keys of the trainer. The engine
    trainer reads messages only: a plaintext format stays out, and the loss's tokens differ (RFTC601)."""
    if eb is None:
        return
    f = eb.format
    if f.prompt_type == "plaintext":
        if legacy:
            put("data.prompt_key", f.prompt_key, source=f"{at}.prompt_key")
            put("data.response_key", f.response_key, source=f"{at}.response_key")
            for side in ("prompt", "response"):
                if nested_default.get(f"{side}_dict_keys"):  # verl 0.4.0 nests by default: the column's text
                    put(f"data.{side}_dict_keys", [], source=f"{at}.{side}_key", formula="the column's own text")
        return
    prefix = "data.multiturn." if legacy else "data."
    if legacy:
        put("data.multiturn.enable", True, source=f"{at}.prompt_type", formula="messages: veRL's multi-turn dataset")
    put(f"{prefix}messages_key", f.messages_key, source=f"{at}.messages_key")
    put(f"{prefix}tools_key", f.tools_key, source=f"{at}.tools_key")


def _optimizer(put, val, first, keys, legacy: bool) -> None:
    o = "verl.actor.optim"
    put("optim.lr", val(f"{o}.lr"), f"{o}.lr")
    put("optim.weight_decay", val(f"{o}.weight_decay"), f"{o}.weight_decay")
    put("optim.betas", val(f"{OPT}.betas"), f"{OPT}.betas")
    put("optim.clip_grad", val(f"{OPT}.clip_grad"), f"{OPT}.clip_grad")
    sched = val(f"{o}.lr_scheduler_type", "constant")
    put("optim.lr_scheduler" if legacy else first("optim.lr_scheduler_type", "optim.warmup_style"), sched,
        f"{o}.lr_scheduler_type")
    if sched == "cosine":
        put("optim.min_lr_ratio", val(f"{OPT}.min_lr_ratio"), f"{OPT}.min_lr_ratio")
    put(ratio_key(keys.__contains__) or "optim.lr_warmup_steps_ratio", val(f"{o}.lr_warmup_steps_ratio"),
        f"{o}.lr_warmup_steps_ratio")
    warmup = val(f"{o}.lr_warmup_steps")
    if isinstance(warmup, int) and warmup > 0:
        put("optim.lr_warmup_steps", warmup, f"{o}.lr_warmup_steps")


def _steps(put, val) -> None:
    """total_epochs; total_training_steps = the bound Trinity stops at (trainer.total_steps, buffer.total_steps),
    which veRL's scheduler also takes as its horizon, as Trinity's does trainer.total_steps."""
    put("trainer.total_epochs", val("buffer.total_epochs"), "buffer.total_epochs")
    bound = {k: val(k) for k in ("trainer.total_steps", "buffer.total_steps") if val(k)}
    if bound:
        put("trainer.total_training_steps", min(bound.values()), *bound,
            formula="the lower: Trinity stops at either" if len(set(bound.values())) > 1 else "")
    if 0 < val("trainer.save_interval", 0) < NEVER:
        put("trainer.save_freq", val("trainer.save_interval"), "trainer.save_interval")
    if val("trainer.max_checkpoints_to_keep"):
        put("trainer.max_ckpt_to_keep", val("trainer.max_checkpoints_to_keep"), "trainer.max_checkpoints_to_keep")
    put("trainer.project_name", val("project"), "project")
    put("trainer.experiment_name", val("name"), "name")
