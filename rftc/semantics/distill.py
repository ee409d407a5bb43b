"""On-policy distillation and the auxiliary models in the semantic model: the teacher whose log-probs the loss reads,
the distillation's term of the loss, and the models a Trinity workflow queries beside the policy.

veRL (verl 0.8.0 on; rftc.mapping.distill says which code decides): the teacher is
distillation.teacher_models' (its model, inference.dtype; log-probs at temperature 1.0), the term the distillation
loss (loss_mode's estimate from the trained policy's log-probs, backpropagated or the advantage of the vanilla PPO
loss, weighed by distillation_loss_coef where the task rewards' loss is kept, clamped at loss_max_clamp). Without
task rewards that is the whole loss: the policy loss, its clip, advantage, KL and entropy terms are the
distillation's, and no reward enters it. veRL's rollout queries no auxiliary model.

Trinity-RFT 0.6: the on_policy_distill (and jsd) advantage reads the teacher log-probs a distillation workflow
takes from the first auxiliary model (at workflow_args.temperature, default 1.0), kl_coef x (teacher - old
log-prob): the old log-prob is the rollout's (bypass_old_logprobs), else the trainer's at its step's start, which
is the policy the step trains where ppo_epochs is 1. No reward or KL penalty enters that advantage. The other
auxiliary models are those a workflow may query (judges, tools), with what decides what they return: their own
fields, and the model's where they leave them unset (Trinity's validator, config_validator.py set_if_none)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rftc.mapping.distill import (CLIP_RATIO_C, INF, LOSS, ONE, REVERSE_KL, TEACHER, TEACHER_TEMPERATURE, TEACHERS,
                                  TOPK, clip, enabled, estimate, task_free, teachers)
from rftc.mapping.trinity_fields import queries_auxiliary
from rftc.plugins import DISTILL_WORKFLOW, DISTILL_WORKFLOWS
from rftc.semantics.inputs import data_path, launch_path
from rftc.semantics.model import TrainingRun, Value
from rftc.semantics.reader import Reader
from rftc.semantics.trinity_inputs import TASKSETS, per_taskset
from rftc.semantics.verl_inputs import columns_text
from rftc.trinity.registry import TEACHER_ADVANTAGE_FNS

NONE = "none"
CURRENT = "the trained policy's"
ROLLOUT = "the rollout engine's"
STEP_START = "the policy's at its trainer step's start"
VANILLA = {"vanilla": "ppo"}  # the policy loss veRL's distillation takes (it refuses any other)
AUXILIARY = "explorer.auxiliary_models"
# the fields an auxiliary model takes from model.* where it leaves them unset (Trinity's validator: model_args)
MODEL_ARGS = ("temperature", "top_p", "top_k", "repetition_penalty", "max_model_len", "max_prompt_tokens",
              "max_response_tokens", "min_response_tokens", "enable_prompt_truncation", "rope_scaling", "rope_theta",
              "enable_thinking")
# what decides what an auxiliary model returns (the rest places or tunes its engine: rftc.mapping.trinity_fields)
AUX_FIELDS = ("dtype", "seed", *MODEL_ARGS[:-1], "ignore_eos", "chat_template", "enable_thinking")
ROPE = ("rope_scaling", "rope_theta")
DROPPED = "veRL's distillation without task rewards drops the task rewards' policy loss (distillation_ppo_loss)"
PROMPT_ONLY = "; no reward reads the data"  # the data columns of a run that reads no reward: its prompt's alone


@dataclass(frozen=True)
class Teacher:
    """The model whose log-probs the distillation reads, its dtype, the temperature it gives them at, and the model
    config it is built with over the model's own (Trinity's rope settings)."""

    model: str
    dtype: str
    temperature: float | str
    overrides: tuple = ()

    def __str__(self) -> str:
        return f"{self.model} ({self.dtype}, log-probs at temperature {self.temperature}" + "".join(
            f", {k} {v}" for k, v in self.overrides) + ")"


@dataclass(frozen=True)
class Objective:
    """The distillation's term of the loss: the per-token estimate, whether its negation is the advantage of a
    policy-gradient loss (else it is backpropagated), its weight, whether the task rewards' policy loss is kept
    beside it, its clamp, whose log-probs the student's side is, and, where the task rewards' loss is kept, the
    policy loss and clip the distillation's advantage takes (otherwise they are the run's)."""

    estimate: str
    as_advantage: bool
    coef: float
    task_rewards: bool
    clamp: float | None
    student: str
    loss: str | None = None
    clip: tuple | None = None

    def __str__(self) -> str:
        how = (f"as the advantage of the{f' {self.loss}' if self.loss else ''} policy loss" if self.as_advantage
               else "backpropagated")
        return (f"{self.estimate} {how}" + (f" (clip {self.clip})" if self.clip else "") + f", weight {self.coef}, "
                f"{'with' if self.task_rewards else 'without'} the task rewards' loss"
                + (f", clamped at +-{self.clamp}" if self.clamp is not None else "")
                + f"; student log-probs: {self.student}")


@dataclass(frozen=True)
class Auxiliary:
    """An auxiliary model a workflow may query, and what decides what it returns."""

    model: str
    settings: tuple

    def __str__(self) -> str:
        return f"{self.model} (" + ", ".join(f"{k} {v}" for k, v in self.settings) + ")"


# ---- veRL

def verl_fields(r: Reader) -> dict[str, Value]:
    """teacher, distillation and auxiliary_models of a veRL launch (none without distillation.enabled; a release
    before 0.8.0 has no on-policy distillation)."""
    aux = Value(NONE, "", "veRL's rollout queries no auxiliary model (its reward model scores as the reward, its "
                "teacher is the distillation's)")
    if not enabled(r.get):
        off = r.of(NONE, "distillation.enabled") if r.eff.has("distillation.enabled") else \
            Value(NONE, f"verl {r.eff.release} has no on-policy distillation")
        return dict(teacher=off, distillation=off, auxiliary_models=aux)
    return dict(teacher=_verl_teacher(r), distillation=_verl_objective(r), auxiliary_models=aux)


def _verl_teacher(r: Reader) -> Value:
    """The teacher (one, or several routed by distillation.teacher_key: DistillationConfig._resolve_teacher_models),
    its log-probs at temperature 1.0 (rftc.mapping.distill)."""
    entries = teachers(r.get)
    if set(entries) == {ONE}:
        path = r.get(f"{TEACHER}.model_path")
        if not path:
            return r.of("unknown (no teacher model_path: veRL stops at start)", f"{TEACHER}.model_path")
        return r.of(Teacher(launch_path(str(path)), r.get(f"{INF}.dtype"), TEACHER_TEMPERATURE),
                    "distillation.enabled", f"{TEACHER}.model_path", f"{INF}.dtype",
                    formula="vLLM's prompt log-probs at temperature 1.0")
    shown = "; ".join(f"{e.get('key')}: {_entry(e)}" for e in (dict(v or {}) for _, v in sorted(entries.items())))
    many = f"{len(entries)} teacher{'s' * (len(entries) > 1)}"
    route = r.get("distillation.teacher_key", "data_source")
    return r.of(f"{many} by the row's {route}: {shown}", "distillation.enabled", TEACHERS, "distillation.teacher_key")


def _entry(e: dict) -> Teacher:
    """An added teacher entry (DistillationTeacherModelConfig: its inference a RolloutConfig, dtype bfloat16 unless
    set)."""
    return Teacher(launch_path(str(e.get("model_path"))), dict(e.get("inference") or {}).get("dtype", "bfloat16"),
                   TEACHER_TEMPERATURE)


def _verl_objective(r: Reader) -> Value:
    """distillation_loss as distillation_ppo_loss reads it: the estimate (top-k settings only for the top-k loss),
    policy gradient or backpropagated, the weight (distillation_loss_coef only beside the task rewards' loss, else
    1), the clamp; beside the task rewards' loss, the distillation's own policy loss and clip ratios."""
    get = r.get
    pg, tasks = get(f"{LOSS}.use_policy_gradient") is True, get(f"{LOSS}.use_task_rewards") is True
    own = pg and tasks  # the distillation's policy loss beside the task rewards'
    topk = str(get(f"{LOSS}.loss_mode")) == TOPK
    keys = [f"{LOSS}.{k}" for k in ("loss_mode", "use_policy_gradient", "use_task_rewards", "loss_max_clamp")]
    keys += [f"{LOSS}.distillation_loss_coef"] * tasks + [f"{LOSS}.topk", f"{LOSS}.log_prob_min_clamp"] * topk
    keys += [f"{LOSS}.{k}" for k in ("policy_loss_mode", "clip_ratio", "clip_ratio_low", "clip_ratio_high")] * own
    coef = get(f"{LOSS}.distillation_loss_coef") if tasks else 1.0
    mode = str(get(f"{LOSS}.policy_loss_mode"))
    return r.of(Objective(estimate(get), pg, coef, tasks, get(f"{LOSS}.loss_max_clamp"), CURRENT,
                          VANILLA.get(mode, mode) if own else None, clip(get) if own else None), *keys,
                formula="distillation_ppo_loss")


def verl_distilled(run: TrainingRun, r: Reader) -> TrainingRun:
    """``run`` where veRL's distillation drops the task rewards' loss (use_task_rewards false): the policy loss is the
    distillation's (its vanilla PPO loss, clip ratios and clip_ratio_c 3.0, the advantage the negated estimate; none
    where it is backpropagated), no KL or entropy term, and where no group filter reads it, no reward."""
    get = r.get
    if not task_free(get):
        return run
    src = r.where(f"{LOSS}.use_task_rewards")
    pg = get(f"{LOSS}.use_policy_gradient") is True
    mode = str(get(f"{LOSS}.policy_loss_mode"))
    low, high = clip(get)
    clips = [f"{LOSS}.{k}" for k in ("clip_ratio", "clip_ratio_low", "clip_ratio_high")]
    gone = Value(None, src, DROPPED)
    fields = dict(
        policy_loss=r.of(VANILLA.get(mode, mode), f"{LOSS}.policy_loss_mode") if pg else
        Value(NONE, src, "the distillation loss is backpropagated itself"),
        clip_low=r.of(low, *clips) if pg else gone, clip_high=r.of(high, *clips) if pg else gone,
        clip_ratio_c=Value(CLIP_RATIO_C, src, "veRL's vanilla loss default: the distillation section has none")
        if pg else gone, sapo_tau=gone,
        advantage=Value("on_policy_distill" if pg else NONE, r.where(f"{LOSS}.use_policy_gradient"),
                        "the negated distillation estimate" if pg else "no advantage: the loss is backpropagated"),
        entropy_coef=Value(0.0, src, DROPPED), kl_loss=Value(NONE, src, DROPPED), kl_loss_coef=gone,
        kl_in_reward=Value(NONE, src, DROPPED), kl_in_reward_coef=gone, kl_in_reward_ctrl=gone,
        gamma=gone, lam=gone, step_advantage_w=gone, norm_adv_by_std=gone, reference_model=gone,
        advantage_args=Value(NONE, src, "the distillation estimate takes no estimator's constants"),
        loss_agg_mode=r.v("actor_rollout_ref.actor.loss_agg_mode"))  # the actor's, whatever its policy loss
    if run.dynamic_sampling.value == NONE:  # no group filter reads the reward either
        fields.update(reward=Value(NONE, src, "no reward enters the loss"), reward_kwargs=Value(NONE, src, ""),
                      data_columns=r.of(columns_text(get("data.prompt_key", "prompt")) + PROMPT_ONLY,
                                        "data.prompt_key"))
    return replace(run, **fields)


# ---- Trinity-RFT 0.6

def distill_view(x, put, where) -> None:
    """``view``'s auxiliary models of the expanded config ``x``: each one's fields, those it leaves unset the
    model's (Trinity's validator)."""
    put(AUXILIARY, [{"model_path": m.model_path, **{k: getattr(m, k) for k in AUX_FIELDS},
                     **{k: getattr(x.model, k) for k in MODEL_ARGS if getattr(m, k) is None}}
                    for m in x.explorer.auxiliary_models], where(AUXILIARY))


def trinity_fields(v, val, of) -> dict[str, Value]:
    """teacher, distillation and auxiliary_models of ``view``'s keys ``v`` (``val``, ``of``: from_trinity's
    readers). The auxiliary models count where a training taskset's workflow may query them: any but rftc's
    reward workflow (which queries none) and the distillation workflows (which ask the first for log-probs only),
    or a row's own workflow (format.workflow_key); none where no taskset names a workflow."""
    adv = val("algorithm.advantage_fn")
    models = val(AUXILIARY, [])
    reads = adv in TEACHER_ADVANTAGE_FNS
    others = models[1:] if reads else models
    queried = any(queries_auxiliary(t.get("default_workflow_type"), (t.get("format") or {}).get("workflow_key"))
                  for t in val(TASKSETS, []))
    aux = of(tuple(Auxiliary(data_path(m["model_path"]), tuple((k, m[k]) for k in AUX_FIELDS)) for m in others)
             if queried and others else NONE, AUXILIARY, TASKSETS)
    if not reads:
        off = of(NONE, "algorithm.advantage_fn")
        return dict(teacher=off, distillation=off, auxiliary_models=aux)
    return dict(teacher=_trinity_teacher(models, val, of), distillation=_trinity_objective(adv, val, of),
                auxiliary_models=aux)


