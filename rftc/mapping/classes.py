"""The vocabulary of the key classification the rule tables carry (rftc.mapping.rules, sft_rules): why a key does
not change what is trained (INERT), and the conditions under which a key feeds its quantities (WHEN). A condition is
a predicate of ``get(key)`` (the effective config's value, None where absent) and the release; the semantic model's
tests and ``rftc diff``'s documentation read the same conditions.

    Rule("actor_rollout_ref.actor.kl_loss_coef", ..., **to("kl_loss_coef", "kl_loss"))
    Rule("trainer.logger", ..., **no(NAMES))
"""

from __future__ import annotations

from typing import Callable

from rftc.mapping.models import MCORE
from rftc.mapping.reward_loop import (ENGINE_READS, LEGACY_NAME, SINGLE_TURN, USE_LOOP, manager, reward_path,
                                      sandbox, verl_turns)
from rftc.mapping.precision import WHEN as PRECISION_WHEN

# why a key does not change what is trained
NAMES, CADENCE, PLACEMENT, MEMORY, BATCHING, KERNELS, PROFILING, PROCESSES, CLASS, FOLLOWS, UNREAD, DEBUG = INERT = (
    "names and logging", "checkpoint and evaluation cadence", "placement and parallelism", "memory and offload",
    "numerically equivalent batching (micro-batches, token budgets)",
    "numerically equivalent kernels and engine tuning", "profiling", "processes, start-up and transport",
    "the class veRL builds the section as", "follows another key (an interpolation) or the run's kind",
    "not read by this trainer", "debugging aids")

A, R, C, M, T = ("actor_rollout_ref.actor", "actor_rollout_ref.rollout", "critic", "actor_rollout_ref.model",
                 "trainer")
REF = "actor_rollout_ref.ref"
RC = "algorithm.rollout_correction"
RM_ON = ("reward_model.enable", "reward.reward_model.enable")
LEGACY_SFT = "model.partial_pretrain"  # only fsdp_sft_trainer's config has it


def to(feeds: str, when: str = "") -> dict:
    """A row's class: it feeds the quantities ``feeds`` (space-separated) where the condition ``when`` holds."""
    return {"feeds": feeds, "when": when}


def no(reason: str) -> dict:
    """A row's class: it does not change what is trained, for ``reason`` (one of INERT)."""
    return {"inert": reason}


def _true(key: str):
    return lambda get, release: bool(get(key))


def _is(key: str, *values):
    return lambda get, release: get(key) in values


def _unset(key: str):
    return lambda get, release: get(key) is None


def _positive(get, key: str) -> bool:
    v = get(key)
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0


def _semantics(release: str):
    from rftc.verl.releases import semantics  # the release table only where a condition needs it (not convert's)

    return semantics, semantics.resolve(release, snapshot=False)


def _kl_in_reward(get, release: str) -> bool:
    semantics, sem = _semantics(release)
    return bool(semantics.kl_in_reward(sem, get))


def _megatron_unit(get, release: str) -> bool:
    """Megatron's actor counts ppo_mini_batch_size in other units than FSDP's under ``release``."""
    _, sem = _semantics(release)
    return sem.value("actor_mini_unit") != sem.value("megatron_actor_mini_unit")


def _v1(get) -> str | None:
    """The v1 trainer mode main_ppo runs (None: not the v1 trainers; the off-policy configs have rollout.*)."""
    return get(f"{T}.v1.trainer_mode") if get(f"{T}.use_v1") is True and get("rollout.nnodes") is None else None


def _group_filters(get, release: str) -> bool:
    from rftc.verl.releases import modes

    return _v1(get) is not None and bool(modes.fact("v1_routing", release))


def _v1_sync_filters(get, release: str) -> bool:
    """main_ppo's v1 sync trainer filters groups: its ReplayBuffer refills them (rftc.semantics.buffer)."""
    return bool(get("algorithm.filter_groups.enable")) and _group_filters(get, release) and _v1(get) == "sync"


def _reads_val_only(get, release: str) -> bool:
    """The trainer returns after its first validation where trainer.val_only is set: the release reads it (from
    verl 0.2), the trainer loop does (not the fully async trainer, whose config has async_training), and that
    validation runs (``config.trainer.get("val_before_train", True)``) (rftc.semantics.buffer)."""
    _, sem = _semantics(release)
    return sem.value("val_only") == "read" and get("async_training.require_batches") is None


MICRO_ROLES = (("actor", "actor_", "the actor"), ("critic", "critic_", "a critic is trained and"))


def _micro_reads(role: str, what: str):
    """Whether ``role``'s step's loss reads ``what`` (rftc.mapping.microloss.verl_reads)."""
    from rftc.mapping.microloss import verl_reads

    return lambda get, release: verl_reads(get, release, role, what)


def _rule_reward(get, release: str) -> bool:
    return not any(get(k) for k in RM_ON)


def _legacy_reward(get, release: str) -> bool:
    """The trainer migrates the legacy reward keys (reward_model.*, custom_reward_function.*, sandbox_fusion.*):
    every release's trainers but verl 0.9's main_ppo (rftc.verl.releases.legacy), whose configs have no top-level
    rollout section (the off-policy trainers' have one)."""
    from rftc.verl.releases import legacy

    return get("rollout.nnodes") is not None or not legacy.ignores_legacy("verl.trainer.main_ppo", release)


def _reward_loop(release: str) -> str:
    """The release's reward path (rftc.verl.releases.semantics reward_loop: none, optional, always)."""
    return _semantics(release)[1].value("reward_loop")


def _custom_function(get, release: str) -> bool:
    """A custom reward function is read (the migrated legacy one, or the reward section's)."""
    return bool(get("custom_reward_function.path") and _legacy_reward(get, release)
                or get("reward.custom_reward_function.path"))


def _rule_path(path: str, *, sandbox: bool = False):
    """A reward function scores on the release's reward ``path`` (rftc.mapping.reward_loop: "trainer" or "loop");
    ``sandbox``: and no custom function replaces default_compute_score."""
    def holds(get, release: str) -> bool:
        return _rule_reward(get, release) and reward_path(get, _reward_loop(release)) == path and not (
            sandbox and _custom_function(get, release))
    return holds


def _loop_manager(get, release: str) -> bool:
    """A reward function scores in the reward loop that reads reward_model.reward_loop_source: 0.7.0's (with
    use_reward_loop), or from 0.7.1 where the trainer migrates the legacy keys."""
    loop = _reward_loop(release)
    return _rule_reward(get, release) and (loop == "optional" and bool(get("reward_model.use_reward_loop"))
                                           or loop == "always" and _legacy_reward(get, release))


def _legacy_manager_name(get, release: str) -> bool:
    """A reward function scores under the manager reward_model.reward_manager names (rftc.mapping.reward_loop)."""
    loop, legacy = _reward_loop(release), _legacy_reward(get, release)
    return _rule_reward(get, release) and (LEGACY_NAME in manager(get, loop, legacy)[1]
                                           or loop == "always" and legacy)  # migrated wherever it is set


def _section_manager(get, release: str) -> bool:
    """A reward function scores with reward.reward_manager's source (0.7.1 on; no migrated legacy
    reward_loop_source over it)."""
    return _rule_reward(get, release) and _reward_loop(release) == "always" and not (
        _legacy_reward(get, release) and get("reward_model.reward_loop_source") is not None)


def _section_sandbox(get, release: str) -> bool:
    """default_compute_score reads reward.sandbox_fusion (0.7.1 on; no migrated top-level section replaces it)."""
    return _rule_reward(get, release) and _reward_loop(release) == "always" and not _custom_function(
        get, release) and not (_legacy_reward(get, release) and any(
            get(f"sandbox_fusion.{k}") is not None for k in ("url", "max_concurrent", "memory_limit_mb")))


