"""The record: a value with its origin, the quantities with what a difference in each does to training, and the
run as a frozen dataclass of them. Two runs are equal when every value is (origins are not compared)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

UNUSED = None  # a quantity the run does not have (no KL term, no critic, a loss without clip ratios)


@dataclass(frozen=True, eq=False)
class Value:
    value: Any
    source: str = ""  # "run.sh:12 actor_rollout_ref.actor.ppo_epochs", "config.yaml:8 algorithm.repeat_times"
    formula: str = ""  # how it was computed from the keys in source, when it is not one key's value

    def __eq__(self, other) -> bool:
        return isinstance(other, Value) and same(self.value, other.value)

    __hash__ = None

    def __str__(self) -> str:
        return "-" if self.value is None else str(self.value)


def same(a, b) -> bool:
    """Equal values; numbers within 1e-12 relative (lr x ratios computed on two sides)."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))
    return a == b


# the groups of quantities, in the order rftc diff's table shows them
GROUPS = ("model", "data", "reward", "optimizer and schedule", "loss", "sampling", "steps and staleness", "GPUs")


def _q(group: str, label: str, effect: str, *, both: bool = False):
    """``group``: one of GROUPS. ``both``: compared only where both runs have the quantity (the GPUs of a rollout
    that runs beside the trainer on GPUs of its own: a rollout on the trainer's GPUs, or one that alternates with it,
    has none; the media of a Trinity workflow that reads none where the format names none)."""
    assert group in GROUPS, group
    return field(metadata={"group": group, "label": label, "effect": effect, "both": both})


