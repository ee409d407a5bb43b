"""veRL's startup checks over the effective config: what main_ppo's config validation refuses before anything
runs, with veRL's own messages, for the verl release the config follows (rftc.verl.releases.semantics). A launch that
fails here would fail the same way in Trinity's trainer.

    check_startup(eff, diags)

verl 0.1 validates nothing; 0.2.x to 0.5.0 run RayPPOTrainer._validate_config; 0.6.0 and later
verl.utils.config.validate_config plus ActorConfig/CriticConfig.__post_init__ and validate(). The checks that
differ between releases are facts of rftc.verl.releases.semantics."""

from __future__ import annotations

from dataclasses import dataclass

from rftc.diagnostics.collector import Diagnostics
from rftc.verl.checkout.trainer_code import validation_code
from rftc.verl.releases import semantics
from rftc.verl.effective import EffectiveConfig
from rftc.verl.releases.modes import FULLY_ASYNC
from rftc.verl.trainers import converts

ACTOR, REF, ROLLOUT = "actor_rollout_ref.actor", "actor_rollout_ref.ref", "actor_rollout_ref.rollout"
FSDP = {"fsdp", "fsdp2"}


@dataclass(frozen=True)
class MicroPair:
    """A section that needs exactly one of a deprecated global micro batch size and its per-GPU form."""
    section: str  # where the keys live
    param: str  # the global key's name in the section; '<param>_per_gpu' is the per-GPU one
    label: str  # how veRL names the section in its message
    label_param: str  # how veRL names the key in its message
    dataclass_style: bool  # the actor's dataclass message (0.6.0+): "... if use_dynamic_bsz is not enabled."
    message_space: bool = True  # "'*_..._per_gpu' is supported" (verl 0.4.x writes "'*_..._per_gpu'is supported")


def micro_pairs(sem: semantics.Semantics) -> dict[str, MicroPair]:
    """actor / ref / rollout / critic micro-batch pairs as the release names them in its messages."""
    old = sem.value("startup_checks") == "trainer"  # one helper for every section, keyed by the full path
    log_prob = "log_prob_micro_batch_size" if sem.value("log_prob_micro_names") else "micro_batch_size"
    space = not old or sem.value("micro_both_message_space")
    actor = MicroPair(ACTOR, "ppo_micro_batch_size", ACTOR if old else "actor",
                      "micro_batch_size" if old else "ppo_micro_batch_size", not old, space)
    return {
        "actor": actor,
        "ref": MicroPair(REF, "log_prob_micro_batch_size", REF, log_prob, False, space),
        "rollout": MicroPair(ROLLOUT, "log_prob_micro_batch_size", ROLLOUT, log_prob, False, space),
        "critic": MicroPair("critic", "ppo_micro_batch_size", "critic", "micro_batch_size", False, space),
    }


def _int(v):
    """An integer setting, or None when the value is not a known integer (the check is then not decidable)."""
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _flag(v):
    """A boolean setting (null is False), or None when the value is not known statically (${oc.env:...})."""
    return v if isinstance(v, bool) else False if v is None else None


def uses_reference(eff: EffectiveConfig, sem: semantics.Semantics):
    """main_ppo's reference policy: always before 0.4.0, then only for a KL term in the reward or in the loss
    (None: not known statically)."""
    if sem.value("reference_policy") == "always":
        return True
    flags = {_flag(eff.get("algorithm.use_kl_in_reward", False)), _flag(eff.get(f"{ACTOR}.use_kl_loss", False))}
    return True if True in flags else None if None in flags else False


def uses_critic(eff: EffectiveConfig, sem: semantics.Semantics):
    """Whether the trainer builds a critic: critic.enable when set (0.6.0+), else GAE needs one (None: not
    known)."""
    enable = eff.get("critic.enable", None)
    if enable is not None and sem.value("critic_used") == "enable_or_gae":
        return _flag(enable)
    return eff.get("algorithm.adv_estimator", None) == "gae"


def _check(sem: semantics.Semantics, fact: str) -> bool:
    """A check the release has for certain (one a development snapshot may lack is not run)."""
    return bool(sem.value(fact)) and sem.doubt(fact) is None


