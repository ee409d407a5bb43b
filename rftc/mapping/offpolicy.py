"""veRL's asynchronous and off-policy trainer loops (rftc.verl.releases.modes) in Trinity-RFT 0.6 terms.

Trinity's fixed sync style reproduces a bounded lag exactly: ``synchronizer.sync_offset`` explorer steps run before
the first weight sync, and every ``sync_interval`` trainer steps the weights move. A veRL loop that keeps ``a``
prompts ahead of the trainer becomes ``sync_offset = ceil(a / buffer.batch_size)``; one that moves the weights every
``k`` steps, ``sync_interval`` x k. A rollout on GPUs of its own becomes an explorer of those GPUs. What Trinity
cannot do (resuming a response with new weights, a replay buffer's drop policy, lending trainer GPUs to rollout)
is a warning that says how much differs.
"""

from __future__ import annotations

import math

from rftc.mapping.draft import Draft
from rftc.verl.releases import modes
from rftc.verl.releases.modes import ASYNC, V1, Schedule

# Keys of the asynchronous sections that only move work between GPUs or processes: what each batch is generated
# with (its weights, its staleness bound) does not depend on them. Every other key of these sections is mapped,
# inert for the loop the launch runs, or a warning (tests/test_mapping_offpolicy.py).
THROUGHPUT = {
    f"{ASYNC}.use_trainer_do_validate": "validation placement (the trainer's GPUs run it)",
    f"{ASYNC}.use_dynamic_resource_scheduling": "GPU rebalancing; the staleness bound (max_required_samples) holds",
    f"{ASYNC}.dynamic_schedule_policy": "GPU rebalancing; the staleness bound holds",
    f"{ASYNC}.dynamic_schedule_deactivate_ratio": "GPU rebalancing; the staleness bound holds",
    f"{ASYNC}.dynamic_schedule_enable_rebalance": "GPU rebalancing; the staleness bound holds",
    f"{ASYNC}.concurrent_samples_per_replica": "requests in flight per engine (bounded by max_required_samples)",
    f"{V1}.separate_async.hybrid_rollout._target_": "the class veRL builds the section as",
}
# keys that change what is trained and that no Trinity-RFT 0.6 field carries
UNCARRIED = {
    f"{V1}.sampler.sync_refill_failed_groups": "veRL replaces groups whose rollouts all failed with fresh prompts; "
                                               "Trinity trains on the experiences it has",
}
SAMPLER = (f"{V1}.sampler.custom_sampler.path", f"{V1}.sampler.custom_sampler.name", f"{V1}.sampler.sampler_kwargs")
SECTIONS = ("trainer.use_v1", f"{V1}.", f"{ASYNC}.", "rollout.")


def schedule(d: Draft) -> Schedule:
    inv = d.cfg.invocation
    return modes.schedule(inv.module if inv is not None else None, d.cfg.release, d.val)


