"""The model's own settings on both sides of the semantic model: the configuration a model is built with (veRL's
override_config, hf_config_path and the Megatron engine's override_mcore_model_config; Trinity's rope_theta, and the
rope settings its rollout engine gets), the modules a trainer freezes, the multi-token-prediction loss, MoE routing
replay, and the critic's LoRA and config; and what the rows that name a model's path, weights, LoRA adapter,
tokenizer or rollout engine add to the quantities that already hold them (model, reference model, critic model,
LoRA, chat template, context length).

veRL's workers read these keys by kind: the legacy FSDP and Megatron workers (to 0.7.x), or the engine workers
(rftc.mapping.model_keys, which reads the same for the key classification's conditions).
Trinity-RFT 0.6 runs verl 0.8's engine workers with the veRL config build_verl_config writes
(trinity/trainer/verl/config.py), trainer_config merged over it, and builds its critic's model config itself
(trinity/trainer/verl/trainer.py); its explorer's vLLM engines take explorer.rollout_model, each field the model's
where unset (trinity/common/config_validator.py ExplorerConfigValidator)."""

from __future__ import annotations

from rftc.mapping.lora import NONE, lora, megatron_lora
from rftc.mapping.model_keys import (FSDP, ROUTER, applied, legacy, legacy_megatron, override_rule, own_reference,
                                     ref_in_actor, replay_key, router_key)
from rftc.mapping.models import MCORE
from rftc.semantics.inputs import launch_path
from rftc.semantics.model import Value

A, REF, R, M, C = ("actor_rollout_ref.actor", "actor_rollout_ref.ref", "actor_rollout_ref.rollout",
                   "actor_rollout_ref.model", "critic")
MTP_KEYS = ("enable", "enable_train", "mtp_loss_scaling_factor", "detach_encoder")
MTP_DEFAULTS = {"enable": False, "enable_train": False, "mtp_loss_scaling_factor": 0.1, "detach_encoder": False}
RANDOM = "random weights"  # a Megatron worker with load_weight false initialises the model at random
RM = "explorer.rollout_model"
ROPE = ("rope_scaling", "rope_theta")


# ---- shared: how a config override is applied, and the values' one spelling

def flat(tree, prefix: str = "") -> tuple:
    """A config mapping as sorted (dotted key, value) pairs (lists as tuples), so that two spellings of one override
    compare equal; an empty mapping has none."""
    out = []
    for k, v in (tree.items() if hasattr(tree, "items") else ()):
        path = f"{prefix}.{k}" if prefix else str(k)
        if hasattr(v, "items"):
            out += flat(v, path)
        else:
            out.append((path, tuple(v) if isinstance(v, (list, tuple)) else v))
    return tuple(sorted(out, key=lambda kv: kv[0]))


def section(v, prefix: str) -> dict:
    """The mapping ``view`` reports key by key under ``prefix`` (its dotted keys nested again)."""
    out: dict = {}
    for key, got in v.items():
        if key.startswith(prefix + "."):
            node = out
            *parents, last = key[len(prefix) + 1:].split(".")
            for part in parents:
                node = node.setdefault(part, {})
            node[last] = got.value
    return out


def config_value(items: tuple, config_file: str | None = None, rollout: tuple = (), frozen: tuple = ()):
    """A model's configuration as the quantity shows it: the config file it is read from where that is not the
    model's, the overrides, the modules frozen (the critic's), and what the rollout engine is given besides;
    "none" where the model is its checkpoint's config."""
    parts = ((("config file", config_file),) if config_file else ()) + tuple(items) + \
        ((("frozen", frozen),) if frozen else ()) + ((("rollout engine", rollout),) if rollout else ())
    return parts or NONE


def routing(modes: list[tuple[str, str]], rollout_routing: bool):
    """MoE routing replay: the roles whose engine replays routing and how (R2: the routing recorded when the old
    log-probs are computed; R3: the rollout's), and for R3 whether the rollout returns its routing; "none" where
    every engine routes anew."""
    on = tuple((role, mode) for role, mode in modes if mode not in (None, "disabled"))
    if not on:
        return NONE
    return on + ((("rollout returns its routing", bool(rollout_routing)),) if any(m == "R3" for _, m in on) else ())


