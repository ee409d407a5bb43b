"""How an optimizer step's loss is made from its micro-batches (microbatch_loss), on both sides
(rftc.mapping.microloss reads the workers): veRL's engine workers normalise by the whole mini-batch, its legacy
workers and fsdp_sft_trainer average the micro-batches' losses, Trinity-RFT 0.6's trainer (verl 0.8's engine with
TrinityPolicyLoss, and veRL's value_loss for its critic) adds them up, so its step's loss is the micro-batches a GPU
times their mean.

    verl_fields(r, sem, batch=..., n=..., critic=..., loss_mode=...)   # rftc.semantics.verl's TrainingRun fields
    verl_sft_fields(r, sem, legacy)                                    # rftc.semantics.sft_verl's SftRun fields
    trinity_fields(val, of, args=..., critic=...)                      # rftc.semantics.trinity's, from its view
    trinity_sft_fields(val, of, loss_agg_mode=...)                     # rftc.semantics.sft_trinity's
    view(x, put, where)                                                # the keys of Trinity's expansion they read
"""

from __future__ import annotations

import math

from rftc.mapping.microloss import SUM, TEXT, reads, sft_inputs, text, trinity_sum_norm, verl_inputs
from rftc.semantics.model import Value
from rftc.trinity import workers
from rftc.trinity.derive import derive
from rftc.verl.micro import MEGATRON_SIZES, count, megatron_sizes

TC = "trainer.trainer_config"
SUMMED = "Trinity's trainer adds up its micro-batches' losses (rftc/mapping/microloss.py)"
TINKER = "the Tinker trainer's (its trainer backend says how it scales the micro-batches' losses)"


def _joined(actor: str, critic: str | None) -> str:
    return actor if critic is None else f"actor {actor}; critic {critic}"


# ---- a veRL launch

def verl_fields(r, sem, *, batch: int, n: int, critic: bool, loss_mode: str) -> dict[str, Value]:
    """The actor's (and a critic's, gae) step's loss from its micro-batches, as the release's workers make it."""
    parts, keys = [], []
    for role in ("actor", "critic") if critic else ("actor",):
        got = verl_inputs(r.get, sem, role, batch, n, loss_mode if role == "actor" else None)
        if got is None:
            return dict(microbatch_loss=Value("unknown (the mini-batch is not a whole number of responses)"))
        parts.append(text(**{k: got[k] for k in TEXT}))
        keys += got["keys"]
    return dict(microbatch_loss=r.of(_joined(parts[0], parts[1] if critic else None),
                                     *(k for k in keys if r.eff.has(k)),
                                     formula=f"verl {r.eff.release}'s workers (rftc/mapping/microloss.py)"))


def verl_sft_fields(r, sem, legacy: bool) -> dict[str, Value]:
    """The SFT trainer's step's loss from its micro-batches (rftc.mapping.microloss.sft_inputs). With
    data.balance_dp_token fsdp_sft_trainer divides each micro-batch's token sum by every rank's tokens of that
    micro-step (all-reduced, x the data-parallel size, which the gradient's average over ranks undoes): the mean of
    its micro-steps' token means over every GPU, which rftc does not collapse where a micro-step is the whole batch
    (torchrun's world, which tells, is not in the launch's config; the engine trainer's config has the key, unread)."""
    got = sft_inputs(r.get, sem, legacy)
    keys = ("data.train_batch_size", "data.micro_batch_size_per_gpu", "data.use_dynamic_bsz",
            "data.max_token_len_per_gpu", "data.balance_dp_token")
    if count(got["rows"]) is None:
        return dict(microbatch_loss=r.of(f"unknown (data.train_batch_size {got['rows']!r})", "data.train_batch_size"))
    value = text(**{k: got[k] for k in TEXT}, unit="rows")
    if legacy and r.get("data.balance_dp_token"):
        value = f"1 x the mean of its micro-steps' losses ({got['micro']} rows a GPU each, over every GPU's tokens)"
    trainer = "fsdp_sft_trainer" if legacy else "sft_trainer"
    return dict(microbatch_loss=r.of(value, *(k for k in keys if r.eff.has(k)),
                                     formula=f"verl {r.eff.release}'s {trainer} (rftc/mapping/microloss.py)"))


# ---- a Trinity config

def view(x, put, where) -> None:
    """The keys of Trinity's expansion ``x`` the quantity reads (build_verl_config's actor and critic sections:
    trainer.use_dynamic_bsz and max_token_len_per_gpu, which trainer_config cannot override, trainer_config's
    micro-batch sizes), and the trainer's data-parallel ranks: cluster.trainer_gpu_num (rftc.semantics.trinity)
    over the Ulysses size, or over TP x PP x CP for Megatron (trainer.megatron.*)."""
    d, t = derive(x), x.trainer
    for role, section in (("actor", "actor_rollout_ref.actor"), ("critic", "critic")):
        micro = (workers.actor(x) if role == "actor" else workers.critic(x)).micro_batch_size
        put(f"verl.{role}.ppo_micro_batch_size_per_gpu", micro, where(f"{TC}.{section}.ppo_micro_batch_size_per_gpu"))
        put(f"verl.{role}.use_dynamic_bsz", t.use_dynamic_bsz, where("trainer.use_dynamic_bsz"))
        put(f"verl.{role}.ppo_max_token_len_per_gpu", d.max_token_len_per_gpu, where("trainer.max_token_len_per_gpu"))
    put("verl.actor.ulysses_sequence_parallel_size", d.sequence_parallel,
        where("trainer.ulysses_sequence_parallel_size"))


