"""veRL's asynchronous and off-policy trainers, per release, as data: which launch runs which trainer loop, and
what it generates with which weights. Read from each release's wheel (the ``where`` of each row names the code).

    sched = modes.schedule(eff)     # the trainer loop an EffectiveConfig runs, and its staleness

veRL's main_ppo up to 0.8.0 runs RayPPOTrainer: every batch is generated with the weights of the last update
(on-policy). From 0.9.0 main_ppo routes on ``trainer.use_v1`` (default true) to the v1 trainers
(verl/trainer/ppo/v1), picked by ``trainer.v1.trainer_mode``. The experimental entry modules
``verl.experimental.one_step_off_policy.main_ppo`` and ``verl.experimental.fully_async_policy.fully_async_main``
ship code from 0.8.0 (0.7.1's wheel has their config folders only).

Staleness is counted in weight versions: a rollout ``staleness`` versions old was generated with weights that many
updates behind the ones it is trained from. ``ahead`` is the lag in prompts: how many prompts the rollout generates
beyond the trainer's before the first weight update (Trinity's synchronizer.sync_offset counts it in explorer
steps).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from rftc.verl.releases import order

MAIN_PPO = "verl.trainer.main_ppo"
ONE_STEP_OFF = "verl.experimental.one_step_off_policy.main_ppo"
FULLY_ASYNC = "verl.experimental.fully_async_policy.fully_async_main"
V1 = "trainer.v1"
ASYNC = "async_training"
# the settings of v1 separate_async's hybrid rollout switch (trainer_separate_async.py, verl 0.9.1)
HYBRID_KEYS = ("switch_threshold_ratio", "adaptive_switch_threshold", "switch_threshold_step_up",
               "switch_threshold_step_down", "switch_threshold_release_steps", "switch_cost_window_size")


@dataclass(frozen=True)
class Loop:
    """One trainer loop as a release's wheel runs it."""

    name: str  # "sync" (RayPPOTrainer or the v1 sync trainer), "colocate_async", "separate_async",
    #            "one_step_off", "fully_async"
    module: str  # the entry module that runs it
    since: str  # the first PyPI release whose wheel has the code
    where: str  # the code that shows what each batch is generated with
    own_gpus: str = ""  # a rollout on GPUs of its own: the section whose nnodes x n_gpus_per_node counts them
    partial: str = "never"  # "never", "always", or the key that switches it: an unfinished request is aborted at a
    #                        weight update and resumed with the new weights (one response, two versions)


LOOPS: tuple[Loop, ...] = (
    Loop("sync", MAIN_PPO, "0.1", "verl/trainer/ppo/ray_trainer.py RayPPOTrainer.fit: generate, then update; "
         "0.9.0 on with trainer.use_v1=false (verl/trainer/main_ppo_v0.py), or verl/trainer/ppo/v1/trainer_sync.py "
         "PPOTrainerSync.on_step_end: update_weights after every step"),
    Loop("colocate_async", MAIN_PPO, "0.9.0", "verl/trainer/ppo/v1/trainer_colocate_async.py "
         "PPOTrainerColocateAsync: on_train_begin adds num_warmup_batches batches of prompts ahead; on_sample_end "
         "aborts unfinished requests, on_step_end updates the weights and resumes them (FullyAsyncLLMServerClient)",
         partial="always"),
    Loop("separate_async", MAIN_PPO, "0.9.0", "verl/trainer/ppo/v1/trainer_separate_async.py "
         "PPOTrainerSeparateAsync: a standalone rollout on rollout.nnodes x n_gpus_per_node generates "
         "num_warmup_batches batches ahead; a step is parameter_sync_step mini-batch updates "
         "(trainer_base.py PPOTrainer.step), then on_step_end updates the standalone rollout's weights",
         own_gpus="actor_rollout_ref.rollout", partial="always"),
    Loop("one_step_off", ONE_STEP_OFF, "0.8.0", "verl/experimental/one_step_off_policy/ray_trainer.py "
         "OneStepOffRayTrainer._fit_generate: takes the batch generated during the last step, syncs the weights, "
         "starts the next batch, then trains: every batch is one update old (main_ppo.py copies rollout.nnodes and "
         "n_gpus_per_node into actor_rollout_ref)",
         own_gpus="rollout"),
    Loop("fully_async", FULLY_ASYNC, "0.8.0", "verl/experimental/fully_async_policy/fully_async_rollouter.py "
         "FullyAsyncRollouter: a trainer step takes ppo_mini_batch_size x require_batches prompts, the weights move "
         "every trigger_parameter_sync_step steps, and the rollouter may hold staleness_threshold x that many "
         "prompts more (max_required_samples, reset_staleness)", own_gpus="rollout",
         partial=f"{ASYNC}.partial_rollout"),
)


