"""Algorithm: advantage estimator, KL in reward and in the loss, entropy, policy loss, PPO epochs."""

from __future__ import annotations

from rftc.mapping.correction import bypass_loss, map_correction
from rftc.mapping.distill import map_distillation
from rftc.mapping.draft import Draft
from rftc.verl.releases import semantics
from rftc.plugins import ADVANTAGE_FN, GPG_LOSS_FN, VERL_ESTIMATORS
from rftc.trinity.registry import ALGORITHMS

A = "actor_rollout_ref.actor"
RC = "algorithm.rollout_correction"

# veRL adv_estimator -> (Trinity advantage_fn, algorithm_type). Trinity 0.6 registers the estimators below;
# UNAVAILABLE says why the other veRL estimators have no faithful Trinity 0.6 equivalent.
ESTIMATORS = {
    "gae": ("ppo", "ppo"),
    "grpo": ("grpo", "grpo"),
    "grpo_vectorized": ("grpo", "grpo"),
    "reinforce_plus_plus": ("reinforceplusplus", "reinforceplusplus"),
    "rloo": ("rloo", "rloo"),
    "rloo_vectorized": ("rloo", "rloo"),
}
# veRL estimators Trinity 0.6 lacks, computed by veRL's own function in rftc's Trinity advantage class
# (advantage_fn_args.estimator); under an algorithm_type that computes advantages in the trainer, where Trinity
# hands over the whole batch with each response's task id, as veRL's compute_advantage gets it.
ESTIMATORS.update({e: (ADVANTAGE_FN, "reinforceplusplus") for e in VERL_ESTIMATORS})
# the estimators veRL hands algorithm.norm_adv_by_std_in_grpo (ray_trainer.compute_advantage, core_algos)
NORM_READERS = ("grpo", "grpo_passk")
# veRL-agent's gigpo (a fork's estimator, its algorithm.gigpo section): the trajectory's return against its prompt
# group plus step_advantage_w x the step's discounted return against the steps from the same anchor state, each
# centred (mode mean_norm) or also divided by the std (mean_std_norm). Trinity-RFT 0.6's GiGPOAdvantageFn computes
# the same given the anchor states and step rewards the workflow writes (tests/test_trinity_gigpo.py).
GIGPO = "algorithm.gigpo"
GIGPO_FNORM = {"mean_norm": "none", "mean_std_norm": "std"}  # the fork's mode -> Trinity's fnorm


def fork_gigpo(est: str, get) -> bool:
    """Whether ``est`` is veRL-agent's gigpo: the launch's config (``get``) declares the fork's gigpo section."""
    return est == "gigpo" and get(f"{GIGPO}.mode") is not None

UNAVAILABLE = {
    "remax": "Trinity registers a remax advantage_fn, but it reads the greedy-baseline rewards (reward_baselines) "
             "that only veRL's trainer generates; no Trinity explorer produces them, so training fails at the first "
             "step",
    "optimal_token_baseline": "it reads the actor's sum of squared token probabilities, which Trinity's trainer "
                              "does not compute",
    "tir_optimal_token_baseline": "it reads the actor's sum of squared token probabilities, which Trinity's "
                                  "trainer does not compute",
    "gdpo": "it reads per-dimension rewards that Trinity's workflows do not produce",
}

# veRL policy_loss.loss_mode -> (Trinity policy_loss_fn, algorithm_type it implies or None to keep the estimator's).
LOSS_MODES = {
    "vanilla": ("ppo", None),
    "gspo": ("gspo", "gspo"),
    "cispo": ("cispo", "cispo"),
    "gpg": (GPG_LOSS_FN, None),
}
ESTIMATOR_FOR_LOSS = {"gspo": "grpo", "cispo": "grpo"}  # Trinity's pairing (§4.1)
# veRL losses whose Trinity namesake computes another gradient (tests/test_trinity_algorithms.py runs both)
OTHER_LOSSES = {
    "sapo": "veRL's sapo loss is the gate itself, sigmoid(tau x (ratio - 1)) x 4 / tau x advantage, aggregated "
            "seq-mean-token-mean whatever loss_agg_mode says (gradient 1 x advantage at ratio 1, vanishing away "
            "from it); Trinity's sapo is the detached gate times the log-prob, aggregated by loss_agg_mode "
            "(gradient 2 / tau x advantage at ratio 1, growing with the ratio)",
}

