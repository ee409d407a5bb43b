"""Dynamic sampling: the DAPO recipe's trainer (recipe.dapo.main_dapo, RayDAPOTrainer) reads
algorithm.filter_groups and data.gen_batch_size; main_ppo composes filter_groups too (veRL 0.5+'s AlgoConfig)
but never reads it.

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
from rftc.plugins import FILTER_GROUPS
from rftc.verl.trainers import is_dapo
from rftc.plugins.groups import SEQUENCE_METRICS

FG = "algorithm.filter_groups"
OPERATORS = "data_processor.experience_pipeline.operators"


def map_dynamic_sampling(d: Draft, batch: Batch | None) -> Batch | None:
    """The operator and the settings above; returns ``batch`` with the dataloader's batch (gen_batch_size) for
    the LR horizon."""
    for k in d.user_keys_under(FG):
        if k.endswith("._target_"):
            d.implied(k, "the config class veRL builds the section into")
    if not is_dapo(d.cfg.invocation):
        for k in d.user_keys_under(FG):
            if not d.done(k):
                d.report("RFTC328", f"{k}={d.fmt_value(k)} has no effect under main_ppo: only the DAPO recipe's "
                         "trainer (recipe.dapo.main_dapo) samples dynamically, so the launch trains on every "
                         "prompt, as the converted config does", k,
                         hint="launch recipe.dapo.main_dapo to filter groups, or drop the override")
        return batch
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
    key = f"{FG}.max_num_gen_batches"
    rounds = d.number(key, allow_none=True)
    if rounds is not None and rounds > 0:
        d.report("RFTC300", f"{key}={rounds}: veRL stops the run with an error after {rounds} rounds that keep "
                 f"fewer than {B} prompts; Trinity's explorer goes on exploring until the trainer has its batch",
                 key, hint="watch the operator's filtered_count in Trinity's monitor")
    elif d.user(key):
        d.implied(key, "no limit on rounds, as Trinity's explorer")
    if d.user(GEN):
        d.implied(GEN, "Trinity's explorer explores buffer.batch_size tasks a step until the trainer has "
                  "buffer.train_batch_size filtered experiences (veRL drops the kept prompts beyond "
                  f"{B} of its last round; Trinity trains them in the next step)")
    return batch
