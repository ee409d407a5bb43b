"""veRL's SFT trainers -> a Trinity-RFT 0.6 SFT config (algorithm_type sft, mode train): the data file and its
format, the batch, the steps and checkpoints, the optimizer's schedule, LoRA. The one-to-one keys are rows of
rftc.mapping.sft_rules; these are the relational ones.

Both trainers take ``data.train_batch_size`` samples per optimizer step (the global batch, split over the
data-parallel ranks) and run ``len(dataloader) x total_epochs`` steps, the last partial batch dropped: Trinity's
SFT trainer reads ``buffer.train_batch_size`` rows of its experience buffer per step, epoch after epoch, in the
same way. fsdp_sft_trainer (config sft_trainer) reads single-turn rows (prompt_key, response_key) unless
data.multiturn.enable; the engine trainer (sft_trainer_engine) reads chat messages only.
"""

from __future__ import annotations

import os

from rftc.mapping.batch import Batch
from rftc.mapping.data import file_list, source_name, split_path
from rftc.mapping.draft import ARGS_HINT, CLUSTER_OPTIONS, ENV_ONLY, Draft
from rftc.mapping.models import MEGATRON_OFFLOAD, MEGATRON_PARALLEL, SCHEDULES, map_lora
from rftc.mapping.steps import dataset_rows, horizon, steps_per_epoch
from rftc.verl.trainers import torchrun_world

EB = "buffer.trainer_input.experience_buffer"
FMT = f"{EB}.format"
LEGACY = "model.partial_pretrain"  # only fsdp_sft_trainer's config has it
NEVER = 2**31 - 1  # a save interval no run reaches: Trinity saves the last step itself, as veRL does


def legacy(d: Draft) -> bool:
    """Whether the config is fsdp_sft_trainer's (sft_trainer) rather than the engine trainer's."""
    return d.cfg.has(LEGACY)


SCHEDULE_KEYS = ("optim.lr_scheduler", "optim.warmup_style", "optim.lr_scheduler_type", "optim.lr_decay_style")
RATIO_KEYS = ("optim.lr_warmup_steps_ratio", "optim.warmup_steps_ratio")  # the latter before verl 0.6.1


def schedule_keys(get, legacy_config: bool) -> list[str | None]:
    """The keys that set the schedule, the one the trainer reads first ([None]: fsdp_sft_trainer's cosine default):
    fsdp_sft_trainer reads optim.lr_scheduler (cosine when absent); the engine's optimizer config takes the
    deprecated warmup_style over lr_scheduler_type when it is set. ``get(key)`` is None where the config lacks it."""
    keys = [k for k in SCHEDULE_KEYS if get(k) is not None]
    return ([k for k in keys if k == "optim.lr_scheduler"] or [None]) if legacy_config else keys


def ratio_key(has) -> str | None:
    """The warmup ratio key the release's config has."""
    return next((k for k in RATIO_KEYS if has(k)), None)


def single_turn(get, legacy_config: bool) -> bool:
    """Whether the trainer reads single-turn rows (prompt_key, response_key): fsdp_sft_trainer without
    data.multiturn.enable; else chat messages."""
    return legacy_config and not get("data.multiturn.enable")


def map_sft(d: Draft) -> None:
    """The SFT config's fixed part (mode train, algorithm_type sft, checkpoint sync as Trinity forces), then
    each relational concern."""
    d.set("mode", "train", note="veRL's SFT trainer: Trinity runs SFT in mode train")
    d.set("algorithm.algorithm_type", "sft", note="veRL's SFT trainer")
    d.set("synchronizer.sync_method", "checkpoint", note="Trinity's SFT synchronizes by checkpoint")
    map_sft_cluster(d)
    map_sft_batch(d)
    map_sft_data(d)
    map_sft_model(d)
    map_sft_schedule(d)
    map_sft_steps(d)