# veRL KL estimator names -> Trinity's KL registry (none, k1, k2, k3, low_var_kl, abs, corrected_k3).
# veRL computes "k3" as the clamped low-variance estimator, which is Trinity's low_var_kl.
KL = {"kl": "k1", "k1": "k1", "abs": "abs", "mse": "k2", "k2": "k2", "low_var_kl": "low_var_kl", "k3": "low_var_kl"}

NO_DUAL_CLIP = 1.0e9  # Trinity's PPO loss always dual-clips; a bound at 1e9 x the advantage never binds
LOSS_AGG = ("token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm")


def kl_name(d: Draft, key: str) -> str | None:
    """A veRL KL estimator name in Trinity's registry; ``+`` (straight-through) and ``full`` are reported."""
    v = str(d.val(key))
    base = v[:-1] if v.endswith("+") else v
    name = KL.get(base)
    if name is None:
        d.report("RFTC305", f"{key}={v}: Trinity-RFT 0.6 has no KL estimator {v!r} (it has {', '.join(sorted(set(KL.values())))}); "
                 "using low_var_kl", key)
        return "low_var_kl"
    if v.endswith("+"):
        d.report("RFTC305", f"{key}={v}: Trinity-RFT 0.6 has no straight-through ('+') KL gradient; using {name}", key)
    return name


def _unreleased(d: Draft, est: str) -> str:
    """Why an estimator no veRL release has is not converted: where the veRL copy the launch runs defines it, or
    that nothing defines it (veRL's compute_advantage refuses an estimator it does not know)."""
    if not d.cfg.source:
        return " (no veRL release has it: veRL's trainer refuses an estimator it does not know)"
    from pathlib import Path

    from rftc.verl.checkout.defines import where_defined

    where = where_defined(Path(d.cfg.source), est)
    if where is None:
        return (f" (no veRL release has it, and nothing in the Python of the veRL copy the launch runs, "
                f"{d.cfg.source.rstrip('/')}/, defines it: its trainer has no such estimator)")
    return (f" (no veRL release has it: the veRL copy the launch runs defines it in its own Python, {where}, which "
            "is not part of the config)")