def _trinity_teacher(models: list, val, of) -> Value:
    if not models:
        return of("unknown (no auxiliary model: the distillation workflow has no teacher)", AUXILIARY)
    m = models[0]
    training = val(TASKSETS, [])
    temperature = per_taskset(training, _temperature)
    return of(Teacher(data_path(m["model_path"]), m["dtype"], temperature,
                      tuple((k, m[k]) for k in ROPE if m[k] is not None)), AUXILIARY, TASKSETS,
              formula="the first auxiliary model, at the distillation workflow's workflow_args.temperature")


def _temperature(t: dict):
    """The temperature a taskset's distillation workflow asks the teacher at (workflow_args.temperature, default
    1.0); another workflow's, or a row's own workflow, is unknown here."""
    column = (t.get("format") or {}).get("workflow_key")
    if column:
        return f"unknown (a row's workflow from its column {column} gives the teacher's log-probs)"
    if t.get("default_workflow_type") in DISTILL_WORKFLOWS:
        return (t.get("workflow_args") or {}).get("temperature", 1.0)
    return f"unknown (the workflow {t.get('default_workflow_type')} gives the teacher's log-probs)"


def _trinity_objective(adv: str, val, of) -> Value:
    args = val("algorithm.advantage_fn_args", {})
    student = ROLLOUT if val("algorithm.bypass_old_logprobs", True) else \
        STEP_START if val("verl.actor.ppo_epochs", 1) > 1 else CURRENT
    shown = REVERSE_KL if adv == "on_policy_distill" else \
        f"jsd (lambda_coef {args.get('lambda_coef')}, temperature {args.get('temperature')})"
    return of(Objective(shown, True, args.get("kl_coef"), False, None, student), "algorithm.advantage_fn",
              "algorithm.advantage_fn_args", "algorithm.bypass_old_logprobs", "verl.actor.ppo_epochs",
              formula="kl_coef x (teacher - old log-prob), the old log-prob the rollout's with bypass_old_logprobs, "
              "else the trainer's at its step's start")