def map_sft_cluster(d: Draft) -> None:
    """A torchrun launch of fsdp_sft_trainer or sft_trainer runs on torchrun's world: cluster.node_num =
    --nnodes, cluster.gpu_per_node = --nproc_per_node (torchrun's defaults 1); trainer.nnodes and
    n_gpus_per_node are not read. sft_trainer_ray (and a launch without torchrun) reads them:
    rftc.mapping.trainer maps them."""
    inv = d.cfg.invocation
    if not torchrun_world(inv):
        return
    for size, tkey, verl in (("nnodes", "cluster.node_num", "trainer.nnodes"),
                             ("nproc_per_node", "cluster.gpu_per_node", "trainer.n_gpus_per_node")):
        arg = inv.launcher_sizes.get(size)
        text = arg.text if arg is not None else "1"
        where = f" ({os.path.basename(arg.span.file)}:{arg.span.line})" if arg is not None else ""
        if verl in d.opt.fixed:
            d.set(tkey, d.opt.fixed[verl], note=f"{CLUSTER_OPTIONS[verl]}, for torchrun --{size} {text}{where}")
        elif text.isdigit() and int(text) > 0:
            d.set(tkey, int(text), note=f"torchrun --{size}{where}" + ("" if arg is not None else
                                                                        ", torchrun's default"))
        else:
            _assume_size(d, size, text, arg, tkey, verl)
    for key in ("trainer.nnodes", "trainer.n_gpus_per_node"):
        if d.user(key):
            d.implied(key, f"not read by {inv.module.rsplit('.', 1)[-1]}: torchrun starts its processes")


def _assume_size(d: Draft, size: str, text: str, arg, tkey: str, verl: str) -> None:
    """A torchrun size only the run knows (the script's argument, the environment, torchrun's `auto`): the
    conversion assumes torchrun's default, 1; an SFT job trains the same on any GPU count (its batch is global),
    so this is RFTC318, as for main_ppo's cluster keys."""
    env = ENV_ONLY.fullmatch(text)
    knows = ("which only the run knows" if env is None else
             f"the script's argument ${env.group(1)}, which rftc is not given" if env.group(1).isdigit() else
             "which only the environment knows")
    d.set(tkey, 1, note=f"assumed for torchrun --{size} {text} (RFTC318)")
    d.diags.add("RFTC318", f"torchrun --{size} is {text!r}, {knows}; the conversion assumes 1 ({tkey} is computed "
                "with it)", arg.span if arg is not None else None,
                hint=f"pass {CLUSTER_OPTIONS[verl]} N" + (f", or {ARGS_HINT}" if env and env.group(1).isdigit()
                                                          else ""))


def map_sft_batch(d: Draft) -> None:
    """buffer.train_batch_size = data.train_batch_size (samples per optimizer step in both);
    micro_batch_size_per_gpu -> the actor's ppo_micro_batch_size_per_gpu; trainer.use_dynamic_bsz =
    data.use_dynamic_bsz (fsdp_sft_trainer has none: false) with max_token_len_per_gpu. Trinity adds up the
    micro-batches' losses where the trainer averages them or takes the step's (RFTC331: rftc.mapping.microloss)."""
    key = "data.train_batch_size"
    tbs = d.number(key, positive=True)
    if tbs is not None:
        d.set("buffer.train_batch_size", tbs, key, note="" if d.user(key) else "veRL default")
    key = "data.micro_batch_size_per_gpu"
    if d.val(key) is not None:
        d.passthrough(key, under="actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu")
    if legacy(d):
        d.set("trainer.use_dynamic_bsz", False, note="fsdp_sft_trainer splits the batch into fixed micro-batches "
              "(Trinity's default is true)")
        return
    dyn_key = "data.use_dynamic_bsz"
    dyn = d.flag(dyn_key)
    if dyn is not None:
        d.set("trainer.use_dynamic_bsz", dyn, dyn_key, note="" if d.user(dyn_key) else "veRL default")
    key = "data.max_token_len_per_gpu"
    if dyn and d.val(key) is not None:
        d.set("trainer.max_token_len_per_gpu", d.number(key), key, note="" if d.user(key) else "veRL default")
    elif d.user(key):
        d.implied(key, "read only with dynamic batch sizes")


