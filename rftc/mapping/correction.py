"""What veRL's trainer does with the rollout's own log-probs and batch, per release (rftc.verl.releases.semantics
"rollout_correction", "over_sample_reader"): the importance-sampling correction of the rollout's log-probs (weights,
rejection, veto), the log-probs the rollout engine returns (vLLM's logprobs_mode), and the SGLang rollout's
over-sampling. The semantic model (rftc.semantics.offpol), the rows' conditions (rftc.mapping.classes) and the
conversion read them from here.

    c = verl_correction(get, sem)     # what the run applies: c.parts ("none" where empty), the keys it read
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rftc.mapping.draft import Draft

R = "actor_rollout_ref.rollout"
RC = "algorithm.rollout_correction"
BYPASS = f"{RC}.bypass_mode"
LOGPROBS = f"{R}.calculate_log_probs"
LEGACY = "algorithm.rollout_is"  # verl 0.6.0's keys: rollout_is, rollout_is_threshold, _level, _mode, ...
# Trinity-RFT 0.6's vLLM engines (trinity/common/models/vllm_model.py vLLMRolloutModel.prepare: AsyncEngineArgs)
TRINITY_LOGPROBS = "processed_logprobs"
TRINITY_NONE = ("Trinity-RFT 0.6's trainer (verl >= 0.8) applies no rollout correction: trinity/trainer/verl/"
                "trainer.py train_step leaves it to do, and its loss (losses.py TrinityPolicyLoss) takes no "
                "importance weights")


@dataclass(frozen=True)
class Correction:
    """The correction a launch's trainer applies: ``parts`` in words (empty: none), the ``keys`` they come from,
    and ``reads``, the keys of the correction the release's trainer reads for this launch."""

    parts: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()
    reads: frozenset[str] = frozenset()

    @property
    def value(self) -> str:
        return "; ".join(self.parts) or "none"


def verl_correction(get, sem) -> Correction:
    """The rollout correction of a launch (``get(key)`` reads its config, ``sem`` its release's semantics).

    verl 0.6.0 (ray_trainer.py compute_rollout_importance_weights_and_add_to_batch, mismatch_helper.py):
    algorithm.rollout_is_threshold switches the weights on, algorithm.rollout_is applies them to the loss (false:
    metrics only); level, mode (truncate caps at the threshold, mask zeroes outside [lower, threshold], lower
    1/threshold where null) and the veto (a sequence with a token ratio below it weighs 0).

    From 0.6.1 algorithm.rollout_correction: in decoupled mode (bypass_mode false) the trainer weighs the loss by
    IS weights (rollout_is, rollout_is_threshold, rollout_is_batch_normalize) and masks out rejected responses
    (rollout_rs, rollout_rs_threshold; 0.6.1 and 0.7.0 also rollout_rs_threshold_lower and the token veto)
    (rollout_corr_helper.py compute_rollout_correction_and_add_to_batch). In bypass mode the loss does it: 0.6.1's
    PPO loss applies nothing unless use_policy_gradient (compute_policy_loss_with_rollout_correction: weights, and
    the rejection mask only with rollout_rs); from 0.7.0 compute_policy_loss_bypass_mode masks for either
    loss_type and weighs for reinforce only.

    Every path needs the rollout's log-probs: without rollout.calculate_log_probs the decoupled correction does
    not run (the batch has no rollout_log_probs) and bypass mode stops at its first step (``bypass_stops``)."""
    kind = sem.value("rollout_correction")
    if kind is None:
        return Correction()
    logprobs = get(LOGPROBS) is True
    if kind == "legacy":
        return _legacy(get, logprobs)
    if get(BYPASS):  # the rollout's log-probs decide whether the run stops (bypass_stops)
        flag = f"{RC}.use_policy_gradient"
        if kind == "use_policy_gradient":
            c = _parts(get, weights=True, rejection=True, veto=get(f"{RC}.rollout_rs") is not None) if get(flag) \
                else Correction()
            return replace(c, reads=c.reads | {flag, LOGPROBS})
        c = _parts(get, weights=get(f"{RC}.loss_type") == "reinforce", rejection=True, veto=True)
        return replace(c, reads=c.reads | {LOGPROBS})
    c = _parts(get, weights=True, rejection=True, veto=True)
    if not logprobs:  # the batch has no rollout_log_probs: the trainer skips the correction
        return Correction(reads=frozenset({LOGPROBS}) if c.parts else frozenset())
    return replace(c, reads=c.reads | ({LOGPROBS} if c.parts else set()))