def map_schedule(d: Draft, s: Schedule, tasks: int | None, si: int | None) -> None:
    """synchronizer.sync_offset and sync_interval for the loop ``s``; ``tasks`` is buffer.batch_size (prompts an
    explorer step), ``si`` the trainer steps of one veRL step (batch.map_batch). Accounts for every key the
    launch set in the asynchronous sections."""
    loop = s.loop
    for key, why in s.refused:
        d.report("RFTC313", f"veRL's {loop.name} trainer refuses this launch at startup: {why}", key if d.user(key)
                 else None, settles=False)
    if loop.name != "sync" and tasks and d.opt.sync_offset:  # --sync-offset N is the user's lag
        offset = math.ceil(s.ahead / tasks)
        if d.opt.sync_offset != offset:
            d.report("RFTC340", f"--sync-offset {d.opt.sync_offset} replaces the lag of veRL's {loop.name} trainer: "
                     f"{s.ahead} prompts ahead, sync_offset {offset} in explorer steps of {tasks}", None)
    elif loop.name != "sync" and tasks:
        offset = math.ceil(s.ahead / tasks)
        keys = _user(d, s.keys)
        d.set("synchronizer.sync_offset", offset, *keys,
              note=f"veRL {loop.name}: {s.ahead} prompts ahead = {offset} explorer steps of {tasks} "
                   f"(rollouts up to {s.staleness} update{'s' if s.staleness != 1 else ''} old)"
                   + ("" if keys or not s.keys else f"; {', '.join(s.keys)}: veRL's default"))
        if s.ahead % tasks:
            key = s.keys[-1] if s.keys else None
            d.report("RFTC340", f"veRL's {loop.name} trainer generates {s.ahead} prompts ahead of the trainer; "
                     f"Trinity's offset counts whole explorer steps of {tasks} prompts, so it runs {offset * tasks} "
                     f"ahead: {offset * tasks - s.ahead} prompts a weight version are generated one update earlier "
                     "than in veRL", key if key and d.user(key) else None, settles=False)
    trigger = _user(d, (f"{ASYNC}.trigger_parameter_sync_step",))
    step = d.origins.get("synchronizer.sync_interval")  # the trainer steps of a veRL step (rftc.mapping.batch)
    if s.sync_every > 1 and si:
        # (the fully async trainer, from verl 0.8.0, counts mini-batches in prompts: no explorer_sync_interval)
        d.set("synchronizer.sync_interval", si * s.sync_every, *step.keys, *trigger,
              note=f"{si}*{s.sync_every}: trainer steps a veRL step ({step.note}) x trigger_parameter_sync_step: "
                   "the weights move every trigger_parameter_sync_step veRL steps")
    for key, why in s.differences:
        d.report("RFTC340", f"{key}={d.fmt_value(key)}: {why}", key if d.user(key) else None)
    key = loop.partial if loop.partial != "never" and loop.partial != "always" else None
    if s.partial:
        at = next((k for k in (key, f"{V1}.trainer_mode") if k and d.user(k)), None)
        d.report("RFTC341", f"veRL's {loop.name} trainer aborts unfinished responses at each weight update and "
                 "resumes them with the new weights, so a response can span two weight versions; Trinity "
                 "generates each response with one version (the lag is the same, the mixture within a response "
                 "is not)", at,
                 hint=f"set {key}=False in the veRL launch to compare like with like" if key else None)
    elif key and d.user(key):
        d.implied(key, "off: each response is generated with one weight version, as in Trinity")
    if s.total_prompts is not None and tasks:
        k = "rollout.total_rollout_steps"
        d.set("buffer.total_steps", s.total_prompts // tasks, k, *d.origins["buffer.batch_size"].keys,
              note=f"{s.total_prompts}//{tasks}: total_rollout_steps // prompts an explorer step (buffer.batch_size); "
              "veRL's rollout stops after this many prompts (or rows x total_epochs, which Trinity's total_epochs "
              "bounds)" + ("" if d.user(k) else "; veRL's default"))
    for k in s.per_version:  # counted in weight versions: sync_every veRL steps each
        target = {"trainer.test_freq": "explorer.eval_interval", "trainer.save_freq": "trainer.save_interval"}[k]
        v = d.get(target)
        if d.user(k) and isinstance(v, int) and v > 0:
            d.set(target, v * s.sync_every, k, *step.keys, *trigger, note=f"{d.val(k)}*{si}*{s.sync_every}: "
                  f"{k.split('.')[1]} x trainer steps a veRL step ({step.note}) x trigger_parameter_sync_step: "
                  f"veRL's {loop.name} trainer counts {k.split('.')[1]} in weight versions of "
                  "trigger_parameter_sync_step steps")
    _account(d, s)


def rollout_gpus(d: Draft, s: Schedule) -> tuple[int, str] | None:
    """(GPUs, section) of a rollout that has GPUs of its own (the section's nnodes x n_gpus_per_node), which become
    the explorer's; None when the rollout shares the trainer's GPUs."""
    if not s.loop.own_gpus:
        return None
    if s.rollout_gpus is None:
        g = s.loop.own_gpus
        d.report("RFTC313", f"veRL's {s.loop.name} trainer runs the rollout on GPUs of its own, and {g}.nnodes x "
                 f"{g}.n_gpus_per_node is not a positive whole number", f"{g}.nnodes" if d.user(f"{g}.nnodes")
                 else None, hint=f"set {g}.nnodes and {g}.n_gpus_per_node (veRL asserts both > 0)")
        return None
    nodes, gpn = s.rollout_gpus
    if gpn != d.val("trainer.n_gpus_per_node"):
        g = f"{s.loop.own_gpus}.n_gpus_per_node"
        d.report("RFTC340", f"{g}={gpn} differs from trainer.n_gpus_per_node="
                 f"{d.fmt_value('trainer.n_gpus_per_node')}; Trinity's cluster has one gpu_per_node, so both are "
                 f"placed on nodes of a size that divides both ({nodes * gpn} rollout GPUs)", g if d.user(g) else None,
                 settles=False)
    return nodes * gpn, s.loop.own_gpus


