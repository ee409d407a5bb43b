"""What a run does and how its trainer's batches come from what the rollout wrote, on both sides: whether it trains at
all (``mode``), how a trainer that filters groups refills its batch (``group_refill``), which experiences a step takes
from the buffer (``experience_selection``, with the auxiliary data Trinity's mix strategy reads), whether they are
replayed (``replay_buffer``), the experience operators other than group filters (``experience_pipeline``), and where
Trinity's explorer paces itself (its in-flight batches under sync_style fully_async; the experiences one weight
version generates where the explorer syncs by its own interval).

    TrainingRun(..., **verl_fields(r, sem, loop))            # rftc.semantics.verl
    put = ...; buffer_view(x, put, where)                     # rftc.semantics.trinity.view
    TrainingRun(..., **trinity_fields(val, of))               # rftc.semantics.trinity.from_trinity
"""

from __future__ import annotations

import math

from rftc.mapping.sampling import FG, filtering_trainer, group_filter_operator
from rftc.mapping.trainer import reads_val_only
from rftc.semantics.model import Value
from rftc.trinity.derive import experience_storage
from rftc.trinity.registry import PRIORITY_FN_ARGS

TRAINS = "explores and trains"
EVALUATES = "evaluates only (trains nothing)"
# Trinity's launcher runs by mode (trinity/cli/launcher.py): both and colocate the explorer and the trainer (colocate
# on one GPU), train the trainer on its experience buffer, explore the explorer alone, bench the explorer's
# benchmark() (the base model and the job's checkpoints evaluated), serve the explorer's OpenAI server
TRINITY_MODES = {"both": TRAINS, "colocate": TRAINS,
                 "train": "trains on its experience buffer (no explorer: another run writes it)",
                 "explore": "explores only (writes experiences, trains nothing)", "bench": EVALUATES,
                 "serve": "serves the model (trains nothing)"}
ARRIVAL = "the next experiences in arrival order"
NONE = "none"
V1 = "trainer.v1"
EB = "buffer.trainer_input.experience_buffer"
AUX = "buffer.trainer_input.auxiliary_buffers"
STRATEGY = "algorithm.sample_strategy"
OPERATORS = "data_processor.experience_pipeline.operators"
# what Trinity's buffer readers read of an auxiliary buffer (trinity/buffer/reader/file_reader.py
# ExperienceFileReader, sql_reader.py, queue_reader.py): the validator sets its batch_size, tokenizer_path and
# ray_namespace, the mix strategy its schema_type; name, retries and timeouts only name or wait
AUX_FIELDS = ("storage_type", "path", "split", "subset_name", "format", "data_selector", "total_epochs",
              "total_steps")
UNREAD_FORMAT = ("workflow_key", "reward_fn_key", "chosen_key", "rejected_key")


# ---- veRL

def verl_fields(r, sem, loop) -> dict[str, Value]:
    """The quantities of a launch (``r`` its Reader, ``loop`` the schedule rftc.verl.releases.modes gives it). veRL
    trains each batch it generates once, in order, with no experience operators (its group filter is the model's
    dynamic sampling)."""
    return dict(mode=_verl_mode(r, sem, loop), group_refill=_verl_refill(r, loop),
                experience_selection=Value(ARRIVAL, f"veRL's {loop.loop.name} trainer trains the batches it generates"),
                replay_buffer=Value(NONE, f"veRL's {loop.loop.name} trainer trains each rollout once"),
                experience_pipeline=Value(NONE, "veRL has no experience operators"))


