"""Dynamic sampling: the DAPO recipe's trainer (recipe.dapo.main_dapo, RayDAPOTrainer) reads
algorithm.filter_groups and data.gen_batch_size; main_ppo composes filter_groups too (veRL 0.5+'s AlgoConfig)
and reads it from 0.9.0 in its v1 trainers (trainer.use_v1, the default), whose replay buffer drops the groups
the same rule drops and generates others in their place.

RayDAPOTrainer loads data.gen_batch_size prompts a round. With filter_groups.enable it keeps the prompts whose
responses' filter_groups.metric differ (np.std > 0, or one response), generates again until
data.train_batch_size prompts are kept (at most max_num_gen_batches rounds; non-positive: no limit) and trains
on exactly that many; without it every round is one training batch of gen_batch_size prompts
(rftc.mapping.batch.prompts_key). In Trinity the filter is an experience
operator (rftc's VerlFilterGroups, veRL's rule on the metric the reward workflow reports) and the trainer waits
until buffer.train_batch_size experiences have passed it, so the explorer explores more batches, as veRL
generates more rounds. The LR horizon counts veRL's dataloader batches, which are gen_batch_size prompts."""

from __future__ import annotations

from dataclasses import replace

from rftc.mapping.batch import B, GEN, N, Batch
from rftc.mapping.draft import Draft
from rftc.mapping.offpolicy import schedule
from rftc.plugins import FILTER_GROUPS
from rftc.plugins.groups import SEQUENCE_METRICS
from rftc.verl.releases import modes
from rftc.verl.trainers import MAIN_PPO, is_dapo

FG = "algorithm.filter_groups"
V1_REWARD = "reward"  # the v1 replay buffer's name for the reward's sum (FILTER_GROUPS_REWARD_METRIC)
OPERATORS = "data_processor.experience_pipeline.operators"


def group_filter(invocation, release: str, get) -> str | None:
    """Which trainer of the launch reads algorithm.filter_groups: "dapo" (RayDAPOTrainer), "v1" (main_ppo's v1
    trainers from 0.9.0, verl/trainer/ppo/v1/trainer_base.py _resolve_filter_groups_metric: the replay buffer
    drops a finished group whose metric is the same for all its responses and refills it), or None."""
    if is_dapo(invocation):
        return "dapo"
    module = invocation.module if invocation is not None else None
    if module == MAIN_PPO and modes.fact("v1_routing", release) and get("trainer.use_v1") is True:
        return "v1"
    return None


def filtering_trainer(invocation, release: str, get) -> str | None:
    """``group_filter``'s trainer where it filters groups: algorithm.filter_groups.enable on and more than one
    response a prompt (a group of one always stays); else None."""
    trainer = group_filter(invocation, release, get)
    n = get("actor_rollout_ref.rollout.n")
    return trainer if trainer is not None and bool(get(f"{FG}.enable")) and (n if n is not None else 1) > 1 else None


def group_filter_operator(name: str) -> bool:
    """Whether the experience operator ``name`` drops groups: rftc's VerlFilterGroups, Trinity's reward filters
    (reward_filter, reward_std_filter, invalid_reward_filter, a plugin's ``*filter*``) and dapo_dynamic_sampling."""
    return name == FILTER_GROUPS or "filter" in name or name == "dapo_dynamic_sampling"