def map_algorithm(d: Draft) -> str | None:
    """advantage_fn, algorithm_type = ESTIMATORS[adv_estimator] (policy_loss.loss_mode gspo/cispo/sapo picks that
    algorithm_type; a fork's gigpo is Trinity's gigpo); advantage_fn_args = {gamma, lam} for ppo, {gamma} for
    reinforceplusplus, {omega, fnorm, gamma} for gigpo;
    kl_penalty_fn = KL[kl_penalty] if use_kl_in_reward else none, kl_penalty_fn_args = kl_ctrl;
    kl_loss_fn = KL[kl_loss_type] if use_kl_loss else none (always written: Trinity's default is k2),
    kl_loss_fn_args.kl_coef = kl_loss_coef; entropy_loss_fn_args.entropy_coef = entropy_coeff;
    policy_loss_fn_args = {clip_range_low, clip_range_high, clip_ratio_c, loss_agg_mode};
    loss_agg_mode = actor.loss_agg_mode; ppo_epochs -> trainer_config (actor and critic);
    bypass_old_logprobs = rollout_correction.bypass_mode (always written: Trinity's default is true).
    veRL's on-policy distillation is rftc.mapping.distill's (on_policy_distill, or RFTC339).
    Returns the algorithm_type (None after RFTC304 or RFTC339)."""
    if d.flag("distillation.enabled"):
        algo = map_distillation(d)
        if algo is not None:
            d.set("algorithm.policy_loss_fn_args.loss_agg_mode", _loss_agg(d), f"{A}.loss_agg_mode",
                  note="veRL's distillation loss aggregates as the actor's")
            _old_logprobs(d)
            _ppo_epochs(d, algo)
        return algo
    key = "algorithm.adv_estimator"
    est = str(d.val(key))
    if fork_gigpo(est, d.val):
        adv = algo = "gigpo"
    elif est not in ESTIMATORS:
        if est in UNAVAILABLE:
            why = f" ({UNAVAILABLE[est]})"
        else:  # ESTIMATORS and UNAVAILABLE hold every release's estimators (tests/test_verl_semantics.py)
            why = _unreleased(d, est)
        hint = "Trinity also offers opmd, asymre, rec, topr and on_policy_distill, which are not veRL estimators"
        if est in ALGORITHMS:
            hint = (f"Trinity-RFT 0.6 has an algorithm_type {est} of its own (policy_loss_fn "
                    f"{ALGORITHMS[est].default('policy_loss_fn')}); it is another implementation, so compare it with "
                    "the fork's code before choosing it")
        d.report("RFTC304", f"{key}={est} has no Trinity-RFT 0.6 equivalent{why}; supported: {', '.join(ESTIMATORS)}",
                 key, hint=hint)
        return None
    else:
        adv, algo = ESTIMATORS[est]
    mode_key = f"{A}.policy_loss.loss_mode"
    mode = str(d.val(mode_key))
    if mode in OTHER_LOSSES and not (d.flag(f"{RC}.bypass_mode") and d.cfg.has(f"{RC}.loss_type")):
        d.report("RFTC344", f"{mode_key}={mode} has no Trinity-RFT 0.6 equivalent: {OTHER_LOSSES[mode]}",
                 mode_key, extra_keys=[k for k in (f"{A}.tau_pos", f"{A}.tau_neg") if d.user(k)],
                 hint="use a policy loss Trinity trains as veRL does (vanilla, gspo, cispo, gpg), or train the job "
                 "in veRL")
        return None
    loss_fn, loss_algo = LOSS_MODES.get(mode, (None, None))
    if loss_fn is None:
        d.report("RFTC305", f"{mode_key}={mode}: Trinity-RFT 0.6 has no such policy loss (it maps "
                 f"{', '.join(LOSS_MODES)}); using ppo", mode_key)
        loss_fn = "ppo"
    if loss_algo and ESTIMATOR_FOR_LOSS[loss_algo] == adv:
        algo = loss_algo
    elif loss_algo:
        d.report("RFTC305", f"{mode_key}={mode} with {key}={est}: Trinity pairs {mode} with grpo advantages; "
                 f"using the {est} algorithm with the {mode} loss", mode_key)
    d.set("algorithm.algorithm_type", algo, key, *([mode_key] if loss_algo else []),
          note="computes advantages in the trainer, as veRL" if adv == ADVANTAGE_FN else "")
    d.set("algorithm.advantage_fn", adv, key)
    if d.user(mode_key) or loss_fn != "ppo":
        d.set("algorithm.policy_loss_fn", loss_fn, mode_key)
    _advantage_args(d, adv, est)
    _kl(d)
    _entropy(d)
    _policy_loss(d, loss_fn)
    _old_logprobs(d)
    map_correction(d)
    _ppo_epochs(d, algo)
    return algo


