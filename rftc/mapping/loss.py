"""The loss's and the schedule's own settings (rftc.semantics.loss): the steps the actor waits for the critic, what a
seq-mean-token-sum-norm loss divides by, and the engine's schedule settings Trinity's trainer_config carries."""

from __future__ import annotations

from rftc.mapping.batch import Batch
from rftc.mapping.draft import Draft
import math

from rftc.mapping.models import engine_worker, strategy
from rftc.mapping.schedule import MCORE_OPTIM, warms_up

A, C, T = "actor_rollout_ref.actor", "critic", "trainer"
TC = "trainer.trainer_config"
SUM_NORM = "seq-mean-token-sum-norm"


def map_loss(d: Draft, b: Batch | None, critic: bool) -> None:
    """trainer.critic_warmup = (critic_warmup - the release's first step) x sync_interval + 1 where it holds the
    actor back (verl 0.1 counts steps from 0, later releases and Trinity from 1); a Megatron optimizer's warmup start
    (Trinity's default is min_lr_ratio x lr), decay and wsd steps (x sync_interval: veRL's schedulers step once a
    trainer step, Trinity's once a mini-batch), and the FSDP engine's zero_indexed_step where the release's worker
    reads it, into trainer_config; a seq-mean-token-sum-norm loss is warned of (RFTC305): Trinity divides it by the
    longest response of each batch."""
    si = b.sync_interval if b is not None else None
    _warmup(d, si)
    megatron = strategy(d) == "megatron"
    for role, section, on in (("actor", A, True), ("critic", C, critic)):
        if on:
            _schedule(d, role, f"{section}.optim", si, megatron)
    _sum_norm(d, critic)


def map_sft_loss(d: Draft) -> None:
    """The engine SFT trainer's schedule settings into trainer_config's actor optim, which Trinity's SFT trainer
    reads: its FSDP engine's zero_indexed_step, or Megatron's (optim=megatron) warmup start and decay steps (one
    Trinity step a veRL step); the other settings optim=megatron brings are implied where they train as Trinity's
    verl 0.8 Megatron optimizer does, the rest named in one RFTC300."""
    megatron = d.val("optim._target_") == MCORE_OPTIM
    _schedule(d, "sft", "optim", 1, megatron)
    if megatron:
        _megatron_optim(d)


# the settings of veRL's Megatron optimizer config (optim=megatron) that verl 0.8's, which Trinity runs, lacks,
# with the value it trains as (verl/workers/config/optimizer.py McoreOptimizerConfig): fp32 optimizer states, the
# distributed optimizer unchanged
VERL_08_MEGATRON = {"use_precision_aware_optimizer": False, "main_grads_dtype": "fp32", "exp_avg_dtype": "fp32",
                    "exp_avg_sq_dtype": "fp32", "use_layer_wise_distributed_optimizer": False}
# the optim=megatron settings _megatron_optim accounts for (and muon_*), as rftc.mapping.sft_rules classifies them
MEGATRON_SFT_KEYS = ("weight_decay_incr_style", "use_checkpoint_opt_param_scheduler", "lr_wsd_decay_style",
                     "lr_wsd_decay_steps", "override_optimizer_config", *VERL_08_MEGATRON)


def _megatron_optim(d: Draft) -> None:
    """The optim=megatron settings no other rule maps: a constant weight decay's style (start and end are
    weight_decay: the style changes nothing), wsd's steps and style (read only by the wsd schedule), Muon's (read
    only by the muon optimizer), the checkpoint's scheduler (resuming), an empty override; verl 0.9's
    settings verl 0.8 lacks where they keep its behaviour (VERL_08_MEGATRON). What is left (Muon's settings with
    muon, a precision-aware optimizer, ...) has no Trinity-RFT 0.6 equivalent: one RFTC300 names every key."""
    inert = {"weight_decay_incr_style": "the scheduler starts and ends weight decay at weight_decay: the style "
                                        "changes nothing",
             "use_checkpoint_opt_param_scheduler": "read when resuming from a checkpoint"}
    rest = []
    for key in d.user_keys_under("optim"):
        sub = key[len("optim."):]
        if d.done(key) or not (sub in MEGATRON_SFT_KEYS or sub.startswith("muon_")):
            continue  # mapped by this module, rftc.mapping.sft or the rule table
        if sub in inert:
            d.implied(key, inert[sub])
        elif sub.startswith("lr_wsd_") and d.val("optim.lr_decay_style") != "wsd":
            d.implied(key, "read only by the wsd schedule")
        elif sub.startswith("muon_") and d.val("optim.optimizer") != "muon":
            d.implied(key, "read only by the muon optimizer")
        elif sub in VERL_08_MEGATRON and d.val(key) == VERL_08_MEGATRON[sub]:
            d.implied(key, f"verl 0.8's Megatron optimizer, which Trinity-RFT 0.6 runs, trains as {d.fmt_value(key)}")
        elif sub == "override_optimizer_config" and not d.val(key):
            d.implied(key, "empty")  # its entries pass through (rftc.mapping.sft_rules)
        else:
            rest.append(key)
    if rest:
        d.report("RFTC300", f"{len(rest)} settings of veRL's Megatron optimizer have no Trinity-RFT 0.6 equivalent "
                 "(verl 0.8's Megatron optimizer config, which Trinity runs, has no such field): "
                 + ", ".join(f"{k}={d.fmt_value(k)}" for k in rest), rest[0], extra_keys=rest[1:])