def mtp_value(get) -> tuple | str:
    """The multi-token-prediction loss a Megatron engine adds (``get(name)`` reads model.mtp; MtpConfig,
    verl/workers/config/model.py): with enable and enable_train, its scaling factor and whether the encoder is
    detached; "none" otherwise (enable alone keeps the layers unused; enable_rollout only drafts tokens for
    speculative decoding, which samples as the model does)."""
    if not (get("enable") and get("enable_train")):
        return NONE
    return ("MTP loss", get("mtp_loss_scaling_factor"), ("detach_encoder", bool(get("detach_encoder"))))


def adapter_lora(rank, alpha, targets, exclude, adapter, on: bool):
    """PEFT's LoRA where it is on: a pretrained adapter loaded from ``adapter`` (its rank, alpha and targets are
    the adapter's own, PeftModel.from_pretrained), else lora()'s (rank, alpha, targets[, exclude])."""
    if not on:
        return NONE
    return ("adapter", launch_path(str(adapter))) if adapter else lora(rank, alpha, targets, exclude)


# ---- veRL

def verl_model(r, sem, *, kl: bool, critic: bool) -> dict[str, Value]:
    """TrainingRun's model, reference model and critic model of a launch: the path each loads (the reference's
    ref.model.path where read, own_reference) and, on the legacy Megatron workers, random weights where the role's
    load_weight is false (megatron_workers.py: the weights are loaded only under load_weight; the reference's must
    match the actor's, which it asserts)."""
    path = launch_path(str(r.get(f"{M}.path")))
    actor_init = legacy_megatron(r.get, sem) and r.get(f"{A}.load_weight") is False
    model = r.of(_init(path, actor_init), f"{M}.path", *[f"{A}.load_weight"] * actor_init)
    if kl:
        reference = _reference(r, sem, path, actor_init)
    else:
        reference = Value(None)
    if critic:
        critic_init = legacy_megatron(r.get, sem, "critic") and r.get(f"{C}.load_weight") is False
        critic_model = r.of(_init(launch_path(str(r.get(f"{C}.model.path"))), critic_init), f"{C}.model.path",
                            *[f"{C}.load_weight"] * critic_init)
    else:
        critic_model = Value(None)
    return dict(model=model, reference_model=reference, critic_model=critic_model)


def _reference(r, sem, path: str, actor_init: bool) -> Value:
    """The reference model: ref.model.path where the worker reads it (own_reference; ref.model set to other than a
    mapping stops the worker), else the actor's model; random weights under a false ref.load_weight (the legacy
    Megatron reference worker)."""
    ref, key = r.get(f"{REF}.model"), f"{REF}.model.path"
    own = own_reference(r.get, sem) and ref is not None
    if own and not hasattr(ref, "get"):
        return r.of(f"unknown ({REF}.model is not a mapping with a path: verl {r.eff.release}'s worker stops)",
                    f"{REF}.model")
    ref_path = launch_path(str(r.get(key))) if own and r.get(key) is not None else path
    megatron = legacy_megatron(r.get, sem) and not ref_in_actor(r.get)  # a reference worker of its own
    random = actor_init and not megatron or megatron and r.get(f"{REF}.load_weight") is False
    keys = [f"{M}.path", *[key] * (own and r.get(key) is not None),
            *[f"{REF}.load_weight"] * (megatron and r.eff.has(f"{REF}.load_weight")),
            *[f"{A}.load_weight"] * actor_init]
    if megatron and actor_init and not random:
        return r.of(f"the run stops (verl {r.eff.release}'s Megatron worker asserts {REF}.load_weight, true, is the "
                    f"actor's {A}.load_weight)", *keys)
    return r.of(_init(ref_path, random), *keys, formula="" if own else "veRL's reference worker loads the actor's "
                "model")


def _init(path: str, random: bool) -> str:
    return f"{RANDOM} (the architecture of {path})" if random else path


def verl_lora(r, sem) -> Value:
    """The actor's LoRA: Megatron-Bridge's from model.lora on a Megatron actor (megatron_lora), else PEFT's from
    lora_rank (the legacy FSDP worker, 0.6.1 to 0.7.x, trains LoRA with lora_rank > 0 or lora_adapter_path set,
    fsdp_workers.py _is_lora; the engine workers with lora_rank > 0, engine/fsdp/transformer_impl.py), an adapter
    at lora_adapter_path loaded where set."""
    if r.get(f"{A}.strategy") in MCORE:
        return r.of(megatron_lora(lambda k: r.get(f"{M}.lora.{k}")), *(k for k in r.eff.user_keys()
                                                                         if k.startswith(f"{M}.lora.")),
                    f"{M}.lora.rank", formula="Megatron-Bridge's LoRA from model.lora (the Megatron workers read no "
                    "lora_rank)")
    return _peft(r, M, legacy_worker=legacy(r.get, sem))