def _user(d: Draft, keys) -> tuple[str, ...]:
    return tuple(k for k in keys if d.user(k))


def _account(d: Draft, s: Schedule) -> None:
    """Every key the launch set under the asynchronous sections: mapped above, inert for this loop, throughput
    only, or a warning (never an info where the value changes what is trained)."""
    inert = dict(s.inert)
    mode = s.loop.name
    v1 = s.loop.module == modes.MAIN_PPO and modes.fact("v1_routing", d.cfg.release) and d.val("trainer.use_v1") is True
    for key in [k for k in d.cfg.user_keys() if k.startswith(SECTIONS) or k in inert]:
        if d.done(key):
            continue
        if key.startswith("rollout.") and not s.loop.own_gpus:
            continue  # not a section of this trainer's config: the rules' RFTC300
        if key in inert:
            d.implied(key, inert[key])
        elif key == "trainer.use_v1" or key == f"{V1}.trainer_mode" and v1:
            d.implied(key, f"selects veRL's {mode} trainer loop, which the synchronizer reproduces")
        elif key.startswith(f"{V1}.") and not v1:
            d.implied(key, "not read: " + ("trainer.use_v1 is false (main_ppo_v0's RayPPOTrainer)"
                                           if s.loop.module == modes.MAIN_PPO else f"veRL's {mode} trainer has a loop "
                                           "of its own"))
        elif key.startswith(f"{V1}.") and not key.startswith((f"{V1}.{mode}.", f"{V1}.sampler.")):
            d.implied(key, f"not read: the launch runs veRL's {mode} trainer loop")
        elif key.startswith(f"{V1}.sampler.max_off_policy_") and mode == "sync":
            d.implied(key, "never reached: veRL's v1 sync trainer trains rollouts of the last update only")
        elif key in SAMPLER and not modes.custom_sampler(d.val):
            d.implied(key, "not read: a v1 trainer loads a custom sampler only where custom_sampler.path and name "
                      "are both set (sampler_kwargs go to it alone)")
        elif key in SAMPLER:
            d.report("RFTC342", f"{key}={d.fmt_value(key)}: a custom replay-buffer sampler picks the trained rollouts"
                     "; Trinity-RFT 0.6 has no such setting, so the converted config trains differently where it "
                     "acts", key)
        elif key in THROUGHPUT:
            d.implied(key, THROUGHPUT[key])
        elif key in UNCARRIED:
            d.report("RFTC342", f"{key}={d.fmt_value(key)}: {UNCARRIED[key]}; Trinity-RFT 0.6 has no such setting, "
                     "so the converted config trains differently where it acts", key)
        elif key == f"{V1}.separate_async.parameter_sync_step":
            d.implied(key, "a veRL step is parameter_sync_step mini-batch updates, then the weights move: "
                      "synchronizer.sync_interval (train_batch_size / ppo_mini_batch_size) counts the same")
        elif key in s.keys:
            d.implied(key, f"read by veRL's {mode} loop: synchronizer.sync_offset and sync_interval follow it")
        elif key in (f"{s.loop.own_gpus}.nnodes", f"{s.loop.own_gpus}.n_gpus_per_node"):
            d.implied(key, "the explorer's GPUs (explorer.rollout_model.engine_num)")
        elif key.startswith("rollout.") and key.split(".", 1)[1] not in (
                modes.fact("fully_async_rollout_keys", d.cfg.release) or ()):
            d.implied(key, f"not read: veRL's {mode} trainer reads rollout.nnodes, n_gpus_per_node and "
                      "total_rollout_steps only")
        elif key.startswith(f"{ASYNC}.") and mode != "fully_async":
            d.implied(key, f"not read: the launch runs veRL's {mode} trainer loop")
        else:
            d.report("RFTC342", f"{key}={d.fmt_value(key)} tunes veRL's {mode} trainer loop; Trinity-RFT 0.6 has no "
                     "such setting, so the converted config may train differently", key)