def _warmup(d: Draft, si: int | None) -> None:
    key = f"{T}.critic_warmup"
    if not d.user(key):
        return
    w, first = d.number(key), d.sem.value("first_trainer_step")
    if w is None:
        return
    if w <= first:
        d.set("trainer.critic_warmup", w, key)
    elif si is not None:
        d.set("trainer.critic_warmup", (w - first) * si + 1, key,
              note=f"({w}-{first})*{si}+1 (the trainer steps veRL holds the actor back x trainer steps a veRL step, "
              "from Trinity's first step, 1)")


def _schedule(d: Draft, role: str, o: str, si: int | None, megatron: bool) -> None:
    """The schedule settings of ``role``'s optim section ``o`` ("actor", "critic"; "sft": the engine SFT trainer's,
    whose steps are Trinity's, ``si`` 1)."""
    to = f"{TC}.{'critic' if role == 'critic' else 'actor_rollout_ref.actor'}.optim"
    key = f"{o}.zero_indexed_step"
    if d.user(key):
        if role == "sft" or engine_worker(d.val, d.sem, role):
            d.set(f"{to}.zero_indexed_step", d.val(key), key)
        else:
            d.implied(key, f"not read by verl {d.sem.release}'s legacy FSDP {role} worker")
    if not megatron:
        return
    for k, null in (("lr_decay_steps", "the run's horizon, as Trinity's"), ("lr_wsd_decay_steps", "none")):
        key = f"{o}.{k}"
        if not d.user(key):
            continue
        if d.val(key) is None:
            d.implied(key, f"null: {null}")
            continue
        steps = d.number(key, positive=True)
        if steps is not None and si is not None:
            d.set(f"{to}.{k}", steps * si, key, note=f"{steps}*{si} (veRL scheduler steps x trainer steps a veRL step)"
                  if si != 1 else "")
    if role == "critic":
        return  # the critic's lr_warmup_init passes through: Trinity's default is veRL's, 0.0
    key = f"{o}.lr_warmup_init"
    init, lr = d.val(key, 0.0), d.val(f"{o}.lr")  # a release without the key warms up from 0 (schedule_args)
    warms = warms_up(lambda k: d.val(f"{o}.{k}"))
    if not isinstance(init, (int, float)) or not isinstance(lr, (int, float)):
        return
    trinity = d.get("algorithm.optimizer.min_lr_ratio", 0.01) * lr  # Trinity's Megatron optim section's default
    if warms and not math.isclose(init, trinity, rel_tol=1e-12, abs_tol=1e-30):
        why = f"Trinity's default is min_lr_ratio x lr, {trinity:g}"
        d.set(f"{to}.lr_warmup_init", init, *[key] * d.cfg.has(key), note="" if d.user(key) else
              f"veRL default ({why})" if d.cfg.has(key) else
              f"from 0: verl {d.sem.release}'s Megatron optimizer has no lr_warmup_init ({why})")
    elif d.user(key):
        d.implied(key, "Trinity's default, min_lr_ratio x lr" if warms else "read only while the schedule warms up")


def _sum_norm(d: Draft, critic: bool) -> None:
    """RFTC305 where the actor's (or the critic's) loss aggregates by seq-mean-token-sum-norm: veRL divides the token
    sums by the padded response width (data.max_response_length) or loss_scale_factor, Trinity by the longest
    response of each batch (rftc.semantics.loss)."""
    from rftc.mapping.seeds import runs_engine

    width = d.val("data.max_response_length")
    for role, section, on in (("actor", A, len(d.sem.value("loss_agg_modes")) > 1
                               and d.val(f"{A}.policy_loss.loss_mode") != "sapo"), ("critic", C, critic)):
        key = f"{section}.loss_agg_mode"
        if not on or d.val(key) != SUM_NORM:
            continue
        factor = d.val(f"{section}.loss_scale_factor")
        by = f"loss_scale_factor {factor}" if factor is not None and runs_engine(d.val, d.sem, role) else \
            f"data.max_response_length ({width}), the width veRL pads responses to"
        d.report("RFTC305", f"{key}={SUM_NORM}: veRL divides each sequence's token sum by {by}; Trinity-RFT 0.6's "
                 f"{'policy' if role == 'actor' else 'value'} loss divides it by the longest response of each batch",
                 key if d.user(key) or role == "actor" else f"{A}.loss_agg_mode")