def _legacy_sandbox(get, release: str) -> bool:
    """default_compute_score scores (0.7.1 on) where the trainer migrates the top-level sandbox_fusion."""
    return _rule_reward(get, release) and _reward_loop(release) == "always" and _legacy_reward(get, release) \
        and not _custom_function(get, release)


def _reward_loop_switch(get, release: str) -> bool:
    """0.7.0's reward_model.use_reward_loop changes the reward: a reward model (its worker, or a rollout server),
    or a rule reward whose manager or sandbox the two paths read differently."""
    if _reward_loop(release) != "optional":
        return False
    if not _rule_reward(get, release):
        return True
    on, off = (lambda k: v if k == USE_LOOP else get(k) for v in (True, False))
    has = lambda k: get(k) is not None  # noqa: E731 - 0.7.0's config has every key read here
    code = (lambda g: None) if _custom_function(get, release) else (
        lambda g: sandbox(g, has, "optional", True)[0])
    return manager(on, "optional", True)[0] != manager(off, "optional", True)[0] or code(on) != code(off)


def _reward_model_on(path: str):
    """A reward model scores on the release's reward ``path`` ("trainer": its worker; "loop": a rollout
    server)."""
    def holds(get, release: str) -> bool:
        return not _rule_reward(get, release) and reward_path(get, _reward_loop(release)) == path
    return holds


def _legacy_engine(*, context: bool = False):
    """A reward model scores on a rollout server that reads the legacy reward_model.rollout section: 0.7.0's (its
    own), or from 0.7.1 where the trainer migrates it; ``context``: its max_model_len, where the release's server
    reads it (not 0.7.0's)."""
    def holds(get, release: str) -> bool:
        loop = _reward_loop(release)
        legacy = loop == "optional" or _legacy_reward(get, release)
        engine = get("reward_model.rollout.name" if loop == "optional" or legacy and get(
            "reward_model.rollout.name") is not None else "reward.reward_model.rollout.name")
        return _reward_model_on("loop")(get, release) and legacy and engine in ENGINE_READS \
            and not (context and _semantics(release)[1].value("context_key") == "unread")
    return holds


def _section_engine(*, vllm: bool = False):
    """A reward model scores on a rollout server from reward.reward_model.rollout (0.7.1 on); ``vllm``: vLLM's
    server, which alone reads the sampling defaults, the seed, ignore_eos and the quantization file."""
    def holds(get, release: str) -> bool:
        if not (_reward_model_on("loop")(get, release) and _reward_loop(release) == "always"):
            return False
        legacy = _legacy_reward(get, release) and get("reward_model.rollout.name") is not None
        engine = get("reward_model.rollout.name" if legacy else "reward.reward_model.rollout.name")
        return engine == "vllm" if vllm else engine in ENGINE_READS
    return holds


def _async_rollout(get, release: str) -> bool:
    """The rollout is async (rollout.mode async, or the only mode the release runs): rows run agent loops."""
    modes = _semantics(release)[1].value("rollout_modes")
    return "sync" not in modes or "async" in modes and get(f"{R}.mode") == "async"


def _multi_turn(get, release: str) -> bool:
    """The rollout runs several turns as rftc.mapping.reward_loop reads the launch."""
    return verl_turns(get, lambda k: get(k) is not None, release,
                      _semantics(release)[1].value("rollout_modes"))[0] != SINGLE_TURN


def _clips_at_optim(role: str):
    """The release's actor (critic) clips at its optimizer's clip_grad (Megatron, the engine workers), not at the
    legacy FSDP worker's grad_clip (rftc.mapping.models.clip_key)."""
    def holds(get, release: str) -> bool:
        from rftc.mapping.models import clip_key

        _, sem = _semantics(release)
        section = A if role == "actor" else C
        megatron = get(f"{section}.strategy") in MCORE
        return clip_key(get, sem, megatron, role) != f"{section}.grad_clip"
    return holds


def _shuffles(role: str, *, seeded: bool = False):
    """The release's actor (critic) worker reads its shuffle (rftc.mapping.minibatch) and a trainer step holds
    several of its mini-batches (the fully async trainer's step: ppo_mini_batch_size x require_batches prompts, as
    rftc.verl.releases.modes reads it); ``seeded``: and it shuffles, with a generator data_loader_seed seeds (the
    engine workers, Megatron's from 0.4.0)."""
    def holds(get, release: str) -> bool:
        from rftc.mapping.minibatch import SECTIONS, UNSEEDED, minibatch_responses, shuffle_reader

        _, sem = _semantics(release)
        reader = shuffle_reader(get, sem, role)
        required, n, mini = get("async_training.require_batches"), get(f"{R}.n") or 1, get(f"{A}.ppo_mini_batch_size")
        batch = mini * required if required and isinstance(mini, int) else get("data.train_batch_size")
        responses = minibatch_responses(get, sem, role, batch, n)[0]
        several = responses is None or responses < batch * n  # sizes it cannot read: taken to hold
        return reader is not None and several and (not seeded or bool(get(f"{SECTIONS[role]}.shuffle")) and
                                                    reader != UNSEEDED)
    return holds


def _seed_from(role: str, prefix: str):
    """The process of the release's ``role`` worker ("actor", "critic") is seeded from a key under ``prefix``
    (rftc.mapping.seeds)."""
    def holds(get, release: str) -> bool:
        from rftc.mapping.seeds import verl_seed_key

        _, sem = _semantics(release)
        kl = bool(get(f"{A}.use_kl_loss")) or _kl_in_reward(get, release)
        return (role == "actor" or get("algorithm.adv_estimator") == "gae") and \
            (verl_seed_key(get, sem, role, kl) or "").startswith(f"{prefix}.")
    return holds


def _engine_determinism(role: str):
    """The release runs ``role`` on an engine worker other than Megatron's, whose full_determinism decides whether
    it seeds ("ref": the actor's worker builds a reference engine of that kind and the actor's does not seed)."""
    def holds(get, release: str) -> bool:
        from rftc.mapping.seeds import reference_in_worker, runs_engine, section

        _, sem = _semantics(release)
        own = "critic" if role == "critic" else "actor"
        if role == "critic" and get("algorithm.adv_estimator") != "gae":
            return False
        if not runs_engine(get, sem, own) or get(f"{C if role == 'critic' else A}.strategy") in MCORE:
            return False
        if role != "ref":
            return True
        kl = bool(get(f"{A}.use_kl_loss")) or _kl_in_reward(get, release)
        actor = section(get, A, get(f"{A}.strategy"))
        return reference_in_worker(get, sem, kl) and get(f"{actor}.full_determinism") is not True
    return holds


def _sample_flag_readers() -> tuple:
    from rftc.mapping.models import SAMPLE_FLAG_READERS

    return SAMPLE_FLAG_READERS


def _reads_sampling_key(key: str):
    def holds(get, release: str) -> bool:
        from rftc.mapping.models import reads_sampling_key

        _, sem = _semantics(release)
        return reads_sampling_key(get, sem, key)
    return holds


def _loss(get, release: str) -> str:
    """The policy loss veRL trains: bypass mode's own (rftc.mapping.correction.bypass_loss), else loss_mode."""
    from rftc.mapping.correction import bypass_loss

    return bypass_loss(get, _semantics(release)[1]) or get(f"{A}.policy_loss.loss_mode") or "vanilla"


def _replaced(get, release: str) -> bool:
    """Bypass mode trains a loss of its own, whatever actor.policy_loss.loss_mode says."""
    from rftc.mapping.correction import bypass_loss

    return bypass_loss(get, _semantics(release)[1]) is not None


def _dual_clip(get, release: str) -> bool:
    return _loss(get, release) == "vanilla"


def _correction_reads(key: str):
    """The release's rollout correction reads ``key`` for this launch (rftc.mapping.correction)."""
    def holds(get, release: str) -> bool:
        from rftc.mapping.correction import verl_correction

        return key in verl_correction(get, _semantics(release)[1]).reads
    return holds


