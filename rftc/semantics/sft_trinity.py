"""The semantic model of a Trinity-RFT 0.6 SFT config (algorithm_type sft, mode train), read from Trinity's
expansion of it: the trainer reads buffer.train_batch_size rows of the experience buffer (a dataset file) per
optimizer step; the file reader serves rows x total_epochs samples across epoch ends (buffer.total_steps x the
batch where set), its last partial batch dropped; the trainer stops at trainer.total_steps, which is also the LR
horizon (sys.maxsize unset: trinity/trainer/verl/config.py). The SFT formatter renders prompt and response as a
chat (plaintext) or the messages, the loss on the assistant tokens: every assistant turn with
enable_concatenated_multi_turn, else the last one."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from rftc.mapping.lora import NONE, megatron_lora
from rftc.mapping.parquet import ParquetError, num_rows
from rftc.semantics.data import NO_CLASS
from rftc.semantics.data_trinity import sft_data
from rftc.semantics.model import SftRun, Value
from rftc.semantics.model_settings import adapter_lora, trinity_sft_fields
from rftc.semantics.inputs import data_path
from rftc.semantics.loss import trinity_schedule
from rftc.semantics.micro import trinity_sft_fields as micro_fields
from rftc.semantics.precision import trinity_sft_precision
from rftc.semantics.reward import trinity_backend
from rftc.semantics.seeds import trinity_seed
from rftc.semantics.sft_verl import KEPT_WHOLE, template_text
from rftc.semantics.trinity_inputs import _selector
from rftc.trinity import workers
from rftc.trinity.derive import derive
from rftc.trinity.schema import TrinityConfig

EB = "buffer.trainer_input.experience_buffer"
PIPELINE = "data_processor.task_pipeline"  # rftc.semantics.trinity_inputs puts it
OPT = "algorithm.optimizer"
MICRO = "trainer.trainer_config.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"


def parquet_of(path: str, split: str) -> str:
    """The parquet file of a dataset folder's split (a path that is a .parquet file is itself)."""
    return path if path.endswith(".parquet") else f"{path.rstrip('/')}/{split}.parquet"


def sft_view(x: TrinityConfig, put, where) -> None:
    """The SFT keys of ``view`` (rftc.semantics.trinity), from the expanded config ``x``."""
    eb = x.buffer.trainer_input.experience_buffer
    o, t = x.algorithm.optimizer, x.trainer
    put("buffer.train_batch_size", x.buffer.train_batch_size)
    put(f"{EB}.path", eb.path if eb is not None else None)
    put(f"{EB}.split", eb.split if eb is not None else None)
    put(f"{EB}.format", eb.format if eb is not None else None, where(f"{EB}.format"))
    for k in ("min_lr_ratio", "betas", "clip_grad"):
        put(f"{OPT}.{k}", getattr(o, k))
    put("trainer.use_dynamic_bsz", t.use_dynamic_bsz)
    put("trainer.max_token_len_per_gpu", derive(x).max_token_len_per_gpu)
    put(MICRO, workers.actor(x).micro_batch_size, where(MICRO) if workers.actor(x).micro_batch_size is not None
        else f"{MICRO} (Trinity's default: 1)")
    put("trainer.total_steps", t.total_steps)
    put("model.lora_configs", x.model.lora_configs)
    for k in ("trainer_strategy", "ulysses_sequence_parallel_size", "use_remove_padding", "save_interval",
              "max_checkpoints_to_keep"):
        put(f"trainer.{k}", getattr(t, k))
    put("project", x.project)
    put("name", x.name)


