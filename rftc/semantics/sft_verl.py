"""The semantic model of a launch of veRL's SFT trainers (fsdp_sft_trainer: config sft_trainer; sft_trainer and
sft_trainer_ray: config sft_trainer_engine), read by the keys each release's trainer reads (rftc.mapping.sft):
data.train_batch_size examples per optimizer step, len(dataloader) x total_epochs steps (the last partial batch
dropped) or trainer.total_training_steps, the scheduler over the same number of steps."""

from __future__ import annotations

from rftc.mapping.lora import megatron_lora
from rftc.mapping.models import MCORE, SCHEDULES
from rftc.mapping.sft import LEGACY, ratio_key, schedule_keys, single_turn
from rftc.mapping.steps import steps_per_epoch
from rftc.semantics.data import chat_kwargs, dataset_class
from rftc.semantics.inputs import SHUFFLED, Order, data_path
from rftc.semantics.loss import verl_schedule
from rftc.semantics.micro import verl_sft_fields as micro_fields
from rftc.semantics.model import SftRun, Value
from rftc.semantics.model_settings import adapter_lora, verl_sft_fields
from rftc.semantics.precision import sft_precision_fields
from rftc.semantics.reader import Reader, train_rows
from rftc.semantics.reward import verl_backend
from rftc.semantics.seeds import verl_sft_seed
from rftc.verl.effective import EffectiveConfig
from rftc.verl.releases import semantics

TOKENIZERS = "the tokenizer's"
THINKING = "data.apply_chat_template_kwargs.enable_thinking"
KEPT_WHOLE = "kept whole"  # veRL's truncation=error stops at such a row: the rows it trains are whole
SAMPLER = "torch DistributedSampler"  # the SFT trainers' train_sampler: shuffle=True, its seed 0


def from_verl_sft(eff: EffectiveConfig, *, total_steps: int | None = None, dataset_rows: int | None = None,
                  cwd: str | None = None) -> SftRun:
    """``total_steps`` and ``dataset_rows`` stand for what the data files would say (rftc.semantics.verl)."""
    r, sem = Reader(eff), semantics.of(eff)
    legacy = eff.has(LEGACY)

    def get(key: str):
        return r.get(key) if eff.has(key) else None

    tbs, epochs = r.get("data.train_batch_size"), r.get("trainer.total_epochs")
    tts = r.get("trainer.total_training_steps")
    tts = tts if isinstance(tts, int) and tts > 0 else None
    end = _data_end(r, tbs, epochs, total_steps, dataset_rows, cwd)
    sched_key = schedule_keys(get, legacy)
    sched_key = sched_key[0] if sched_key else None
    sched = str(r.get(sched_key)).lower() if sched_key else "cosine"
    sched = SCHEDULES.get(sched, sched)
    warmup = r.get("optim.lr_warmup_steps")
    warmup_set = isinstance(warmup, int) and warmup > 0
    rk = ratio_key(eff.has)
    ratio = (r.get(rk) or 0.0) if rk else 0.0
    wants_horizon = (ratio > 0 and not warmup_set) or sched != "constant"
    return SftRun(
        examples_per_step=r.v("data.train_batch_size"),
        micro_batch=_micro(r, legacy),
        loss_agg_mode=Value("token-mean", f"verl {eff.release} {'fsdp_sft_trainer' if legacy else 'sft_trainer'}"),
        total_epochs=r.v("trainer.total_epochs"),
        total_steps=_total(r, tts, end),
        lr=r.v("optim.lr"),
        lr_scheduler=r.of(sched, sched_key) if sched_key else Value(sched, "fsdp_sft_trainer's default"),
        min_lr_ratio=_min_lr_ratio(r) if sched == "cosine" else Value(None),
        warmup_steps=r.v("optim.lr_warmup_steps") if warmup_set else Value(None),
        warmup_ratio=r.of(ratio, rk) if rk else Value(0.0),
        lr_horizon=(_decay_steps(r) or (r.of(tts, "trainer.total_training_steps") if tts else end)) if wants_horizon
        else Value(None),
        weight_decay=r.v("optim.weight_decay"),
        betas=r.of(list(r.get("optim.betas")) if r.get("optim.betas") is not None else None, "optim.betas"),
        clip_grad=r.v("optim.clip_grad"),
        max_length=r.v("data.max_length"),
        overlong_rows=_overlong(r),
        lora=_lora(r),
        data=_data(r),
        data_order=Value(Order(SHUFFLED, SAMPLER, 0), "veRL's SFT trainers: DistributedSampler(shuffle=True)"),
        chat_template=_template(r, sem, legacy, not single_turn(get, legacy)),
        loss_tokens=_loss_tokens(r, get, legacy),
        model=r.of(data_path(str(r.get(LEGACY if legacy else "model.path"))), LEGACY if legacy else "model.path"),
        trainer_seed=verl_sft_seed(get, r.where, legacy),
        **verl_sft_fields(r, get),
        **verl_backend(eff.release),
        **sft_precision_fields(r, get, semantics.of(eff), legacy),
        lr_schedule_args=verl_schedule(r, None, "sft", sched=sched),
        dataset_class=dataset_class(r, sem, eff.release),
        # compared only where both runs have it: veRL's SFT datasets read media by their own column names
        # (RFTC337 names what the multi-turn dataset gives a multimodal model)
        media=Value(None, "veRL's SFT datasets (their media columns are not compared)"),
        **micro_fields(r, sem, legacy),
    )


