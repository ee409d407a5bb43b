"""Actor, reference, rollout and critic settings that are not one-to-one: scheduler names, strategy,
dynamic batching, padding removal, LoRA, Megatron, and role-specific values Trinity derives from one field."""

from __future__ import annotations

from rftc.mapping import lora
from rftc.mapping.draft import Draft, Origin
from rftc.mapping.micro import per_gpu
from rftc.verl.micro import share

A, REF, R, M, C = ("actor_rollout_ref.actor", "actor_rollout_ref.ref", "actor_rollout_ref.rollout",
                   "actor_rollout_ref.model", "critic")
O = f"{A}.optim"
MEGATRON_PARALLEL = ("tensor_model_parallel_size", "pipeline_model_parallel_size",
                     "virtual_pipeline_model_parallel_size", "expert_model_parallel_size",
                     "expert_tensor_parallel_size", "context_parallel_size", "sequence_parallel")
MEGATRON_OFFLOAD = {"param_offload": "trainer.param_offload", "optimizer_offload": "trainer.optimizer_offload",
                    "grad_offload": "trainer.grad_offload"}
SCHEDULES = {"constant": "constant", "cosine": "cosine"}
# the optim key naming the schedule, in the order veRL reads them: its optimizer config takes the deprecated
# warmup_style over lr_scheduler_type where set (verl/workers/config/optimizer.py FSDPOptimizerConfig.__post_init__)
# the strategies whose workers are Megatron's (its optimizer config, Megatron-Bridge's LoRA): MindSpeed's engine is
# Megatron's (verl/workers/engine/mindspeed/transformer_impl.py MindspeedEngineWithLMHead(MegatronEngineWithLMHead))
MCORE = ("megatron", "mindspeed")
SCHEDULERS = ("warmup_style", "lr_scheduler_type", "lr_decay_style")
ROLLOUT_SEED = 42  # Trinity's InferenceModelConfig.seed, and verl 0.9's rollout.seed
SAMPLE_FLAG_READERS = ("hf", "naive")  # the rollouts whose generate reads rollout.do_sample


def strategy(d: Draft) -> str:
    if d.val("model_engine") == "megatron" or d.val(f"{A}.strategy") == "megatron":
        return "megatron"
    return str(d.val(f"{A}.strategy") or "fsdp")


def map_models(d: Draft, *, critic: bool) -> None:
    """lr_scheduler_type = optim.lr_scheduler_type (or the deprecated warmup_style, or megatron's
    lr_decay_style), min_lr_ratio written for cosine (veRL 0.0, Trinity 0.01); trainer.trainer_strategy =
    actor.strategy; trainer.use_dynamic_bsz = actor.use_dynamic_bsz (always written: veRL false, Trinity true);
    trainer.use_remove_padding = model.use_remove_padding; engine_type = rollout.name; LoRA ->
    model.lora_configs[0]; ref/rollout/critic copies of actor values Trinity derives from one field must agree
    (RFTC310/RFTC316)."""
    _scheduler(d)
    _strategy(d)
    dyn = d.flag(f"{A}.use_dynamic_bsz")
    if dyn is not None:
        d.set("trainer.use_dynamic_bsz", dyn, f"{A}.use_dynamic_bsz",
              note="" if d.user(f"{A}.use_dynamic_bsz") else "veRL default (Trinity's is true)")
    _one_value(d, "trainer.use_remove_padding", f"{M}.use_remove_padding",
               [f"{C}.model.use_remove_padding"] if critic else [])
    _follows(d, f"{A}.use_dynamic_bsz", [f"{REF}.log_prob_use_dynamic_bsz", f"{R}.log_prob_use_dynamic_bsz",
                                          f"{C}.use_dynamic_bsz"])
    _follows(d, f"{A}.ppo_max_token_len_per_gpu", [f"{REF}.log_prob_max_token_len_per_gpu",
                                                    f"{R}.log_prob_max_token_len_per_gpu",
                                                    f"{C}.ppo_max_token_len_per_gpu", f"{C}.forward_max_token_len_per_gpu"])
    _follows(d, f"{A}.ulysses_sequence_parallel_size", [f"{REF}.ulysses_sequence_parallel_size",
                                                         f"{C}.ulysses_sequence_parallel_size"])
    _grad_clip(d)
    _rollout_seed(d)
    _ignore_eos(d)
    _sampling_keys(d)
    _critic_clip(d, critic)
    _follows(d, f"{A}.strategy", [f"{REF}.strategy", f"{C}.strategy"])
    _critic_mini_batch(d, critic)
    if d.user(f"{C}.rollout_n"):
        d.report("RFTC316", f"{C}.rollout_n is set from algorithm.repeat_times by Trinity; the script's value is "
                 "not used", f"{C}.rollout_n")
    key = f"{C}.enable"
    if d.user(key):
        on = d.flag(key)
        if on is not None and on != critic:
            d.report("RFTC305", f"{key}={on}: Trinity trains a critic exactly when algorithm_type is ppo (gae); "
                     f"here it {'does' if critic else 'does not'}", key)
        else:
            d.implied(key, "matches the algorithm")
    if critic:
        _critic_loss_agg(d)
    _engine(d)
    map_lora(d)
    _model_config(d)