def _advantage_args(d: Draft, adv: str, est: str) -> None:
    if adv == ADVANTAGE_FN:
        d.set("algorithm.advantage_fn_args.estimator", est, "algorithm.adv_estimator", note="veRL's own function")
    if adv == "gigpo":
        _gigpo(d)
    keys = {"ppo": ("gamma", "lam"), "reinforceplusplus": ("gamma",), "gigpo": ("gamma",)}.get(adv, ())
    for k in ("gamma", "lam"):
        key = f"algorithm.{k}"
        if k in keys:
            v = d.number(key, float)
            if v is not None and (d.user(key) or v != 1.0):
                d.set(f"algorithm.advantage_fn_args.{k}", v, key)
            elif v is not None:
                d.implied(key, "1.0, Trinity's default")
        elif d.user(key):
            d.implied(key, f"not used by the {est} estimator (veRL ignores it too)")
    if adv == "ppo" and d.has("algorithm.advantage_fn_args"):
        # a user-supplied *_args dict replaces Trinity's defaults: give both
        for k in keys:
            if not d.has(f"algorithm.advantage_fn_args.{k}"):
                d.set(f"algorithm.advantage_fn_args.{k}", d.number(f"algorithm.{k}", float), f"algorithm.{k}",
                      note="veRL default")
    key = "algorithm.norm_adv_by_std_in_grpo"
    norm = d.flag(key)
    if adv == ADVANTAGE_FN and est in NORM_READERS and norm is not None and d.user(key):
        d.set("algorithm.advantage_fn_args.norm_adv_by_std_in_grpo", norm, key)
    elif adv == "grpo" and est in NORM_READERS and norm is False:
        d.report("RFTC305", f"{key}=False: Trinity-RFT 0.6's grpo advantage always divides by the group's "
                 "standard deviation (Dr. GRPO style mean-only advantages are not available)", key)
    elif d.user(key):
        d.implied(key, "the grpo advantage normalises by std, as veRL's default" if est in NORM_READERS
                  else f"not read by veRL's {est} estimator")


def _gigpo(d: Draft) -> None:
    """omega = algorithm.gigpo.step_advantage_w, fnorm = GIGPO_FNORM[mode]; the anchor states and step rewards
    are the workflow's to write (RFTC338)."""
    w, mode_key = f"{GIGPO}.step_advantage_w", f"{GIGPO}.mode"
    omega, mode = d.number(w, float), d.val(mode_key)
    if omega is not None:
        d.set("algorithm.advantage_fn_args.omega", omega, w)
    if mode in GIGPO_FNORM:
        d.set("algorithm.advantage_fn_args.fnorm", GIGPO_FNORM[mode], mode_key,
              note="centred" + (" and divided by the group's std" if mode == "mean_std_norm" else ""))
    else:
        d.report("RFTC313", f"{mode_key}={mode}: the fork's gigpo normalises by mode {' or '.join(GIGPO_FNORM)}, the "
                 "two Trinity-RFT 0.6's gigpo has (fnorm none, std)", mode_key)
    d.report("RFTC338", "Trinity-RFT 0.6's gigpo groups steps by the anchor state the workflow writes to "
             "experience.info['env_state_hash'] and discounts the step rewards it writes to info['step_reward'] "
             "(without them, only the last step's reward): the workflow must write both, as the fork's environment "
             "loop records them; Trinity groups equal hashes across the whole batch where the fork groups them "
             "within a prompt's group, so the hash must tell the tasks apart", "algorithm.adv_estimator",
             settles=False, hint="run the job with a Trinity workflow that writes env_state_hash and step_reward "
             "(Trinity's ALFWorld step-wise workflow is one)")


