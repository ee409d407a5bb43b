"""The loss's and the schedule's own settings in the semantic model, on both sides: the steps the actor waits for
the critic (critic_warmup), what a seq-mean-token-sum-norm loss divides by (loss_scale), the critic's loss
aggregation, the policy loss's and the advantage's other arguments, what Trinity's algorithm type adds to its
functions, and the engine's own schedule settings (lr_schedule_args; the critic's are part of critic_optimizer).

    verl_fields(r, sem, release, ...)      # rftc.semantics.verl's TrainingRun fields
    trinity_fields(v, val, of, ...)        # rftc.semantics.trinity's, from its view
    view(x, put, where)                    # the keys of Trinity's expansion they read

Trinity-RFT 0.6 trains on verl 0.8's engine workers (trinity/trainer/verl/), its policy loss its own
(trinity/trainer/verl/losses.py TrinityPolicyLoss), its critic's loss veRL's (verl/workers/utils/losses.py
value_loss)."""

from __future__ import annotations

from rftc.mapping.algorithm import fork_gigpo
from rftc.mapping.schedule import NONE, SECTIONS, schedule_args, schedule_name, verl_engine, warms_up
from rftc.plugins import ADVANTAGE_FN
from rftc.semantics.model import Value
from rftc.trinity import workers
from rftc.trinity.registry import ALGORITHMS

A, C = "actor_rollout_ref.actor", "critic"
SUM_NORM = "seq-mean-token-sum-norm"
# Trinity pads a trainer batch's responses to the longest of them (trinity/trainer/verl/utils.py to_data_proto),
# and its losses divide a seq-mean-token-sum-norm sum by that width (trinity/algorithm/utils.py aggregate_loss,
# normalizer None; verl 0.8's value_loss takes no loss_scale_factor)
LONGEST = "the longest response of each batch"
# veRL's policy losses that read arguments of their own from actor.policy_loss, and the value each takes for a
# null (verl/trainer/ppo/core_algos.py compute_policy_loss_clip_cov, compute_policy_loss_kl_cov from 0.4.1;
# compute_policy_loss_dro from 0.9.0, which refuses a null dro_beta)
VERL_LOSS_ARGS = {"clip_cov": {"clip_cov_ratio": 0.0002, "clip_cov_lb": 1.0, "clip_cov_ub": 5.0},
                  "kl_cov": {"kl_cov_ratio": 0.0002, "ppo_kl_coef": 1.0}, "dro": {"dro_beta": None}}
# the arguments of Trinity's losses other quantities hold (clip_low, clip_high, clip_ratio_c, sapo_tau,
# loss_agg_mode), and each loss's switches with the arguments read only while one is on
MODELLED_LOSS_ARGS = ("clip_range", "clip_range_low", "clip_range_high", "clip_ratio_c", "tau_pos", "tau_neg",
                      "loss_agg_mode")
LOSS_SWITCHES = {"ppo": {"enable_sequence_masking": ("delta_sequence_masking",), "fallback_to_policy_gradient": ()},
                 "cispo": {"enable_mask_clip": ("mask_clip_range_low", "mask_clip_range_high")}}
# the arguments of Trinity's advantages other quantities hold (gamma, lam, step_advantage_w, norm_adv_by_std, the
# estimator of rftc's veRL advantage: its gamma and lam are read by none of the estimators it runs)
MODELLED_ADVANTAGE_ARGS = {"ppo": ("gamma", "lam"), "reinforceplusplus": ("gamma",), "grpo": ("std_cal_level",),
                           "gigpo": ("gamma", "omega", "fnorm"),
                           ADVANTAGE_FN: ("estimator", "gamma", "lam", "norm_adv_by_std_in_grpo"),
                           # the distillation objective holds them (rftc.semantics.distill)
                           "on_policy_distill": ("kl_coef",), "jsd": ("kl_coef", "lambda_coef", "temperature")}
# veRL's estimators' own constants, under Trinity's argument names: compute_grpo_outcome_advantage (and its
# vectorized form) divide by the group's std + epsilon=1e-6 (the trainer passes none); veRL-agent's gigpo
# normalises with eps 1e-6; the others take none Trinity's namesakes have
VERL_ADVANTAGE_ARGS = {"grpo": {"epsilon": 1e-6}, "grpo_vectorized": {"epsilon": 1e-6}, "gigpo": {"epsilon": 1e-6}}