def map_dynamic_sampling(d: Draft, batch: Batch | None) -> Batch | None:
    """The operator and the settings above; returns ``batch`` with the dataloader's batch (gen_batch_size) for
    the LR horizon."""
    for k in d.user_keys_under(FG):
        if k.endswith("._target_"):
            d.implied(k, "the config class veRL builds the section into")
    trainer = group_filter(d.cfg.invocation, d.sem.release, d.val)
    if trainer is None:
        for k in d.user_keys_under(FG):
            if not d.done(k):
                d.report("RFTC328", f"{k}={d.fmt_value(k)} has no effect under this main_ppo: only the DAPO "
                         "recipe's trainer (recipe.dapo.main_dapo) and, from verl 0.9.0, main_ppo's v1 trainers "
                         "sample dynamically, so the launch trains on every prompt, as the converted config does", k,
                         hint="launch recipe.dapo.main_dapo to filter groups, or drop the override")
        return batch
    if trainer == "v1":
        return _v1_dynamic_sampling(d, batch)
    gen = d.number(GEN, positive=True) if d.cfg.has(GEN) else None  # veRL: data.get(gen_batch_size, B)
    on = d.flag(f"{FG}.enable")
    if batch is not None and gen is not None:
        batch = replace(batch, loader_batch=gen)
    if not on:
        for k in d.user_keys_under(FG):
            d.implied(k, "no dynamic sampling: filter_groups.enable is false")
        if d.user(GEN):
            d.implied(GEN, "no dynamic sampling: each round of data.gen_batch_size prompts is one training batch, "
                      "and the batch sizes follow it")
        return batch
    metric = d.val(f"{FG}.metric")
    if not isinstance(metric, str) or not metric:
        d.report("RFTC313", f"{FG}.enable is true but {FG}.metric is {metric!r}: RayDAPOTrainer looks the metric "
                 "up by that name and fails", f"{FG}.metric", hint="set it to acc, score, seq_reward, ...")
        return batch
    if metric == "seq_final_reward" and d.get("algorithm.kl_penalty_fn", "none") != "none":
        d.report("RFTC300", f"{FG}.metric=seq_final_reward is the reward after the KL penalty, which Trinity "
                 "applies in the trainer, after the experience operators", f"{FG}.metric",
                 hint="filter on seq_reward (the reward before the penalty)")
        return batch
    n = d.number(N, positive=True)
    if n == 1:
        d.implied(f"{FG}.enable", "one response per prompt: veRL keeps every prompt")
        d.implied(f"{FG}.metric", "one response per prompt: veRL keeps every prompt")
    else:
        d.set(f"{OPERATORS}[0].name", FILTER_GROUPS, f"{FG}.enable",
              note="veRL's filter_groups: a task's group stays when its metric varies")
        d.set(f"{OPERATORS}[0].args.metric", metric, f"{FG}.metric",
              note="the reward" if metric in SEQUENCE_METRICS else "an entry of the reward function's result")
        _refill_differs(d, f"the DAPO recipe's trainer refills a filtered batch with rounds of {gen or d.val(B)} "
                        f"prompts ({GEN}) until {d.val(B)} pass and drops the passing ones past them",
                        GEN if d.user(GEN) else f"{FG}.enable")
    key = f"{FG}.max_num_gen_batches"
    rounds = d.number(key, allow_none=True)
    if rounds is not None and rounds > 0:
        d.report("RFTC300", f"{key}={rounds}: veRL stops the run with an error after {rounds} rounds that keep "
                 f"fewer than {B} prompts; Trinity's explorer goes on exploring until the trainer has its batch",
                 key, hint="watch the operator's filtered_count in Trinity's monitor")
    elif d.user(key):
        d.implied(key, "no limit on rounds, as Trinity's explorer")
    return batch


def _refill_differs(d: Draft, verl: str, key: str) -> None:
    """RFTC305 at ``key`` (the refill setting the launch sets, else filter_groups.enable, which stays mapped):
    veRL's trainer refills the groups its filter drops as ``verl`` says; Trinity's explorer goes on with steps of
    buffer.batch_size tasks and the trainer trains what passed beyond its batch the step after (the semantic model's
    group refill)."""
    d.report("RFTC305", f"{verl}; Trinity's explorer goes on with steps of buffer.batch_size tasks until the "
             "trainer has buffer.train_batch_size experiences that passed, and trains those past them the step "
             "after, so each step trains other groups", key, settles=key != f"{FG}.enable",
             hint="compare the operator's filtered_count in Trinity's monitor with veRL's filter_groups metrics")


def _v1_dynamic_sampling(d: Draft, batch: Batch | None) -> Batch | None:
    """main_ppo's v1 replay buffer: each step trains data.train_batch_size prompts whose groups passed the filter
    (the metric "reward" is the reward's sum, rftc's seq_reward; another name a reward_extra_info entry), as
    Trinity's trainer waits for buffer.train_batch_size experiences that passed the operator."""
    metric = d.val(f"{FG}.metric")
    if not d.flag(f"{FG}.enable") or not isinstance(metric, str) or not metric or d.number(N, positive=True) == 1:
        for k in d.user_keys_under(FG):
            if not d.done(k):
                d.implied(k, "no group is filtered (filter_groups off, or one response per prompt)")
        return batch
    d.set(f"{OPERATORS}[0].name", FILTER_GROUPS, f"{FG}.enable",
          note="veRL's filter_groups: a task's group stays when its metric varies")
    d.set(f"{OPERATORS}[0].args.metric", SEQUENCE_METRICS[0] if metric == V1_REWARD else metric, f"{FG}.metric",
          note="the reward" if metric == V1_REWARD else "an entry of the reward function's result")
    mode, inflight = schedule(d).loop.name, f"{FG}.max_inflight_gen_batches"
    if mode == "sync":
        _refill_differs(d, f"veRL's v1 sync trainer replaces each group its filter drops with two prompts, at most "
                        f"{d.fmt_value(inflight)} x {d.fmt_value(B)} prompts in flight ({inflight} x {B}), and "
                        f"drops the passing groups past {d.fmt_value(B)}",
                        inflight if d.user(inflight) else f"{FG}.enable")
    else:
        _refill_differs(d, f"veRL's v1 {mode} trainer replaces each group its filter drops with one prompt",
                        f"{FG}.enable")
    for k in d.user_keys_under(FG):
        if not d.done(k):
            d.implied(k, f"not read by veRL's v1 {mode} replay buffer (max_num_gen_batches: it warns and ignores it)")
    return batch