def _kl(d: Draft) -> None:
    key = "algorithm.use_kl_in_reward"
    rule = d.sem.value("kl_in_reward")
    rel = d.sem.release
    if rule == "use_kl_in_reward":
        on, keys, why = d.flag(key), (key,), ""
    elif rule == "without_kl_loss":  # verl 0.2 to 0.3.x: the KL goes into the reward unless the loss has it
        off = d.flag(f"{A}.use_kl_loss")
        on, keys, why = (None if off is None else not off), (f"{A}.use_kl_loss",) if d.cfg.has(f"{A}.use_kl_loss") \
            else (), f"verl {rel} puts the KL in the reward unless use_kl_loss"
    else:  # verl 0.1: always
        on, keys, why = True, (), f"verl {rel} always puts the KL in the reward"
    if rule != "use_kl_in_reward" and d.user(key):
        d.implied(key, f"not read by verl {rel} ({why})")
    _kl_doubt(d, on)
    if on:
        name = kl_name(d, "algorithm.kl_penalty")
        d.set("algorithm.kl_penalty_fn", name, *keys, "algorithm.kl_penalty", note=why)
        ctrl = "algorithm.kl_ctrl"
        d.set("algorithm.kl_penalty_fn_args.kl_coef", d.number(f"{ctrl}.kl_coef", float), f"{ctrl}.kl_coef",
              note="" if d.user(f"{ctrl}.kl_coef") else "veRL default")
        if str(d.val(f"{ctrl}.type")) == "adaptive":
            d.set("algorithm.kl_penalty_fn_args.adaptive", True, f"{ctrl}.type")
            d.set("algorithm.kl_penalty_fn_args.target_kl", d.number(f"{ctrl}.target_kl", float), f"{ctrl}.target_kl")
            d.set("algorithm.kl_penalty_fn_args.horizon", d.number(f"{ctrl}.horizon", int), f"{ctrl}.horizon")
        else:
            for k in d.user_keys_under(ctrl):
                if not d.done(k):
                    d.implied(k, "fixed KL coefficient")
    else:
        source = keys[0] if keys else key
        d.set("algorithm.kl_penalty_fn", "none", *keys,
              note=why if why else "" if d.user(source) else "veRL default: no KL in the reward")
        for k in ("algorithm.kl_penalty", *d.user_keys_under("algorithm.kl_ctrl")):
            if d.user(k):
                d.implied(k, "unused: use_kl_in_reward is false" if not why else f"unused: {why}, which is on")
    key = f"{A}.use_kl_loss"
    if d.flag(key):
        name = kl_name(d, f"{A}.kl_loss_type")
        d.set("algorithm.kl_loss_fn", name, f"{A}.kl_loss_type", key)
        coef = d.number(f"{A}.kl_loss_coef", float)
        d.set("algorithm.kl_loss_fn_args.kl_coef", coef, f"{A}.kl_loss_coef",
              note="" if d.user(f"{A}.kl_loss_coef") else "veRL default")
    else:
        d.set("algorithm.kl_loss_fn", "none", *([key] if d.cfg.has(key) else []),
              note="" if d.user(key) else "veRL's KL loss is off (Trinity's default is k2)" if d.cfg.has(key)
              else f"verl {d.sem.release} has no KL loss (Trinity's default is k2)")
        for k in (f"{A}.kl_loss_type", f"{A}.kl_loss_coef"):
            if d.user(k):
                d.implied(k, "unused: use_kl_loss is false")


def _kl_doubt(d: Draft, on: bool | None) -> None:
    """RFTC326 when a checkout's release may put the KL in the reward the other way."""
    doubt = d.sem.doubt("kl_in_reward")
    if doubt is None or on is None:
        return
    other = semantics.kl_in_reward(semantics.Semantics(d.sem.release, d.sem.line, {"kl_in_reward": doubt.other}),
                                   d.val)
    if other is None or other == on:
        return
    d.report("RFTC326", f"algorithm.kl_penalty_fn: {doubt.describe()}; rftc follows verl {d.sem.release}, where the "
             f"KL {'is' if on else 'is not'} in the reward; with the other code it {'is not' if on else 'is'}",
             "algorithm.kl_ctrl.kl_coef" if d.user("algorithm.kl_ctrl.kl_coef") else None, settles=False,
             hint=f"read the code the message names in the checkout; --verl-version {doubt.change.since} converts "
             f"with verl {doubt.change.since}'s config and behaviour instead")


def _entropy(d: Draft) -> None:
    key = f"{A}.entropy_coeff"
    v = d.number(key, float)
    if v is None:
        return
    if d.user(key) or v != 0:
        d.set("algorithm.entropy_loss_fn_args.entropy_coef", int(v) if isinstance(d.val(key), int) else v, key)