def _megatron(val) -> bool:
    return str(val("trainer.trainer_strategy", "")).startswith("megatron")


def _ranks(val) -> int | None:
    """The trainer's data-parallel ranks: its GPUs over the Ulysses size (FSDP) or TP x PP x CP (Megatron)."""
    gpus = count(val("cluster.trainer_gpu_num"))
    if gpus is None:
        return None
    if _megatron(val):
        group = math.prod(megatron_sizes(val, "trainer.megatron"))
    else:
        group = val("verl.actor.ulysses_sequence_parallel_size", 1) or 1
    return gpus // group if gpus % group == 0 else None


def _trinity_role(val, role: str, mode: str, keys: list, unit: str = "responses") -> str:
    """One role's step's loss on Trinity's trainer, the keys it reads added to ``keys``."""
    rows = val("verl.actor.ppo_mini_batch_size")
    if count(rows) is None:
        return f"unknown (a mini-batch of {rows!r})"
    dynamic = bool(val(f"verl.{role}.use_dynamic_bsz"))
    sum_norm = trinity_sum_norm(role)
    read = reads(SUM, mode, sum_norm, dynamic)
    keys += ["verl.actor.ppo_mini_batch_size", f"verl.{role}.use_dynamic_bsz",
             *([f"verl.{role}.ppo_micro_batch_size_per_gpu"] if "micro" in read else []),
             *([f"verl.{role}.ppo_max_token_len_per_gpu"] if "budget" in read else []),
             *(["cluster.trainer_gpu_num", *([f"trainer.megatron.{k}" for k in MEGATRON_SIZES] if _megatron(val)
                                             else ["verl.actor.ulysses_sequence_parallel_size"])]
               if "ranks" in read else [])]
    return text(SUM, mode, sum_norm, rows=rows, ranks=_ranks(val),
                micro=val(f"verl.{role}.ppo_micro_batch_size_per_gpu"), dynamic=dynamic,
                budget=val(f"verl.{role}.ppo_max_token_len_per_gpu"), unit=unit)


def _other_trainer(val, of) -> dict[str, Value] | None:
    """The Tinker trainer's own scaling (trainer_type tinker, which model.tinker.enable sets: rftc.semantics.reward
    trinity_backend says how), a trainer type Trinity refuses; None for veRL's trainer."""
    if val("trainer.trainer_type") == "tinker" or val("model.tinker.enable"):
        return dict(microbatch_loss=of(TINKER, "trainer.trainer_type", "model.tinker.enable"))
    if val("trainer.trainer_type") != "verl":
        return dict(microbatch_loss=of(f"unknown (trainer type {val('trainer.trainer_type')!r}, which Trinity "
                                       "refuses)", "trainer.trainer_type"))
    return None


def trinity_fields(val, of, *, args: dict, critic: bool) -> dict[str, Value]:
    """Trinity's trainer adds up the micro-batches' losses, each aggregated within its micro-batch: the actor's by
    the loss_agg_mode its policy loss is built with (``args``, else algorithm.loss_agg_mode; Trinity's
    aggregate_loss), a critic's by trainer_config.critic.loss_agg_mode (verl 0.8's value_loss)."""
    other = _other_trainer(val, of)
    if other is not None:
        return other
    keys = ["algorithm.policy_loss_fn_args", "algorithm.loss_agg_mode"]
    actor = _trinity_role(val, "actor", args.get("loss_agg_mode", val("algorithm.loss_agg_mode")), keys)
    critic_text = None
    if critic:
        keys.append("verl.critic.loss_agg_mode")
        critic_text = _trinity_role(val, "critic", val("verl.critic.loss_agg_mode", "token-mean"), keys)
    return dict(microbatch_loss=of(_joined(actor, critic_text), *dict.fromkeys(keys), formula=SUMMED))


def trinity_sft_fields(val, of, *, loss_agg_mode: str) -> dict[str, Value]:
    """As trinity_fields for Trinity's sft loss (the actor's micro-batches)."""
    other = _other_trainer(val, of)
    if other is not None:
        return other
    keys = ["algorithm.policy_loss_fn_args", "algorithm.loss_agg_mode"]
    value = _trinity_role(val, "actor", loss_agg_mode, keys, unit="rows")
    return dict(microbatch_loss=of(value, *dict.fromkeys(keys), formula=SUMMED))