def _min_lr_ratio(r: Reader) -> Value:
    """The cosine floor: optim.min_lr_ratio (0.0), Megatron's optim.min_lr / lr (optim=megatron)."""
    floor, lr = r.get("optim.min_lr"), r.get("optim.lr")
    if r.eff.has("optim.min_lr") and isinstance(floor, (int, float)) and isinstance(lr, (int, float)) and lr:
        return r.of(floor / lr, "optim.min_lr", "optim.lr", formula="min_lr / lr")
    return r.v("optim.min_lr_ratio", 0.0)


def _decay_steps(r: Reader) -> Value | None:
    """Megatron's scheduler decays over optim.lr_decay_steps where set (get_megatron_optimizer_param_scheduler)."""
    steps = r.get("optim.lr_decay_steps")
    return r.v("optim.lr_decay_steps") if isinstance(steps, int) and not isinstance(steps, bool) and steps > 0 \
        else None


def _data_end(r: Reader, tbs, epochs, total_steps, rows, cwd) -> Value:
    """len(dataloader) x total_epochs: the steps until the data runs out."""
    if total_steps:
        return Value(total_steps, "--total-steps")
    got = train_rows(r, rows, cwd)
    if isinstance(got, Value):
        return got
    return r.of(steps_per_epoch(got, tbs) * epochs, "data.train_files", "data.train_batch_size",
                "trainer.total_epochs", formula=f"{got} rows // train_batch_size x total_epochs")


def _total(r: Reader, tts: int | None, end: Value) -> Value:
    """The trainer stops at total_training_steps, or sooner where the data runs out."""
    if tts is None:
        return end
    if isinstance(end.value, int) and end.value < tts:
        return Value(end.value, end.source, end.formula + " (before total_training_steps)")
    return r.of(tts, "trainer.total_training_steps")


def _micro(r: Reader, legacy: bool) -> Value:
    if not legacy and r.get("data.use_dynamic_bsz"):
        return r.of(f"dynamic, {r.get('data.max_token_len_per_gpu')} tokens", "data.use_dynamic_bsz",
                    "data.max_token_len_per_gpu")
    return r.v("data.micro_batch_size_per_gpu")


def _overlong(r: Reader) -> Value:
    how = r.get("data.truncation", "error")
    if how in ("left", "right"):
        return r.of(f"cut on the {how}", "data.truncation")
    return r.of(KEPT_WHOLE, "data.truncation", formula=f"truncation {how}: veRL stops at a longer row")