def _peft(r, model: str, *, legacy_worker: bool) -> Value:
    rank, adapter = r.get(f"{model}.lora_rank") or 0, r.get(f"{model}.lora_adapter_path")
    on = isinstance(rank, (int, float)) and rank > 0 or legacy_worker and adapter is not None
    keys = [f"{model}.{k}" for k in ("lora_alpha", "target_modules", "exclude_modules") if on and not adapter]
    return r.of(adapter_lora(rank, r.get(f"{model}.lora_alpha"), r.get(f"{model}.target_modules"),
                             r.get(f"{model}.exclude_modules"), adapter, on), f"{model}.lora_rank", *keys,
                *[f"{model}.lora_adapter_path"] * (adapter is not None))


def verl_fields(r, sem, *, kl: bool, critic: bool) -> dict[str, Value]:
    """TrainingRun's model-config, frozen-module, MTP, MoE-routing and critic LoRA and config quantities of a
    launch (``kl``: a reference is used; ``critic``: a critic is trained)."""
    return dict(model_config=_model_config(r, sem), frozen_modules=_frozen(r, sem), mtp=_mtp(r, sem),
                moe_routing=_moe_routing(r, sem, kl, critic),
                critic_lora=_critic_lora(r, sem) if critic else Value(None),
                critic_model_config=_critic_config(r, sem) if critic else Value(None))


def _model_config(r, sem) -> Value:
    """The actor's model config: override_config as the release's worker applies it (applied), and the config file
    hf_config_path names (read by the engine workers' HFModelConfig only). veRL's rollout engines take none of
    these: they load the checkpoint's config (0.3 on; the vLLM of 0.1 and 0.2 built from the actor's config is not
    told apart)."""
    rule = override_rule(r.get, sem, "actor")
    file = r.get(f"{M}.hf_config_path") if not legacy(r.get, sem) else None
    path = launch_path(str(file)) if file else None
    path = path if path != launch_path(str(r.get(f"{M}.path"))) else None
    keys = [k for k in r.eff.user_keys() if k.startswith(f"{M}.override_config")] or [f"{M}.override_config"]
    return r.of(config_value(flat(applied(r.get(f"{M}.override_config"), rule)), path), *keys,
                *[f"{M}.hf_config_path"] * bool(path),
                formula={"whole": "override_config", "model_config": "override_config.model_config (Megatron)",
                         "hf_model": "HFModelConfig: override_config.model_config where set, else override_config"
                         }[rule])


def _frozen(r, sem) -> Value:
    """Modules the actor's worker freezes: the vision tower (actor.freeze_vision_tower, read by the legacy FSDP
    worker, fsdp_workers.py _build_model_optimizer), the MoE router (the legacy Megatron workers from 0.4.0:
    override_config.moe_config.freeze_moe_router; the Megatron engine: megatron.override_mcore_model_config's,
    verl/utils/megatron_utils.py make_megatron_module)."""
    strategy = r.get(f"{A}.strategy")
    out, keys = [], []
    if strategy in FSDP and legacy(r.get, sem) and r.eff.has(f"{A}.freeze_vision_tower"):
        keys.append(f"{A}.freeze_vision_tower")
        if r.get(keys[-1]):
            out.append("vision tower")
    router = router_key(r.get, sem, "actor")
    if router:
        keys.append(router)
        if r.get(router):
            out.append("MoE router")
    return r.of(tuple(out) or NONE, *keys) if keys else Value(NONE, f"verl {r.eff.release}'s {strategy} actor")


def _mtp(r, sem) -> Value:
    """The MTP loss of a Megatron actor (the legacy worker from 0.7.1, the engine): model.mtp (mtp_value); the
    FSDP workers train no MTP layers."""
    if r.get(f"{A}.strategy") not in MCORE or not r.eff.has(f"{M}.mtp.enable"):
        return Value(NONE, f"verl {r.eff.release}'s {r.get(f'{A}.strategy')} actor")
    return r.of(mtp_value(lambda k: r.get(f"{M}.mtp.{k}")), *(f"{M}.mtp.{k}" for k in MTP_KEYS))


