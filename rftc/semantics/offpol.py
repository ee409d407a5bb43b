"""What a run does with rollouts that are off-policy or cut short, on both sides: the importance-sampling correction
of the rollout's log-probs, which log-probs the rollout engine returns, veRL's v1 staleness filter, replay sampler
and hybrid rollout, responses resumed across a weight update, and over-sampled rollouts. A feature only one side has
is "none" on the other, as it is where the side that has it leaves it off; the value of a feature that is on names
it and the settings it reads.

    **offpol_fields(r, sem, release, loop)    # rftc.semantics.verl.from_verl
    offpol_view(x, put, where)                # rftc.semantics.trinity.view
    **offpol_trinity(val, of)                 # rftc.semantics.trinity.from_trinity
"""

from __future__ import annotations

import math

from rftc.mapping.correction import (LEGACY, LOGPROBS, RC, TRINITY_LOGPROBS, TRINITY_NONE, bypass_stops,
                                     over_sample_rate, rollout_logprobs_used, verl_correction, verl_logprobs)
from rftc.semantics.inputs import launch_path
from rftc.semantics.model import Value
from rftc.semantics.reader import Reader
from rftc.verl.releases import modes
from rftc.verl.releases.modes import HYBRID_KEYS, V1, Schedule

R = "actor_rollout_ref.rollout"
RM = "explorer.rollout_model"
OVER, TIMEOUT = "explorer.over_rollout", "explorer.dynamic_timeout"
NONE = "none"


def offpol_fields(r: Reader, sem, release: str, loop: Schedule) -> dict[str, Value]:
    """veRL's side (``loop``: the launch's trainer loop, rftc.verl.releases.modes.schedule)."""
    return dict(rollout_correction=_correction(r, sem),
                rollout_logprobs=_logprobs(r, sem),
                staleness_filter=_staleness(r, loop),
                partial_rollout=_partial(r, loop),
                over_sampling=_over_sample(r, sem, release),
                hybrid_rollout=_hybrid(r, loop),
                replay_sampler=_sampler(r, release))


def _correction(r: Reader, sem) -> Value:
    """rftc.mapping.correction.verl_correction: the weights, rejection and veto the trainer applies."""
    c = verl_correction(r.get, sem)
    if c.parts:
        return r.of(c.value, *c.keys)
    switches = {None: (), "legacy": (f"{LEGACY}_threshold", LEGACY)}.get(sem.value("rollout_correction"), (
        f"{RC}.rollout_is", f"{RC}.rollout_rs"))
    keys = sorted(c.reads) or [k for k in switches if r.eff.has(k)]
    return Value(NONE, r.where(*keys) if keys else f"verl {r.eff.release} has no rollout correction")


def _logprobs(r: Reader, sem) -> Value:
    """The log-probs the rollout engine returns, where the trainer reads them (bypass mode's old log-probs, a
    correction); None where it does not. Bypass mode without rollout.calculate_log_probs stops at its first step."""
    if not rollout_logprobs_used(r.get, sem):
        return Value(None)
    if bypass_stops(r.get, sem):
        return r.of("the run stops at its first step (bypass mode without the rollout's log-probs)",
                    f"{RC}.bypass_mode", LOGPROBS)
    value, keys = verl_logprobs(r.get)
    return r.of(value, *keys)


def _staleness(r: Reader, loop: Schedule) -> Value:
    """The v1 asynchronous trainers' replay buffer drops (or waits for) rollouts max_off_policy_threshold or more
    updates old (replay_buffer.py ReplayBufferAsync); "none" where no rollout is that old (rftc.verl.releases.modes
    _v1_async) or the loop has no such buffer."""
    keys = (f"{V1}.sampler.max_off_policy_threshold", f"{V1}.sampler.max_off_policy_strategy")
    if loop.stale is None:
        if loop.loop.name in ("colocate_async", "separate_async"):
            return r.of(NONE, *keys, formula=f"no rollout reaches the threshold: at most {loop.staleness} updates old")
        return Value(NONE, f"veRL's {loop.loop.name} trainer loop")
    threshold, strategy = loop.stale
    what = {"drop": "dropped", "wait": "waited for (the rollout stops running ahead)"}.get(strategy, strategy)
    return r.of(f"rollouts {threshold} or more updates old {what}", *keys)


def _partial(r: Reader, loop: Schedule) -> Value:
    """An unfinished response is aborted at a weight update and resumed with the new weights (modes.Loop.partial)."""
    key = loop.loop.partial if loop.loop.partial not in ("never", "always") else None
    source = r.where(key) if key else f"veRL's {loop.loop.name} trainer loop"
    return Value("resumed with the new weights" if loop.partial else NONE, source)


def _over_sample(r: Reader, sem, release: str) -> Value:
    """rftc.mapping.correction.over_sample_rate: the SGLang multi-turn rollout of verl 0.6.x stops at the first
    int(responses x (1 - rate)) done and pads the rest (empty, no loss)."""
    rate = over_sample_rate(r.get, sem)
    key = f"{R}.over_sample_rate"
    if not rate or rate <= 0:
        return Value(NONE, r.where(key) if rate is not None else f"verl {release}'s rollout reads no over-sampling")
    return r.of(f"responses after the first {1 - rate:g} of a batch to finish are aborted (empty, no loss)", key,
                f"{R}.name", f"{R}.multi_turn.enable")