@dataclass(frozen=True)
class TrainingRun:
    responses_per_step: Value = _q("steps and staleness", "responses per optimizer step",
                                   "each gradient step averages over a different number of responses, so its noise and"
                                   " the step's size differ")
    steps_per_batch: Value = _q("steps and staleness", "optimizer steps per rollout batch",
                                "the policy moves a different number of times on each batch of rollouts, so later "
                                "updates are more off-policy")
    ppo_epochs: Value = _q("steps and staleness", "ppo epochs",
                           "each rollout batch is trained on a different number of times")
    total_epochs: Value = _q("steps and staleness", "total epochs",
                             "the run passes over the training data a different number of times")
    total_steps: Value = _q("steps and staleness", "total steps",
                            "the run stops after a different number of optimizer steps")
    lr: Value = _q("optimizer and schedule", "learning rate",
                   "every optimizer step moves the weights by a different amount")
    lr_scheduler: Value = _q("optimizer and schedule", "lr schedule",
                             "the learning rate follows a different curve over the run")
    warmup_steps: Value = _q("optimizer and schedule", "warmup steps",
                             "the learning rate reaches its peak after a different number of steps")
    warmup_ratio: Value = _q("optimizer and schedule", "warmup ratio",
                             "the learning rate reaches its peak after a different share of the run")
    lr_horizon: Value = _q("optimizer and schedule", "lr horizon",
                           "the schedule is stretched over a different number of steps (warmup and decay move)")
    weight_decay: Value = _q("optimizer and schedule", "weight decay",
                             "the weights are pulled towards zero with a different strength")
    kl_loss: Value = _q("loss", "kl loss type",
                        "the KL to the reference model is (or is not) a term of the loss, or is estimated differently")
    kl_loss_coef: Value = _q("loss", "kl loss coef",
                             "the policy is held to the reference model with a different strength")
    kl_in_reward: Value = _q("loss", "kl in reward type",
                             "the KL to the reference model is (or is not) subtracted from the reward, or is estimated"
                             " differently")
    kl_in_reward_coef: Value = _q("loss", "kl in reward coef",
                                  "the reward is penalised by the KL with a different strength")
    policy_loss: Value = _q("loss", "policy loss",
                            "the gradient comes from a different objective")
    clip_low: Value = _q("loss", "clip ratio low",
                         "the ratio is clipped at a different lower bound, so updates that lower a response's "
                         "probability are limited differently")
    clip_high: Value = _q("loss", "clip ratio high",
                          "the ratio is clipped at a different upper bound, so updates that raise a response's "
                          "probability are limited differently")
    clip_ratio_c: Value = _q("loss", "clip ratio c",
                             "negative-advantage ratios are bounded differently")
    sapo_tau: Value = _q("loss", "sapo tau (pos, neg)",
                         "the soft gate of the ratio has a different temperature")
    entropy_coef: Value = _q("loss", "entropy coef",
                             "the loss rewards entropy with a different weight, so exploration decays differently")
    loss_agg_mode: Value = _q("loss", "loss aggregation",
                              "tokens and sequences weigh differently in the loss (long responses count more or less)")
    advantage: Value = _q("loss", "advantage estimator",
                          "the advantages the loss weighs responses by are computed differently")
    gamma: Value = _q("loss", "gamma",
                      "future rewards are discounted differently")
    lam: Value = _q("loss", "lambda (GAE)",
                    "the advantage trades bias for variance differently")
    step_advantage_w: Value = _q("loss", "step advantage weight (GiGPO)",
                                 "steps from the same anchor state are compared with a different weight against "
                                 "the episode's advantage")
    critic_lr: Value = _q("optimizer and schedule", "critic lr",
                          "the value model learns at a different speed")
    n: Value = _q("sampling", "responses per prompt (n)",
                  "each prompt's group has a different size, so group baselines and the batch's size differ")
    temperature: Value = _q("sampling", "temperature",
                            "rollouts are sampled from a sharper or flatter distribution")
    top_p: Value = _q("sampling", "top_p",
                      "rollouts are sampled from a different nucleus of tokens")
    top_k: Value = _q("sampling", "top_k",
                      "rollouts are sampled from a different number of most likely tokens")
    max_prompt_length: Value = _q("data", "max prompt length",
                                  "a different set of prompts fits")
    max_response_length: Value = _q("sampling", "max response length",
                                    "responses are cut at a different length")
    overlong_prompts: Value = _q("data", "over-long prompts",
                                 "prompts over the length limit are handled differently")
    context_length: Value = _q("data", "context length",
                               "prompt and response together are bounded differently, so a long prompt's response "
                               "ends elsewhere")
    policy_lag: Value = _q("steps and staleness", "max policy lag (optimizer steps)",
                           "rollouts are up to a different number of optimizer steps older than the policy they train "
                           "(more off-policy)")
    ahead: Value = _q("steps and staleness", "prompts ahead of the trainer",
                      "the rollout generates a different number of prompts before the weights they are trained from "
                      "exist, so a different share of each batch is off-policy")
    experiences_per_update: Value = _q("steps and staleness", "experiences between weight updates",
                                       "the rollout keeps its weights over a different number of trained experiences, "
                                       "so they fall a different distance behind the policy")
    rollout_gpus: Value = _q("GPUs", "rollout GPUs",
                             "generation runs at a different speed against training: the run takes a different time, "
                             "and where the lag is a bound (veRL's fully async trainer) rollouts are on average staler"
                             " or fresher", both=True)
    trainer_gpus: Value = _q("GPUs", "trainer GPUs",
                             "training runs at a different speed against generation: the run takes a different time, "
                             "and where the lag is a bound (veRL's fully async trainer) rollouts are on average staler"
                             " or fresher", both=True)
    logprob_source: Value = _q("loss", "old log-probs from",
                               "the importance ratio's denominator comes from a different engine: the rollout engine's"
                               " log-probs differ numerically from the trainer's")
    optimizer: Value = _q("optimizer and schedule", "optimizer",
                          "the weights are updated by a different rule")
    betas: Value = _q("optimizer and schedule", "adam betas",
                      "the optimizer's moment estimates average over different horizons")
    eps: Value = _q("optimizer and schedule", "adam eps",
                    "the update is damped differently where the second moment is small")
    clip_grad: Value = _q("optimizer and schedule", "gradient clip",
                          "large gradients are clipped at a different norm")
    min_lr_ratio: Value = _q("optimizer and schedule", "min lr ratio",
                             "the cosine schedule decays to a different floor")
    lr_cycles: Value = _q("optimizer and schedule", "cosine cycles",
                          "the cosine schedule's learning rate falls (and rises) over a different number of cycles")
    critic_optimizer: Value = _q("optimizer and schedule", "critic optimizer, clip, betas, eps, weight decay, schedule, "
                                 "warmup", "the value model is updated differently, so the advantages it gives differ")
    lora: Value = _q("model", "LoRA (rank, alpha, target modules)",
                     "a different set of weights is trained, or all of them")
    norm_adv_by_std: Value = _q("loss", "advantage / group std",
                                "advantages are (or are not) divided by the group's standard deviation, so groups "
                                "with little spread in reward weigh differently")
    kl_in_reward_ctrl: Value = _q("loss", "kl in reward controller",
                                  "the KL penalty's coefficient stays fixed or adapts towards a target KL")
    dynamic_sampling: Value = _q("sampling", "dynamic sampling (group filter)",
                                 "a different set of groups reaches the trainer: groups whose responses all score "
                                 "alike are (or are not) dropped and replaced")
    do_sample: Value = _q("sampling", "sampled or greedy",
                          "rollouts are sampled, or all take the most likely token (a group's responses are then "
                          "alike)")
    ignore_eos: Value = _q("sampling", "ignore eos",
                           "responses stop at the end-of-sequence token, or run on to the length limit")
    repetition_penalty: Value = _q("sampling", "repetition penalty",
                                   "rollouts are sampled with tokens already generated made less (or more) likely")
    min_response_length: Value = _q("sampling", "min response length",
                                    "responses cannot end before a different number of tokens")
    sampling_seed: Value = _q("sampling", "rollout seed",
                              "the rollout draws different random samples")
    reward: Value = _q("reward", "reward",
                       "responses are scored by a different function")
    # the run's models, data and reward arguments
    model: Value = _q("model", "model",
                      "training starts from a different model")
    reference_model: Value = _q("model", "reference model",
                                "the KL term holds the policy to a different model")
    critic_model: Value = _q("model", "critic model",
                             "the value model starts from different weights")
    chat_template: Value = _q("data", "chat template",
                              "the rows are rendered into different tokens (the tokenizer, the template, its thinking "
                              "switch)")
    data: Value = _q("data", "training data",
                     "the run trains on different rows")
    data_columns: Value = _q("data", "data columns",
                             "the prompt (or the answer the reward reads) comes from a different column")
    max_samples: Value = _q("data", "max samples",
                            "the run trains on a different subset of the rows")
    data_order: Value = _q("data", "data order",
                           "the rows come in a different order, so each step's batch differs")
    reward_kwargs: Value = _q("reward", "reward arguments",
                              "the reward function scores with different arguments (such as the overlong penalty)")
    minibatch_order: Value = _q("steps and staleness", "mini-batch order",
                                "the rollout batch's responses are trained in other mini-batches or in another "
                                "order, so each optimizer step's gradient differs")
    critic_steps: Value = _q("steps and staleness", "critic steps (responses, steps a batch, order)",
                             "the value model takes a different number of steps of a different size on each batch, "
                             "or in another order, so the advantages it gives differ")
    # the critic's loss
    value_clip: Value = _q("loss", "value clip (critic)",
                           "the critic's new values are clipped to a different range around the old ones, so the "
                           "value model moves at a different pace and the advantages it gives differ")
    # the trainer's generators
    trainer_seed: Value = _q("model", "trainer seed (actor, critic)",
                             "the trainer's random draws (dropout, the weights a new value head starts from) differ, "
                             "so the run does not repeat step for step")
    # a prompt over the length limit that is not left out
    prompt_truncation: Value = _q("data", "over-long prompt cut",
                                  "a prompt over the length limit is cut elsewhere, kept whole, or stops the run")
    # off-policy rollouts: their correction, the engine's log-probs, staleness, resumed, over-sampled or lent GPUs
    rollout_correction: Value = _q("loss", "rollout correction",
                                   "the loss weighs responses by importance ratios to the rollout's log-probs, or "
                                   "masks out those too far from them, differently (or not at all)")
    rollout_logprobs: Value = _q("loss", "rollout log-probs",
                                 "the rollout engine's log-probs the trainer uses are computed before or after its "
                                 "sampling processing (temperature, top-k/p), so ratios to them differ", both=True)
    staleness_filter: Value = _q("steps and staleness", "staleness filter",
                                 "rollouts too many updates old are dropped or waited for in one run only, so the "
                                 "other trains staler rollouts")
    partial_rollout: Value = _q("steps and staleness", "partial rollouts",
                                "a response interrupted by a weight update is resumed with the new weights in one run "
                                "only, so its tokens come from two policies")
    over_sampling: Value = _q("sampling", "over-sampling",
                              "a batch keeps only the rollouts that finish first in one run, so long responses are "
                              "under-represented differently")
    hybrid_rollout: Value = _q("steps and staleness", "hybrid rollout",
                               "the trainer's GPUs generate between steps with the newest weights in one run only, so "
                               "a different share of each batch is fresher")
    replay_sampler: Value = _q("steps and staleness", "replay sampler",
                               "a custom sampler picks the rollouts each step trains in one run only")
    # the model's own settings (rftc.semantics.model_settings)
    model_config: Value = _q("model", "model config (overrides, config file)",
                             "the model is built with another configuration (such as its RoPE scaling), so it "
                             "computes different outputs from the same weights")
    frozen_modules: Value = _q("model", "frozen modules",
                               "a different part of the model (the vision tower, the MoE router) keeps its weights")
    mtp: Value = _q("model", "multi-token prediction loss",
                    "the model's multi-token-prediction layers are (or are not) trained beside it, with another "
                    "weight in the loss")
    moe_routing: Value = _q("model", "MoE routing replay",
                            "the trainer's experts are routed anew or replay another routing (the rollout's, or the "
                            "one recorded with the old log-probs), so the ratio and gradient differ")
    critic_lora: Value = _q("model", "critic LoRA",
                            "a different set of the value model's weights is trained, or all of them")
    critic_model_config: Value = _q("model", "critic model config (overrides, config file, frozen modules)",
                                    "the value model is built with another configuration, so its values differ")
    # the rollout's turns, what trains and what generates (rftc.semantics.reward)
    multi_turn: Value = _q("sampling", "multi-turn rollouts (agent loop, tools)",
                           "rollouts take other turns (tool calls, an environment's replies), so other responses are "
                           "trained", both=True)  # Trinity's tasksets without a workflow roll out nothing
    trainer_backend: Value = _q("model", "trainer backend",
                                "the policy is trained by another implementation (veRL's workers, or the Tinker "
                                "service, which trains a LoRA adapter)")
    external_model: Value = _q("sampling", "external rollout model",
                               "rollouts come from a model served elsewhere, not from the policy being trained")
    # what the run does, and how the trainer's batches are drawn from what the rollout wrote
    mode: Value = _q("steps and staleness", "what the run does",
                     "one run trains and the other only evaluates, explores or serves (it trains nothing), or trains "
                     "on experiences another run writes")
    group_refill: Value = _q("sampling", "group refill (dynamic sampling)",
                             "the groups a filter drops are replaced otherwise (more prompts a round, surplus groups "
                             "dropped or trained the step after), so each step trains other groups, some older")
    experience_selection: Value = _q("steps and staleness", "experiences a step trains",
                                     "each step takes other experiences from the buffer (the next in arrival order, "
                                     "only recent ones, or a share of auxiliary data)")
    replay_buffer: Value = _q("steps and staleness", "replay buffer",
                              "experiences are trained more than once, newest first, or each once in arrival order")
    experience_pipeline: Value = _q("reward", "experience operators",
                                    "experiences are rewritten before training (rewards reshaped, truncated responses "
                                    "masked) by operators the other run does not have")
    # the precision the trainer trains in and the rollout generates in
    precision: Value = _q("model", "training precision (actor, reference, critic)",
                          "the weights, gradients and optimizer state are kept, and the forward and backward computed, "
                          "in other dtypes (or fake-quantised): each step's update and the log-probs differ "
                          "numerically")
    rollout_precision: Value = _q("sampling", "rollout precision",
                                  "the rollout engine generates in another dtype or quantisation, so rollouts are "
                                  "sampled from a (slightly) different distribution than the trainer's")
    # the loss's and the schedule's own settings (rftc.semantics.loss)
    critic_warmup: Value = _q("steps and staleness", "critic warmup (actor optimizer steps skipped)",
                              "the actor starts training after a different number of steps (the critic trains "
                              "alone before it), so the first rollouts come from the initial policy for longer")
    loss_scale: Value = _q("loss", "loss scale (seq-mean-token-sum-norm)",
                           "the policy loss's token sums are divided by a different number, so its gradient's size "
                           "differs")
    critic_loss_agg_mode: Value = _q("loss", "critic loss aggregation",
                                     "the value loss weighs tokens and sequences differently (or is scaled "
                                     "differently), so the value model fits differently")
    policy_loss_args: Value = _q("loss", "policy loss arguments",
                                 "the policy loss is computed with different settings of its own (masks, "
                                 "covariance clips, fallbacks)")
    advantage_args: Value = _q("loss", "advantage arguments",
                               "the advantages are computed with different settings of their function (such as the "
                               "epsilon a group's std is offset by)")
    algorithm: Value = _q("loss", "algorithm's own additions",
                          "Trinity's algorithm type adds a sample strategy or a data schema of its own, so other "
                          "experiences are trained or they are read differently")
    lr_schedule_args: Value = _q("optimizer and schedule", "lr schedule arguments",
                                 "the learning rate follows a different curve: the engine's own schedule settings "
                                 "(warmup start, step indexing, decay shape) differ")
    # on-policy distillation and the auxiliary models (rftc.semantics.distill)
    teacher: Value = _q("model", "distillation teacher",
                        "the student is pulled towards another model's log-probs, or ones computed otherwise")
    distillation: Value = _q("loss", "distillation objective",
                             "the loss pulls the student towards the teacher by another estimate, weight or clamp, "
                             "from other student log-probs, beside or without the task rewards")
    auxiliary_models: Value = _q("model", "auxiliary models (judges, tools)",
                                 "the models the workflows query beside the policy differ or answer otherwise, so "
                                 "the rewards or turns they produce differ")
    # how the rows are read and rendered (rftc.semantics.data, data_trinity)
    dataset_class: Value = _q("data", "custom dataset class",
                              "the rows are read and formatted by other code (a class of the user's, a generator "
                              "of rows)")
    media: Value = _q("data", "prompt media (columns, processing)",
                      "a prompt's images, videos or audio come from other columns or are processed differently",
                      both=True)
    tokenization: Value = _q("data", "turn tokenization",
                             "turns become different tokens (the rollout's token stream kept, or each turn rendered "
                             "again by the chat template)")
    pf_ppo: Value = _q("loss", "preference-feedback PPO",
                       "the batch is (or is not) resampled by reward before the update, so high-scoring responses "
                       "weigh more")
    # how a step's loss is made from its micro-batches (rftc.semantics.micro)
    microbatch_loss: Value = _q("loss", "micro-batch loss (a step's from its micro-batches)",
                                "the step's gradient is another multiple of the mini-batch's loss (it grows with the "
                                "micro-batches a GPU where their losses are added up, so gradient clipping cuts it "
                                "sooner), or tokens weigh within their micro-batch rather than the mini-batch")

    def items(self):
        return [(f, getattr(self, f.name)) for f in fields(self)]