def _verl_mode(r, sem, loop) -> Value:
    """``EVALUATES`` where the trainer returns after its first validation: trainer.val_only where the release and
    the trainer loop read it (rftc.mapping.trainer.reads_val_only), inside ``if config.trainer.get(
    "val_before_train", True)``, so a false (or null) val_before_train trains anyway; else the run trains."""
    key, first = "trainer.val_only", "trainer.val_before_train"
    why = reads_val_only(sem, loop.loop.name)
    if why:
        return r.of(TRAINS, key, formula=why) if r.eff.has(key) else Value(TRAINS, why)
    if r.get(key) and r.get(first, True):
        return r.of(EVALUATES, key, first, formula="val_only returns after the validation val_before_train runs")
    if r.get(key):
        return r.of(TRAINS, key, first, formula="val_only acts only after the validation val_before_train runs")
    return r.of(TRAINS, key) if r.eff.has(key) else Value(TRAINS, f"veRL's {loop.loop.name} trainer")


def _verl_refill(r, loop) -> Value:
    """How the trainer that filters groups (rftc.mapping.sampling.filtering_trainer; none: no refill) replaces the
    groups it drops. The DAPO recipe's RayDAPOTrainer generates rounds of data.gen_batch_size prompts (default
    train_batch_size) until train_batch_size prompts pass, drops the passing ones past them, and stops the run
    after max_num_gen_batches rounds (> 0). 0.9's v1 replay buffer (verl/trainer/ppo/v1/replay_buffer.py): the sync
    trainer's ReplayBuffer.sample dispatches two prompts for each dropped group (and one for each failed group
    where trainer.v1.sampler.sync_refill_failed_groups; else a failed group is trained padded), at most
    max_inflight_gen_batches x train_batch_size prompts pending or running, and discards the passing groups past
    the batch; the async trainers' ReplayBufferAsync replaces each dropped or failed group with one prompt and keeps
    the surplus for a later step (trainer_base.py _build_replay_buffer: max_num_gen_batches is ignored, data.
    gen_batch_size is 1)."""
    trainer = filtering_trainer(r.eff.invocation, r.eff.release, r.get)
    if trainer is None:
        return Value(None)
    batch, enable = r.get("data.train_batch_size"), f"{FG}.enable"
    if trainer == "dapo":
        gen, rounds = r.get("data.gen_batch_size", batch), r.get(f"{FG}.max_num_gen_batches")
        limit = isinstance(rounds, int) and rounds > 0
        return r.of(f"rounds of {gen} prompts until {batch} pass; the passing ones past {batch} dropped"
                    + (f"; the run stops after {rounds} rounds" if limit else ""), enable, "data.gen_batch_size",
                    "data.train_batch_size", *([f"{FG}.max_num_gen_batches"] if limit else []),
                    formula="the DAPO recipe's RayDAPOTrainer")
    if loop.loop.name != "sync":
        return r.of("one prompt for each dropped or failed group; the passing groups past the batch trained in a "
                    "later step", enable, formula=f"veRL's v1 {loop.loop.name} replay buffer (ReplayBufferAsync)")
    inflight, failed = r.get(f"{FG}.max_inflight_gen_batches", 1), f"{V1}.sampler.sync_refill_failed_groups"
    return r.of(f"two prompts for each dropped group, at most {inflight} x {batch} prompts in flight; the passing "
                f"groups past {batch} dropped; a failed group " + ("replaced" if r.get(failed) else "trained padded"),
                enable, f"{FG}.max_inflight_gen_batches", "data.train_batch_size", failed,
                formula="veRL's v1 sync replay buffer (ReplayBuffer.sample)")


# ---- Trinity-RFT

def buffer_view(x, put, where) -> None:
    """``view``'s keys of the expanded config ``x``: the sample strategy with the arguments Trinity builds it with,
    the storage the trainer reads (rftc.trinity.derive.experience_storage) with its replay settings and capacity,
    the auxiliary buffers as the readers read them, and the explorer's in-flight batches."""
    put(STRATEGY, x.algorithm.sample_strategy)
    put(f"{STRATEGY}_args", x.algorithm.sample_strategy_args)
    eb = x.buffer.trainer_input.experience_buffer
    storage = experience_storage(x)
    put(f"{EB}.storage_type", storage, where(f"{EB}.storage_type"))
    put(f"{EB}.replay_buffer", eb.replay_buffer.model_dump() if eb is not None else None,
        where(f"{EB}.replay_buffer.enable"))
    put(f"{EB}.capacity", eb.capacity if eb is not None else None, where(f"{EB}.capacity"))
    put(AUX, {name: _aux(b) for name, b in x.buffer.trainer_input.auxiliary_buffers.items()}, where(AUX))
    put("explorer.max_inflight_batches", x.explorer.max_inflight_batches)