def _lora(r: Reader) -> Value:
    """fsdp_sft_trainer's PEFT LoRA (lora_rank > 0); the engine trainer's as its engine trains it: Megatron-Bridge's
    from model.lora (engine.strategy megatron), else PEFT's at lora_rank > 0 with model.lora_adapter_path loaded
    where set (engine/fsdp/transformer_impl.py)."""
    if r.get("engine.strategy") in MCORE and r.eff.has("model.lora.rank"):
        return r.of(megatron_lora(lambda k: r.get(f"model.lora.{k}")), "model.lora.rank", "engine.strategy",
                    *(k for k in r.eff.user_keys() if k.startswith("model.lora.")))
    rank = r.get("model.lora_rank") or 0
    adapter = r.get("model.lora_adapter_path")
    return r.of(adapter_lora(rank, r.get("model.lora_alpha"), r.get("model.target_modules"),
                             r.get("model.exclude_modules"), adapter, rank > 0),
                "model.lora_rank", *(["model.lora_alpha", "model.target_modules"] if rank and not adapter else []),
                *["model.lora_adapter_path"] * (adapter is not None))


def _data(r: Reader) -> Value:
    files = r.get("data.train_files")
    files = files if isinstance(files, list) else [files]
    return r.of(", ".join(data_path(str(f)) for f in files), "data.train_files")


def _loss_tokens(r: Reader, get, legacy: bool) -> Value:
    """Which tokens the loss covers: the response column of single-turn rows (the prompt's masked), or every
    assistant turn of chat messages (veRL's multi-turn dataset masks the others)."""
    if single_turn(get, legacy):
        prompt, response = (_column(r.get(f"data.{k}_key"), r.get(f"data.{k}_dict_keys")) for k in
                            ("prompt", "response"))
        return r.of(f"single-turn: {response} after {prompt}", "data.prompt_key", "data.response_key",
                    *(k for k in ("data.prompt_dict_keys", "data.response_dict_keys") if r.get(k)))
    prefix = "data.multiturn." if legacy else "data."
    tools = prefix + "tools_key"  # the multi-turn dataset hands the template a row's tools from 0.4.0
    shown = f" (tools {r.get(tools)})" if r.eff.has(tools) else ""
    return r.of(f"messages {r.get(prefix + 'messages_key')}{shown}: every assistant turn", prefix + "messages_key",
                *[tools] * bool(shown))


def _column(key, nested) -> str:
    return f"{key}[{']['.join(map(str, nested))}]" if nested else str(key)


def _template(r: Reader, sem, legacy: bool, multiturn: bool) -> Value:
    """The chat template the datasets render with: the engine trainer's model.custom_chat_template, else the
    tokenizer's (fsdp_sft_trainer's datasets read none of the config's), and the arguments they pass it
    (rftc.semantics.data.chat_kwargs: the engine trainer's enable_thinking_default over the thinking switch; in the
    multi-turn dataset a row's own enable_thinking column, where the data has one, wins over both); the engine
    trainer's tokenizer is model.tokenizer_path's where that is set and not the model's (HFModelConfig,
    sft_trainer.py: the dataset's tokenizer)."""
    custom = None if legacy else r.get("model.custom_chat_template")
    kwargs, keys = chat_kwargs(r, sem, sft_engine=not legacy)
    text = template_text(custom, kwargs)
    tokenizer = None if legacy else r.get("model.tokenizer_path")
    if tokenizer and data_path(str(tokenizer)) != data_path(str(r.get("model.path"))):
        text = f"tokenizer {data_path(str(tokenizer))}, {text}"
    return r.of(text, *([] if legacy else ["model.custom_chat_template"]), *keys,
                *["model.tokenizer_path"] * bool(tokenizer),
                formula="a row's enable_thinking column, where the data has one, wins" if multiturn else "")


def template_text(custom: str | None, kwargs: dict | None = None) -> str:
    """The template (a ``chat_template`` among the arguments is the one apply_chat_template renders with) and the
    arguments it renders with, by name; an argument that is None reads as unset (Trinity passes enable_thinking=None
    where it has none)."""
    kwargs = {k: v for k, v in (kwargs or {}).items() if v is not None}
    custom = kwargs.pop("chat_template", None) or custom
    return (f"custom: {custom!r}" if custom else TOKENIZERS) + "".join(f", {k} {v}" for k, v in sorted(kwargs.items()))