def _model_config(d: Draft) -> None:
    """The keys of override_config the release's worker does not apply (rftc.mapping.model_keys.applied: the
    Megatron workers of 0.4.0 to 0.7.x apply its model_config entry only, HFModelConfig that entry where the config
    has one), which Trinity's HFModelConfig would apply to a trainer_config without the entry; and the frozen router
    of moe_config, which only those Megatron workers read (the Megatron engine, Trinity's, reads
    actor.megatron.override_mcore_model_config's, where its row passes it)."""
    from rftc.mapping.model_keys import ROUTER, entry_only, override_rule, router_key

    entry = entry_only(d.val(f"{M}.override_config"), override_rule(d.val, d.sem, "actor"))
    router = f"{M}.override_config.{ROUTER}"
    for k in d.user_keys_under(f"{M}.override_config"):
        if d.done(k) or k == f"{M}.override_config":
            continue
        rest = k[len(f"{M}.override_config."):]
        if k == router and router_key(d.val, d.sem, "actor") != router:
            d.implied(k, f"not read: verl {d.sem.release}'s actor freezes no router for it")
        elif k != router and entry and not rest.startswith("model_config"):
            d.implied(k, f"not read: verl {d.sem.release}'s worker applies override_config.model_config only")


def engine_worker(get, sem, role: str = "actor") -> bool:
    """Whether the release runs the actor (or critic) on veRL's engine workers: the only ones from 0.8.0, or the
    legacy workers' replacement under trainer.use_legacy_worker_impl=disable (rftc.verl.releases.semantics
    "actor_clip", "critic_clip")."""
    rule = sem.value(f"{role}_clip")
    return rule == "optim" or (rule == "grad_clip_unless_engine" and get("trainer.use_legacy_worker_impl")
                               == "disable")


def clip_key(get, sem, megatron: bool, role: str = "actor") -> str:
    """The key a release's actor (or critic) clips its gradient norm at (``get(key)`` reads the config;
    rftc.verl.releases.semantics "actor_clip", "critic_clip"): the legacy FSDP worker's grad_clip, or the
    optimizer's optim.clip_grad (Megatron; the engine workers, whose optimizer config takes the deprecated
    optim.grad_clip over it)."""
    section = A if role == "actor" else C
    engine = engine_worker(get, sem, role)
    if not (megatron or engine) or get(f"{section}.optim.clip_grad") is None:
        return f"{section}.grad_clip"
    return f"{section}.optim.grad_clip" if engine and get(f"{section}.optim.grad_clip") is not None \
        else f"{section}.optim.clip_grad"


def greedy_rollout(get) -> bool:
    """Whether rollout.do_sample=False makes the training rollout greedy: veRL's vLLM and SGLang rollouts never
    read it (their do_sample comes from a validation batch's meta_info); the hf and naive rollouts do."""
    return get(f"{R}.name") in SAMPLE_FLAG_READERS and get(f"{R}.do_sample") is False


def reads_sampling_key(get, sem, key: str) -> bool:
    """Whether the training rollout samples with rollout.<key> (ignore_eos, repetition_penalty, ...): the sync
    vLLM rollout of verl 0.6 and before passes every config key naming a SamplingParams field; the agent loop
    (the async mode, the only one from 0.7.0) fixes them, except ignore_eos, which vLLM's server reads from 0.9.0
    (rftc.verl.releases.semantics "rollout_sampling_keys")."""
    rule = sem.value("rollout_sampling_keys")
    if rule == "config":
        return get(f"{R}.mode") != "async" and (get(f"{R}.name") or "vllm") == "vllm"
    return rule == "ignore_eos" and key == "ignore_eos" and (get(f"{R}.name") or "vllm") == "vllm"