def map_sft_data(d: Draft) -> None:
    """The experience buffer: storage_type file at data.train_files (a dir/split.parquet as the folder and the
    split); format plaintext with prompt_key / response_key (fsdp_sft_trainer's single-turn rows) or messages
    with messages_key / tools_key, every assistant turn trained (enable_concatenated_multi_turn, as veRL's
    multi-turn dataset masks them all); data shuffled each epoch as veRL's DistributedSampler does;
    model.max_model_len = data.max_length."""
    key = "data.train_files"
    files = file_list(d, key)
    if not files:
        d.report("RFTC314", "the launch names no SFT training data (data.train_files)", key if d.user(key) else None,
                 hint="set data.train_files=<file.parquet>")
        return
    if len(files) > 1:
        d.report("RFTC333", f"{key} names {len(files)} files; Trinity's SFT experience buffer reads one path (a "
                 "file, or a folder whose files are all read)", key,
                 hint="put the files in one folder and pass the folder, or pass one file")
        return
    path, split = split_path(files[0])
    d.set(f"{EB}.name", source_name(files[0]), key, note="named after the data")
    d.set(f"{EB}.storage_type", "file", key, note="a dataset file")
    d.set(f"{EB}.path", path, key)
    if split != "train":
        d.set(f"{EB}.split", split, key)
    d.set(f"{EB}.data_selector.selector_type", "shuffle", note="veRL's SFT sampler shuffles every epoch")
    if single_turn(d.flag, legacy(d)):
        _single_turn(d)
    else:
        _messages(d)
    _length(d)
    key = "data.train_max_samples"
    if d.user(key):
        n = d.number(key)
        if n is not None and n > 0:
            d.report("RFTC300", f"{key}={n}: Trinity-RFT 0.6 reads every row of the experience buffer; it "
                     "has no limit on the rows", key, hint="write the first rows to a file of their own")
        elif n is not None:
            d.implied(key, "every row is read")


def _single_turn(d: Draft) -> None:
    d.set(f"{FMT}.prompt_type", "plaintext", "data.prompt_key", note="single-turn rows")
    for verl, trinity in (("prompt_key", "prompt_key"), ("response_key", "response_key")):
        key = f"data.{verl}"
        d.set(f"{FMT}.{trinity}", d.val(key), key, note="" if d.user(key) else "veRL default")
    for key in ("data.prompt_dict_keys", "data.response_dict_keys"):
        nested = d.val(key) not in (None, [], "")
        message = (f"{key}={d.fmt_value(key)}: Trinity's SFT formatter reads a column's text, not a field nested "
                   "in it")
        if nested and d.user(key):
            d.report("RFTC300", message, key, hint="flatten the column into the dataset first")
        elif nested:  # verl 0.4.0's config nests by default
            d.diags.add("RFTC300", f"{message} (verl {d.cfg.release}'s default)", d.cfg.invocation.span
                        if d.cfg.invocation is not None else None,
                        hint=f"flatten the column into the dataset first, or set {key}=null")
        elif d.user(key):
            d.implied(key, "no nested keys")
    if d.user("data.multiturn.enable"):
        d.implied("data.multiturn.enable", "false: single-turn rows")
    _warn(d, "RFTC332", "veRL's single-turn SFT dataset appends the response text and the tokenizer's EOS token "
          "to the chat-templated prompt; Trinity renders the response as the chat template's assistant turn, "
          "whose closing tokens can differ", "data.response_key")


def _warn(d: Draft, code: str, message: str, key: str) -> None:
    """A warning on what the trainer does whatever the script sets: at ``key`` where the script sets it, else at
    the launch."""
    if d.user(key):
        d.report(code, message, key, settles=False)
    else:
        d.diags.add(code, message, d.cfg.invocation.span if d.cfg.invocation is not None else None)