def _parts(get, *, weights: bool, rejection: bool, veto: bool) -> Correction:
    """The weights, rejection and veto the trainer applies (each where the path reads it)."""
    parts, keys, reads = [], [], set()
    if weights:
        level, threshold = get(f"{RC}.rollout_is"), get(f"{RC}.rollout_is_threshold")
        reads.add(f"{RC}.rollout_is")
        if level is not None:
            reads |= {f"{RC}.rollout_is_threshold", f"{RC}.rollout_is_batch_normalize"}
        if level is not None and threshold is not None:  # compute_rollout_correction_and_rejection_mask
            normalise = bool(get(f"{RC}.rollout_is_batch_normalize"))
            parts.append(f"IS {level} weights, threshold {threshold}" + (", batch-normalised" if normalise else ""))
            keys += [f"{RC}.rollout_is", f"{RC}.rollout_is_threshold"]
    if rejection:
        rs = get(f"{RC}.rollout_rs")
        reads.add(f"{RC}.rollout_rs")
        if rs is not None:
            threshold, lower = get(f"{RC}.rollout_rs_threshold"), get(f"{RC}.rollout_rs_threshold_lower")
            reads |= {f"{RC}.rollout_rs_threshold", f"{RC}.rollout_rs_threshold_lower"}
            parts.append(f"rejection {rs}, threshold {threshold}" + (f", lower {lower}" if lower is not None else ""))
            keys += [f"{RC}.rollout_rs", f"{RC}.rollout_rs_threshold"]
    if veto:
        v = get(f"{RC}.rollout_token_veto_threshold")
        reads.add(f"{RC}.rollout_token_veto_threshold")
        if v is not None:
            parts.append(f"veto below {v}")
            keys.append(f"{RC}.rollout_token_veto_threshold")
    return Correction(tuple(parts), tuple(keys), frozenset(reads))


def _legacy(get, logprobs: bool) -> Correction:
    """verl 0.6.0's algorithm.rollout_is* keys."""
    threshold, applied = get(f"{LEGACY}_threshold"), get(LEGACY) is True
    if not logprobs:  # the batch has no rollout_log_probs: the weights are not computed
        return Correction(reads=frozenset({LOGPROBS}) if threshold is not None and applied else frozenset())
    reads = ({LEGACY} if threshold is not None else set()) | ({f"{LEGACY}_threshold"} if applied else set())
    if threshold is None or not applied:
        return Correction(reads=frozenset(reads))
    reads.add(LOGPROBS)
    level, mode, veto = get(f"{LEGACY}_level"), get(f"{LEGACY}_mode"), get(f"{LEGACY}_veto_threshold")
    reads |= {f"{LEGACY}_level", f"{LEGACY}_mode", f"{LEGACY}_veto_threshold"}
    text = f"IS {level} weights, {mode}, threshold {threshold}"
    if mode == "mask":  # the lower bound is read in mask mode only (null: 1 / threshold)
        lower = get(f"{LEGACY}_threshold_lower")
        reads.add(f"{LEGACY}_threshold_lower")
        text += f", lower {lower if lower is not None else f'1/{threshold}'}"
    parts = [text] + ([f"veto below {veto}"] if veto is not None else [])
    return Correction(tuple(parts), (LEGACY, f"{LEGACY}_threshold", f"{LEGACY}_level", f"{LEGACY}_mode"),
                      frozenset(reads))


def bypass_stops(get, sem) -> bool:
    """veRL's bypass mode without the rollout's log-probs: the trainer raises at its first step
    (rollout_corr_helper.py apply_rollout_correction / apply_bypass_mode: "bypass_mode=True requires
    rollout_log_probs in batch")."""
    return sem.value("rollout_correction") not in (None, "legacy") and bool(get(BYPASS)) and get(LOGPROBS) is not True


def bypass_loss(get, sem) -> str | None:
    """The loss bypass mode trains in place of actor.policy_loss.loss_mode, None where loss_mode is the loss: from
    verl 0.7.0 apply_bypass_mode sets loss_mode bypass_mode, whose loss_type ppo_clip is the vanilla loss on the
    rollout's log-probs and reinforce REINFORCE weighted by the IS weights (core_algos.py
    compute_policy_loss_bypass_mode); verl 0.6.1's apply_rollout_correction replaces loss_mode only with
    use_policy_gradient (the same REINFORCE: compute_policy_loss_with_rollout_correction)."""
    kind = sem.value("rollout_correction")
    if kind in (None, "legacy") or not get(BYPASS):
        return None
    if kind == "use_policy_gradient":
        return "bypass_mode:reinforce" if get(f"{RC}.use_policy_gradient") else None
    loss_type = get(f"{RC}.loss_type") or "ppo_clip"
    return "vanilla" if loss_type == "ppo_clip" else f"bypass_mode:{loss_type}"