def _as_in_rl(name: str):
    """A quantity both kinds of run have, as TrainingRun defines it."""
    return field(metadata=TrainingRun.__dataclass_fields__[name].metadata)


@dataclass(frozen=True)
class SftRun:
    """A supervised fine-tuning run (veRL's SFT trainers, Trinity's algorithm_type sft): the quantities that decide
    what it trains. Step counts are optimizer steps; both trainers take one step per batch of examples."""

    examples_per_step: Value = _q("steps and staleness", "examples per optimizer step",
                                  "each gradient step averages over a different number of examples, so its noise and "
                                  "the number of steps differ")
    micro_batch: Value = _q("steps and staleness", "micro-batch per GPU",
                            "the step's gradient is accumulated over different micro-batches; where the loss is "
                            "averaged per micro-batch, rows weigh differently")
    loss_agg_mode: Value = _q("loss", "loss aggregation",
                              "tokens and rows weigh differently in the loss (long responses count more or less)")
    total_epochs: Value = _as_in_rl("total_epochs")
    total_steps: Value = _as_in_rl("total_steps")
    lr: Value = _as_in_rl("lr")
    lr_scheduler: Value = _as_in_rl("lr_scheduler")
    min_lr_ratio: Value = _as_in_rl("min_lr_ratio")
    warmup_steps: Value = _as_in_rl("warmup_steps")
    warmup_ratio: Value = _as_in_rl("warmup_ratio")
    lr_horizon: Value = _as_in_rl("lr_horizon")
    weight_decay: Value = _as_in_rl("weight_decay")
    betas: Value = _as_in_rl("betas")
    clip_grad: Value = _as_in_rl("clip_grad")
    max_length: Value = _q("data", "max length (tokens)",
                           "a different share of each long row fits")
    overlong_rows: Value = _q("data", "rows over max length",
                              "rows longer than the limit are cut, refused or trained whole")
    lora: Value = _as_in_rl("lora")
    data: Value = _as_in_rl("data")
    data_order: Value = _as_in_rl("data_order")
    chat_template: Value = _as_in_rl("chat_template")
    loss_tokens: Value = _q("loss", "tokens with loss",
                            "the model learns to produce different parts of each row (which columns or chat turns the "
                            "loss covers)")
    model: Value = _as_in_rl("model")
    trainer_seed: Value = _as_in_rl("trainer_seed")
    # the model's own settings (rftc.semantics.model_settings)
    model_config: Value = _as_in_rl("model_config")
    mtp: Value = _as_in_rl("mtp")
    # what trains (rftc.semantics.reward)
    trainer_backend: Value = _as_in_rl("trainer_backend")
    # the precision the model trains in
    precision: Value = _q("model", "training precision",
                          "the weights, gradients and optimizer state are kept, and the forward and backward computed, "
                          "in other dtypes (or fake-quantised): each step's update differs numerically")
    # the schedule's own settings (rftc.semantics.loss)
    lr_schedule_args: Value = _as_in_rl("lr_schedule_args")
    # how the rows are read (rftc.semantics.data, data_trinity)
    dataset_class: Value = _as_in_rl("dataset_class")
    media: Value = _as_in_rl("media")
    # how a step's loss is made from its micro-batches (rftc.semantics.micro)
    microbatch_loss: Value = _as_in_rl("microbatch_loss")

    def items(self):
        return [(f, getattr(self, f.name)) for f in fields(self)]


@dataclass(frozen=True)
class Quantity:
    name: str
    group: str  # one of GROUPS
    label: str
    effect: str
    both: bool = False  # compared only where both runs have it


def quantities(run: type = TrainingRun) -> list[Quantity]:
    """The quantities of a kind of run (TrainingRun, or SftRun)."""
    return [Quantity(f.name, f.metadata["group"], f.metadata["label"], f.metadata["effect"], f.metadata["both"])
            for f in fields(run)]


def kind(run) -> str:
    """What a run trains by, in words: "SFT" or "reinforcement learning"."""
    return "SFT" if isinstance(run, SftRun) else "reinforcement learning"


def differences(a, b) -> list[tuple[Quantity, Value, Value]]:
    """The quantities whose values differ, in the model's order (two runs of the same kind: rftc diff reports
    an SFT run against an RL run before it compares, RFTC600)."""
    assert type(a) is type(b), (type(a), type(b))
    return [(q, getattr(a, q.name), getattr(b, q.name)) for q in quantities(type(a))
            if getattr(a, q.name) != getattr(b, q.name)
            and not (q.both and UNUSED in (getattr(a, q.name).value, getattr(b, q.name).value))]