def _messages(d: Draft) -> None:
    prefix = "data.multiturn." if legacy(d) else "data."
    d.set(f"{FMT}.prompt_type", "messages", *([f"{prefix}enable"] if legacy(d) else []), note="chat messages")
    key = f"{prefix}messages_key"
    d.set(f"{FMT}.messages_key", d.val(key), key, note="" if d.user(key) else "veRL default (Trinity's is message)")
    key = f"{prefix}tools_key"
    if d.user(key):
        d.set(f"{FMT}.tools_key", d.val(key), key)
    d.set(f"{FMT}.enable_concatenated_multi_turn", True,
          note="veRL's multi-turn SFT dataset trains every assistant turn")
    if not legacy(d):
        _thinking_default(d)
    if d.sem.value("sft_multiturn_images"):
        _warn(d, "RFTC337", f"verl {d.sem.release}'s multi-turn SFT dataset gives a multimodal model the images and "
              "videos of a row's `images`/`videos` columns; Trinity's SFT formatter reads none from chat messages, "
              "so rows with images train on their text only", f"{prefix}messages_key")
    for key in ("data.prompt_key", "data.response_key", "data.prompt_dict_keys", "data.response_dict_keys"):
        if d.user(key):
            d.implied(key, "not read: the rows are chat messages")


def _thinking_default(d: Draft) -> None:
    """The engine trainer's multi-turn dataset (0.7.1 on) renders a row without an enable_thinking column with
    enable_thinking = bool(data.enable_thinking_default) where that is not None, over the thinking switch of
    data.apply_chat_template_kwargs (multiturn_sft_dataset.py __getitem__): its config's default is the string
    'none', which bool() reads as true, so the conversion writes format.enable_thinking true."""
    key, switch = "data.enable_thinking_default", "data.apply_chat_template_kwargs.enable_thinking"
    value = d.val(key)
    if value is None:
        if d.user(key):
            d.implied(key, "null: the thinking switch of data.apply_chat_template_kwargs decides")
        return
    as_read = str(bool(value)).lower()
    d.set(f"{FMT}.enable_thinking", bool(value), key,
          note="" if d.user(key) else f"veRL default {value!r}, which its dataset reads as {as_read}")
    if d.user(switch):
        d.implied(switch, f"not read: {key} ({value!r}) replaces it")


def _length(d: Draft) -> None:
    key = "data.max_length"
    n = d.number(key, positive=True)
    if n is not None:
        d.set("model.max_model_len", n, key, note="" if d.user(key) else "veRL default")
    key = "data.truncation"
    how = str(d.val(key))
    if how in ("left", "right"):
        d.report("RFTC330", f"{key}={how}: veRL cuts rows longer than data.max_length ({d.fmt_value('data.max_length')}"
                 f" tokens) on the {how}; Trinity's SFT formatter does not truncate, so such rows train in full",
                 key, hint="drop or shorten the long rows in the data before training")
    elif d.user(key):
        d.implied(key, f"{how}: veRL stops at a row longer than data.max_length; a dataset veRL trains on has none")


MCORE_ENGINE = "verl.workers.config.McoreEngineConfig"  # engine/megatron.yaml's class: its strategy is megatron


def map_sft_model(d: Draft) -> None:
    """LoRA -> model.lora_configs[0]; trainer.trainer_strategy = model.strategy (fsdp_sft_trainer) or
    engine.strategy (megatron for the Megatron engine, whose sizes go to trainer.megatron); the multi-token-prediction
    and Megatron LoRA sections are implied while they are off."""
    map_lora(d, "model")
    for section, switch in (("model.mtp", "enable"), ("model.lora", "rank")):
        if not d.val(f"{section}.{switch}"):  # off: its settings are not read (a fork's config may set them)
            for key in d.user_keys_under(section):
                d.implied(key, f"{section}.{switch} is off")
    if d.val("engine._target_") == MCORE_ENGINE:
        _megatron_engine(d)
        return
    for key in ("model.strategy", "engine.strategy"):
        if d.cfg.has(key) and d.val(key) is not None:
            v = str(d.val(key))
            if v in ("fsdp", "fsdp2"):
                d.set("trainer.trainer_strategy", v, key, note="" if d.user(key) else "veRL default")
            else:
                d.report("RFTC305", f"{key}={v}: Trinity-RFT 0.6's SFT trainer runs fsdp, fsdp2 or megatron", key)


