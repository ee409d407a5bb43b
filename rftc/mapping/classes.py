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


def _rule_reward(get, release: str) -> bool:
    return not any(get(k) for k in RM_ON)


def _legacy_reward(get, release: str) -> bool:
    """The trainer migrates the legacy reward keys (reward_model.*, custom_reward_function.*, sandbox_fusion.*):
    every release's trainers but verl 0.9's main_ppo (rftc.verl.releases.legacy), whose configs have no top-level
    rollout section (the off-policy trainers' have one)."""
    from rftc.verl.releases import legacy

    return get("rollout.nnodes") is not None or not legacy.ignores_legacy("verl.trainer.main_ppo", release)


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


def _dual_clip(get, release: str) -> bool:
    if get(f"{RC}.bypass_mode"):
        return get(f"{RC}.loss_type") in (None, "ppo_clip")
    return get(f"{A}.policy_loss.loss_mode") in (None, "vanilla")


def _reads_context(get, release: str) -> bool:
    from rftc.mapping.data import reads_context

    return reads_context(get, _semantics(release)[1])


def _truncates(get, release: str) -> bool:
    _, sem = _semantics(release)
    return sem.value("prompt_filter") == "read" and not get("data.filter_overlong_prompts")


WHEN: dict[str, tuple[str, Callable]] = {
    # loss and advantage
    "kl_loss": ("the KL loss is on (actor.use_kl_loss)", _true(f"{A}.use_kl_loss")),
    "kl": ("a reference model is read (a KL loss or KL in the reward)",
           lambda get, release: bool(get(f"{A}.use_kl_loss")) or _kl_in_reward(get, release)),
    "kl_in_reward": ("KL is in the reward (algorithm.use_kl_in_reward; before 0.3.0.post1 without a KL loss)",
                     _kl_in_reward),
    "adaptive_kl": ("the KL controller is adaptive", _is("algorithm.kl_ctrl.type", "adaptive")),
    "critic": ("a critic is trained (adv_estimator gae)", _is("algorithm.adv_estimator", "gae")),
    "critic_lora": ("the critic trains LoRA", lambda get, release: _positive(get, f"{C}.model.lora_rank")),
    "discounted": ("the estimator discounts (gae, reinforce_plus_plus)",
                   _is("algorithm.adv_estimator", "gae", "reinforce_plus_plus")),
    "grpo": ("the estimator normalises groups (grpo)", _is("algorithm.adv_estimator", "grpo")),
    "clip_ratio": ("the loss reads clip_ratio (clip_ratio_low/high unset)", _unset(f"{A}.clip_ratio_low")),
    "clipped": ("the policy loss clips the ratio (not sapo, gpg)", lambda get, release: bool(
        get(f"{RC}.bypass_mode")) or get(f"{A}.policy_loss.loss_mode") not in ("sapo", "gpg")),
    "dual_clip": ("the policy loss is PPO's (its dual clip)", _dual_clip),
    "sapo": ("the policy loss is sapo", _is(f"{A}.policy_loss.loss_mode", "sapo")),
    "agg_read": ("the policy loss reads loss_agg_mode (sapo's is seq-mean-token-mean)", lambda get, release: bool(
        get(f"{RC}.bypass_mode")) or get(f"{A}.policy_loss.loss_mode") != "sapo"),
    "no_bypass": ("the loss is the actor's (no rollout_correction.bypass_mode)",
                  lambda get, release: not get(f"{RC}.bypass_mode")),
    "bypass": ("the rollout's log-probs are the old ones (rollout_correction.bypass_mode)", _true(f"{RC}.bypass_mode")),
    "token_sum_norm": ("the loss aggregates by seq-mean-token-sum-norm",
                       _is(f"{A}.loss_agg_mode", "seq-mean-token-sum-norm")),
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
    # model and optimizer
    "lora": ("LoRA is on (lora_rank > 0)", lambda get, release: _positive(get, f"{M}.lora_rank")),
    "megatron_lora": ("Megatron LoRA is on (model.lora.rank > 0, strategy megatron)", lambda get, release:
                      _positive(get, f"{M}.lora.rank") and get(f"{A}.strategy") in MCORE),
    "megatron_unit": ("Megatron's actor counts mini-batches in other units than FSDP's", _megatron_unit),
    "cosine": ("the lr schedule is cosine", lambda get, release: "cosine" in (
        get(f"{A}.optim.lr_scheduler_type"), get(f"{A}.optim.warmup_style"), get(f"{A}.optim.lr_decay_style"),
        get("optim.lr_scheduler"), get("optim.lr_scheduler_type"))),
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
    "fsdp_optim": ("the actor's optimizer is FSDP's (Megatron's takes no betas)",
                   lambda get, release: get(f"{A}.strategy") not in MCORE),
    "fsdp_lora": ("the actor is FSDP's (the Megatron workers read model.lora.*)",
                  lambda get, release: get(f"{A}.strategy") not in MCORE),
    "fsdp_lora_on": ("LoRA is on in an FSDP actor (lora_rank > 0)", lambda get, release:
                     get(f"{A}.strategy") not in MCORE and _positive(get, f"{M}.lora_rank")),
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
    "determinism_sft": ("the engine SFT trainer's engine is not Megatron's", lambda get, release:
                        get(LEGACY_SFT) is None and get("engine.strategy") not in MCORE),
    # reward
    "reward_model": ("a reward model scores", lambda get, release: not _rule_reward(get, release)),
    "rule_reward": ("no reward model scores (a reward function does)", _rule_reward),
    "legacy_reward_model": ("a reward model scores and the trainer migrates the legacy reward keys (not verl 0.9's "
                            "main_ppo)", lambda get, release: not _rule_reward(get, release)
                            and _legacy_reward(get, release)),
    "legacy_rule_reward": ("no reward model scores and the trainer migrates the legacy reward keys (not verl 0.9's "
                           "main_ppo)", lambda get, release: _rule_reward(get, release)
                           and _legacy_reward(get, release)),
    "legacy_custom_reward": ("custom_reward_function.path is set and the trainer migrates the legacy reward keys "
                             "(not verl 0.9's main_ppo)", lambda get, release:
                             bool(get("custom_reward_function.path")) and _legacy_reward(get, release)),
    "reward_section_reward": ("a reward function scores and custom_reward_function.path, read first, is unset",
                              lambda get, release: _rule_reward(get, release)
                              and not get("custom_reward_function.path")),
    "reward_custom_reward": ("a reward function scores, reward.custom_reward_function.path is set and no migrated "
                             "legacy one wins over it",
                             lambda get, release: _rule_reward(get, release)
                             and bool(get("reward.custom_reward_function.path")) and not (
                                 get("custom_reward_function.path") and _legacy_reward(get, release))),
    "reward_section_model": ("a reward model scores and no migrated legacy reward_model.model.path wins over "
                             "reward.reward_model.model_path", lambda get, release: not _rule_reward(get, release)
                             and not (get("reward_model.model.path") and _legacy_reward(get, release))),
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
    "multi_turn": ("multi-turn rollouts are on", _true(f"{R}.multi_turn.enable")),
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
    "own_rollout_gpus": ("the rollout has GPUs of its own (the off-policy trainers, v1 separate_async)",
                         lambda get, release: _positive(get, "rollout.nnodes") or _v1(get) == "separate_async"),
    "v1": ("main_ppo routes to veRL's v1 trainers (trainer.use_v1)", lambda get, release: _v1(get) is not None),
    "v1_async": ("one of veRL's v1 asynchronous trainer loops",
                 lambda get, release: _v1(get) in ("colocate_async", "separate_async")),
    "colocate_async": ("veRL's v1 colocate_async trainer loop", lambda get, release: _v1(get) == "colocate_async"),
    "separate_async": ("veRL's v1 separate_async trainer loop", lambda get, release: _v1(get) == "separate_async"),
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
    "lora_sft": ("LoRA is on (model.lora_rank > 0)", lambda get, release: _positive(get, "model.lora_rank")),
    "megatron_lora_sft": ("Megatron LoRA is on (model.lora.rank > 0, engine megatron)", lambda get, release:
                          _positive(get, "model.lora.rank") and get("engine.strategy") in MCORE),
}