def _ignore_eos(d: Draft) -> None:
    key = f"{R}.ignore_eos"
    if not d.user(key):
        return
    if reads_sampling_key(d.val, d.sem, "ignore_eos"):
        d.set("explorer.rollout_model.ignore_eos", d.flag(key), key)
    else:
        d.implied(key, f"verl {d.sem.release}'s {d.val(f'{R}.mode') or ''} {d.val(f'{R}.name') or 'vllm'} rollout "
                  "does not read it")


def _sampling_keys(d: Draft) -> None:
    """model.repetition_penalty and min_response_tokens = the rollout's, where it samples with the config's keys
    (reads_sampling_key), the config's default too where it differs from Trinity's (a fork's may)."""
    for name, at, trinity in (("repetition_penalty", "model.repetition_penalty", 1.0),
                              ("min_tokens", "model.min_response_tokens", 0)):
        key = f"{R}.{name}"
        if not d.cfg.has(key):
            continue
        v = d.val(key)
        if not reads_sampling_key(d.val, d.sem, name):
            if d.user(key):
                d.implied(key, f"verl {d.sem.release}'s rollout does not read it")
        elif v is not None and v != trinity:
            d.set(at, v, key, note="" if d.user(key) else "its veRL config's default")
        elif d.user(key):
            d.implied(key, f"{trinity}, Trinity's default")


def _rollout_seed(d: Draft) -> None:
    """explorer.rollout_model.seed = rollout.seed, the seed veRL's vLLM engines sample with (plus the replica's
    rank from 0.7.0), 0 where the release has no such key (vllm_rollout: config.get("seed", 0); vLLM's own)."""
    key, trinity = f"{R}.seed", ROLLOUT_SEED
    has = d.cfg.has(key)
    seed = d.number(key) if has else 0
    if seed is not None and seed != trinity:
        d.set("explorer.rollout_model.seed", seed, *([key] if has else []),
              note="" if d.user(key) else f"verl {d.sem.release}'s seed (Trinity's is {trinity})")
    elif d.user(key):
        d.implied(key, f"{trinity}, Trinity's default")


def _grad_clip(d: Draft) -> None:
    """algorithm.optimizer.clip_grad = the norm the script's actor clips at: Trinity's engine workers clip at the
    optimizer's clip_grad, and the actor's grad_clip (Trinity's trainer.grad_clip) reaches no worker of verl 0.8."""
    key = clip_key(d.val, d.sem, strategy(d) == "megatron")
    v = d.number(key, float, allow_none=True)
    if v is not None and (d.user(key) or v != 1.0):
        d.set("algorithm.optimizer.clip_grad", v, key, note="" if d.user(key) else f"verl {d.sem.release} default "
              "(Trinity's is 1.0)")
    elif d.user(key):
        d.implied(key, "1.0, Trinity's default")
    for other in (f"{A}.grad_clip", f"{O}.clip_grad", f"{O}.grad_clip"):
        if other != key and d.user(other):
            d.implied(other, f"verl {d.sem.release}'s actor clips at {key}")


def _critic_clip(d: Draft, critic: bool) -> None:
    """trainer_config.critic.optim.clip_grad = the norm the script's critic clips at: Trinity's engine critic
    clips at its optimizer's clip_grad (1.0), and the critic's grad_clip (trainer.grad_clip) reaches no worker."""
    keys = (f"{C}.grad_clip", f"{C}.optim.clip_grad", f"{C}.optim.grad_clip")
    if not critic:
        for k in keys:
            if d.user(k):
                d.implied(k, "no critic is trained")
        return
    key = clip_key(d.val, d.sem, strategy(d) == "megatron", "critic")
    v = d.number(key, float, allow_none=True)
    if v is not None and (d.user(key) or v != 1.0):
        d.set(f"trainer.trainer_config.{C}.optim.clip_grad", v, key, note="" if d.user(key) else
              f"verl {d.sem.release} default (Trinity's critic clips at 1.0)")
    elif d.user(key):
        d.implied(key, "1.0, Trinity's critic default")
    for other in keys:
        if other != key and d.user(other):
            d.implied(other, f"verl {d.sem.release}'s critic clips at {key}")