def _hybrid(r: Reader, loop: Schedule) -> Value:
    """v1 separate_async's hybrid rollout (modes._hybrid): the trainer's GPUs generate between steps until
    switch_threshold_ratio x the batch is ready, the ratio adapted by step_up/step_down after release_steps steps
    (adaptive_switch_threshold), and each switch weighed against its cost over switch_cost_window_size steps."""
    h = f"{V1}.separate_async.hybrid_rollout"
    if not loop.hybrid:
        return Value(NONE, r.where(f"{h}.enable_switch", "actor_rollout_ref.hybrid_engine")
                     if loop.loop.name == "separate_async" and r.eff.has(f"{h}.enable_switch")
                     else f"veRL's {loop.loop.name} trainer loop")
    get = lambda k: r.get(f"{h}.{k}")  # noqa: E731
    adaptive = get("adaptive_switch_threshold")
    text = f"trainer GPUs generate between steps until {get('switch_threshold_ratio')} x the batch is ready"
    if adaptive:
        text += (f", the ratio +{get('switch_threshold_step_up')}/-{get('switch_threshold_step_down')} after "
                 f"{get('switch_threshold_release_steps')} steps")
    text += f"; switch cost over {get('switch_cost_window_size')} steps"
    return r.of(text, f"{h}.enable_switch", *(f"{h}.{k}" for k in HYBRID_KEYS))


def _sampler(r: Reader, release: str) -> Value:
    """The replay buffer class a v1 trainer loads (modes.custom_sampler) and the sampler_kwargs it is given."""
    module = r.eff.invocation.module if r.eff.invocation is not None else None
    found = modes.custom_sampler(r.get) if modes.v1_loop(module, release, r.get) else None
    keys = (f"{V1}.sampler.custom_sampler.path", f"{V1}.sampler.custom_sampler.name")
    if found is None:
        return Value(NONE, r.where(*keys) if r.eff.has(keys[0]) else f"verl {release} has no v1 replay sampler")
    path, name = found
    kwargs = r.get(f"{V1}.sampler.sampler_kwargs") or {}
    return r.of(f"{launch_path(str(path))}:{name}" + (f" {dict(kwargs)}" if kwargs else ""), *keys,
                f"{V1}.sampler.sampler_kwargs")


# ---- Trinity-RFT 0.6

def offpol_view(x, put, where) -> None:
    """The fields of Trinity's expansion ``x`` the quantities read: the rollout correction (which its trainer does
    not read), the rollout engine's type, over-rollout and the dynamic timeout."""
    put("algorithm.rollout_correction", x.algorithm.rollout_correction)
    put(f"{RM}.engine_type", x.explorer.rollout_model.engine_type)
    for k in ("ratio", "wait_after_min", "return_partial_tasks"):
        put(f"{OVER}.{k}", getattr(x.explorer.over_rollout, k))
    for k in ("enable", "warmup_min_steps", "ratio"):
        put(f"{TIMEOUT}.{k}", getattr(x.explorer.dynamic_timeout, k))


def offpol_trinity(val, of) -> dict[str, Value]:
    """Trinity's side: it applies no rollout correction, generates each response with one weight version, has no
    staleness filter of veRL's kind (its staleness_control sample strategy is the experience selection), no hybrid
    rollout and no replay sampler; its vLLM engines return processed log-probs; its explorer over-rolls out."""
    engine = val(f"{RM}.engine_type", "vllm")
    return dict(rollout_correction=of(NONE, "algorithm.rollout_correction", formula=TRINITY_NONE),
                rollout_logprobs=of(TRINITY_LOGPROBS if str(engine).startswith("vllm") else f"{engine}'s own",
                                    f"{RM}.engine_type", formula="trinity/common/models/vllm_model.py: AsyncEngineArgs("
                                    f"logprobs_mode={TRINITY_LOGPROBS!r})" if str(engine).startswith("vllm") else "")
                if val("algorithm.bypass_old_logprobs", True) else Value(None),
                staleness_filter=Value(NONE, "Trinity-RFT 0.6 has no staleness filter of veRL's kind (its "
                                       "staleness_control sample strategy is the experience selection)"),
                partial_rollout=Value(NONE, "Trinity-RFT 0.6 generates each response with one weight version"),
                over_sampling=_over_rollout(val, of),
                hybrid_rollout=Value(NONE, "Trinity-RFT 0.6's explorer keeps its own GPUs"),
                replay_sampler=Value(NONE, "Trinity-RFT 0.6 has no replay sampler"))


def _over_rollout(val, of) -> Value:
    """trinity/explorer/explorer.py and scheduler.py: with over_rollout.ratio the explorer waits for
    ceil(batch_size x (1 - ratio)) tasks, then wait_after_min seconds, and drops the rest; with dynamic_timeout a
    step's tasks past ratio x the mean task time (after warmup_min_steps whole steps) are dropped; a dropped task's
    finished responses are kept with return_partial_tasks."""
    parts, keys = [], []
    ratio, batch = val(f"{OVER}.ratio", 0.0), val("buffer.batch_size")
    if ratio > 0:
        wait = math.ceil(batch * (1 - ratio)) if isinstance(batch, int) else f"batch_size x {1 - ratio:g}"
        parts.append(f"waits for {wait} of {batch} tasks, then {val(f'{OVER}.wait_after_min')}s, and drops the rest")
        keys += [f"{OVER}.ratio", f"{OVER}.wait_after_min", "buffer.batch_size"]
    if val(f"{TIMEOUT}.enable", False):
        parts.append(f"drops tasks past {val(f'{TIMEOUT}.ratio')} x the mean task time (after "
                     f"{val(f'{TIMEOUT}.warmup_min_steps')} steps)")
        keys += [f"{TIMEOUT}.enable", f"{TIMEOUT}.ratio", f"{TIMEOUT}.warmup_min_steps"]
    if val(f"{OVER}.return_partial_tasks", False):
        parts.append("keeps a dropped task's finished responses")
        keys.append(f"{OVER}.return_partial_tasks")
    return of("; ".join(parts), *keys) if parts else of(NONE, f"{OVER}.ratio", f"{TIMEOUT}.enable")