def _moe_routing(r, sem, kl: bool, critic: bool) -> Value:
    """MoE routing replay (routing): the actor's mode, the reference's (a KL) and the critic's (gae) where their
    engines replay (replay_key), with rollout.enable_rollout_routing_replay (the vLLM and SGLang servers return the
    routed experts) for R3."""
    roles = [("actor", "actor")] + [("reference", "ref")] * kl + [("critic", "critic")] * critic
    keys = [(name, replay_key(r.get, sem, role, kl=kl)) for name, role in roles]
    modes = [(name, r.get(k)) for name, k in keys if k]
    flag = f"{R}.enable_rollout_routing_replay"
    used = [k for _, k in keys if k]
    value = routing(modes, r.get(flag))
    return r.of(value, *used, *[flag] * (value != NONE and r.eff.has(flag))) if used else \
        Value(NONE, f"verl {r.eff.release}: no engine of this run replays MoE routing")


def _critic_lora(r, sem) -> Value:
    """The critic's LoRA: Megatron-Bridge's from critic.model.lora on a Megatron critic, else PEFT's from
    critic.model.lora_rank (fsdp_workers.py CriticWorker; the engine critic loads critic.model.lora_adapter_path
    where set, 0.8 on)."""
    if r.get(f"{C}.strategy") in MCORE:
        if not r.eff.has(f"{C}.model.lora.rank"):
            return Value(NONE, f"verl {r.eff.release}'s Megatron critic")
        return r.of(megatron_lora(lambda k: r.get(f"{C}.model.lora.{k}")), f"{C}.model.lora.rank",
                    *(k for k in r.eff.user_keys() if k.startswith(f"{C}.model.lora.")))
    return _peft(r, f"{C}.model", legacy_worker=False)


def _critic_config(r, sem) -> Value:
    """The critic's model config as its worker builds it (as the actor's: override_config as applied, the engine
    critic's hf_config_path) and its frozen MoE router (_router_key)."""
    rule = override_rule(r.get, sem, "critic")
    file = r.get(f"{C}.model.hf_config_path") if not legacy(r.get, sem, "critic") else None
    path = launch_path(str(file)) if file else None
    path = path if path != launch_path(str(r.get(f"{C}.model.path"))) else None
    router = router_key(r.get, sem, "critic")
    keys = [k for k in r.eff.user_keys() if k.startswith(f"{C}.model.override_config")]
    return r.of(config_value(flat(applied(r.get(f"{C}.model.override_config"), rule)), path,
                             frozen=("MoE router",) if router and r.get(router) else ()),
                *keys, f"{C}.model.override_config", *[f"{C}.model.hf_config_path"] * bool(path),
                *[router] * bool(router))


def verl_sft_fields(r, get) -> dict[str, Value]:
    """SftRun's model config and MTP of a launch of the engine SFT trainer (sft_trainer.py: HFModelConfig from
    model, its engine from engine.strategy); fsdp_sft_trainer's config has neither (``get``: None where the
    config lacks the key)."""
    if get("model.override_config") is None and get("model.hf_config_path") is None:
        return dict(model_config=Value(NONE, "fsdp_sft_trainer"), mtp=Value(NONE, "fsdp_sft_trainer"))
    file = get("model.hf_config_path")
    path = launch_path(str(file)) if file else None
    path = path if path != launch_path(str(get("model.path"))) else None
    mtp = r.of(mtp_value(lambda k: get(f"model.mtp.{k}")), *(f"model.mtp.{k}" for k in MTP_KEYS)) \
        if get("engine.strategy") in MCORE and get("model.mtp.enable") is not None else \
        Value(NONE, f"the engine SFT trainer's {get('engine.strategy')} engine")
    return dict(model_config=r.of(config_value(flat(applied(get("model.override_config"), "hf_model")), path),
                                  "model.override_config", *["model.hf_config_path"] * bool(path),
                                  formula="HFModelConfig: override_config.model_config where set, else "
                                  "override_config"),
                mtp=mtp)


# ---- Trinity