def _critic_mini_batch(d: Draft, critic: bool) -> None:
    """Trinity's critic takes one optimizer step per trainer step, on buffer.train_batch_size experiences; a
    veRL critic mini-batch of another size (set by the script, or counted in responses where the actor's counts
    prompts: verl before 0.4.0 did not multiply the critic's by rollout.n) is RFTC316."""
    key = f"{C}.ppo_mini_batch_size"
    experiences = d.get("buffer.train_batch_size")
    mini, n, tb = d.val(key), d.get("algorithm.repeat_times"), d.val("data.train_batch_size")
    if not critic or not all(isinstance(v, int) for v in (experiences, mini, n, tb)):
        if d.user(key):
            d.report("RFTC316", f"{key} is set from buffer.train_batch_size by Trinity; the script's value is not "
                     "used", key)
        return
    unit = d.sem.value("critic_mini_unit")
    responses = min(mini * n if unit == "prompts" else mini, tb * n)
    if responses != experiences:
        counted = "" if unit == "prompts" else f" (verl {d.sem.release} counts it in responses)"
        same = experiences // n if unit == "prompts" else experiences
        d.report("RFTC316", f"{key}={mini}{counted}: veRL's critic takes {responses} responses per optimizer step, "
                 f"Trinity's takes buffer.train_batch_size ({experiences}) per trainer step, as the actor", key,
                 hint=f"{key}={same} trains veRL's critic as Trinity's does")
    elif d.user(key):
        d.implied(key, "the critic's mini-batch equals the actor's, as Trinity's")


def ref_micro_batch(d: Draft, *, ref: bool) -> None:
    """ref.log_prob_micro_batch_size_per_gpu = the rollout's log-prob micro-batch size per GPU (else the actor's
    update one), as veRL trains with it (a global size divided as the release divides it, rftc.mapping.micro),
    when Trinity builds a reference model, batches are not dynamic and the script sets none: veRL builds no
    reference model without a KL term and so never needs one, but Trinity's ppo, grpo, ... always build it, and
    veRL 0.8's worker config then fails at trainer start. It is a forward-only batch size (memory, not training)."""
    key = f"{REF}.log_prob_micro_batch_size_per_gpu"
    if not ref or d.get("trainer.use_dynamic_bsz") is not False or d.user(key) or \
            d.user(f"{REF}.log_prob_micro_batch_size"):
        return
    default = per_gpu(d, key)  # the release's own default (verl 0.1's config sets a global 128)
    if default is not None and d.cfg.get(default[1], None) is not None:
        size, source = default
        how = "" if source == key else f", {share(d.val, source).formula} per GPU"
        d.set(f"trainer.trainer_config.{key}", size, source,
              note=f"verl {d.sem.release}'s default{how}: the reference model Trinity builds needs one")
        return
    for source in (f"{R}.log_prob_micro_batch_size_per_gpu", f"{A}.ppo_micro_batch_size_per_gpu"):
        got = per_gpu(d, source)
        if got is not None:
            at = f"trainer.trainer_config.{key}"
            d.set(at, got[0])  # the source key is mapped as itself by the rule table or rftc.mapping.micro
            how = "" if got[1] == source else f"{share(d.val, got[1]).formula} per GPU; "
            d.origins[at] = Origin((got[1],), f"{how}the reference model Trinity builds needs one; veRL's default is "
                                   "unset")
            return


def _scheduler(d: Draft) -> None:
    keys = [f"{O}.{k}" for k in SCHEDULERS if d.user(f"{O}.{k}") and d.val(f"{O}.{k}") is not None]
    if not keys:
        return
    key = keys[0]
    v = str(d.val(key))
    sched = SCHEDULES.get(v.lower())
    if sched is None:
        d.report("RFTC305", f"{key}={v}: Trinity-RFT 0.6 schedules are constant and cosine; using constant", key)
        return
    d.set("algorithm.optimizer.lr_scheduler_type", sched, key)
    for other in keys[1:]:
        d.implied(other, f"same schedule as {key}")
    mk = f"{O}.min_lr_ratio"
    if sched == "cosine":
        v = d.val(mk)
        d.set("algorithm.optimizer.min_lr_ratio", 0.0 if v is None else v, mk,
              note="" if d.user(mk) else "veRL default (Trinity's is 0.01)")
    elif d.user(mk):
        d.implied(mk, "only used by a cosine schedule")