class _Report:
    def __init__(self, eff: EffectiveConfig, diags: Diagnostics, release: str):
        self.eff, self.diags, self.release = eff, diags, release
        self.fallback = eff.invocation.span if eff.invocation else None
        self.fork = validation_code(eff.source) if eff.source else None  # a copy's own validation code

    def span(self, *keys: str):
        """The span of the first key the launch set (its override's line), else the launch's own."""
        for key in keys:
            p = self.eff.prov(key)
            if p.span is not None:
                return p.span
        return self.fallback

    def __call__(self, code: str, message: str, keys: tuple[str, ...], hint: str) -> None:
        unread = [k for k in keys if self.fork is not None and not self.fork.reads(k)]
        if code == "RFTC221" and unread:  # the fork's code has no such check: its trainer decides, not upstream's
            self.diags.add("RFTC228", f"'{message}' is a startup check of upstream veRL ({self.release}), not of the "
                           f"veRL fork the launch runs: its validation code ({self.fork.shown()}) never reads "
                           f"{', '.join(k.rsplit('.', 1)[-1] for k in unread)}, so the fork's own trainer decides "
                           "what these values do", self.span(*keys), key=keys[0],
                           hint="read the fork's trainer to see what it does with them; the conversion follows "
                                "upstream veRL's semantics")
            return
        self.diags.add(code, message, self.span(*keys), key=keys[0] if keys else None, hint=hint)


def _where(eff: EffectiveConfig, key: str) -> str:
    """'key=value (line N)' for a key the launch set, 'key=value (default)' otherwise."""
    p = eff.prov(key)
    where = f"line {p.span.line}" if p.span is not None and p.user_set else "default"
    return f"{key}={eff.get(key, None)} ({where})"


def _micro(eff: EffectiveConfig, pair: MicroPair, say: _Report) -> None:
    glob, per_gpu = f"{pair.section}.{pair.param}", f"{pair.section}.{pair.param}_per_gpu"
    mbs, mbs_gpu = eff.get(glob, None), eff.get(per_gpu, None)
    first, second = f"{pair.label}.{pair.label_param}", f"{pair.label}.{pair.label_param}_per_gpu"
    if mbs is None and mbs_gpu is None:
        tail = " if use_dynamic_bsz is not enabled." if pair.dataclass_style else "."
        say("RFTC221", f"[{pair.label}] Please set at least one of '{first}' or '{second}'{tail}", (per_gpu, glob),
            f"add {per_gpu}=<per-GPU micro batch size> to the launch (or enable "
            f"{ACTOR if pair.section != 'critic' else 'critic'}.use_dynamic_bsz=True)")
    elif mbs is not None and mbs_gpu is not None:
        param = pair.label_param + "_per_gpu"
        space = " " if pair.message_space else ""  # verl 0.4.x joins the two strings without one
        say("RFTC221", f"[{pair.label}] You have set both '{first}' AND '{second}'. Please remove '{first}' because "
            f"only '*_{param}'{space}is supported (the former is deprecated).", (glob, per_gpu),
            f"remove {glob} ({_where(eff, glob)}); keep {per_gpu}")


def _per_gpu_only(eff: EffectiveConfig, sem: semantics.Semantics, pair: MicroPair, say: _Report) -> None:
    """From 0.8.0 the engine workers read only the per-GPU size (global_micro: ignored) and assert the actor's
    and the rollout's are set (ActorRolloutRefWorker.init_model, an assert without a message)."""
    glob, per_gpu = f"{pair.section}.{pair.param}", f"{pair.section}.{pair.param}_per_gpu"
    certain = sem.value("global_micro") == "ignored" and sem.doubt("global_micro") is None
    if certain and eff.get(glob, None) is not None and eff.get(per_gpu, None) is None:
        say("RFTC221", f"assert {per_gpu} is not None: verl {sem.release}'s workers read only the per-GPU micro batch "
            f"size, not {pair.param}", (glob, per_gpu),
            f"replace {glob} ({_where(eff, glob)}) by {per_gpu}=<{pair.param} / data-parallel GPUs>")