def _loss_agg(d: Draft) -> str:
    """The actor's loss_agg_mode (algorithm.loss_agg_mode where the launch sets it); token-mean before verl 0.4.0,
    whose loss is a token mean whatever is set, and for a mode Trinity lacks (RFTC305)."""
    agg_key = f"{A}.loss_agg_mode"
    agg = str(d.val(agg_key))
    if len(d.sem.value("loss_agg_modes")) == 1:  # before verl 0.4.0 the loss is a token mean, whatever is set
        if d.user(agg_key):
            d.implied(agg_key, f"not read by verl {d.sem.release}: its loss is a token mean")
        agg = "token-mean"
    elif agg not in LOSS_AGG:
        d.report("RFTC305", f"{agg_key}={agg}: Trinity-RFT 0.6 supports {', '.join(LOSS_AGG)}; using token-mean", agg_key)
        agg = "token-mean"
    elif d.user(agg_key):
        d.set("algorithm.loss_agg_mode", agg, agg_key)
    return agg


def _policy_loss(d: Draft, loss_fn: str) -> None:
    agg_key = f"{A}.loss_agg_mode"
    agg = _loss_agg(d)
    clip_keys = [f"{A}.clip_ratio", f"{A}.clip_ratio_low", f"{A}.clip_ratio_high", f"{A}.clip_ratio_c"]
    sapo_keys = [f"{A}.tau_pos", f"{A}.tau_neg"]
    args_at = "algorithm.policy_loss_fn_args"
    if loss_fn == "ppo" and not d.sem.value("dual_clip"):
        _without_dual_clip(d, clip_keys, agg, agg_key)
    elif loss_fn == "ppo" and d.any_user(*clip_keys):
        low = d.val(clip_keys[1]) if d.user(clip_keys[1]) else d.val(clip_keys[0])
        high = d.val(clip_keys[2]) if d.user(clip_keys[2]) else d.val(clip_keys[0])
        d.set(f"{args_at}.clip_range_low", _float(d, low), clip_keys[1] if d.user(clip_keys[1]) else clip_keys[0])
        d.set(f"{args_at}.clip_range_high", _float(d, high), clip_keys[2] if d.user(clip_keys[2]) else clip_keys[0])
        d.set(f"{args_at}.clip_ratio_c", d.number(clip_keys[3], float), clip_keys[3],
              note="" if d.user(clip_keys[3]) else "veRL default")
        d.set(f"{args_at}.loss_agg_mode", agg, agg_key, note="Trinity replaces it with algorithm.loss_agg_mode")
        for k in clip_keys:
            if d.user(k) and not d.done(k):
                d.implied(k, "superseded by clip_ratio_low/high")
    elif loss_fn in ("gspo", "cispo") and d.any_user(clip_keys[1], clip_keys[2]):
        for k, t in ((clip_keys[1], "clip_range_low"), (clip_keys[2], "clip_range_high")):
            d.set(f"{args_at}.{t}", d.number(k, float), k)
        d.set(f"{args_at}.loss_agg_mode", agg, agg_key)
    for k in clip_keys + sapo_keys:
        if d.user(k) and not d.done(k):
            d.implied(k, f"not used by the {loss_fn} policy loss")


def _without_dual_clip(d: Draft, clip_keys: list[str], agg: str, agg_key: str) -> None:
    """Before verl 0.4.0 the PPO loss clips the ratio to 1 +- clip_ratio and has no dual clip; Trinity's always
    bounds a negative advantage's loss at clip_ratio_c (3.0), so the converted config sets a bound no ratio
    reaches."""
    args_at = "algorithm.policy_loss_fn_args"
    rel = d.sem.release
    clip = _float(d, d.val(clip_keys[0]))
    d.set(f"{args_at}.clip_range_low", clip, clip_keys[0], note="" if d.user(clip_keys[0]) else "veRL default")
    d.set(f"{args_at}.clip_range_high", clip, clip_keys[0], note="" if d.user(clip_keys[0]) else "veRL default")
    d.set(f"{args_at}.clip_ratio_c", NO_DUAL_CLIP, note=f"verl {rel} has no dual-clip PPO: a bound no ratio reaches")
    d.set(f"{args_at}.loss_agg_mode", agg, *([agg_key] if d.user(agg_key) and len(d.sem.value("loss_agg_modes"))
                                             > 1 else []), note=f"verl {rel}: token mean" if agg == "token-mean" else "")
    for k in clip_keys[1:]:
        if d.user(k):
            d.implied(k, f"not read by verl {rel}: the clip is symmetric, without dual clip")


