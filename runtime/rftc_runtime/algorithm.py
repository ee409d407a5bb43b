"""The algorithm section of the config, bound to veRL's own functions.

Advantages go through veRL's ``compute_advantage`` (and ``apply_kl_penalty`` for KL in the reward; GAE reads the
critic's values), on the trainer's process as veRL's trainer computes them. The losses are veRL's ``ppo_loss`` and
``value_loss`` (verl.workers.utils.losses), which the training workers run with the ActorConfig and CriticConfig
built here. Trinity names are translated here, once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from rftc.plugins import ADVANTAGE_FN, GPG_LOSS_FN, VERL_ESTIMATORS
from rftc.trinity import registry

# The algorithm types this runtime trains (Trinity's defaults for each fill the functions they leave unset; sapo's
# own loss is refused below, so sapo runs with a policy_loss_fn of POLICY_LOSS).
ALGORITHM_TYPES = ("ppo", "grpo", "grpo_verl", "dapo", "reinforceplusplus", "rloo", "gspo", "cispo", "sapo", "sft")
# Trinity advantage_fn -> veRL AdvantageEstimator. Absent names are not supported by this runtime (RFTC508).
ADVANTAGE = {
    "grpo": "grpo",
    "grpo_verl": "grpo",
    "rloo": "rloo",
    "reinforceplusplus": "reinforce_plus_plus",
    "reinforce_plus_plus_baseline": "reinforce_plus_plus_baseline",
    "opo": "opo",
    "gpg": "gpg",
    "ppo": "gae",
}
# Trinity policy_loss_fn -> veRL policy loss mode: the same loss value and gradient on a batch
# (tests/test_trinity_algorithms.py runs Trinity's own functions beside them).
POLICY_LOSS = {"ppo": "vanilla", "gspo": "gspo", "cispo": "cispo", GPG_LOSS_FN: "gpg"}
# Trinity losses whose veRL namesake trains something else.
OTHER_LOSS = {"sapo": "veRL's sapo loss is the gate of the ratio, aggregated seq-mean-token-mean; Trinity's is the "
                      "detached gate times the log-prob, aggregated by loss_agg_mode: another gradient"}
# Trinity policy-loss arguments veRL's loss has no equivalent for, with the one value at which the two are the same.
LOSS_ARGS = {"ppo": {"enable_sequence_masking": False, "fallback_to_policy_gradient": False},
             "cispo": {"enable_mask_clip": False}}
# Trinity's aggregation that veRL's agg_loss computes differently.
OTHER_AGG = {"seq-mean-token-sum-norm": "Trinity divides the token sum by the response length only, veRL also by "
                                        "the number of responses"}
# Trinity KL functions -> veRL kl_penalty names (Trinity's k1/k2/k3/abs/low_var_kl are the same estimators).
KL = {"k1": "k1", "k2": "k2", "k3": "k3", "low_var_kl": "low_var_kl", "abs": "abs"}


def estimator(alg) -> str:
    """The veRL estimator: rftc's Trinity advantage class names it in its arguments."""
    return alg.advantage_fn_args["estimator"] if alg.advantage_fn == ADVANTAGE_FN else ADVANTAGE[alg.advantage_fn]