def rollout_logprobs_used(get, sem) -> bool:
    """Whether the trainer reads the rollout's log-probs: bypass mode (the old log-probs) or a correction."""
    kind = sem.value("rollout_correction")
    return kind not in (None, "legacy") and bool(get(BYPASS)) or bool(verl_correction(get, sem).parts)


def verl_logprobs(get) -> tuple[str, tuple[str, ...]]:
    """The log-probs the rollout engine returns, and the keys that say so: vLLM's async server takes
    rollout.logprobs_mode (a key from verl 0.7.0: vllm_async_server.py AsyncEngineArgs logprobs_mode); before, vLLM's
    own default, which verl leaves to the installed vLLM; another engine its own."""
    name = get(f"{R}.name")
    if name != "vllm":
        return f"{name}'s own", (f"{R}.name",)
    mode = get(f"{R}.logprobs_mode")
    if mode is None:
        return "unknown (the installed vLLM's default: the release sets no logprobs_mode)", (f"{R}.name",)
    return mode, (f"{R}.logprobs_mode", f"{R}.name")


def over_sample_rate(get, sem) -> float | None:
    """The over-sampling rate the release's rollout reads, None where none reads it: the sync SGLang rollout of
    verl 0.6.x in multi-turn mode stops once int(requests x (1 - over_sample_rate)) are done and pads the rest as
    empty responses without loss (sglang_rollout.py SGLangRollout._req_level_generate_sequences); the agent loop
    (rollout.mode async) does not read it."""
    if sem.value("over_sample_reader") != "sglang_multi_turn":
        return None
    if get(f"{R}.name") != "sglang" or not get(f"{R}.multi_turn.enable") or get(f"{R}.mode") == "async":
        return None
    rate = get(f"{R}.over_sample_rate")
    return rate if isinstance(rate, (int, float)) and not isinstance(rate, bool) else None


def map_correction(d: Draft) -> None:
    """The conversion of the rollout correction and the rollout's log-probs: algorithm.rollout_correction.* pass to
    Trinity's algorithm.rollout_correction (rftc.mapping.rules), which Trinity-RFT 0.6's trainer does not read, so a
    correction veRL applies is RFTC305; bypass mode without the rollout's log-probs stops veRL's run, which
    Trinity's does not (RFTC305); rollout.logprobs_mode is carried where it is Trinity's processed_logprobs."""
    c = verl_correction(d.val, d.sem)
    if c.parts and d.sem.value("rollout_correction") != "legacy":  # the legacy keys are RFTC300 each
        at = next((k for k in c.keys if d.user(k)), None)
        d.report("RFTC305", f"veRL applies a rollout correction ({c.value}); {TRINITY_NONE}, so the config trains "
                 "without it (it passes algorithm.rollout_correction on)", at, settles=False)
    if bypass_stops(d.val, d.sem):
        d.report("RFTC305", f"{BYPASS}=True without {LOGPROBS}=True: veRL's trainer stops at its first step (bypass "
                 "mode needs the rollout's log-probs); Trinity's explorer returns them", BYPASS if d.user(BYPASS)
                 else None, settles=False, hint=f"set {LOGPROBS}=True in the veRL launch")
    key = f"{R}.logprobs_mode"
    used = rollout_logprobs_used(d.val, d.sem) and not bypass_stops(d.val, d.sem)
    value, _ = verl_logprobs(d.val)
    if used and d.val(f"{R}.name") == "vllm" and value != TRINITY_LOGPROBS:
        at = key if d.user(key) else next((k for k in (BYPASS, *c.keys) if d.user(k)), None)
        what = f"{key}={d.fmt_value(key)}" if d.cfg.has(key) else f"verl {d.sem.release} sets no {key}, so vLLM " \
            "returns its own default"
        d.report("RFTC305", f"{what}: Trinity-RFT 0.6's vLLM engines return {TRINITY_LOGPROBS}, which the trainer "
                 "then uses as the rollout's log-probs", at, settles=at == key)
    elif d.user(key):
        d.implied(key, f"Trinity's vLLM engines return {TRINITY_LOGPROBS} (trinity/common/models/vllm_model.py)"
                  if used and d.val(f"{R}.name") == "vllm" else
                  "not read: the trainer does not use the rollout's log-probs, or the rollout is not vLLM's")