def _aux(b) -> dict:
    """What the reader of an auxiliary buffer reads (AUX_FIELDS; a queue's or an SQL table's replay settings, the
    queue's capacity where it replays)."""
    out = {k: getattr(b, k) for k in AUX_FIELDS}
    out["format"] = {k: v for k, v in b.format.model_dump().items() if k not in UNREAD_FORMAT}
    out["data_selector"] = b.data_selector.model_dump()
    if b.storage_type == "sql":
        out["replay_buffer"] = {"enable": b.replay_buffer.enable}
    elif b.storage_type == "queue" and b.replay_buffer.enable:
        out["replay_buffer"], out["capacity"] = b.replay_buffer.model_dump(), b.capacity
    elif b.storage_type == "queue":
        out["replay_buffer"] = {"enable": False}
    return out


def trinity_fields(val, of) -> dict[str, Value]:
    """The quantities of Trinity's expansion (``val(key)`` its values, ``of`` a Value of some of its keys)."""
    return dict(mode=of(TRINITY_MODES.get(val("mode"), f"mode {val('mode')}"), "mode"),
                group_refill=_trinity_refill(val, of), experience_selection=_selection(val, of),
                replay_buffer=_replay(val, of),
                experience_pipeline=of("; ".join(f"{op['name']} {op['args']}" for op in val(OPERATORS, [])
                                                 if not group_filter_operator(op["name"])) or NONE, OPERATORS))


def _trinity_refill(val, of) -> Value:
    """Where an experience operator filters groups (the model's dynamic sampling), the trainer waits for
    buffer.train_batch_size experiences that passed (trinity/buffer/storage/queue.py QueueStorage.get_batch), the
    explorer goes on with steps of buffer.batch_size tasks, and what passed beyond one step's batch stays in the
    queue for the next."""
    if not any(group_filter_operator(op["name"]) for op in val(OPERATORS, [])):
        return Value(None)
    return of(f"explorer steps of {val('buffer.batch_size')} tasks until {val('verl.actor.ppo_mini_batch_size')} "
              "experiences pass; those past them trained the step after", OPERATORS, "buffer.batch_size",
              "verl.actor.ppo_mini_batch_size")


def _selection(val, of) -> Value:
    """The trainer's sample strategy (trinity/algorithm/sample_strategy): default and warmup (the same class) read
    the next buffer.train_batch_size experiences; staleness_control skips those of weights older than the step
    minus max_staleness minus one (its default inf skips none); mix reads ceil(expert_data_ratio x
    train_batch_size) of them from auxiliary buffer sft_dataset_name (as SFT data) and the rest from the experience
    buffer; another strategy by name and arguments."""
    name, args = val(STRATEGY), val(f"{STRATEGY}_args", {})
    keys = (STRATEGY, f"{STRATEGY}_args")
    if name in ("default", "warmup"):
        return of(ARRIVAL, STRATEGY)
    if name == "staleness_control":
        limit = float(args.get("max_staleness", "inf"))
        if math.isinf(limit):
            return of(ARRIVAL, *keys, formula="staleness_control without max_staleness skips none")
        return of(f"{ARRIVAL}, those of weights more than {limit:g} trainer steps older than the trained ones "
                  "skipped", *keys)
    if name == "mix":
        batch, ratio, aux = val("verl.actor.ppo_mini_batch_size"), args.get("expert_data_ratio", 0.5), args.get(
            "sft_dataset_name", "sft_dataset")
        buffer = val(AUX, {}).get(aux)
        if buffer is None:
            return of(f"unknown (auxiliary buffer {aux} is not set: Trinity's mix strategy fails)", *keys, AUX)
        expert = math.ceil(ratio * batch)
        return of(f"{batch - expert} of the next experiences in arrival order and {expert} SFT rows from auxiliary "
                  f"buffer {aux} {dict(sorted(buffer.items()))}", *keys, AUX, "verl.actor.ppo_mini_batch_size",
                  formula="ceil(expert_data_ratio x buffer.train_batch_size) from the auxiliary buffer")
    return of(f"{name} {args}", *keys)