def from_trinity_sft(v: Mapping[str, Value], *, dataset_rows: int | None = None, cwd: str | None = None) -> SftRun:
    """``dataset_rows`` stands for the rows of the experience buffer's file where it is not readable from ``cwd``
    (the config's folder)."""
    def val(key, default=None):
        got = v.get(key)
        return default if got is None or got.value is None else got.value

    def of(value, *keys, formula=""):
        return Value(value, ", ".join(v[k].source for k in keys if k in v) if value is not None else "", formula)

    tbs, epochs = val("buffer.train_batch_size"), val("buffer.total_epochs", 1)
    bound = [s for s in (val("trainer.total_steps"), val("buffer.total_steps")) if s]
    warmup, ratio = val("verl.actor.optim.lr_warmup_steps"), val("verl.actor.optim.lr_warmup_steps_ratio", 0.0)
    warmup_set = isinstance(warmup, int) and warmup > 0
    megatron = str(val("trainer.trainer_strategy", "")).startswith("megatron")
    o = "verl.actor.optim"
    # Megatron's optim section (lr_decay_style the schedule, as rftc.semantics.trinity reads it) decays to min_lr
    # over lr_decay_steps
    sched = val(f"{o}.lr_scheduler_type", "constant")
    horizon_key = f"{o}.lr_decay_steps" if megatron and val(f"{o}.lr_decay_steps") else f"{o}.total_training_steps"
    horizon = val(horizon_key)
    fmt = val(f"{EB}.format")
    loss = val("algorithm.policy_loss_fn_args", {}).get("loss_agg_mode", val("algorithm.loss_agg_mode"))
    lora = val("model.lora_configs") or []
    path, split = val(f"{EB}.path"), val(f"{EB}.split", "train")
    selector = val(f"{EB}.data_selector")
    megatron = str(val("trainer.trainer_strategy", "")).startswith("megatron")
    return SftRun(
        examples_per_step=of(tbs, "buffer.train_batch_size"),
        micro_batch=of(f"dynamic, {val('trainer.max_token_len_per_gpu')} tokens", "trainer.use_dynamic_bsz",
                       "trainer.max_token_len_per_gpu") if val("trainer.use_dynamic_bsz")
        else of(val(MICRO, 1), MICRO),
        loss_agg_mode=of(loss, "algorithm.policy_loss_fn_args", "algorithm.loss_agg_mode"),
        total_epochs=of(epochs, "buffer.total_epochs"),
        total_steps=_total(v, of, tbs, epochs, bound, _rows(path, split, dataset_rows, cwd)),
        lr=of(val("verl.actor.optim.lr"), "verl.actor.optim.lr"),
        lr_scheduler=of(sched, f"{o}.lr_scheduler_type"),
        min_lr_ratio=(of(val(f"{o}.min_lr") / val(f"{o}.lr"), f"{o}.min_lr", formula="min_lr / lr") if megatron
                      else of(val(f"{OPT}.min_lr_ratio"), f"{OPT}.min_lr_ratio")) if sched == "cosine" else Value(None),
        warmup_steps=of(warmup, "verl.actor.optim.lr_warmup_steps") if warmup_set else Value(None),
        warmup_ratio=of(ratio, "verl.actor.optim.lr_warmup_steps_ratio"),
        lr_horizon=of("sys.maxsize" if horizon == sys.maxsize else horizon, horizon_key)
        if (ratio > 0 and not warmup_set) or sched != "constant" else Value(None),
        weight_decay=of(val("verl.actor.optim.weight_decay"), "verl.actor.optim.weight_decay"),
        betas=of(list(val(f"{OPT}.betas")), f"{OPT}.betas"),
        clip_grad=of(val(f"{OPT}.clip_grad"), f"{OPT}.clip_grad"),
        max_length=of(val("model.max_model_len"), "model.max_model_len"),
        overlong_rows=of(KEPT_WHOLE, "model.max_model_len", formula="Trinity's SFT formatter does not truncate"),
        lora=of(megatron_lora(lambda k: val(f"verl.model.lora.{k}")), "trainer.trainer_strategy",
                *(k for k in v if k.startswith("verl.model.lora."))) if megatron else
        of(adapter_lora(*(getattr(lora[0], k) for k in ("lora_rank", "lora_alpha", "target_modules",
                                                        "exclude_modules")), val("verl.model.lora_adapter_path"),
                        lora[0].lora_rank > 0) if lora else NONE, "model.lora_configs"),
        data=of(sft_data(data_path(parquet_of(path, split)), data_path(path), val(f"{EB}.storage_type"),
                         val(f"{EB}.subset_name"))
                + (f", written by Data-Juicer's task pipeline {val(PIPELINE)}" if val(PIPELINE) else "")
                if path else None, f"{EB}.path", f"{EB}.split", f"{EB}.storage_type", f"{EB}.subset_name", PIPELINE),
        data_order=of(_selector(selector), f"{EB}.data_selector") if selector is not None else Value(None),
        chat_template=of(template_text(fmt.chat_template or val("model.custom_chat_template"),
                                       {"enable_thinking": fmt.enable_thinking}),
                         f"{EB}.format", "model.custom_chat_template") if fmt is not None else Value(None),
        loss_tokens=of(_loss_tokens(fmt), f"{EB}.format") if fmt is not None else Value(None),
        model=of(data_path(val("model.model_path")), "model.model_path"),
        trainer_seed=trinity_seed(v, val, critic=False),
        **trinity_sft_fields(v, val, of),
        **trinity_backend(val, of),
        precision=trinity_sft_precision(v, val),
        lr_schedule_args=trinity_schedule(val, of, sched),
        dataset_class=Value(NO_CLASS, "Trinity's SFT formatter (no dataset class of the user's)"),
        # the formatter's multimodal columns (trinity/buffer/schema/formatter.py: format.image_key, video_key)
        media=of(", ".join(f"{what} from column {getattr(fmt, key)}" for what, key in (
            ("images", "image_key"), ("videos", "video_key")) if getattr(fmt, key)), f"{EB}.format")
        if fmt is not None and (fmt.image_key or fmt.video_key) else Value(None),
        **micro_fields(val, of, loss_agg_mode=loss),
    )