def check_startup(eff: EffectiveConfig, diags: Diagnostics) -> None:
    """Report what veRL's startup validation of ``eff`` refuses (RFTC221), notices (RFTC222) and warns (RFTC223)."""
    # other entry points validate in their own way (the fully async rollouter has its _validate_config); the
    # one-step-off trainer calls main_ppo's validate_config
    if eff.invocation is not None and (not converts(eff.invocation) or eff.invocation.module == FULLY_ASYNC):
        return
    sem = semantics.of(eff)
    if sem.value("startup_checks") is None or sem.doubt("startup_checks") is not None:
        return  # verl 0.1 validates nothing (nor may a snapshot declaring it)
    old = sem.value("startup_checks") == "trainer"  # RayPPOTrainer._validate_config (0.2 to 0.5.0)
    say = _Report(eff, diags, sem.release)
    g = lambda key: eff.get(key, None)  # noqa: E731
    pairs = micro_pairs(sem)
    nnodes, per_node = _int(g("trainer.nnodes")), _int(g("trainer.n_gpus_per_node"))
    n_gpus = nnodes * per_node if nnodes is not None and per_node is not None else None
    gpus_keys = ("trainer.n_gpus_per_node", "trainer.nnodes")
    # rules that depend on a flag only known at run time are not decided
    static = _flag(g(f"{ACTOR}.use_dynamic_bsz")) is False  # fixed micro batches: the micro-batch rules apply
    strategy = g(f"{ACTOR}.strategy")
    tbs, n = _int(g("data.train_batch_size")), _int(g(f"{ROLLOUT}.n"))
    mini = _int(g(f"{ACTOR}.ppo_mini_batch_size"))
    micro = g(f"{ACTOR}.ppo_micro_batch_size")

    # 1 (and 2 for Megatron): the batch must split over the data-parallel ranks; up to 0.5.0 also with dynamic
    # batch sizes; before 0.4.0 over all GPUs whatever the engine
    if (static or old) and n_gpus is not None:
        minimal = None
        if strategy == "megatron" and sem.value("megatron_minimal_batch"):
            meg = f"{ACTOR}.megatron"
            tp, pp, cp = (_int(g(f"{meg}.{k}")) for k in ("tensor_model_parallel_size",
                                                           "pipeline_model_parallel_size", "context_parallel_size"))
            if None not in (tp, pp, cp):
                mp = tp * pp
                if n_gpus % (mp * cp):
                    say("RFTC221", f"n_gpus ({n_gpus}) must be divisible by model_parallel_size ({mp}) times "
                        f"context_parallel_size ({cp})", (f"{meg}.tensor_model_parallel_size",
                                                          f"{meg}.pipeline_model_parallel_size",
                                                          f"{meg}.context_parallel_size", *gpus_keys),
                        "choose tensor/pipeline/context parallel sizes whose product divides "
                        "trainer.n_gpus_per_node * trainer.nnodes")
                elif _int(g(f"{ACTOR}.ppo_micro_batch_size_per_gpu")) is not None:
                    minimal = n_gpus // (mp * cp) * g(f"{ACTOR}.ppo_micro_batch_size_per_gpu")
        else:
            minimal = n_gpus
        if minimal and tbs is not None and n is not None and (tbs * n) % minimal:
            what = f"minimal possible batch size ({minimal})" if sem.value("megatron_minimal_batch") else \
                f"total n_gpus ({minimal})."
            say("RFTC221", f"real_train_batch_size ({tbs * n}) must be divisible by {what}",
                ("data.train_batch_size", f"{ROLLOUT}.n", *gpus_keys),
                f"data.train_batch_size * rollout.n is split evenly over the data-parallel ranks: make "
                f"{tbs} * {n} a multiple of {minimal}")

    if static:
        _micro(eff, pairs["actor"], say)

    mode = g(f"{ACTOR}.loss_agg_mode")
    modes = sem.value("loss_agg_modes")
    if isinstance(mode, str) and mode not in modes and len(modes) > 1:  # the key is read from 0.4.0 on
        say("RFTC221", f"Invalid loss_agg_mode: {mode}", (f"{ACTOR}.loss_agg_mode",),
            f"verl {sem.release} accepts {', '.join(modes)}")

    # 5 (up to 0.5.0 asserts without a message; rftc words them as 0.6.0+ does)
    if static:
        sp = _int(g(f"{ACTOR}.ulysses_sequence_parallel_size")) or 1
        if _check(sem, "check_mini_within_batch") and tbs is not None and mini is not None and tbs < mini:
            say("RFTC221", f"train_batch_size ({tbs}) must be >= actor.ppo_mini_batch_size ({mini})",
                (f"{ACTOR}.ppo_mini_batch_size", "data.train_batch_size"),
                "lower actor_rollout_ref.actor.ppo_mini_batch_size to at most data.train_batch_size")
        if _int(micro) and mini is not None and mini % micro:
            say("RFTC221", f"ppo_mini_batch_size ({mini}) must be divisible by ppo_micro_batch_size ({micro})",
                (f"{ACTOR}.ppo_micro_batch_size", f"{ACTOR}.ppo_mini_batch_size"),
                "use actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu instead, or a micro size that divides "
                "the mini batch")
        if _int(micro) and n_gpus is not None and micro * sp < n_gpus:
            say("RFTC221", f"ppo_micro_batch_size ({micro}) * ulysses_sequence_parallel_size ({sp}) must be >= "
                f"n_gpus ({n_gpus})", (f"{ACTOR}.ppo_micro_batch_size", *gpus_keys),
                "use actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu instead")

    # 6: Ulysses sequence parallelism packs sequences, which needs padding removed (up to 0.5.0 the ref's size
    # counts too; 0.6.0+ only the actor's)
    sp_keys = [f"{ACTOR}.ulysses_sequence_parallel_size"] + ([f"{REF}.ulysses_sequence_parallel_size"] if old
                                                             else [])
    sp_set = [k for k in sp_keys if (_int(g(k)) or 1) > 1]
    if strategy in sem.value("sp_strategies") and sp_set and _flag(g("actor_rollout_ref.model.use_remove_padding")) is False:
        say("RFTC221", "When using sequence parallelism for actor/ref policy, you must enable `use_remove_padding`.",
            (sp_set[0], "actor_rollout_ref.model.use_remove_padding"),
            "add actor_rollout_ref.model.use_remove_padding=True")

    # 7: the log-prob passes of the rollout (always) and the reference model (when there is one)
    if static:
        if uses_reference(eff, sem):
            _micro(eff, pairs["ref"], say)
        _micro(eff, pairs["rollout"], say)

    if sem.value("kl_notice") and _flag(g("algorithm.use_kl_in_reward")) and _flag(g(f"{ACTOR}.use_kl_loss")):
        say("RFTC222", "NOTICE: You have both enabled in-reward kl and kl loss.",
            ("algorithm.use_kl_in_reward", f"{ACTOR}.use_kl_loss"),
            "the KL penalty is applied twice (in the reward and in the loss); keep one unless that is intended")

    if uses_critic(eff, sem) and _flag(g("critic.use_dynamic_bsz")) is False:
        _check_critic(eff, sem, pairs["critic"], tbs, n_gpus, say)

    if static:  # when the workers start, after the validation above
        for role in ("rollout", "actor"):  # init_model's order
            _per_gpu_only(eff, sem, pairs[role], say)

    if _check(sem, "warn_val_batch_size") and g("data.val_batch_size") is not None:
        say("RFTC223", "WARNING: val_batch_size is deprecated. Validation datasets are sent to inference engines "
            "as a whole batch, which will schedule the memory themselves.", ("data.val_batch_size",),
            "remove data.val_batch_size")

    temp = g(f"{ROLLOUT}.temperature")
    if _check(sem, "check_val_sampling") and _flag(g(f"{ROLLOUT}.val_kwargs.do_sample")) and \
            isinstance(temp, (int, float)) and temp <= 0:
        say("RFTC221", "validation gen temperature should be greater than 0 when enabling do_sample",
            (f"{ROLLOUT}.temperature", f"{ROLLOUT}.val_kwargs.do_sample"),
            f"set {ROLLOUT}.temperature above 0, or {ROLLOUT}.val_kwargs.do_sample=False")