def trinity_view(x, put, where) -> None:
    """``view``'s keys of the model's settings, from the expanded config ``x``: the veRL model, actor, reference and
    critic settings Trinity builds (build_verl_config) with trainer_config's merged over them (none of these is a
    frozen key, so each is merged), and the rollout engine's fields as its validator completes them."""
    tc = x.trainer.trainer_config or {}
    arr = tc.get("actor_rollout_ref") if isinstance(tc.get("actor_rollout_ref"), dict) else {}
    sections = {s: (arr.get(s) if s in arr else tc.get(s)) for s in ("model", "actor", "ref")}
    sections["critic"] = tc.get("critic")
    mine = {s: v if isinstance(v, dict) else {} for s, v in sections.items()}
    src = "trainer.trainer_config.actor_rollout_ref"
    override = {**({"rope_theta": x.model.rope_theta} if x.model.rope_theta is not None else {}),
                **(mine["model"].get("override_config") or {})}
    pairs = flat(override)
    for k, value in pairs:  # the expansion reports a section key by key (an empty one as itself)
        put(f"verl.model.override_config.{k}", value, where(f"{src}.model.override_config.{k}")
            if k != "rope_theta" or "rope_theta" in (mine["model"].get("override_config") or {})
            else where("model.rope_theta"))
    if not pairs:
        put("verl.model.override_config", {}, where(f"{src}.model.override_config"))
    if mine["model"].get("hf_config_path") is not None:
        put("verl.model.hf_config_path", mine["model"]["hf_config_path"], where(f"{src}.model.hf_config_path"))
    mtp = {"enable": False, **(mine["model"].get("mtp") or {})}  # build_verl_config's, trainer_config's over it
    for k in MTP_KEYS:
        if k in mtp:
            put(f"verl.model.mtp.{k}", mtp[k], where(f"{src}.model.mtp.{k}"))
    mode = "R3" if x.algorithm.enable_router_replay else "disabled"
    for role, default in (("actor", mode), ("ref", "disabled"), ("critic", "disabled")):
        own = ((mine[role].get("megatron") or {}).get("router_replay") or {}).get("mode")
        sec = f"{src}.{role}" if role != "critic" else "trainer.trainer_config.critic"
        put(f"verl.{role}.megatron.router_replay.mode", own or default,
            where(f"{sec}.megatron.router_replay.mode") if own else where("algorithm.enable_router_replay"))
    put("algorithm.enable_router_replay", x.algorithm.enable_router_replay)
    frozen = (((mine["actor"].get("megatron") or {}).get("override_mcore_model_config") or {}).get("moe_config")
              or {}).get("freeze_moe_router", False)
    put(f"verl.actor.megatron.override_mcore_model_config.{ROUTER}", frozen,
        where(f"{src}.actor.megatron.override_mcore_model_config.{ROUTER}"))
    put("model.rope_theta", x.model.rope_theta)
    lc = x.model.lora_configs[0] if x.model.lora_configs else None
    put("verl.model.lora_adapter_path", lc.path if lc is not None and not lc.is_dummy else None,
        where("model.lora_configs"))
    from rftc.semantics.trinity_inputs import _template_file

    rm, m = x.explorer.rollout_model, x.model
    template = m.custom_chat_template if m.custom_chat_template is not None or not m.chat_template_path else \
        _template_file(m.chat_template_path)  # the validator reads the file before the explorer's copies the model's
    for k, model_key, model_value in (
            ("model_path", "model_path", m.model_path), ("max_model_len", "max_model_len", m.max_model_len),
            ("rope_scaling", "rope_scaling", m.rope_scaling), ("rope_theta", "rope_theta", m.rope_theta),
            ("chat_template", "custom_chat_template" if m.custom_chat_template is not None or not
             m.chat_template_path else "chat_template_path", template),
            ("enable_thinking", "enable_thinking", m.enable_thinking)):
        own = getattr(rm, k)
        put(f"{RM}.{k}", model_value if own is None else own,
            where(f"{RM}.{k}") if own is not None else where(f"model.{model_key}"))


def trinity_model(v, val, of, *, reference: bool, critic: bool) -> dict[str, Value]:
    """TrainingRun's model, reference model and critic model of ``view``'s keys ``v``: model.model_path (the
    rollout engine starts from explorer.rollout_model.model_path where that differs, until the first weight
    sync), the reference's the model's (Trinity's reference worker loads model.model_path), the critic's
    critic_model_path. Trinity's workers always load the weights (verl 0.8's engines read no load_weight)."""
    from rftc.semantics.inputs import data_path

    path = data_path(val("model.model_path"))
    engine = data_path(str(val(f"{RM}.model_path") or path))
    text = path if engine == path else f"{path} (the rollout engine starts from {engine})"
    model = of(text, "model.model_path", *[f"{RM}.model_path"] * (engine != path))
    return dict(
        model=model,
        reference_model=Value(path, v["model.model_path"].source if "model.model_path" in v else "",
                              "Trinity's reference worker loads model.model_path") if reference else Value(None),
        critic_model=of(data_path(val("model.critic_model_path")), "model.critic_model_path") if critic
        else Value(None),
    )