def _logprobs_used(get, release: str) -> bool:
    from rftc.mapping.correction import rollout_logprobs_used

    return rollout_logprobs_used(get, _semantics(release)[1])


def _logprobs_returned(get, release: str) -> bool:
    """The trainer uses the rollout's log-probs and the rollout returns them (rollout.calculate_log_probs)."""
    from rftc.mapping.correction import LOGPROBS

    return _logprobs_used(get, release) and get(LOGPROBS) is True


def _over_sample_read(get, release: str) -> bool:
    from rftc.mapping.correction import over_sample_rate

    return over_sample_rate(get, _semantics(release)[1]) is not None


def _stale(get, release: str) -> bool:
    """A v1 asynchronous trainer's replay buffer meets rollouts as old as max_off_policy_threshold
    (rftc.verl.releases.modes)."""
    from rftc.verl.releases import modes

    return _v1(get) in ("colocate_async", "separate_async") and \
        modes.schedule(modes.MAIN_PPO, release, get).stale is not None


def _hybrid_switch(get, release: str) -> bool:
    from rftc.verl.releases import modes

    return _v1(get) == "separate_async" and modes.schedule(modes.MAIN_PPO, release, get).hybrid


def _custom_sampler(get, release: str) -> bool:
    from rftc.verl.releases import modes

    return _v1(get) is not None and bool(modes.fact("v1_routing", release)) and modes.custom_sampler(get) is not None


# the keys of the rollout correction whose reading depends on the others: condition -> (key, in words)
CORRECTION_READS = {
    "reads_rollout_is": (f"{RC}.rollout_is", "the correction weighs the loss (decoupled mode, bypass mode's "
                         "reinforce loss) and the rollout returns its log-probs"),
    "rollout_is_on": (f"{RC}.rollout_is_threshold", "IS weights are on (rollout_is set where the loss is weighed)"),
    "reads_rollout_rs": (f"{RC}.rollout_rs", "the correction rejects (decoupled mode with the rollout's log-probs, "
                         "bypass mode from 0.7.0; 0.6.1: with use_policy_gradient)"),
    "rollout_rs_on": (f"{RC}.rollout_rs_threshold", "rejection sampling is on (rollout_rs set where it is read)"),
    "reads_veto": (f"{RC}.rollout_token_veto_threshold", "the correction's token veto is read (decoupled mode with "
                   "the rollout's log-probs; 0.7.0's bypass mode; 0.6.1's with use_policy_gradient and rollout_rs)"),
    "reads_logprobs": ("actor_rollout_ref.rollout.calculate_log_probs", "the trainer needs the rollout's log-probs "
                       "(bypass mode, or a correction set)"),
    "legacy_is_read": ("algorithm.rollout_is", "verl 0.6.0's IS weights are computed (rollout_is_threshold set, "
                       "the rollout's log-probs returned)"),
    "legacy_is_applied": ("algorithm.rollout_is_threshold", "verl 0.6.0's IS weights reach the loss "
                          "(algorithm.rollout_is, the rollout's log-probs returned)"),
    "legacy_is_on": ("algorithm.rollout_is_level", "verl 0.6.0's IS weights are on and applied"),
    "legacy_is_mask": ("algorithm.rollout_is_threshold_lower", "verl 0.6.0's IS weights are on and masked "
                       "(rollout_is_mode mask)"),
}


def _reads_context(get, release: str) -> bool:
    from rftc.mapping.data import reads_context

    return reads_context(get, _semantics(release)[1])


def _keys():
    from rftc.mapping import model_keys  # the workers' readers only where a condition needs them

    return model_keys


def _runs(role: str, predicate):
    """``predicate(get, sem)`` of rftc.mapping.model_keys where ``role`` is used: the reference where a KL is, the
    critic where it is trained (adv_estimator gae)."""
    def holds(get, release: str) -> bool:
        _, sem = _semantics(release)
        if role == "ref" and not (bool(get(f"{A}.use_kl_loss")) or _kl_in_reward(get, release)):
            return False
        if role == "critic" and get("algorithm.adv_estimator") != "gae":
            return False
        return bool(predicate(get, sem))
    return holds


def _replays(engine: str, role: str):
    """``role``'s engine reads <engine>.router_replay.mode (rftc.mapping.model_keys.replay_key)."""
    def predicate(get, sem) -> bool:  # _runs holds the reference to a run with a KL
        key = _keys().replay_key(get, sem, role)
        return key is not None and key.endswith(f".{engine}.router_replay.mode")
    return _runs(role, predicate)


def _freezes(engine: str, role: str):
    """``role``'s Megatron engine is ``engine`` and reads its override_mcore_model_config's frozen router."""
    def predicate(get, sem) -> bool:
        key = _keys().router_key(get, sem, role)
        return key is not None and f".{engine}.override_mcore_model_config." in key
    return _runs(role, predicate)


def _replays_rollout(get, release: str) -> bool:
    """An engine of the run replays the rollout's routing (R3), which rollout.enable_rollout_routing_replay makes
    the rollout return."""
    _, sem = _semantics(release)
    kl = bool(get(f"{A}.use_kl_loss")) or _kl_in_reward(get, release)
    roles = ["actor"] + ["ref"] * kl + ["critic"] * (get("algorithm.adv_estimator") == "gae")
    return any((key := _keys().replay_key(get, sem, role, kl=kl)) is not None and get(key) == "R3" for role in roles)
def _scale_factor(role: str):
    """The release's ``role`` ("actor", "critic") aggregates its loss by seq-mean-token-sum-norm and its worker reads
    loss_scale_factor (the engine workers' losses: rftc.semantics.loss)."""
    def holds(get, release: str) -> bool:
        from rftc.mapping.seeds import runs_engine

        section = A if role == "actor" else C
        if role == "critic" and get("algorithm.adv_estimator") != "gae":
            return False
        _, sem = _semantics(release)
        return get(f"{section}.loss_agg_mode") == "seq-mean-token-sum-norm" and \
            get(f"{A}.policy_loss.loss_mode") != "sapo" and runs_engine(get, sem, role)
    return holds


def _loss_mode(mode: str):
    """The actor trains veRL's ``mode`` policy loss (not bypass mode's)."""
    return lambda get, release: get(f"{A}.policy_loss.loss_mode") == mode and not get(f"{RC}.bypass_mode")


def _schedule(role: str, what: str):
    """The release's ``role`` ("actor", "critic", "sft") schedules where its optim section's setting ``what`` reads
    (rftc.mapping.schedule.schedule_args): "engine_cosine" (the FSDP engine's cosine schedule), "megatron_warmup"
    (Megatron's, warming up), "megatron_wsd" (Megatron's wsd decay), "megatron_horizon" (Megatron's, where the
    schedule needs a horizon), "megatron_decay" (Megatron's), "megatron_cosine" (Megatron's cosine), "torchtitan",
    "veomni" (those engines')."""
    def holds(get, release: str) -> bool:
        from rftc.mapping.schedule import SECTIONS, schedule_name, verl_engine, warms_up

        if role == "critic" and get("algorithm.adv_estimator") != "gae":
            return False
        if role == "sft" and get(LEGACY_SFT) is not None:
            return False
        _, sem = _semantics(release)
        engine = verl_engine(get, sem, role)
        optim = SECTIONS[role][0]

        def o(k):
            return get(f"{optim}.{k}")
        sched = schedule_name(o)
        if what == "engine_cosine":
            return engine == "fsdp engine" and sched == "cosine"
        if what in ("torchtitan", "veomni"):
            return engine == what
        steps = o("lr_warmup_steps")
        horizon = sched != "constant" or (bool(o("lr_warmup_steps_ratio")) and not (isinstance(steps, int)
                                                                                   and steps > 0))
        return engine == "megatron" and {"megatron_warmup": warms_up(o), "megatron_wsd": sched == "wsd",
                                         "megatron_horizon": horizon, "megatron_decay": True,
                                         "megatron_cosine": sched == "cosine"}[what]
    return holds