def _check_critic(eff: EffectiveConfig, sem: semantics.Semantics, pair: MicroPair, tbs, n_gpus, say: _Report) -> None:
    """The critic's micro-batch checks (CriticConfig __post_init__ / validate; the trainer's up to 0.5.0)."""
    old = sem.value("startup_checks") == "trainer"
    g = lambda key: eff.get(key, None)  # noqa: E731
    _micro(eff, pair, say)
    mini, micro = _int(g("critic.ppo_mini_batch_size")), _int(g("critic.ppo_micro_batch_size"))
    if micro and mini is not None and mini % micro:
        say("RFTC221", f"[critic] ppo_mini_batch_size ({mini}) must be divisible by ppo_micro_batch_size ({micro})",
            ("critic.ppo_micro_batch_size", "critic.ppo_mini_batch_size"),
            "use critic.ppo_micro_batch_size_per_gpu instead, or a micro size that divides the mini batch")
    if _check(sem, "check_mini_within_batch") and tbs is not None and mini is not None and tbs < mini:
        say("RFTC221", f"train_batch_size ({tbs}) must be >= critic.ppo_mini_batch_size ({mini})",
            ("critic.ppo_mini_batch_size", "data.train_batch_size"),
            "lower critic.ppo_mini_batch_size to at most data.train_batch_size")
    strategy = g("critic.strategy")
    sp = _int(g("critic.ulysses_sequence_parallel_size")) or 1
    # up to 0.5.0 checked for every engine, 0.6.0+ in the FSDP critic only
    if micro and n_gpus is not None and micro * sp < n_gpus and (strategy in FSDP or old):
        say("RFTC221", f"critic.ppo_micro_batch_size ({micro}) * ulysses_sequence_parallel_size ({sp}) must be >= "
            f"n_gpus ({n_gpus})", ("critic.ppo_micro_batch_size", "trainer.n_gpus_per_node", "trainer.nnodes"),
            "use critic.ppo_micro_batch_size_per_gpu instead")
    if strategy in sem.value("sp_strategies") and sp > 1 and sem.value("critic_sp_padding_check") and \
            _flag(g("critic.model.use_remove_padding")) is False:
        say("RFTC221", "When using sequence parallelism for critic, you must enable `use_remove_padding`.",
            ("critic.ulysses_sequence_parallel_size", "critic.model.use_remove_padding"),
            "add critic.model.use_remove_padding=True")