@dataclass(frozen=True)
class Fact:
    """A per-release detail of the asynchronous trainers."""

    fact: str
    since: str
    value: object
    where: str


FACTS: tuple[Fact, ...] = (
    Fact("v1_routing", "0.1", False, "verl/trainer/main_ppo.py: RayPPOTrainer only"),
    Fact("v1_routing", "0.9.0", True, "verl/trainer/main_ppo.py main: run_ppo(TaskRunnerV1) if trainer.use_v1, "
         "get_trainer_cls(trainer.v1.trainer_mode)"),
    Fact("fractional_warmup", "0.9.0", False, "trainer_colocate_async.py on_train_begin: "
         "for _ in range(num_warmup_batches)"),
    Fact("fractional_warmup", "0.9.1", True, "trainer_base.py _add_async_warmup_batches: "
         "floor(num_warmup_batches x train_batch_size / gen_batch_size) chunks of gen_batch_size prompts"),
    Fact("threshold_may_be_null", "0.9.0", False, "replay_buffer.py ReplayBuffer.__init__: assert int > 0"),
    Fact("threshold_may_be_null", "0.9.1", True, "replay_buffer.py ReplayBuffer.__init__: None disables it"),
    Fact("fully_async_rollout_keys", "0.8.0", ("nnodes", "n_gpus_per_node", "total_rollout_steps"),
         "fully_async_main.py and fully_async_rollouter.py read config.rollout.nnodes, n_gpus_per_node and "
         "total_rollout_steps only (one_step_off_policy/main_ppo.py the first two)"),
    Fact("hybrid_rollout", "0.9.0", False, "no trainer.v1.separate_async.hybrid_rollout"),
    Fact("hybrid_rollout", "0.9.1", True, "trainer_separate_async.py on_step_end: with hybrid_rollout.enable_switch "
         "the trainer's GPUs generate too between steps, with the weights of the last update"),
)


def fact(name: str, release: str):
    """The value of ``name`` at ``release`` (a string that is not a version number reads as the newest)."""
    r = order.parse(release)
    rows = [f for f in FACTS if f.fact == name]
    value = None
    for f in rows:
        if r is None or order.parse(f.since).line <= r.line:
            value = f.value
    return value


@dataclass
class Schedule:
    """What one launch's trainer loop generates with which weights."""

    loop: Loop
    ahead: int = 0  # prompts the rollout generates ahead of the trainer
    staleness: int = 0  # the most weight versions a trained rollout lags behind
    sync_every: int = 1  # trainer steps (optimizer steps of one batch) between weight updates
    batch: int | None = None  # prompts a trainer step takes, where not data.train_batch_size
    batch_formula: str = ""  # how ``batch`` is computed, with the keys' values and names
    keys: tuple[str, ...] = ()  # the keys the schedule follows
    rollout_gpus: tuple[int, int] | None = None  # (nodes, GPUs per node) of a rollout on GPUs of its own
    partial: bool = False
    differences: list[tuple[str, str]] = field(default_factory=list)  # (key, what Trinity cannot reproduce)
    inert: list[tuple[str, str]] = field(default_factory=list)  # (key, why this loop never reads it)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (key, the assertion veRL fails at startup)
    total_prompts: int | None = None  # prompts the rollout generates in all, where the loop bounds them
    per_version: tuple[str, ...] = ()  # trainer keys counted in weight versions, not veRL steps
    stale: tuple[object, str] | None = None  # (threshold, strategy) of a v1 replay buffer whose staleness bound
    #                                          acts: rollouts that many updates old are dropped or waited for
    hybrid: bool = False  # v1 separate_async lends the trainer's GPUs to rollout between steps


def loop_of(module: str | None, release: str, get) -> Loop:
    """The loop a launch of ``module`` runs (``get(key)`` reads its config)."""
    by_name = {lp.name: lp for lp in LOOPS}
    if module == ONE_STEP_OFF:
        return by_name["one_step_off"]
    if module == FULLY_ASYNC:
        return by_name["fully_async"]
    if fact("v1_routing", release) and get("trainer.use_v1") is True:
        return by_name.get(get(f"{V1}.trainer_mode"), by_name["sync"])
    return by_name["sync"]


