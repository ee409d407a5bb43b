"""Which worker of a veRL release reads a model's own settings (rftc.semantics.model_settings computes them, the key
classification's conditions ask the same): the legacy FSDP and Megatron workers (to 0.7.x) or the engine workers
(rftc.mapping.seeds.runs_engine: the only ones from 0.8.0, 0.7's under trainer.use_legacy_worker_impl=disable, and
VeOmni's and TorchTitan's engines), the reference a worker of its own or the actor with its adapter disabled, and
the engine section whose MoE router replay and frozen router each role reads."""

from __future__ import annotations

from rftc.mapping.models import MCORE
from rftc.mapping.seeds import reference_in_worker, runs_engine

A, REF, M, C = "actor_rollout_ref.actor", "actor_rollout_ref.ref", "actor_rollout_ref.model", "critic"
FSDP = ("fsdp", "fsdp2")
REPLAYING = ("megatron", "mindspeed", "veomni")  # the engines that replay MoE routing (engine_config.router_replay)
ROUTER = "moe_config.freeze_moe_router"
SECTIONS = {"actor": A, "ref": REF, "critic": C}


def _strategy(get, role: str):
    return get(f"{C if role == 'critic' else A}.strategy")


def ref_in_actor(get) -> bool:
    """The trainer keeps the reference in the actor (ray_trainer.py RayPPOTrainer.ref_in_actor, 0.4.0 on): LoRA
    on (lora_rank, or from 0.7.1 Megatron's model.lora.rank) or a LoRA adapter to start from; the reference is the
    actor with its adapter disabled, the model's own weights."""
    ranks = (get(f"{M}.lora_rank"), get(f"{M}.lora.rank"))
    return any(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in ranks) or \
        get(f"{M}.lora_adapter_path") is not None


def legacy(get, sem, role: str = "actor") -> bool:
    """``role`` ("actor", "critic") runs on the release's legacy FSDP or Megatron workers."""
    return not runs_engine(get, sem, role)


def legacy_megatron(get, sem, role: str = "actor") -> bool:
    """``role`` runs on the legacy Megatron workers (verl/workers/megatron_workers.py, to 0.7.x)."""
    return _strategy(get, role) in MCORE and legacy(get, sem, role)


def own_reference(get, sem) -> bool:
    """actor_rollout_ref.ref.model is read (rftc.verl.releases.semantics "ref_model_key": the legacy FSDP
    ActorRolloutRefWorker.init_model of 0.6.0 to 0.7.x loads the reference from ref.model.path where ref.model is
    set, else model.path), where the reference has a worker of its own (no LoRA keeps it in the actor)."""
    return bool(sem.value("ref_model_key")) and _strategy(get, "actor") in FSDP and legacy(get, sem) and \
        not ref_in_actor(get)


def override_rule(get, sem, role: str) -> str:
    """How ``role``'s worker applies its model's override_config (rftc.semantics.model_settings.applied): the engine
    workers by HFModelConfig ("hf_model"), the legacy Megatron workers by the release's rule
    ("megatron_model_override"), the legacy FSDP workers all of it ("whole")."""
    if not legacy(get, sem, role):
        return "hf_model"
    return sem.value("megatron_model_override") if _strategy(get, role) in MCORE else "whole"


def applied(override, rule: str) -> dict:
    """The part of a model's override_config veRL applies to its Hugging Face config: all of it ("whole": the legacy
    FSDP workers, the Megatron workers before 0.4.0), its model_config entry ("model_config": the Megatron workers
    from 0.4.0, verl/single_controller/base/megatron/worker.py or megatron_workers.py _init_hf_config_and_tf_config),
    or HFModelConfig's choice ("hf_model": the engine workers and Trinity's, verl/workers/config/model.py: its
    model_config entry where it has one, else all of it)."""
    override = dict(override or {}) if hasattr(override, "items") else {}
    return dict(override.get("model_config") or {}) if entry_only(override, rule) else override


def entry_only(override, rule: str) -> bool:
    """Whether the worker applies override_config's model_config entry only (``applied``)."""
    return rule == "model_config" or rule == "hf_model" and hasattr(override, "items") and "model_config" in override


def router_key(get, sem, role: str) -> str | None:
    """The key whose true value freezes ``role``'s MoE router: the legacy Megatron workers from 0.4.0 read the
    model's override_config.moe_config.freeze_moe_router (init_mcore_model), a Megatron engine (MindSpeed's is one)
    its section's override_mcore_model_config's (verl/utils/megatron_utils.py make_megatron_module); None where
    nothing freezes it."""
    section, model = (A, M) if role == "actor" else (C, f"{C}.model")
    strategy = _strategy(get, role)
    if strategy not in MCORE:
        return None
    if not legacy(get, sem, role):
        return f"{section}.{strategy}.override_mcore_model_config.{ROUTER}"
    return f"{model}.override_config.{ROUTER}" if sem.value("megatron_model_override") == "model_config" else None


def replay_key(get, sem, role: str, *, kl: bool = True) -> str | None:
    """The key of ``role``'s ("actor", "ref", "critic") router_replay.mode its engine reads: the legacy Megatron
    actor's actor.router_replay.mode (0.7; its reference and critic never replay), an engine's
    <strategy>.router_replay.mode (the Megatron, MindSpeed and VeOmni engines; the reference's where its engine is
    built in the actor's worker, ``kl``); None where nothing replays."""
    section = SECTIONS[role]
    strategy = _strategy(get, "critic" if role == "critic" else "actor")
    if legacy(get, sem, "critic" if role == "critic" else "actor"):
        return f"{A}.router_replay.mode" if role == "actor" and strategy in MCORE and \
            get(f"{A}.router_replay.mode") is not None else None
    if strategy not in REPLAYING or role == "ref" and not reference_in_worker(get, sem, kl):
        return None
    return f"{section}.{strategy}.router_replay.mode"