SCHEDULE_TEXT = {"engine_cosine": "the FSDP engine's, with a cosine schedule (it reads zero_indexed_step)",
                 "megatron_warmup": "Megatron's, warming up (from lr_warmup_init)",
                 "megatron_wsd": "Megatron's, with the wsd schedule",
                 "megatron_horizon": "Megatron's, with a schedule that needs a horizon (it decays over "
                                     "lr_decay_steps)",
                 "megatron_decay": "Megatron's (it decays over lr_decay_steps)",
                 "megatron_cosine": "Megatron's, with a cosine schedule (it decays to min_lr)",
                 "torchtitan": "torchtitan's", "veomni": "veomni's"}


DL = "distillation.distillation_loss"


def _task_loss(get, release: str) -> bool:
    """The task rewards' policy loss is trained: not veRL's on-policy distillation without task rewards, whose loss
    is the distillation's alone (rftc.mapping.distill)."""
    from rftc.mapping.distill import task_free

    return not task_free(get)


def _reward_read(get, release: str) -> bool:
    """The reward changes what is trained: the task rewards' loss is trained, or a group filter keeps groups by it."""
    return _task_loss(get, release) or (bool(get("algorithm.filter_groups.enable")) and _group_filters(get, release)
                                        and (get(f"{R}.n") or 1) > 1)


def _task(condition):
    """``condition`` where the task rewards' policy loss is trained."""
    return lambda get, release: _task_loss(get, release) and condition(get, release)


def _read(condition):
    """``condition`` where the reward is read."""
    return lambda get, release: _reward_read(get, release) and condition(get, release)


def _distill(condition):
    """veRL's on-policy distillation is on, and ``condition``."""
    return lambda get, release: get("distillation.enabled") is True and condition(get, release)


def _one_teacher(get, release: str) -> bool:
    """veRL's distillation reads the bundled teacher_model entry (no entry added beside it)."""
    from rftc.mapping.distill import ONE, teachers

    return set(teachers(get)) == {ONE}


def _truncates(get, release: str) -> bool:
    _, sem = _semantics(release)
    return sem.value("prompt_filter") == "read" and not get("data.filter_overlong_prompts")