def _megatron_engine(d: Draft) -> None:
    """engine=megatron (the engine section is McoreEngineConfig, whose strategy is megatron): trainer_strategy
    megatron; trainer.megatron.<size> = engine.<size> for the parallel sizes Trinity exposes,
    trainer.{param,optimizer}_offload = engine.*_offload, the engine's other settings passed through
    trainer_config to the actor's megatron section, whose keys they are in the veRL Trinity runs."""
    d.set("trainer.trainer_strategy", "megatron", "engine._target_", note="engine=megatron: veRL's Megatron engine")
    for key in d.user_keys_under("engine"):
        sub = key[len("engine."):]
        if sub in MEGATRON_PARALLEL:
            d.set(f"trainer.megatron.{sub}", d.val(key), key)
        elif sub in MEGATRON_OFFLOAD and sub != "grad_offload":
            d.set(MEGATRON_OFFLOAD[sub], d.val(key), key)
        elif sub not in ("_target_", "strategy"):
            d.passthrough(key, under=f"actor_rollout_ref.actor.megatron.{sub}")


def map_sft_schedule(d: Draft) -> None:
    """algorithm.optimizer: lr_scheduler_type (fsdp_sft_trainer: optim.lr_scheduler, cosine by default; the
    engine trainer: the deprecated optim.warmup_style where set, else lr_scheduler_type; Megatron's optimizer
    (optim=megatron): lr_decay_style), min_lr_ratio for cosine (veRL 0.0, Trinity 0.01; Megatron's: min_lr / lr),
    the warmup ratio the release reads (lr_warmup_steps_ratio, or
    warmup_steps_ratio before verl 0.6.1) and lr_warmup_steps."""
    keys = schedule_keys(lambda k: d.val(k) if d.cfg.has(k) else None, legacy(d))
    if legacy(d):
        for k in ("optim.lr_scheduler_type", "optim.warmup_style"):
            if d.user(k):
                d.implied(k, "not read by fsdp_sft_trainer (it reads optim.lr_scheduler)")
    key = keys[0] if keys else None
    v = str(d.val(key)) if key else "cosine"
    sched = SCHEDULES.get(v.lower())
    if sched is None:
        d.report("RFTC305", f"{key}={v}: Trinity-RFT 0.6 schedules are constant and cosine; using constant", key)
        sched = "constant"
    else:
        d.set("algorithm.optimizer.lr_scheduler_type", sched, *([key] if key else []),
              note="" if key and d.user(key) else "veRL default")
    for other in keys[1:]:
        d.implied(other, f"same schedule as {key}")
    mk = "optim.min_lr_ratio" if not d.cfg.has("optim.min_lr") else "optim.min_lr"  # Megatron's: an lr, not a ratio
    if sched == "cosine":
        m = d.val(mk) if d.cfg.has(mk) else None
        lr = d.val("optim.lr")
        if mk == "optim.min_lr" and m is not None and isinstance(lr, (int, float)) and lr:
            m = m / lr
        d.set("algorithm.optimizer.min_lr_ratio", 0.0 if m is None else m, *([mk] if d.cfg.has(mk) else []),
              note=("min_lr / lr" if mk == "optim.min_lr" else "") if d.user(mk) else
              "veRL's cosine decays to 0 (Trinity's default is 0.01)")
    elif d.user(mk):
        d.implied(mk, "only used by a cosine schedule")
    ratio = ratio_key(d.cfg.has)
    if ratio is not None:
        d.set("algorithm.optimizer.lr_warmup_steps_ratio", d.val(ratio), ratio,
              note="" if d.user(ratio) else "veRL default")
        other = "optim.warmup_steps_ratio" if ratio == "optim.lr_warmup_steps_ratio" else None
        if other and d.user(other):
            d.implied(other, f"not read by verl {d.cfg.release} (it reads {ratio})")
    key = "optim.lr_warmup_steps"
    w = d.number(key, allow_none=True) if d.user(key) else None
    if w is not None and w > 0:
        d.set("algorithm.optimizer.lr_warmup_steps", w, key)
    elif d.user(key):
        d.implied(key, "not positive: the warmup ratio applies, as in Trinity")