def v1_loop(module: str | None, release: str, get) -> bool:
    """Whether the launch runs one of main_ppo's v1 trainers (any trainer_mode, sync too)."""
    return module in (None, MAIN_PPO) and bool(fact("v1_routing", release)) and get("trainer.use_v1") is True


def custom_sampler(get) -> tuple[str, str] | None:
    """(path, name) of the replay buffer class a v1 trainer loads in place of its own, where both are set
    (trainer_base.py PPOTrainer._build_replay_buffer: load_extern_type(path, name), given sampler_kwargs and the
    off-policy threshold and strategy; the built-in class takes sampler_kwargs and reads none of them)."""
    path, name = get(f"{V1}.sampler.custom_sampler.path"), get(f"{V1}.sampler.custom_sampler.name")
    return (path, name) if path and name else None


def _int(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def schedule(module: str | None, release: str, get) -> Schedule:
    """The schedule of a launch of ``module`` under ``release``; ``get(key)`` reads the effective config."""
    loop = loop_of(module, release, get)
    s = Schedule(loop)
    if loop.name in ("colocate_async", "separate_async"):
        _v1_async(s, release, get)
    elif loop.name == "one_step_off":
        s.ahead, s.staleness = _int(get("data.train_batch_size")) or 0, 1
    elif loop.name == "fully_async":
        _fully_async(s, get)
    if loop.own_gpus:
        nodes, gpn = _int(get(f"{loop.own_gpus}.nnodes")), _int(get(f"{loop.own_gpus}.n_gpus_per_node"))
        s.rollout_gpus = (nodes, gpn) if nodes and gpn else None
    s.partial = loop.partial == "always" or (loop.partial != "never" and get(loop.partial) is not False)
    return s


def _v1_async(s: Schedule, release: str, get) -> None:
    """The v1 asynchronous trainers: ``num_warmup_batches`` batches of prompts go to the rollout before the first
    step, and each step adds one batch; a batch is trained one step after the previous one, so a rollout of the
    window is up to ceil(num_warmup_batches) updates old."""
    mode = s.loop.name
    key = f"{V1}.{mode}.num_warmup_batches"
    warm = get(key)
    if isinstance(warm, bool) or not isinstance(warm, (int, float)) or warm < 0:
        warm = 1
    batch = _int(get("data.train_batch_size")) or 0
    gen = _int(get("data.gen_batch_size")) or batch
    if fact("fractional_warmup", release):  # whole gen_batch_size chunks of prompts
        s.ahead = math.floor(warm * batch / gen) * gen if gen else 0
    else:
        if warm != int(warm):
            s.refused.append((key, f"verl {release} adds range(num_warmup_batches) batches, and range() of "
                              f"{warm:g} is a TypeError (fractional values from verl 0.9.1)"))
        s.ahead = int(warm) * batch
    s.staleness = math.ceil(s.ahead / batch) if batch else 0
    s.keys = (key,)
    threshold, strategy = get(f"{V1}.sampler.max_off_policy_threshold"), get(f"{V1}.sampler.max_off_policy_strategy")
    tkey = f"{V1}.sampler.max_off_policy_threshold"
    # replay_buffer.py ReplayBuffer.__init__ asserts these
    if threshold is None and not fact("threshold_may_be_null", release) or threshold is not None and not (
            _int(threshold) is not None and threshold > 0):
        s.refused.append((tkey, f"Invalid max off policy threshold: {threshold}, must be an integer greater than 0"
                          + (", or null" if fact("threshold_may_be_null", release) else "")))
    if strategy not in ("drop", "wait"):
        s.refused.append((f"{V1}.sampler.max_off_policy_strategy", f"Invalid max off policy strategy: {strategy}, "
                          "must be one of ['drop', 'wait']"))
    # replay_buffer.py _stale_terminal_keys: dropped when global_steps - prompt step + 1 > threshold
    if _int(threshold) is not None and threshold <= s.staleness:
        s.stale = (threshold, strategy)
        what = "drops" if strategy == "drop" else "waits for (strategy wait: the rollout stops running ahead)"
        s.differences.append((tkey, f"veRL's replay buffer {what} rollouts {threshold} or more updates old, and "
                              f"its window of {s.ahead} prompts makes rollouts up to {s.staleness} old; Trinity "
                              "trains every rollout of its offset (its staleness_control sample strategy counts "
                              "model versions otherwise)"))
    else:
        s.inert += [(tkey, f"never reached: rollouts are at most {s.staleness} updates old, the threshold acts on "
                           + (f"those {threshold} or more" if _int(threshold) else "none")),
                    (f"{V1}.sampler.max_off_policy_strategy",
                     "never reached: it acts only on rollouts past max_off_policy_threshold")]
    if mode == "separate_async":
        psync, mini = _int(get(f"{V1}.separate_async.parameter_sync_step")), _int(
            get("actor_rollout_ref.actor.ppo_mini_batch_size"))
        if psync and mini and batch != psync * mini:  # trainer_separate_async.py PPOTrainerSeparateAsync.__init__
            s.refused.append((f"{V1}.separate_async.parameter_sync_step", f"train_batch_size must equal "
                              f"parameter_sync_step * ppo_mini_batch_size, but got train_batch_size={batch}, "
                              f"parameter_sync_step={psync}, ppo_mini_batch_size={mini}"))
        if fact("hybrid_rollout", release):
            _hybrid(s, get)


def _hybrid(s: Schedule, get) -> None:
    """trainer_separate_async.py: with hybrid_rollout.enable_switch the trainer's GPUs generate between steps, with
    the weights of the last update, until switch_threshold_ratio x train_batch_size prompts are ready (adapted
    step by step where adaptive_switch_threshold); actor_rollout_ref.hybrid_engine=False turns the switch off
    (PPOTrainerSeparateAsync.__init__)."""
    h = f"{V1}.separate_async.hybrid_rollout"
    switch, engine = f"{h}.enable_switch", "actor_rollout_ref.hybrid_engine"
    s.hybrid = get(switch) is True and get(engine) is not False
    if s.hybrid:
        s.differences.append((switch, "veRL lends the trainer's GPUs to rollout between steps, with the newest "
                              "weights, so part of a batch is fresher than the window; Trinity's explorer keeps its "
                              "own GPUs and the offset"))
        return
    why = (f"off: {engine}=False turns the switch off" if get(switch) is True else
           "off: the trainer's GPUs do not generate between steps, as Trinity's trainer")
    s.inert += [(switch, why)] + [(f"{h}.{k}", f"not read: {switch} is off") for k in HYBRID_KEYS]


def _fully_async(s: Schedule, get) -> None:
    """fully_async_rollouter.py: a trainer step takes required = ppo_mini_batch_size x require_batches prompts;
    weights move every trigger_parameter_sync_step steps; the rollouter stops once it holds max_required =
    int(required x (1 + staleness_threshold) x trigger) prompts since the last update (queued, running and
    consumed), so it runs int(required x staleness_threshold x trigger) prompts ahead of the trainer."""
    mini = _int(get("actor_rollout_ref.actor.ppo_mini_batch_size"))
    req = _int(get(f"{ASYNC}.require_batches")) or 1
    trigger = _int(get(f"{ASYNC}.trigger_parameter_sync_step")) or 1
    st = get(f"{ASYNC}.staleness_threshold")
    st = st if isinstance(st, (int, float)) and not isinstance(st, bool) and st >= 0 else 0
    s.keys = (f"{ASYNC}.require_batches", f"{ASYNC}.trigger_parameter_sync_step", f"{ASYNC}.staleness_threshold")
    s.sync_every = trigger
    # FullyAsyncRollouter.__init__ asserts both; its loader takes one prompt at a time
    for key, want in (("data.train_batch_size", 0), ("data.gen_batch_size", 1)):
        if get(key) != want:
            s.refused.append((key, f"{key} must be {want} (fully_async_rollouter.py FullyAsyncRollouter.__init__)"))
        else:
            s.inert.append((key, f"{want} as veRL's fully_async trainer requires: a step takes ppo_mini_batch_size x "
                                 "async_training.require_batches prompts"))
    # the rollouter stops at min(total_rollout_steps, rows x total_epochs) prompts (FullyAsyncRollouter.__init__)
    s.total_prompts = _int(get("rollout.total_rollout_steps"))
    # FullyAsyncTrainer: validates and saves when current_param_version % test_freq (save_freq) == 0
    s.per_version = ("trainer.test_freq", "trainer.save_freq")
    if not mini:
        return
    required = mini * req
    s.batch, s.batch_formula = required, f"{mini}*{req} (ppo_mini_batch_size x require_batches)"
    s.ahead = int(required * (1 + st) * trigger) - required * trigger
    s.staleness = math.ceil(s.ahead / (required * trigger))