def _replay(val, of) -> Value:
    """The storage the trainer reads (``view``'s experience buffer): a queue with replay_buffer.enable is an
    AsyncPriorityQueue of ``capacity`` items (trinity/buffer/storage/queue.py): the highest priority first (the
    priority function with its default_config() updated by priority_fn_args: linear_decay, model_version - decay x
    use_count), each item put back after reuse_cooldown_time seconds (never where null), the lowest dropped when
    full; an SQL table with it reads the least-read rows first, newest first, and reads them again (sql.py
    _read_priority); a file, or either without it, reads each experience once."""
    rb, storage = val(f"{EB}.replay_buffer") or {}, val(f"{EB}.storage_type")
    keys = (f"{EB}.replay_buffer", f"{EB}.storage_type")
    if not rb.get("enable") or storage == "file":
        return of(NONE, *keys)
    if storage == "sql":
        return of("sql: the least-read experiences first, newest first, each read again", *keys)
    fn = rb.get("priority_fn")
    args = {**PRIORITY_FN_ARGS.get(fn, {}), **(rb.get("priority_fn_args") or {})}
    cooldown = rb.get("reuse_cooldown_time")
    return of(f"priority queue of {val(f'{EB}.capacity')} items by {fn} {dict(sorted(args.items()))}, "
              + (f"each read again after {cooldown:g} s" if cooldown is not None else "none read again"),
              *keys, f"{EB}.capacity")


def explorer_pace(val) -> tuple[str, tuple[str, ...]]:
    """How far a Trinity explorer that does not sync on the fixed schedule runs ahead of the trainer: its own
    pace; under fully_async it keeps at most explorer.max_inflight_batches batches generating (explorer.py
    Explorer.explore_step drains the oldest before submitting another) and takes each weight version as the trainer
    publishes it. The text, and the keys it reads."""
    style = val("synchronizer.sync_style")
    if style != "fully_async":
        return f"{style} (the explorer's pace)", ()
    return (f"fully_async (the explorer's pace, at most {val('explorer.max_inflight_batches')} batches in flight)",
            ("explorer.max_inflight_batches",))


def weight_version(val, of, tsi: int) -> Value:
    """The experiences between the rollout's weight updates. The fixed schedule and fully_async: trainer_sync_interval
    x buffer.train_batch_size (the explorer takes every version the trainer publishes, every trainer_sync_interval
    steps). trainer_driven and explorer_driven: the explorer updates its weights every explorer_sync_interval of its
    steps (Explorer.need_sync; under trainer_driven with NCCL only where the trainer asks), each of buffer.batch_size
    tasks x repeat_times responses."""
    style = val("synchronizer.sync_style")
    if style in ("trainer_driven", "explorer_driven"):
        esi, tasks, n = val("synchronizer.explorer_sync_interval"), val("buffer.batch_size"), val("verl.rollout.n")
        return of(esi * tasks * n, "synchronizer.explorer_sync_interval", "buffer.batch_size", "verl.rollout.n",
                  "synchronizer.sync_style", formula=f"explorer_sync_interval x buffer.batch_size x repeat_times "
                  f"({style}: the explorer's steps between its weight updates)")
    return of(tsi * val("verl.actor.ppo_mini_batch_size"), "synchronizer.trainer_sync_interval",
              "verl.actor.ppo_mini_batch_size", formula="trainer_sync_interval x buffer.train_batch_size")