WHEN: dict[str, tuple[str, Callable]] = {
    # loss and advantage
    "kl_loss": ("the KL loss is on (actor.use_kl_loss) and the task rewards' loss is trained",
                _task(_true(f"{A}.use_kl_loss"))),
    "kl_in_reward": ("KL is in the reward (algorithm.use_kl_in_reward; before 0.3.0.post1 without a KL loss) and "
                     "the task rewards' loss is trained", _task(_kl_in_reward)),
    "adaptive_kl": ("the KL controller is adaptive and the task rewards' loss is trained",
                    _task(_is("algorithm.kl_ctrl.type", "adaptive"))),
    "critic": ("a critic is trained (adv_estimator gae)", _is("algorithm.adv_estimator", "gae")),
    "critic_fsdp": ("a critic is trained on FSDP (a Megatron critic reads critic.model.lora.*)",
                    lambda get, release: get("algorithm.adv_estimator") == "gae" and get(f"{C}.strategy") not in MCORE),
    "critic_lora": ("a critic is trained on FSDP with LoRA (critic.model.lora_rank > 0)", lambda get, release:
                    get("algorithm.adv_estimator") == "gae" and get(f"{C}.strategy") not in MCORE
                    and _positive(get, f"{C}.model.lora_rank")),
    "critic_megatron_lora": ("a Megatron critic is trained with LoRA (critic.model.lora.rank > 0)", lambda get, release:
                             get("algorithm.adv_estimator") == "gae" and get(f"{C}.strategy") in MCORE
                             and _positive(get, f"{C}.model.lora.rank")),
    "discounted": ("the estimator discounts (gae, reinforce_plus_plus) and the task rewards' loss is trained",
                   _task(_is("algorithm.adv_estimator", "gae", "reinforce_plus_plus"))),
    "grpo": ("the estimator normalises groups (grpo) and the task rewards' loss is trained",
             _task(_is("algorithm.adv_estimator", "grpo"))),
    "clip_ratio": ("the loss reads clip_ratio (clip_ratio_low/high unset) and the task rewards' loss is trained",
                   _task(_unset(f"{A}.clip_ratio_low"))),
    "clipped": ("the policy loss clips the ratio (not sapo, gpg) and the task rewards' loss is trained",
                _task(lambda get, release: _replaced(get, release)
                      or get(f"{A}.policy_loss.loss_mode") not in ("sapo", "gpg"))),
    "dual_clip": ("the policy loss is PPO's (its dual clip) and the task rewards' loss is trained", _task(_dual_clip)),
    "sapo": ("the policy loss is sapo and the task rewards' loss is trained",
             _task(_is(f"{A}.policy_loss.loss_mode", "sapo"))),
    "agg_read": ("the policy loss reads loss_agg_mode (sapo's is seq-mean-token-mean; veRL's distillation loss "
                 "without task rewards reads it)", lambda get, release: not _task_loss(get, release)
                 or _replaced(get, release) or get(f"{A}.policy_loss.loss_mode") != "sapo"),
    "no_bypass": ("the loss is the actor's (no rollout_correction.bypass_mode, or verl 0.6.1's without "
                  "use_policy_gradient) and the task rewards' loss is trained",
                  _task(lambda get, release: not _replaced(get, release))),
    "task_loss": ("the task rewards' policy loss is trained (not veRL's on-policy distillation without task "
                  "rewards, which drops it with its advantage, KL and entropy terms)", _task_loss),
    "bypass": ("the rollout's log-probs are the old ones (rollout_correction.bypass_mode)", _true(f"{RC}.bypass_mode")),
    "token_sum_norm": ("the loss aggregates by seq-mean-token-sum-norm and the actor's worker reads "
                       "loss_scale_factor (the engine workers, verl 0.7.0 on)", _scale_factor("actor")),
    "critic_token_sum_norm": ("a critic is trained, its loss aggregates by seq-mean-token-sum-norm and its worker "
                              "reads loss_scale_factor (the engine critic, verl 0.9.0 on)", _scale_factor("critic")),
    "clip_cov": ("the policy loss is veRL's clip_cov", _loss_mode("clip_cov")),
    "kl_cov": ("the policy loss is veRL's kl_cov", _loss_mode("kl_cov")),
    "dro": ("the policy loss is veRL's dro", _loss_mode("dro")),
    "pf_ppo": ("preference-feedback PPO is on, after GAE (adv_estimator gae: compute_advantage resamples there only)",
               lambda get, release: bool(get("algorithm.use_pf_ppo")) and get("algorithm.adv_estimator") == "gae"),
    "pf_ppo_pow": ("preference-feedback PPO is on after GAE and weighs by a power of the score (reweight_method pow)",
                   lambda get, release: bool(get("algorithm.use_pf_ppo")) and get("algorithm.adv_estimator") == "gae"
                   and get("algorithm.pf_ppo.reweight_method") == "pow"),
    "group_filter_trainer": ("the trainer filters groups: main_ppo's v1 trainers from 0.9.0 (and the DAPO recipe's, "
                             "whose config no bundled release composes)", _group_filters),
    "filter_groups": ("dynamic sampling is on (algorithm.filter_groups.enable) in a trainer that filters groups",
                      lambda get, release: bool(get("algorithm.filter_groups.enable"))
                      and _group_filters(get, release)),
    "distillation": ("on-policy distillation is on", _true("distillation.enabled")),
    "dapo_refill": ("dynamic sampling is on in the DAPO recipe's trainer (recipe.dapo.main_dapo, whose dapo_trainer "
                    "config is the one with reward_model.overlong_buffer; main_ppo's v1 trainers read neither key)",
                    lambda get, release: bool(get("algorithm.filter_groups.enable"))
                    and get("reward_model.overlong_buffer.enable") is not None),
    "v1_sync_filter": ("main_ppo's v1 sync trainer filters groups (algorithm.filter_groups.enable, "
                       "trainer.v1.trainer_mode sync)", _v1_sync_filters),
    "one_teacher": ("on-policy distillation from the bundled teacher entry alone (teacher_model: entries added "
                    "beside it replace it)", _distill(_one_teacher)),
    "teachers": ("on-policy distillation from teacher entries added beside teacher_model, each row routed to one "
                 "by distillation.teacher_key", _distill(lambda get, release: not _one_teacher(get, release))),
    "distill_pg": ("on-policy distillation whose loss is the advantage of a policy-gradient loss "
                   "(use_policy_gradient)", _distill(_true(f"{DL}.use_policy_gradient"))),
    "distill_clip_ratio": ("on-policy distillation as a policy-gradient loss that reads the distillation's "
                           "clip_ratio (its clip_ratio_low or clip_ratio_high null)",
                           _distill(lambda get, release: bool(get(f"{DL}.use_policy_gradient")) and None in (
                               get(f"{DL}.clip_ratio_low"), get(f"{DL}.clip_ratio_high")))),
    "distill_topk": ("on-policy distillation by the teacher's top-k log-probs (loss_mode forward_kl_topk)",
                     _distill(_is(f"{DL}.loss_mode", "forward_kl_topk"))),
    "distill_task_rewards": ("on-policy distillation beside the task rewards' loss (use_task_rewards)",
                             _distill(_true(f"{DL}.use_task_rewards"))),
    # model and optimizer
    "megatron_lora": ("Megatron LoRA is on (model.lora.rank > 0, strategy megatron)", lambda get, release:
                      _positive(get, f"{M}.lora.rank") and get(f"{A}.strategy") in MCORE),
    "megatron_unit": ("Megatron's actor counts mini-batches in other units than FSDP's", _megatron_unit),
    "cosine": ("the lr schedule is cosine", lambda get, release: "cosine" in (
        get(f"{A}.optim.lr_scheduler_type"), get(f"{A}.optim.warmup_style"), get(f"{A}.optim.lr_decay_style"),
        get("optim.lr_scheduler"), get("optim.lr_scheduler_type"), get("optim.lr_decay_style"))),
    "scheduler_type_unset": ("the schedule is read from warmup_style (lr_scheduler_type unset)",
                             _unset(f"{A}.optim.lr_scheduler_type")),
    "muon": ("the optimizer is muon", _is(f"{A}.optim.optimizer", "muon")),
    "critic_muon": ("a critic is trained with muon", lambda get, release: get("algorithm.adv_estimator") == "gae"
                    and get(f"{C}.optim.optimizer") == "muon"),
    "critic_fsdp_optim": ("a critic is trained with FSDP's optimizer (Megatron's takes no betas)",
                          lambda get, release: get("algorithm.adv_estimator") == "gae"
                          and get(f"{C}.strategy") not in MCORE),
    "critic_cosine": ("a critic is trained with FSDP's cosine schedule", lambda get, release:
                      get("algorithm.adv_estimator") == "gae" and get(f"{C}.strategy") not in MCORE and "cosine" in (
                          get(f"{C}.optim.lr_scheduler_type"), get(f"{C}.optim.warmup_style"))),
    **{f"{prefix}{what}": (f"{whose} {SCHEDULE_TEXT[what]}", _schedule(role, what)) for role, prefix, whose, whats in (
        ("actor", "", "the actor's optimizer is", ("engine_cosine", "megatron_warmup", "megatron_wsd",
                                                   "megatron_horizon", "torchtitan", "veomni")),
        ("critic", "critic_", "a critic is trained and its optimizer is", (
            "engine_cosine", "megatron_warmup", "megatron_wsd", "megatron_decay", "megatron_cosine", "torchtitan",
            "veomni")),
        ("sft", "sft_", "the engine SFT trainer's optimizer is", ("engine_cosine",))) for what in whats},
    "fsdp_optim": ("the actor's optimizer is FSDP's (Megatron's takes no betas)",
                   lambda get, release: get(f"{A}.strategy") not in MCORE),
    "fsdp_lora": ("the actor is FSDP's (the Megatron workers read model.lora.*)",
                  lambda get, release: get(f"{A}.strategy") not in MCORE),
    "fsdp_lora_on": ("LoRA is on in an FSDP actor (lora_rank > 0)", lambda get, release:
                     get(f"{A}.strategy") not in MCORE and _positive(get, f"{M}.lora_rank")),
    "fsdp_adapter": ("an FSDP actor reads lora_adapter_path (lora_rank > 0; the legacy FSDP worker whatever it is)",
                     lambda get, release: get(f"{A}.strategy") not in MCORE and (
                         _positive(get, f"{M}.lora_rank") or _keys().legacy(get, _semantics(release)[1]))),
    # the model's own settings (rftc.mapping.model_keys, rftc.semantics.model_settings)
    "engine_actor": ("the actor runs on the engine workers (HFModelConfig reads hf_config_path)",
                     lambda get, release: not _keys().legacy(get, _semantics(release)[1])),
    "legacy_fsdp_actor": ("the actor runs on the legacy FSDP worker (0.6.0 to 0.7.x read freeze_vision_tower)",
                          lambda get, release: get(f"{A}.strategy") in ("fsdp", "fsdp2")
                          and _keys().legacy(get, _semantics(release)[1])),
    "legacy_megatron_actor": ("the actor runs on the legacy Megatron worker (it reads load_weight)",
                              lambda get, release: _keys().legacy_megatron(get, _semantics(release)[1])),
    "legacy_megatron_ref": ("a reference of its own (a KL, no LoRA) on the legacy Megatron worker (it reads "
                            "ref.load_weight)", _runs("ref", lambda get, sem: _keys().legacy_megatron(get, sem)
                                                      and not _keys().ref_in_actor(get))),
    "legacy_megatron_critic": ("a critic is trained on the legacy Megatron worker (it reads critic.load_weight)",
                               _runs("critic", lambda get, sem: _keys().legacy_megatron(get, sem, "critic"))),
    "legacy_megatron_router": ("the actor runs on the legacy Megatron worker from 0.4.0, which freezes the MoE "
                               "router for override_config.moe_config.freeze_moe_router",
                               _runs("actor", lambda get, sem: _keys().router_key(get, sem, "actor") is not None
                                     and _keys().legacy(get, sem))),
    "legacy_megatron_critic_router": ("a critic is trained on the legacy Megatron worker from 0.4.0 (it reads "
                                      "override_config.moe_config.freeze_moe_router)",
                                      _runs("critic", lambda get, sem: _keys().router_key(get, sem, "critic")
                                            is not None and _keys().legacy(get, sem, "critic"))),
    "own_reference": ("the reference has a worker of its own that reads ref.model.path (a KL, no LoRA, the legacy "
                      "FSDP worker from 0.6.0)", _runs("ref", lambda get, sem: _keys().own_reference(get, sem))),
    "legacy_replay_actor": ("the actor runs on the legacy Megatron worker (0.7 reads actor.router_replay)",
                            _runs("actor", lambda get, sem: _keys().replay_key(get, sem, "actor")
                                  == f"{A}.router_replay.mode")),
    **{f"{e}_replay_{role}": (f"the {name}'s {e} engine reads its router_replay", _replays(e, role))
       for e in ("megatron", "mindspeed", "veomni") for role, name in (("actor", "actor"), ("ref", "reference"),
                                                                       ("critic", "critic"))},
    **{f"{e}_frozen_{role}": (f"the {role}'s {e} engine reads override_mcore_model_config's frozen router",
                              _freezes(e, role)) for e in ("megatron", "mindspeed") for role in ("actor", "critic")},
    "replays_rollout_routing": ("an engine replays the rollout's MoE routing (router_replay.mode R3)",
                                _replays_rollout),
    "mtp_train": ("a Megatron actor trains the MTP layers (model.mtp.enable and enable_train)", lambda get, release:
                  get(f"{A}.strategy") in MCORE and bool(get(f"{M}.mtp.enable"))
                  and bool(get(f"{M}.mtp.enable_train"))),
    "actor_shuffle": ("the release's actor worker reads shuffle (the engine workers, Megatron's, verl 0.1's)",
                      _shuffles("actor")),
    "actor_seed": ("the actor's worker shuffles (actor.shuffle) with a generator data_loader_seed seeds (the engine "
                   "workers, Megatron's from verl 0.4.0)", _shuffles("actor", seeded=True)),
    "critic_shuffle": ("a critic is trained and its worker reads shuffle (the engine workers, Megatron's, verl "
                       "0.1's)", lambda get, release: get("algorithm.adv_estimator") == "gae"
                       and _shuffles("critic")(get, release)),
    "critic_seed": ("a critic is trained and its worker shuffles (critic.shuffle) with a generator data_loader_seed "
                    "seeds (the engine workers, Megatron's from verl 0.4.0)", lambda get, release:
                    get("algorithm.adv_estimator") == "gae" and _shuffles("critic", seeded=True)(get, release)),
    "grad_clip": ("the release's actor clips at grad_clip (the legacy FSDP worker)",
                  lambda get, release: not _clips_at_optim("actor")(get, release)),
    "optim_clip": ("the release's actor clips at optim.clip_grad (Megatron, the engine workers)",
                   _clips_at_optim("actor")),
    "critic_grad_clip": ("a critic is trained and clips at grad_clip (the legacy FSDP worker)", lambda get, release:
                         get("algorithm.adv_estimator") == "gae" and not _clips_at_optim("critic")(get, release)),
    "critic_optim_clip": ("a critic is trained and clips at optim.clip_grad (Megatron, the engine workers)",
                          lambda get, release: get("algorithm.adv_estimator") == "gae"
                          and _clips_at_optim("critic")(get, release)),
    # the trainer's seed (rftc.mapping.seeds)
    "process_seed_actor": ("the actor's worker process is seeded from the actor's engine section (Megatron's always, "
                   "another engine's where its full_determinism is on)", _seed_from("actor", A)),
    "process_seed_ref": ("the actor's worker process is seeded from the reference's engine section, built before the "
                 "actor's, which does not seed", _seed_from("actor", REF)),
    "process_seed_critic": ("a critic is trained and its worker process is seeded from its engine section",
                    _seed_from("critic", C)),
    "determinism_actor": ("the actor runs on an engine worker other than Megatron's (it seeds where full_determinism)",
                     _engine_determinism("actor")),
    "determinism_ref": ("the actor's engine worker, not Megatron's, builds a reference engine and the actor's "
                        "full_determinism is off", _engine_determinism("ref")),
    "determinism_switch": ("an FSDP engine section turns full_determinism on (the engine workers seed with it, the "
                           "legacy ones do not)", lambda get, release: get(f"{A}.strategy") in ("fsdp", "fsdp2") and any(
                               get(f"{s}.full_determinism") is True for s in (
                                   f"{A}.fsdp_config", f"{REF}.fsdp_config", f"{C}.model.fsdp_config", f"{C}.fsdp"))),
    "determinism_critic": ("a critic is trained on an engine worker other than Megatron's (it seeds where "
                      "full_determinism)", _engine_determinism("critic")),
    "process_seed_sft": ("the engine SFT trainer's engine seeds (Megatron's always, another where full_determinism)",
                 lambda get, release: get(LEGACY_SFT) is None and (
                     get("engine.strategy") in MCORE or get("engine.full_determinism") is True)),
    "unseeded_sft": ("the engine SFT trainer's engine seeds nothing (not Megatron's, full_determinism off): "
                     "Megatron's would", lambda get, release: get(LEGACY_SFT) is None
                     and get("engine.strategy") not in MCORE and get("engine.full_determinism") is not True),
    "sft_precision_aware": ("the engine SFT trainer's Megatron optimizer is precision-aware (it keeps the dtypes of "
                            "its states)", _true("optim.use_precision_aware_optimizer")),
    "determinism_sft": ("the engine SFT trainer's engine is not Megatron's", lambda get, release:
                        get(LEGACY_SFT) is None and get("engine.strategy") not in MCORE),
    # what the roles train and the rollout generates in (rftc.mapping.precision)
    **PRECISION_WHEN,
    # reward
    # the conditions of the rows that feed the reward hold where the reward is read (not veRL's distillation
    # without task rewards, unless a group filter keeps groups by it)
    "rule_reward": ("no reward model scores (a reward function does), and the reward is read", _read(_rule_reward)),
    "legacy_reward_model": ("a reward model scores and the trainer migrates the legacy reward keys (not verl 0.9's "
                            "main_ppo), and the reward is read", _read(lambda get, release: not _rule_reward(
                                get, release) and _legacy_reward(get, release))),
    "legacy_rule_reward": ("no reward model scores and the trainer migrates the legacy reward keys (not verl 0.9's "
                           "main_ppo), and the reward is read", _read(lambda get, release: _rule_reward(get, release)
                                                                      and _legacy_reward(get, release))),
    "legacy_custom_reward": ("custom_reward_function.path is set and the trainer migrates the legacy reward keys "
                             "(not verl 0.9's main_ppo), and the reward is read", _read(lambda get, release:
                             bool(get("custom_reward_function.path")) and _legacy_reward(get, release))),
    "reward_section_reward": ("a reward function scores and custom_reward_function.path, read first, is unset, and "
                              "the reward is read", _read(lambda get, release: _rule_reward(get, release)
                                                          and not get("custom_reward_function.path"))),
    "reward_custom_reward": ("a reward function scores, reward.custom_reward_function.path is set and no migrated "
                             "legacy one wins over it, and the reward is read",
                             _read(lambda get, release: _rule_reward(get, release)
                                   and bool(get("reward.custom_reward_function.path")) and not (
                                       get("custom_reward_function.path") and _legacy_reward(get, release)))),
    "reward_section_model": ("a reward model scores and no migrated legacy reward_model.model.path wins over "
                             "reward.reward_model.model_path, and the reward is read",
                             _read(lambda get, release: not _rule_reward(get, release)
                                   and not (get("reward_model.model.path") and _legacy_reward(get, release)))),
    "legacy_manager_name": ("a reward function scores under the manager reward_model.reward_manager names (to 0.6.x; "
                            "0.7.0's reward loop from the registry; from 0.7.1 where migrated)",
                            _legacy_manager_name),
    "loop_manager": ("a reward function scores in the reward loop that reads reward_model.reward_loop_source (0.7.0 "
                     "with use_reward_loop; from 0.7.1 where the trainer migrates the legacy keys)", _loop_manager),
    "loop_importlib": ("as loop_manager, and reward_loop_source is importlib (the class from reward_loop_module_path)",
                       lambda get, release: _loop_manager(get, release)
                       and get("reward_model.reward_loop_source") == "importlib"),
    "loop_class": ("0.7.0's reward loop loads reward_loop_class_name (importlib; from 0.7.1 the key only names the "
                   "module, as reward.reward_manager.module.name)", lambda get, release:
                   _reward_loop(release) == "optional" and _loop_manager(get, release)
                   and get("reward_model.reward_loop_source") == "importlib"),
    "trainer_manager": ("a reward function scores in 0.7.0's trainer function (use_reward_loop off), whose manager is "
                        "the top-level reward_manager's", lambda get, release:
                        _reward_loop(release) == "optional" and _rule_path("trainer")(get, release)),
    "trainer_importlib": ("as trainer_manager, and reward_manager.source is importlib (the class from module.path)",
                          lambda get, release: _reward_loop(release) == "optional"
                          and _rule_path("trainer")(get, release) and get("reward_manager.source") == "importlib"),
    "section_manager": ("a reward function scores with reward.reward_manager (0.7.1 on; no migrated legacy "
                        "reward_loop_source over it)", _section_manager),
    "section_importlib": ("as section_manager, and reward.reward_manager.source is importlib (the class from "
                          "module.path)", lambda get, release: _section_manager(get, release)
                          and get("reward.reward_manager.source") == "importlib"),
    "reward_loop_switch": ("0.7.0's use_reward_loop changes the reward: a reward model scores, or the two paths' "
                           "manager or sandbox differ", _reward_loop_switch),
    "trainer_sandbox": ("default_compute_score scores in the trainer's function (to 0.6.x; 0.7.0 without the reward "
                        "loop) and reads reward_model.sandbox_fusion", _rule_path("trainer", sandbox=True)),
    "trainer_sandbox_on": ("as trainer_sandbox, and its url is set (code runs in Sandbox Fusion)", lambda get,
                           release: _rule_path("trainer", sandbox=True)(get, release)
                           and bool(get("reward_model.sandbox_fusion.url"))),
    "section_sandbox": ("default_compute_score reads reward.sandbox_fusion (0.7.1 on; no migrated top-level "
                        "sandbox_fusion replaces it)", _section_sandbox),
    "section_sandbox_on": ("as section_sandbox, and its url is set", lambda get, release:
                           _section_sandbox(get, release) and bool(get("reward.sandbox_fusion.url"))),
    "legacy_sandbox": ("default_compute_score scores (0.7.1 on) and the trainer migrates the legacy keys: any key "
                       "of the top-level sandbox_fusion set replaces reward.sandbox_fusion whole", _legacy_sandbox),
    "legacy_sandbox_on": ("as legacy_sandbox, and a sandbox url is set (the top-level one, or the one it replaces)",
                          lambda get, release: _legacy_sandbox(get, release) and bool(
                              get("sandbox_fusion.url") or get("reward.sandbox_fusion.url"))),
    "rm_worker_tokenizer": ("a reward model scores on its worker and model.input_tokenizer is set: FSDP's worker "
                            "renders the response again and cuts it at max_length, Megatron's decodes it",
                            lambda get, release: _reward_model_on("trainer")(get, release)
                            and bool(get("reward_model.model.input_tokenizer"))),
    "rm_worker": ("a reward model scores on its worker (to 0.6.x; 0.7.0 without the reward loop)",
                  _reward_model_on("trainer")),
    "rm_worker_template": ("as rm_worker, FSDP's worker, and model.input_tokenizer is set (the response rendered "
                           "again with the reward model's chat template, cut at max_length)", lambda get, release:
                           _reward_model_on("trainer")(get, release) and bool(get("reward_model.model.input_tokenizer"))
                           and get("reward_model.strategy") not in MCORE),
    "rm_engine_legacy": ("a reward model scores on a rollout server from reward_model.rollout (0.7.0's own; from "
                         "0.7.1 where the trainer migrates it and the key is set)", _legacy_engine()),
    "rm_engine_legacy_context": ("as rm_engine_legacy, where the release's server reads max_model_len (not 0.7.0's)",
                                 _legacy_engine(context=True)),
    "rm_engine": ("a reward model scores on a rollout server from reward.reward_model.rollout (0.7.1 on; the legacy "
                  "key, where migrated and set, wins)", _section_engine()),
    "rm_vllm": ("as rm_engine, on vLLM's server (SGLang's reads no sampling defaults, seed, ignore_eos or "
                "quantization file)", _section_engine(vllm=True)),
    # data
    "sampler": ("a curriculum sampler orders the data (data.sampler.class_path)", _true("data.sampler.class_path")),
    "no_sampler": ("no curriculum sampler orders the data (data.sampler.class_path unset)",
                   _unset("data.sampler.class_path")),
    "custom_dataset": ("a dataset class of the user's reads the rows (data.custom_cls.path)",
                       _true("data.custom_cls.path")),
    "datagen": ("a data generator is read: by a dataset class of the user's (data.custom_cls.path), or by 0.5.0-0.6.x's "
                "main_ppo, which picks DynamicGenDataset for it (the release table's datagen)",
                lambda get, release: _semantics(release)[1].value("datagen") != "unread" and (
                    bool(get("data.custom_cls.path")) or _semantics(release)[1].value("datagen") == "main_ppo")),
    "custom_datagen": ("a dataset class of the user's reads the rows and data.datagen.path names a generator (verl's "
                       "DynamicGenDataset loads data.datagen.path:name)", lambda get, release:
                       bool(get("data.custom_cls.path")) and bool(get("data.datagen.path"))),
    "continuous_token": ("the agent loop keeps the rollout's token stream (data.continuous_token.enable)",
                         _true("data.continuous_token.enable")),
    "thinking_switch_sft": ("the SFT dataset takes the thinking switch of apply_chat_template_kwargs (not the engine "
                            "trainer's multi-turn dataset where data.enable_thinking_default, not None, replaces it)",
                            lambda get, release: get(LEGACY_SFT) is not None
                            or get("data.enable_thinking_default") is None),
    # sampling
    "multi_turn": ("the rollout runs several turns (SGLang's sync rollout with multi_turn.enable; an async "
                   "rollout's agent loop with multi_turn.enable or a default agent loop other than single_turn_agent: "
                   "rftc.mapping.reward_loop)", _multi_turn),
    "multi_turn_read": ("the rollout reads multi_turn.enable (SGLang's sync rollout, 0.4.0 to 0.6.x; an async "
                        "rollout, whose rows' agent loop it declares)",
                        lambda get, release: _async_rollout(get, release) or get(f"{R}.name") == "sglang"),
    "agent_loop": ("the rollout is async: each row runs an agent loop (its agent_name, else default_agent_loop)",
                   _async_rollout),
    "multi_turn_async": ("the rollout runs several turns in an agent loop", lambda get, release:
                         _async_rollout(get, release) and _multi_turn(get, release)),
    "turns_by_mode": ("the release runs sync and async rollouts (0.4.0 to 0.6.x) and the launch declares several "
                      "turns (multi_turn.enable, or a default agent loop other than single_turn_agent): rollout.mode "
                      "chooses SGLang's tool-calling loop or none, or the rows' agent loops", lambda get, release:
                      _semantics(release)[1].value("rollout_modes") == ("sync", "async") and (
                          bool(get(f"{R}.multi_turn.enable"))
                          or get(f"{R}.agent.default_agent_loop") not in (None, "single_turn_agent"))),
    "filters_prompts": ("the dataset leaves over-long prompts out (data.filter_overlong_prompts), measuring them "
                        "with the tools' schemas", lambda get, release: bool(get("data.filter_overlong_prompts"))
                        and _semantics(release)[1].value("prompt_filter") == "read"),
    "sample_flag": ("the rollout reads do_sample (hf, naive; vLLM and SGLang do not)",
                    lambda get, release: get(f"{R}.name") in _sample_flag_readers()),
    "reads_ignore_eos": ("the release's rollout samples with ignore_eos", _reads_sampling_key("ignore_eos")),
    "reads_context": ("the release's rollout gives the engine rollout.max_model_len (not verl 0.6's async servers, "
                      "nor 0.7.0's)", _reads_context),
    "truncates": ("over-long prompts are kept, and cut as data.truncation says (the release's dataset reads it; "
                  "data.filter_overlong_prompts off)", _truncates),
    # trainer loops
    "train_batch": ("a step trains data.train_batch_size prompts (not the fully async trainer)",
                    _unset("async_training.require_batches")),
    "steps_bound": ("the run's length is trainer.total_training_steps (not the fully async rollout's)",
                    _unset("rollout.total_rollout_steps")),
    "v1": ("main_ppo routes to veRL's v1 trainers (trainer.use_v1)", lambda get, release: _v1(get) is not None),
    "v1_async": ("one of veRL's v1 asynchronous trainer loops",
                 lambda get, release: _v1(get) in ("colocate_async", "separate_async")),
    "colocate_async": ("veRL's v1 colocate_async trainer loop", lambda get, release: _v1(get) == "colocate_async"),
    "separate_async": ("veRL's v1 separate_async trainer loop", lambda get, release: _v1(get) == "separate_async"),
    "reads_val_only": ("the trainer reads trainer.val_only (from verl 0.2; not the fully async trainer) and its "
                       "first validation runs (trainer.val_before_train)",
                       lambda get, release: _reads_val_only(get, release) and bool(get(f"{T}.val_before_train"))),
    "val_only": ("trainer.val_only is set where the trainer reads it (from verl 0.2; not the fully async trainer)",
                 lambda get, release: _reads_val_only(get, release) and bool(get(f"{T}.val_only"))),
    # how a step's loss is made from its micro-batches (rftc.mapping.microloss)
    **{f"{prefix}micro_rows": (f"{whose} trains fixed micro-batches of its per-GPU size whose rows decide its step's "
                               "loss (the legacy workers' micro-batch token means, or token sums over the width "
                               "before 0.7.1; a sum of micro-batches' losses)", _micro_reads(role, "micro"))
       for role, prefix, whose in MICRO_ROLES},
    **{f"{prefix}global_micro": (f"{whose} trains fixed micro-batches of a global size the release divides by its "
                                 "data-parallel ranks, whose rows decide its step's loss",
                                 _micro_reads(role, "global")) for role, prefix, whose in MICRO_ROLES},
    **{f"{prefix}budget_switch": (f"use_dynamic_bsz changes how {whose} makes its step's loss (not the legacy FSDP "
                                  "workers' sequence means, which weigh a token budget's micro-batches by rows)",
                                  _micro_reads(role, "switch")) for role, prefix, whose in MICRO_ROLES},
    **{f"{prefix}budget": (f"{whose} trains micro-batches of a token budget whose losses it does not normalise by the "
                           "mini-batch", _micro_reads(role, "budget")) for role, prefix, whose in MICRO_ROLES},
    **{f"{prefix}{what}_ranks": (f"{whose} makes its step's loss from its data-parallel ranks (a global micro-batch "
                                 f"size divided by them; the engine critic of 0.6.1 to 0.8.0 adds up its "
                                 f"micro-batches a GPU), counted with {how}", _micro_reads(role, what))
       for role, prefix, whose in MICRO_ROLES for what, how in (
           ("fsdp_sp", "its own Ulysses size (FSDP)"), ("megatron", "its Megatron sizes (TP x PP x CP)"),
           ("engine_sp", "its FSDP engine's Ulysses size")) if role == "critic" or what != "engine_sp"},
    "trainer_gpus_count": ("the rollout has GPUs of its own (the off-policy trainers, v1 separate_async), or a step's "
                           "loss reads the data-parallel ranks (rftc.mapping.microloss)", lambda get, release:
                           _positive(get, "rollout.nnodes") or _v1(get) == "separate_async"
                           or _micro_reads("actor", "ranks")(get, release)
                           or _micro_reads("critic", "ranks")(get, release)),
    # SFT trainers
    "legacy_sft": ("fsdp_sft_trainer's config", lambda get, release: get(LEGACY_SFT) is not None),
    "engine_sft": ("the engine SFT trainer's config", _unset(LEGACY_SFT)),
    "scheduler_type_sft": ("the engine SFT trainer, optim.warmup_style unset",
                           lambda get, release: get(LEGACY_SFT) is None and get("optim.warmup_style") is None),
    "single_turn_sft": ("rows are prompt and response columns (fsdp_sft_trainer without multiturn)",
                        lambda get, release: get(LEGACY_SFT) is not None and not get("data.multiturn.enable")),
    "multiturn_sft": ("rows are chat messages (data.multiturn.enable)", _true("data.multiturn.enable")),
    "static_bsz_sft": ("micro-batches by rows (data.use_dynamic_bsz off)",
                       lambda get, release: not get("data.use_dynamic_bsz")),
    "dynamic_bsz": ("micro-batches by tokens (data.use_dynamic_bsz)", _true("data.use_dynamic_bsz")),
    "fsdp_sft": ("the SFT trainer's engine is not Megatron's (which reads model.lora.*)",
                 lambda get, release: get("engine.strategy") not in MCORE),
    "lora_sft": ("LoRA is on (model.lora_rank > 0, an engine other than Megatron's)",
                 lambda get, release: _positive(get, "model.lora_rank") and get("engine.strategy") not in MCORE),
    "megatron_lora_sft": ("Megatron LoRA is on (model.lora.rank > 0, engine megatron)", lambda get, release:
                          _positive(get, "model.lora.rank") and get("engine.strategy") in MCORE),
    # off-policy rollouts (rftc.mapping.correction, rftc.verl.releases.modes)
    **{name: (words, _correction_reads(key)) for name, (key, words) in CORRECTION_READS.items()},
    "rollout_name": ("the rollout generates with the actor's FSDP module (hf, naive), or the trainer uses the "
                     "log-probs the rollout returns", lambda get, release: get(f"{R}.name") in ("hf", "naive")
                     or _logprobs_returned(get, release)),
    "vllm_logprobs": ("the trainer uses the rollout's log-probs, which vLLM returns", lambda get, release:
                      _logprobs_returned(get, release) and get(f"{R}.name") == "vllm"),
    "over_sample_read": ("the release's rollout reads over_sample_rate (verl 0.6.x's SGLang multi-turn rollout, "
                         "not the agent loop)", _over_sample_read),
    "stale": ("a v1 asynchronous trainer's rollouts reach max_off_policy_threshold updates old", _stale),
    "hybrid_switch": ("v1 separate_async lends the trainer's GPUs to rollout (hybrid_rollout.enable_switch, "
                      "hybrid_engine)", _hybrid_switch),
    "hybrid_adaptive": ("v1 separate_async's hybrid rollout adapts its switch threshold (adaptive_switch_threshold)",
                        lambda get, release: _hybrid_switch(get, release) and
                        get(f"{T}.v1.separate_async.hybrid_rollout.adaptive_switch_threshold") is True),
    "hybrid_requested": ("v1 separate_async's hybrid_rollout.enable_switch is on", lambda get, release:
                         _v1(get) == "separate_async" and
                         get(f"{T}.v1.separate_async.hybrid_rollout.enable_switch") is True),
    "custom_sampler": ("a v1 trainer loads a custom replay sampler (trainer.v1.sampler.custom_sampler.path and "
                       "name)", _custom_sampler),
    "mtp_train_sft": ("the engine SFT trainer's Megatron engine trains the MTP layers (model.mtp.enable and "
                      "enable_train)", lambda get, release: get("engine.strategy") in MCORE
                      and bool(get("model.mtp.enable")) and bool(get("model.mtp.enable_train"))),
}

# the reward path's own conditions (the release's manager, sandbox and reward model: rftc.mapping.reward_loop) hold
# where the reward is read (not veRL's on-policy distillation without task rewards: rftc.mapping.distill)
WHEN.update({name: (f"{text}, and the reward is read", _read(holds)) for name, (text, holds) in WHEN.items() if name in (
    "legacy_manager_name", "loop_manager", "loop_importlib", "loop_class", "trainer_manager", "trainer_importlib",
    "section_manager", "section_importlib", "reward_loop_switch", "trainer_sandbox", "trainer_sandbox_on",
    "section_sandbox", "section_sandbox_on", "legacy_sandbox", "legacy_sandbox_on", "rm_worker_tokenizer", "rm_worker",
    "rm_worker_template", "rm_engine_legacy", "rm_engine_legacy_context", "rm_engine", "rm_vllm")})