def trinity_distilled(run: TrainingRun, val, of) -> TrainingRun:
    """``run`` where its advantage reads teacher log-probs: no reward or KL penalty enters it, and where no
    experience operator filters by reward, the reward and its columns are not read."""
    if val("algorithm.advantage_fn") not in TEACHER_ADVANTAGE_FNS:
        return run
    why = "the distillation advantage reads no reward"
    gone = Value(None, "", why)
    fields = dict(kl_in_reward=of(NONE, "algorithm.advantage_fn", formula=why), kl_in_reward_coef=gone,
                  kl_in_reward_ctrl=gone)
    if run.kl_loss.value == NONE:  # no KL term reads the reference model
        fields.update(reference_model=gone)
    if run.dynamic_sampling.value == NONE:
        fields.update(reward=of(NONE, "algorithm.advantage_fn", formula="no reward enters the loss"),
                      reward_kwargs=of(NONE, "algorithm.advantage_fn"),
                      data_columns=of(per_taskset(val(TASKSETS, []), _columns), TASKSETS))
    return replace(run, **fields)


def _columns(t: dict) -> str:
    """The prompt column a distillation workflow samples from: rftc's as veRL's chat messages, Trinity's as the text
    of one user message (its math workflow's in Qwen2.5-Math's prompt)."""
    key = (t.get("format") or {}).get("prompt_key")
    workflow = t.get("default_workflow_type")
    if workflow == DISTILL_WORKFLOW:
        return columns_text(key) + PROMPT_ONLY
    if workflow in DISTILL_WORKFLOWS:
        return f"prompt: {key} as the text of one user message" + (
            " in Qwen2.5-Math's prompt" if workflow == "on_policy_distill_math_workflow" else "") + PROMPT_ONLY
    return f"prompt: {key} (the workflow {workflow})" + PROMPT_ONLY