def _float(d: Draft, v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


def _old_logprobs(d: Draft) -> None:
    """Where the importance ratio's old log-probs come from. veRL's trainer recomputes them with the actor unless
    rollout_correction.bypass_mode (verl >= 0.6.1; the one-step-off and fully async configs set it) makes the
    rollout's the old ones; Trinity's default takes the rollout engine's."""
    key = f"{RC}.bypass_mode"
    recompute = "veRL recomputes the old log-probs with the actor (Trinity's default takes the rollout engine's)"
    if not d.cfg.has(key):
        d.set("algorithm.bypass_old_logprobs", False, note=f"no bypass mode in the launch's config: {recompute}")
        return
    bypass = d.flag(key)
    if bypass is None:
        return
    d.set("algorithm.bypass_old_logprobs", bypass, key, note="" if d.user(key) else
          "the rollout's log-probs are the old ones, as Trinity's default" if bypass else recompute)
    if d.user(key):  # still passed on with the rest of rollout_correction
        d.set(f"{RC}.bypass_mode", bypass, key)
    if bypass and (d.cfg.has(f"{RC}.loss_type") or d.cfg.has(f"{RC}.use_policy_gradient")):
        _bypass_loss(d)  # verl >= 0.7 (0.6.1: use_policy_gradient): bypass mode replaces the policy loss


def _bypass_loss(d: Draft) -> None:
    """veRL's bypass mode sets policy_loss.loss_mode to its own (rollout_corr_helper.apply_bypass_mode): loss_type
    ppo_clip is the vanilla PPO-clip loss on the rollout's log-probs, reinforce is REINFORCE weighted by the
    importance ratios (verl 0.6.1: use_policy_gradient). Trinity's policy loss reads neither, so any other loss than
    vanilla differs."""
    mode_key, flag = f"{A}.policy_loss.loss_mode", f"{RC}.use_policy_gradient"
    type_key = flag if d.cfg.has(flag) else f"{RC}.loss_type"
    replaced, mode = bypass_loss(d.val, d.sem), str(d.val(mode_key, "vanilla"))
    if replaced is None:  # verl 0.6.1 without use_policy_gradient: loss_mode is the loss, converted as such
        return
    if replaced != "vanilla":
        d.report("RFTC305", f"{type_key}={d.fmt_value(type_key)}: veRL's bypass mode trains REINFORCE weighted by the "
                 "importance ratios in place of the policy loss; Trinity-RFT 0.6's policy loss does not read it, so "
                 "the config trains with the loss algorithm.policy_loss_fn names", type_key)
    elif mode != "vanilla":
        d.report("RFTC305", f"{mode_key}={mode} with {RC}.bypass_mode=True: veRL's bypass mode trains its PPO-clip "
                 f"loss whatever loss_mode says; the config trains with Trinity's {LOSS_MODES.get(mode, ('ppo',))[0]} "
                 "loss", mode_key)


def _ppo_epochs(d: Draft, algo: str) -> None:
    key = f"{A}.ppo_epochs"
    if not d.user(key):
        return
    v = d.number(key, positive=True)
    if v is None:
        return
    d.passthrough(key, v, under="actor_rollout_ref.actor.ppo_epochs")
    if algo == "ppo" and not d.user("critic.ppo_epochs"):
        d.set("trainer.trainer_config.critic.ppo_epochs", v, key, note="veRL's critic follows the actor's ppo_epochs",
              status="passed")