def unsupported(alg) -> list[str]:
    """Names in the algorithm section this runtime cannot run, as 'key: value' strings."""
    bad = []
    if alg.algorithm_type not in ALGORITHM_TYPES:
        return [f"algorithm_type: {alg.algorithm_type}"]
    if alg.algorithm_type == "sft":  # trained with veRL's sft_loss, a token mean with no KL or entropy term
        return ([f"policy_loss_fn: {alg.policy_loss_fn} (algorithm_type sft trains with the sft loss)"]
                if alg.policy_loss_fn != "sft" else []) + (
            [f"loss_agg_mode: {alg.loss_agg_mode} (veRL's SFT loss is token-mean)"]
            if alg.loss_agg_mode != "token-mean" else []) + (
            [f"kl_loss_fn: {alg.kl_loss_fn} (with algorithm_type sft)"] if alg.kl_loss_fn != "none" else [])
    if alg.advantage_fn == ADVANTAGE_FN:
        if alg.advantage_fn_args.get("estimator") not in VERL_ESTIMATORS:
            bad.append(f"advantage_fn_args.estimator: {alg.advantage_fn_args.get('estimator')} (one of "
                       f"{', '.join(VERL_ESTIMATORS)})")
    elif alg.advantage_fn not in ADVANTAGE:
        bad.append(f"advantage_fn: {alg.advantage_fn}")
    if alg.advantage_fn == "ppo" and not registry.ALGORITHMS[alg.algorithm_type].use_critic:
        bad.append("advantage_fn: ppo (needs a critic: algorithm_type ppo)")
    eps = alg.advantage_fn_args.get("epsilon")
    if alg.advantage_fn in ("grpo", "grpo_verl") and eps is not None and float(eps) != 1e-6:
        bad.append(f"advantage_fn_args.epsilon: {eps} (veRL's compute_advantage uses 1e-6)")
    if alg.policy_loss_fn in OTHER_LOSS:
        bad.append(f"policy_loss_fn: {alg.policy_loss_fn} ({OTHER_LOSS[alg.policy_loss_fn]})")
    elif alg.policy_loss_fn not in POLICY_LOSS:
        bad.append(f"policy_loss_fn: {alg.policy_loss_fn}")
    for key, same in LOSS_ARGS.get(alg.policy_loss_fn, {}).items():
        v = alg.policy_loss_fn_args.get(key, same)
        if v != same:
            bad.append(f"policy_loss_fn_args.{key}: {json.dumps(v)} (veRL's {POLICY_LOSS[alg.policy_loss_fn]} loss "
                       "has no equivalent)")
    agg = policy_agg(alg)
    others = alg.kl_loss_fn != "none" or entropy_coef(alg) != 0  # aggregated with the algorithm's loss_agg_mode
    if others and agg != alg.loss_agg_mode:
        bad.append(f"policy_loss_fn_args.loss_agg_mode: {agg} (the KL and entropy losses aggregate "
                   f"{alg.loss_agg_mode}; veRL's ppo_loss aggregates the three alike)")
    for mode in sorted(({agg, alg.loss_agg_mode} if others else {agg}) & OTHER_AGG.keys()):
        bad.append(f"loss_agg_mode: {mode} ({OTHER_AGG[mode]})")
    for key in ("kl_loss_fn", "kl_penalty_fn"):
        v = getattr(alg, key)
        if v != "none" and v not in KL:
            bad.append(f"{key}: {v}")
    if alg.entropy_loss_fn not in ("default", "none"):
        bad.append(f"entropy_loss_fn: {alg.entropy_loss_fn}")
    return bad


def policy_agg(alg) -> str:
    """How Trinity aggregates the policy loss: its arguments' loss_agg_mode, which is the algorithm's where Trinity
    overwrites it (rftc.trinity.expand)."""
    return alg.policy_loss_fn_args.get("loss_agg_mode", alg.loss_agg_mode)


def entropy_coef(alg) -> float:
    return 0.0 if alg.entropy_loss_fn == "none" else float(alg.entropy_loss_fn_args.get("entropy_coef", 0.0))


@dataclass
class Bound:
    """The algorithm with veRL's config objects built once."""

    alg: object  # the algorithm section as Trinity runs it (rftc.trinity.expand)
    actor_config: object  # verl FSDPActorConfig
    algo_config: object  # verl AlgoConfig
    kl_ctrl: object | None  # veRL KL controller for KL in the reward
    critic_config: object | None = None  # verl FSDPCriticConfig, when the algorithm trains a critic

    @property
    def use_kl_loss(self) -> bool:
        return self.alg.kl_loss_fn != "none"

    @property
    def entropy_coef(self) -> float:
        return entropy_coef(self.alg)