# The quantities rows feed that the semantic model (rftc.semantics.model) does not compute yet, each with what it
# changes: `rftc diff` compares the keys that feed them value by value (RFTC605) instead of reading them as the same
# training, and tests/test_classification.py holds every name a row feeds to the model or this list (which only
# shrinks: a name the model computes fails there).
NOT_IN_MODEL: tuple[tuple[str, str], ...] = (
    ("advantage_args", "the arguments the advantage function is built with"),
    ("algorithm", "what Trinity's algorithm adds to its functions' defaults (its sample strategy, its schema)"),
    ("auxiliary_data", "the auxiliary experience buffers the trainer reads beside the rollouts"),
    ("auxiliary_models", "the auxiliary models workflows query (judges, tools) and how they generate"),
    ("code_sandbox", "the code-execution sandbox the reward runs responses in (its memory limit decides which fail)"),
    ("critic_lora", "the LoRA adapter the critic trains (rank, alpha, targets)"),
    ("critic_loss_agg_mode", "how the critic's loss aggregates tokens and scales"),
    ("critic_model_config", "the critic's own model settings (its config overrides, config file and chat template)"),
    ("critic_schedule_args", "the critic optimizer's engine-specific schedule and state settings"),
    ("critic_warmup", "the steps the critic trains before the actor starts"),
    ("distillation", "on-policy distillation from a teacher model (its models, sampling and loss)"),
    ("experience_pipeline", "the operators that rewrite or filter experiences before training"),
    ("experience_selection", "how experiences are sampled from the buffer for each step"),
    ("explorer_ahead", "how many batches the explorer runs ahead of the trainer"),
    ("external_model", "an external model service that generates the rollouts"),
    ("frozen_modules", "modules whose weights are frozen (such as the vision tower)"),
    ("group_refill", "how a trainer that filters groups refills the batch (prompts a round, rounds, rounds in flight)"),
    ("hybrid_rollout", "veRL's v1 hybrid rollout, which switches the trainer's GPUs to generation"),
    ("lora_args", "the LoRA adapter's other settings (excluded modules, a starting adapter)"),
    ("loss_normalization", "how the loss is normalised over data-parallel ranks' tokens"),
    ("loss_scale", "the factor the policy loss is scaled by"),
    ("lr_schedule_args", "the learning-rate schedule's other arguments"),
    ("megatron_lora", "Megatron's LoRA adapter (rank, alpha, targets)"),
    ("microbatch_loss_scale", "how each micro-batch's loss is scaled before accumulation"),
    ("mode", "what Trinity runs (explorer and trainer together, or one of them)"),
    ("model_config", "the model's own configuration overrides (such as RoPE scaling)"),
    ("moe_routing", "MoE routing replay (the trainer reuses the rollout's expert routing)"),
    ("mtp", "multi-token prediction layers"),
    ("multi_turn", "multi-turn rollouts, tools and agent loops"),
    ("over_sampling", "rollouts over-sampled and cut short, so a batch is the first to finish"),
    ("partial_rollout", "rollouts interrupted at a weight update and resumed with the new weights"),
    ("policy_loss_args", "the policy loss's other arguments"),
    ("precision", "the precision the model trains and its optimizer state are kept in"),
    ("reference_model_path", "a reference model of its own instead of the actor's initial weights"),
    ("replay_buffer", "replaying earlier experiences from a buffer"),
    ("replay_sampler", "main_ppo v1's replay sampler (a custom sampler and its arguments)"),
    ("reward_manager", "the reward manager that calls the reward function"),
    ("reward_model_args", "the reward model's settings (its tokenizer, lengths, configuration)"),
    ("rollout_correction", "importance-sampling correction of the rollout's off-policy log-probs"),
    ("rollout_engine", "the rollout engine's model and generation settings"),
    ("rollout_logprobs", "which log-probs the rollout engine returns (raw or processed)"),
    ("rollout_precision", "the precision or quantisation the rollout generates in"),
    ("staleness_filter", "rollouts dropped or reweighted when too far off-policy"),
    ("tinker", "training on the Tinker service instead of local workers"),
    ("tokenizer", "the tokenizer the rows are tokenized with"),
    ("trainer_backend", "the trainer's backend"),
    ("trainer_config_file", "a veRL worker config file laid over the trainer's"),
    ("val_only", "the run only validates, and trains nothing"),
    ("weight_init", "whether a model's weights are loaded from its path or initialised at random (load_weight)"),
    ("weight_sync", "how often the explorer takes the trainer's new weights"),
)