def _rows(path: str | None, split: str, rows: int | None, cwd: str | None) -> int | str:
    if rows is not None:
        return rows
    if not path:
        return "unknown (no experience buffer path)"
    file = os.path.join(cwd or ".", data_path(parquet_of(path, split)))
    if "${" in file or not os.path.isfile(file):
        return "unknown (data not readable)"
    try:
        return num_rows(file)
    except ParquetError as e:
        return f"unknown ({e})"


def _total(v, of, tbs: int, epochs: int, bound: list[int], rows: int | str) -> Value:
    """min(trainer.total_steps, buffer.total_steps, the data's end); the reader cycles the data x total_epochs, so
    it ends after rows x total_epochs // train_batch_size steps (buffer.total_steps replaces that end)."""
    keys = ("trainer.total_steps", "buffer.total_steps")
    cycles = v.get("buffer.total_steps") is not None and bool(v["buffer.total_steps"].value)
    if cycles or not isinstance(rows, int):
        return of(min(bound), *keys) if bound else Value(rows if isinstance(rows, str) else None,
                                                            v[f"{EB}.path"].source)
    end = rows * epochs // tbs
    if bound and min(bound) <= end:
        return of(min(bound), *keys)
    return of(end, f"{EB}.path", "buffer.train_batch_size", "buffer.total_epochs",
              formula=f"{rows} rows x total_epochs // train_batch_size")


def _loss_tokens(fmt) -> str:
    """As rftc.semantics.sft_verl's (the tools column the template is given with chat messages), and the text
    Trinity's formatter adds that veRL's datasets have no key for (a system prompt, a reply prefix)."""
    extra = "".join(f", {name} {getattr(fmt, key)!r}" for key, name in (
        ("system_prompt", "system prompt"), ("system_prompt_key", "system prompt column"),
        ("reply_prefix", "reply prefix")) if getattr(fmt, key))
    if fmt.prompt_type == "plaintext":
        return f"single-turn: {fmt.response_key} after {fmt.prompt_key}{extra}"
    turns = "every assistant turn" if fmt.enable_concatenated_multi_turn else "the last assistant turn"
    return f"messages {fmt.messages_key} (tools {fmt.tools_key}): {turns}{extra}"  # its formatter's tools=