def bind(alg, mini_batch_size: int, micro_batch_size: int, grad_clip: float, critic=None) -> Bound:
    """``critic`` is the settings' Critic (with its micro-batch size resolved) when the algorithm trains one."""
    from verl.trainer.config import AlgoConfig
    from verl.trainer.config.algorithm import KLControlConfig
    from verl.trainer.ppo import core_algos
    from verl.workers.config import FSDPActorConfig
    from verl.workers.config.actor import PolicyLossConfig

    pa = alg.policy_loss_fn_args  # the arguments Trinity builds the functions with (rftc.trinity.expand)
    # clip_range is the bounds' fallback (None where both are given: veRL's clip_ratio is then not read; where
    # neither is, rftc check refuses the config, RFTC488, as Trinity's constructor raises)
    clip = 0.2 if pa.get("clip_range") is None else pa["clip_range"]
    low, high = pa.get("clip_range_low"), pa.get("clip_range_high")
    actor = FSDPActorConfig(
        strategy="fsdp", ppo_mini_batch_size=mini_batch_size, ppo_micro_batch_size_per_gpu=micro_batch_size,
        use_dynamic_bsz=False, clip_ratio=clip, clip_ratio_low=clip if low is None else low,
        clip_ratio_high=clip if high is None else high, clip_ratio_c=pa.get("clip_ratio_c", 3.0),
        loss_agg_mode=policy_agg(alg), policy_loss=PolicyLossConfig(loss_mode=POLICY_LOSS[alg.policy_loss_fn]),
        use_kl_loss=alg.kl_loss_fn != "none", kl_loss_coef=float(alg.kl_loss_fn_args.get("kl_coef", 0.001)),
        kl_loss_type=KL.get(alg.kl_loss_fn, "k2"),
        entropy_coeff=entropy_coef(alg),
        grad_clip=grad_clip, rollout_n=alg.repeat_times,
    )
    aa = alg.advantage_fn_args
    use_kl_in_reward = alg.kl_penalty_fn != "none"
    kl_args = alg.kl_penalty_fn_args
    algo = AlgoConfig(
        gamma=float(aa.get("gamma", 1.0)), lam=float(aa.get("lam", 1.0)), adv_estimator=estimator(alg),
        norm_adv_by_std_in_grpo=bool(aa.get("norm_adv_by_std_in_grpo", True)), use_kl_in_reward=use_kl_in_reward,
        kl_penalty=KL.get(alg.kl_penalty_fn, "kl"),
        kl_ctrl=KLControlConfig(type="adaptive" if kl_args.get("adaptive") else "fixed",
                                kl_coef=float(kl_args.get("kl_coef", 0.001)), horizon=int(kl_args.get("horizon") or 10000),
                                target_kl=float(kl_args.get("target_kl") or 0.1)),
    )
    kl_ctrl = core_algos.get_kl_controller(algo.kl_ctrl) if use_kl_in_reward else None
    return Bound(alg, actor, algo, kl_ctrl, _critic_config(critic, mini_batch_size, alg.repeat_times))


def _critic_config(critic, mini_batch_size: int, rollout_n: int):
    if critic is None:
        return None
    from verl.workers.config import FSDPCriticConfig
    from verl.workers.config.optimizer import FSDPOptimizerConfig

    o = critic.optimizer
    # Trinity's critic takes the whole train batch as one mini-batch (ppo_mini_batch_size = train_batch_size).
    return FSDPCriticConfig(
        strategy="fsdp", ppo_mini_batch_size=mini_batch_size, ppo_micro_batch_size_per_gpu=critic.micro_batch_size,
        use_dynamic_bsz=False, ppo_epochs=critic.ppo_epochs, cliprange_value=critic.cliprange_value,
        loss_agg_mode=critic.loss_agg_mode, loss_scale_factor=critic.loss_scale_factor, rollout_n=rollout_n,
        grad_clip=o.clip_grad,
        optim=FSDPOptimizerConfig(lr=o.lr, lr_warmup_steps=o.lr_warmup_steps,
                                  lr_warmup_steps_ratio=o.lr_warmup_steps_ratio, min_lr_ratio=o.min_lr_ratio,
                                  lr_scheduler_type=o.lr_scheduler_type, betas=o.betas,
                                  weight_decay=o.weight_decay, clip_grad=o.clip_grad),
    )


def advantages(bound: Bound, data) -> dict:
    """Fill data.batch['advantages'/'returns'] (and the KL-penalised rewards) with veRL's functions.

    ``data`` is a veRL DataProto with token_level_scores, response_mask, old_log_probs (and ref_log_prob
    for KL in the reward, values for GAE) and non_tensor_batch['uid'] grouping the responses of a task.
    """
    from verl.trainer.ppo.ray_trainer import apply_kl_penalty, compute_advantage

    metrics = {}
    if bound.kl_ctrl is not None:
        data, metrics = apply_kl_penalty(data, bound.kl_ctrl, kl_penalty=bound.algo_config.kl_penalty)
    else:
        data.batch["token_level_rewards"] = data.batch["token_level_scores"]
    compute_advantage(data, adv_estimator=bound.algo_config.adv_estimator, gamma=bound.algo_config.gamma,
                      lam=bound.algo_config.lam, num_repeat=bound.alg.repeat_times,
                      norm_adv_by_std_in_grpo=bound.algo_config.norm_adv_by_std_in_grpo,
                      config=bound.algo_config)
    return metrics