def _strategy(d: Draft) -> None:
    s = strategy(d)
    keys = [k for k in ("model_engine", f"{A}.strategy") if d.user(k)]
    if s == "megatron":
        if keys:
            d.set("trainer.trainer_strategy", "megatron", *keys)
        else:  # the primary config (ppo_megatron_trainer) chose it
            d.set("trainer.trainer_strategy", "megatron", f"{A}.strategy",
                  note=f"the default of the {d.cfg.config_name or 'primary'} config")
    elif d.user(f"{A}.strategy"):
        if s in ("fsdp", "fsdp2"):
            d.set("trainer.trainer_strategy", s, f"{A}.strategy")
        else:
            d.report("RFTC305", f"{A}.strategy={s}: Trinity-RFT 0.6 trains with fsdp, fsdp2 or megatron; "
                     "using fsdp2", f"{A}.strategy")
    if "model_engine" in keys and s != "megatron":
        d.implied("model_engine", "FSDP, Trinity's default")


def _one_value(d: Draft, tkey: str, main: str, others: list[str]) -> None:
    """One Trinity field for the actor's key and the same setting of other roles."""
    set_keys = [k for k in [main, *others] if d.user(k)]
    if not set_keys:
        return
    v = d.flag(main)
    d.set(tkey, v, main if d.user(main) else set_keys[0])
    for k in set_keys:
        if d.flag(k) != v:
            d.report("RFTC310", f"{k}={d.fmt_value(k)} differs from {main}={d.fmt_value(main)}; Trinity has one "
                     f"{tkey} for every role and uses {d.fmt_value(main)}", k)
        else:
            d.account(k, "mapped", tkey)


def _critic_loss_agg(d: Draft) -> None:
    """trainer_config.critic.loss_agg_mode = critic.loss_agg_mode when it is not token-mean: veRL's critic
    aggregates its value loss as the actor does (critic.loss_agg_mode defaults to the actor's), Trinity 0.6
    builds its critic with token-mean whatever algorithm.loss_agg_mode says, and lets trainer_config override it."""
    key = f"{C}.loss_agg_mode"
    mode = d.val(key) if d.user(key) else d.val(f"{A}.loss_agg_mode", "token-mean")  # veRL's oc.select
    if mode is None or mode == "token-mean":
        if d.user(key):
            d.implied(key, "Trinity's critic aggregates with token-mean")
        return
    source = key if d.user(key) else f"{A}.loss_agg_mode"
    d.set(f"trainer.trainer_config.{key}", mode, source,
          note="" if d.user(key) else "veRL's critic follows the actor's loss_agg_mode; Trinity's is token-mean")


def _follows(d: Draft, main: str, copies: list[str]) -> None:
    """Role copies of an actor value that Trinity derives from one field (frozen in trainer_config)."""
    for k in copies:
        if not d.user(k):
            continue
        if d.val(k) == d.val(main) or d.val(k) is None:
            d.implied(k, f"Trinity derives it from the same field as {main}")
        else:
            d.report("RFTC316", f"{k}={d.fmt_value(k)} differs from {main}={d.fmt_value(main)}; Trinity-RFT 0.6 "
                     f"derives both from one field and ignores this one", k)


def _engine(d: Draft) -> None:
    key = f"{R}.name"
    name = str(d.val(key) or "vllm")
    if name in ("vllm", "sglang"):
        if name != "vllm":
            d.set("explorer.rollout_model.engine_type", name, key)
        else:
            d.implied(key, "Trinity's explorer runs vLLM")
    elif d.user(key):
        d.report("RFTC305", f"{key}={name}: Trinity-RFT 0.6 rolls out with vllm or sglang; using vllm", key)
    prefix = f"{R}.engine_kwargs.vllm."
    for k in d.cfg.user_keys():
        if k.startswith(prefix):
            if name == "vllm":
                d.set("explorer.rollout_model.extra_engine_args." + k[len(prefix):], d.val(k), k)
            else:
                d.implied(k, f"kwargs of vllm, which this {name} run does not use")