def trinity_lora(lora_keys, val, of):
    """PEFT's LoRA from model.lora_configs[0] as build_verl_config hands it to verl 0.8's FSDP engine (on at
    lora_rank > 0, its path loaded as the adapter unless is_dummy: the validator's dummy adapter of a config
    without one, created from lora_rank and the rest)."""
    rank, alpha, targets, exclude = (val(k) for k in lora_keys)
    adapter = val("verl.model.lora_adapter_path")
    on = isinstance(rank, (int, float)) and rank > 0
    return of(adapter_lora(rank, alpha, targets, exclude, adapter, on), *lora_keys,
              *["verl.model.lora_adapter_path"] * (adapter is not None))


def trinity_fields(v, val, of, *, reference: bool, critic: bool) -> dict[str, Value]:
    """TrainingRun's model-config, frozen-module, MTP, MoE-routing and critic LoRA and config quantities of
    ``view``'s keys (from_trinity's readers)."""
    megatron = str(val("trainer.trainer_strategy", "")).startswith("megatron")
    rollout = flat({k: val(f"{RM}.{k}") for k in ROPE if val(f"{RM}.{k}") is not None})
    trainer = flat(applied(section(v, "verl.model.override_config"), "hf_model"))
    file = val("verl.model.hf_config_path")
    file = launch_path(str(file)) if file and launch_path(str(file)) != launch_path(str(val("model.model_path"))) \
        else None
    roles = [("actor", "actor")] + [("reference", "ref")] * reference + [("critic", "critic")] * critic
    modes = [(name, val(f"verl.{role}.megatron.router_replay.mode")) for name, role in roles] if megatron else []
    theta = val("model.rope_theta")
    return dict(
        model_config=of(config_value(trainer, file, rollout), *_override_keys(v), "verl.model.hf_config_path",
                        *(f"{RM}.{k}" for k in ROPE if val(f"{RM}.{k}") is not None),
                        formula="HFModelConfig of the veRL config Trinity builds (model.rope_theta as "
                        "override_config.rope_theta); the rope settings the rollout engine's vLLM is given "
                        "(explorer.rollout_model's, the model's where unset)"),
        frozen_modules=of(("MoE router",) if megatron and val(f"verl.actor.megatron.override_mcore_model_config."
                                                                f"{ROUTER}") else NONE,
                          f"verl.actor.megatron.override_mcore_model_config.{ROUTER}", "trainer.trainer_strategy"),
        mtp=of(mtp_value(lambda k: val(f"verl.model.mtp.{k}", MTP_DEFAULTS[k])) if megatron else NONE,
               *(f"verl.model.mtp.{k}" for k in MTP_KEYS), "trainer.trainer_strategy"),
        moe_routing=of(routing(modes, val("algorithm.enable_router_replay")),
                       *(f"verl.{role}.megatron.router_replay.mode" for _, role in roles),
                       "algorithm.enable_router_replay", "trainer.trainer_strategy"),
        critic_lora=Value(NONE, "Trinity's critic (trinity/trainer/verl/trainer.py builds its model config without "
                                "LoRA)") if critic else Value(None),
        critic_model_config=of(config_value((("rope_theta", theta),) if theta is not None else ()),
                               "model.rope_theta", formula="trinity/trainer/verl/trainer.py: the critic's "
                               "HFModelConfig, override_config rope_theta only") if critic else Value(None),
    )


def trinity_sft_fields(v, val, of) -> dict[str, Value]:
    """SftRun's model config and MTP of ``view``'s keys: the trainer's part of the RL quantities (an SFT run has no
    rollout engine)."""
    megatron = str(val("trainer.trainer_strategy", "")).startswith("megatron")
    file = val("verl.model.hf_config_path")
    file = launch_path(str(file)) if file and launch_path(str(file)) != launch_path(str(val("model.model_path"))) \
        else None
    return dict(
        model_config=of(config_value(flat(applied(section(v, "verl.model.override_config"), "hf_model")), file),
                        *_override_keys(v), "verl.model.hf_config_path"),
        mtp=of(mtp_value(lambda k: val(f"verl.model.mtp.{k}", MTP_DEFAULTS[k])) if megatron else NONE,
               *(f"verl.model.mtp.{k}" for k in MTP_KEYS), "trainer.trainer_strategy"),
    )


def _override_keys(v) -> list[str]:
    return [k for k in v if k == "verl.model.override_config" or k.startswith("verl.model.override_config.")]