def _args(args: dict) -> str:
    """Arguments as one comparable value ("name=value, ...", sorted; a number as a float, so 1 and 1.0 are one
    value), "none" for none."""
    def shown(v):
        return repr(float(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
    return ", ".join(f"{k}={shown(args[k])}" for k in sorted(args)) or NONE


def verl_schedule_args(r, sem, role: str, *, sched: str | None = None, decay: bool = False, total=None,
                       scale: int = 1) -> tuple[str, list[str], str]:
    """(the settings, the keys read, the engine) of the release's ``role`` (SECTIONS), whose schedule is ``sched``
    (else its optim section's schedule key's)."""
    optim = SECTIONS[role][0]

    def get(k):
        return r.get(f"{optim}.{k}")
    engine = verl_engine(r.get, sem, role)
    if sched is None:
        sched = schedule_name(get)
    text, keys = schedule_args(get, engine, sched, warms_up(get), decay=decay, total=total, scale=scale)
    return text, [f"{optim}.{k}" for k in keys], engine


def verl_schedule(r, sem, role: str, **kw) -> Value:
    """verl_schedule_args as a Value."""
    text, keys, engine = verl_schedule_args(r, sem, role, **kw)
    return r.of(text, *keys) if keys else Value(text, f"verl {r.eff.release}'s {engine} schedule")


# ---- a veRL launch

def verl_fields(r, sem, release: str, *, est, mode: str, sched: str, si: int, epochs: int) -> dict[str, Value]:
    """The quantities of a veRL launch (``mode``: the policy loss it trains, bypass mode's where on; ``sched``: the
    actor's schedule; ``si``: its mini-batches a trainer step)."""
    critic = est == "gae"
    return dict(critic_warmup=_warmup(r, sem, si * epochs), loss_scale=_loss_scale(r, sem, mode),
                critic_loss_agg_mode=_critic_agg(r, sem, release) if critic else Value(None),
                policy_loss_args=_policy_loss_args(r, mode),
                advantage_args=_advantage_args(r, est),
                algorithm=Value(NONE, f"verl {release}'s trainer: the rollouts' own experiences, none added"),
                lr_schedule_args=verl_schedule(r, sem, "actor", sched=str(sched).lower()))


def _warmup(r, sem, steps: int) -> Value:
    """The actor's optimizer steps trainer.critic_warmup holds it back: the trainer updates the actor only where
    critic_warmup <= its step's number, which starts at 0 under verl 0.1 and at 1 after (every trainer loop:
    ray_trainer.py RayPPOTrainer.fit, the v1 trainers' and separation/ray_trainer.py's _fit_update_actor); the
    critic trains anyway, and the setting holds without a critic too."""
    w, first = r.get("trainer.critic_warmup", 0), sem.value("first_trainer_step")
    if not isinstance(w, int) or isinstance(w, bool):
        return r.of(f"unknown (critic_warmup {w!r} is not a whole number)", "trainer.critic_warmup")
    return r.of(max(0, w - first) * steps, "trainer.critic_warmup",
                formula=f"(critic_warmup - {first}) trainer steps x {steps} optimizer steps a trainer step")


def _token_sum_norm(r, sem, mode: str) -> bool:
    return mode != "sapo" and len(sem.value("loss_agg_modes")) > 1 and r.get(f"{A}.loss_agg_mode") == SUM_NORM


def _divisor(r, sem, section: str, role: str) -> Value:
    """What a seq-mean-token-sum-norm loss divides its token sums by: loss_scale_factor where the release's worker
    reads it (the engine workers' losses, verl/workers/utils/losses.py: the actor's from 0.7.0, the critic's from
    0.9.0) and it is set; else the response tensor's width, data.max_response_length (the rollout pads every
    response to it: agent_loop.py, vllm_rollout.py; core_algos.py agg_loss takes loss_mask.shape[-1])."""
    key = f"{section}.loss_scale_factor"
    from rftc.mapping.seeds import runs_engine

    if r.get(key) is not None and runs_engine(r.get, sem, role):
        return r.v(key)
    return r.of(r.get("data.max_response_length"), "data.max_response_length", *[key] * r.eff.has(key),
                formula="the padded response width (loss_scale_factor null or not read)")


def _loss_scale(r, sem, mode: str) -> Value:
    return _divisor(r, sem, A, "actor") if _token_sum_norm(r, sem, mode) else Value(None)


def _critic_agg(r, sem, release: str) -> Value:
    """critic.loss_agg_mode (from 0.4.0; before, compute_value_loss takes a masked mean), and what a
    seq-mean-token-sum-norm value loss divides by."""
    key = f"{C}.loss_agg_mode"
    if not r.eff.has(key):
        return Value("token-mean", f"verl {release}'s critic: compute_value_loss takes the token mean")
    mode = r.get(key)
    if mode != SUM_NORM:
        return r.v(key)
    by = _divisor(r, sem, C, "critic")
    return Value(f"{mode}, / {by.value}", f"{r.where(key)}, {by.source}", by.formula)


def _policy_loss_args(r, mode: str) -> Value:
    """The arguments the policy loss ``mode`` reads from actor.policy_loss (VERL_LOSS_ARGS; the others, and bypass
    mode's loss, read none)."""
    defaults = VERL_LOSS_ARGS.get(mode)
    if not defaults:
        return Value(NONE, f"veRL's {mode} loss reads no policy_loss arguments")
    keys = [f"{A}.policy_loss.{k}" for k in defaults]
    return r.of(_args({k: r.get(f"{A}.policy_loss.{k}", d) if r.get(f"{A}.policy_loss.{k}") is not None else d
                       for k, d in defaults.items()}), *keys)


def _advantage_args(r, est) -> Value:
    name = "gigpo" if fork_gigpo(est, r.get) else est
    return r.of(_args(VERL_ADVANTAGE_ARGS.get(name, {})), "algorithm.adv_estimator",
                formula=f"the constants of veRL's {name} estimator")


# ---- a Trinity config

def view(x, put, where) -> None:
    """The keys of Trinity's expansion ``x`` these quantities read beyond rftc.semantics.trinity's own: the actor
    waits trainer.critic_warmup, the sample strategy the algorithm fills in, the critic's loss aggregation."""
    put("trainer.critic_warmup", x.trainer.critic_warmup)
    put("algorithm.sample_strategy", x.algorithm.sample_strategy)
    put("verl.critic.loss_agg_mode", workers.critic(x).loss_agg_mode,
        where("trainer.trainer_config.critic.loss_agg_mode"))


def trinity_fields(v, val, of, *, adv, adv_args: dict, loss, args: dict, epochs: int, sched: str) -> dict:
    """The quantities of Trinity's expansion ``v`` (rftc.semantics.trinity.view)."""
    w = val("trainer.critic_warmup", 0)
    agg = args.get("loss_agg_mode", val("algorithm.loss_agg_mode"))
    return dict(
        critic_warmup=of(max(0, w - 1) * epochs, "trainer.critic_warmup", "verl.actor.ppo_epochs",
                         formula="(critic_warmup - 1) trainer steps x ppo_epochs (Trinity's first step is 1)"),
        loss_scale=of(LONGEST, "algorithm.loss_agg_mode") if agg == SUM_NORM else Value(None),
        critic_loss_agg_mode=_trinity_critic_agg(val, of) if adv == "ppo" else Value(None),
        policy_loss_args=of(_trinity_loss_args(loss, args), "algorithm.policy_loss_fn",
                            "algorithm.policy_loss_fn_args"),
        advantage_args=of(_args({k: a for k, a in adv_args.items() if k not in MODELLED_ADVANTAGE_ARGS.get(adv, ())
                                 and not k.endswith("_key") and a not in (None, False)}),
                          "algorithm.advantage_fn", "algorithm.advantage_fn_args"),
        algorithm=of(_added(val("algorithm.algorithm_type"), val("algorithm.sample_strategy")),
                     "algorithm.algorithm_type", "algorithm.sample_strategy"),
        lr_schedule_args=trinity_schedule(val, of, sched),
    )


def trinity_schedule(val, of, sched: str) -> Value:
    """The schedule settings of the actor's optim section Trinity's trainer builds (rftc.trinity.workers.actor_optim:
    verl 0.8's FSDP engine, or Megatron's with Trinity's warmup start min_lr_ratio x lr)."""
    megatron = str(val("trainer.trainer_strategy", "")).startswith("megatron")

    def get(k):
        return val(f"verl.actor.optim.{k}")
    text, keys = schedule_args(get, "megatron" if megatron else "fsdp engine", sched, warms_up(get))
    return of(text, *(f"verl.actor.optim.{k}" for k in keys)) if keys else \
        Value(text, "Trinity's " + ("Megatron" if megatron else "FSDP engine") + " schedule")


def _trinity_critic_agg(val, of) -> Value:
    mode = val("verl.critic.loss_agg_mode", "token-mean")
    return of(f"{mode}, / {LONGEST}" if mode == SUM_NORM else mode, "verl.critic.loss_agg_mode")


def _trinity_loss_args(loss, args: dict) -> str:
    """The arguments Trinity builds policy loss ``loss`` with that no other quantity holds, less each switch that is
    off with the arguments read only while it is on (LOSS_SWITCHES)."""
    rest = {k: a for k, a in args.items() if k not in MODELLED_LOSS_ARGS}
    for switch, gated in LOSS_SWITCHES.get(loss, {}).items():
        if not rest.get(switch):
            for k in (switch, *gated):
                rest.pop(k, None)
    return _args(rest)


def _added(algorithm_type, sample_strategy) -> str:
    """What Trinity's algorithm type adds to its functions, which the model compares on their own: the data schema
    its trainer reads (a DPO or CPT buffer) and the sample strategy it fills in (where the config leaves
    algorithm.sample_strategy to it: trinity/algorithm/algorithm.py default_config); "none" where it adds
    neither; an algorithm type rftc does not know (a plugin's) adds what only its code says."""
    algo = ALGORITHMS.get(algorithm_type)
    if algo is None:
        return f"{algorithm_type}: an algorithm type rftc does not know (what it adds is its code's)"
    parts = [f"{algo.schema} data"] if algo.schema not in ("experience", "sft") else []
    default = algo.default("sample_strategy")
    if default != "default" and sample_strategy == default:
        parts.append(f"sample strategy {default}")
    return f"{algorithm_type}: {', '.join(parts)}" if parts else NONE