def map_sft_steps(d: Draft) -> None:
    """buffer.total_epochs = trainer.total_epochs; trainer.total_steps (and buffer.total_steps) =
    total_training_steps, one Trinity step per veRL step; else the LR horizon from the data's rows when the
    schedule needs one; trainer.save_interval = save_freq (after_each_epoch: steps per epoch; not positive:
    only the last step, which both save); trainer.max_checkpoints_to_keep = max_ckpt_to_keep."""
    key = "trainer.total_epochs"
    epochs = d.number(key, positive=True)
    if epochs is not None:
        d.set("buffer.total_epochs", epochs, key, note="" if d.user(key) else "veRL default (Trinity's is 1)")
    tbs = d.get("buffer.train_batch_size")
    key = "trainer.total_training_steps"
    total = d.number(key, allow_none=True)
    if total is not None and total > 0:
        d.set("trainer.total_steps", total, key)
        d.set("buffer.total_steps", total, key)
    else:
        if total is not None:
            d.implied(key, "not positive: training length follows total_epochs")
        need = _needs_horizon(d)
        if need and tbs:
            horizon(d, Batch(tbs, tbs, 1, 1), epochs, *need)
    _save(d, tbs, epochs)
    key = "trainer.test_freq"
    if d.user(key):
        d.implied(key, "Trinity's SFT (mode train) does not validate")
    key = "trainer.max_ckpt_to_keep"
    if d.user(key):
        v = d.val(key)
        d.set("trainer.max_checkpoints_to_keep", 0 if v is None else v, key, note="0 = keep all" if v is None else "")


def _needs_horizon(d: Draft) -> tuple[str, str] | None:
    ratio = d.get("algorithm.optimizer.lr_warmup_steps_ratio") or 0
    if d.get("algorithm.optimizer.lr_warmup_steps") is None and isinstance(ratio, (int, float)) and ratio > 0:
        return d.origins["algorithm.optimizer.lr_warmup_steps_ratio"].keys[0], f"warmup ratio {ratio}"
    sched = d.get("algorithm.optimizer.lr_scheduler_type", "constant")
    if sched != "constant":
        origin = d.origins.get("algorithm.optimizer.lr_scheduler_type")
        return (origin.keys[0] if origin.keys else "optim.lr_scheduler"), f"{sched} schedule"
    return None


def _save(d: Draft, tbs: int | None, epochs: int | None) -> None:
    """Trinity's SFT synchronizes every save_interval steps and refuses 0; both trainers save the last step."""
    key = "trainer.save_freq"
    v = d.val(key)
    if v == "after_each_epoch":
        rows, source = (d.opt.dataset_size, "--dataset-size") if d.opt.dataset_size else dataset_rows(d)
        if rows is not None and tbs:
            spe = steps_per_epoch(rows, tbs)
            d.set("trainer.save_interval", max(spe, 1), key, note=f"steps per epoch: {source}: {rows}//{tbs}")
            return
        d.report("RFTC311", f"{key}=after_each_epoch needs the steps per epoch, and the number of training rows "
                 f"is unknown ({source})", key, hint="pass --dataset-size ROWS")
        return
    n = d.number(key)
    if n is None:
        return
    if n > 0:
        d.set("trainer.save_interval", n, key)
    else:
        d.set("trainer.save_interval", NEVER, key, note="veRL saves only the last step, which Trinity always saves "
              "(its SFT refuses 0)")