def map_lora(d: Draft, model: str = M) -> None:
    """model.lora_configs[0] from the LoRA keys of ``model`` (the veRL section holding lora_rank: the actor's
    model, or an SFT trainer's model), when lora_rank is positive."""
    from rftc.mapping.seeds import runs_engine

    rank_key = f"{model}.lora_rank"
    keys = [f"{model}.{k}" for k in ("lora_rank", "lora_alpha", "target_modules", "exclude_modules",
                                     "lora_adapter_path")]
    rank = d.number(rank_key) if d.user(rank_key) else 0
    adapter = f"{model}.lora_adapter_path"
    if not rank and d.val(adapter) is not None and model == M and strategy(d) != "megatron" and \
            not runs_engine(d.val, d.sem, "actor"):
        # verl 0.6.1 to 0.7.x's FSDP actor trains the adapter whatever lora_rank says (fsdp_workers.py _is_lora);
        # verl 0.8's engine, Trinity's, trains LoRA only at lora_rank > 0
        d.report("RFTC305", f"{adapter} at lora_rank 0: verl {d.sem.release}'s FSDP actor trains the adapter, "
                 "Trinity-RFT 0.6 trains LoRA only at model.lora_configs' lora_rank > 0; the converted config trains "
                 "every weight", adapter)
    if not rank:
        for k in keys:
            if d.user(k) and not d.done(k):
                d.implied(k, "LoRA is off (lora_rank 0)")
        return
    at = "model.lora_configs[0]"
    d.set(f"{at}.lora_rank", rank, rank_key)
    d.set(f"{at}.lora_alpha", d.val(f"{model}.lora_alpha"), f"{model}.lora_alpha",
          note="" if d.user(f"{model}.lora_alpha") else "veRL default (Trinity's is 32)")
    tm = d.val(f"{model}.target_modules")
    if isinstance(tm, (list, tuple)):  # Trinity takes a string: the expression PEFT matches the same modules with
        d.set(f"{at}.target_modules", lora.regex(list(tm)), f"{model}.target_modules",
              note="the list as the regular expression PEFT matches the same modules with")
    elif tm is not None:
        d.set(f"{at}.target_modules", tm, f"{model}.target_modules",
              note="" if d.user(f"{model}.target_modules") else "veRL default")
    for k, t in ((f"{model}.exclude_modules", "exclude_modules"), (f"{model}.lora_adapter_path", "path")):
        if d.user(k) and isinstance(d.val(k), (list, tuple)):
            d.set(f"{at}.{t}", lora.regex(list(d.val(k))), k,
                  note="the list as the regular expression PEFT matches the same modules with")
        elif d.user(k) and d.val(k) is not None:
            d.set(f"{at}.{t}", d.val(k), k)


def map_megatron(d: Draft) -> None:
    """Under megatron: trainer.megatron.<size> = actor.megatron.<size> for the parallel sizes Trinity exposes,
    trainer.{param,optimizer,grad}_offload = actor.megatron.*_offload, every other actor/ref/critic megatron
    key passed through trainer_config. Under FSDP the keys have no effect (veRL ignores them too)."""
    mega = strategy(d) == "megatron"
    for role in (A, REF, C):
        for k in d.user_keys_under(f"{role}.megatron"):
            sub = k[len(role) + len(".megatron."):]
            if not mega:
                d.implied(k, "megatron settings of an FSDP run (veRL ignores them too)")
            elif role == A and sub in MEGATRON_PARALLEL:
                d.set(f"trainer.megatron.{sub}", d.val(k), k)
            elif role == A and sub in MEGATRON_OFFLOAD:
                d.set(MEGATRON_OFFLOAD[sub], d.val(k), k)
            elif role == REF and (sub in MEGATRON_PARALLEL or sub in MEGATRON_OFFLOAD) and \
                    d.val(k) == d.val(f"{A}.megatron.{sub}"):
                d.implied(k, "the reference model follows the actor's megatron settings")
            elif sub == "grad_offload":
                d.report("RFTC300", f"{k} has no Trinity-RFT 0.6 equivalent per role (trainer.grad_offload applies "
                         "to the actor)", k)
            else:
                d.passthrough(k)
