"""The seed a trainer worker's process seeds its generators with (torch, numpy, random; under Megatron also the
model-parallel CUDA generator), as veRL's workers read it. A Megatron worker always seeds, with its role's
megatron.seed (the legacy ActorRolloutRefWorker with the actor's only; the engine workers build the reference
before the actor, so the actor's is set last); the engine workers' other engines (FSDP, veomni, torchtitan) seed
with their section's seed only where its full_determinism is on (enable_full_determinism); the legacy FSDP workers,
and 0.6's FSDP engine, seed nothing. The engine workers build the reference in the actor's worker where a KL is
used, except (from 0.7.1: rftc.verl.releases.semantics "engine_ref_in_actor") where LoRA is on, whose reference is
the actor without its adapter. Trinity-RFT 0.6's trainer runs verl 0.8's engine workers."""

from __future__ import annotations

from rftc.mapping.models import MCORE, engine_worker

A, REF, C, M = "actor_rollout_ref.actor", "actor_rollout_ref.ref", "critic", "actor_rollout_ref.model"
UNSEEDED = "unseeded"
FSDP = ("fsdp", "fsdp2")


def section(get, role: str, strategy) -> str:
    """The engine section the worker of ``role`` (A, REF, C, or Trinity's verl.* names) reads its seed from."""
    if strategy not in FSDP:  # megatron, mindspeed (a Megatron engine), veomni, torchtitan
        return f"{role}.{strategy}"
    if role.endswith("critic"):  # verl 0.8 moved the critic's engine settings to critic.fsdp
        return f"{role}.fsdp" if get(f"{role}.fsdp.seed") is not None else f"{role}.model.fsdp_config"
    return f"{role}.fsdp_config"


def seed_key(get, sections: list[tuple[str, str]], engine: bool) -> str | None:
    """Of the engine sections a process builds, in order ([(section, strategy)]), the key of the seed set last: a
    Megatron section's always, another's where ``engine`` (the engine workers) and its full_determinism is on; None
    where nothing seeds."""
    key = None
    for sec, strategy in sections:
        if strategy in MCORE or (engine and get(f"{sec}.full_determinism") is True):
            key = f"{sec}.seed"
    return key


def reference_in_worker(get, sem, kl: bool) -> bool:
    """Whether the engine workers build a reference engine in the actor's worker (``kl``: a KL is used)."""
    lora = any(isinstance(v, int) and not isinstance(v, bool) and v > 0
               for v in (get(f"{M}.lora.rank"), get(f"{M}.lora_rank")))
    in_actor = (lora or get(f"{M}.lora_adapter_path") is not None) and sem.value("engine_ref_in_actor")
    return kl and not in_actor


def runs_engine(get, sem, role: str) -> bool:
    """Whether the release runs ``role`` ("actor", "critic") on veRL's engine workers (veomni and torchtitan only
    run there)."""
    return engine_worker(get, sem, role) or get(f"{A if role == 'actor' else C}.strategy") not in (*FSDP, *MCORE)


def verl_seed_key(get, sem, role: str, kl: bool) -> str | None:
    """The key whose value seeds the process of the release's ``role`` worker ("actor", "critic"), None where
    nothing seeds it (``kl``: a KL is used, so the actor's worker may hold a reference)."""
    own = A if role == "actor" else C
    strategy = get(f"{own}.strategy")
    engine = runs_engine(get, sem, role)
    sections = [(section(get, own, strategy), strategy)]
    if role == "actor" and engine and reference_in_worker(get, sem, kl):
        sections.insert(0, (section(get, REF, get(f"{REF}.strategy")), get(f"{REF}.strategy")))
    return seed_key(get, sections, engine)


TRINITY_MEGATRON_SEED = 42  # Trinity's Megatron engine config (trinity/trainer/verl/config.py)


def map_seeds(d, critic: bool) -> None:
    """The seeds as the release's workers read them, for Trinity's engine workers: a Megatron section's seed the
    release gives otherwise than Trinity's Megatron engine (verl 0.1 to 0.3's 1) is written; the FSDP sections'
    full_determinism and seed that the release's legacy FSDP workers do not read, or that belong to a reference
    veRL does not build (no KL), are left out (Trinity's FSDP engine would seed with them)."""
    from rftc.verl.releases import semantics

    kl = bool(d.val(f"{A}.use_kl_loss")) or bool(semantics.kl_in_reward(d.sem, d.val))
    for role, own in (("actor", A), ("critic", C))[:2 if critic else 1]:
        strategy = d.val(f"{own}.strategy")
        if strategy in MCORE:
            key = f"{section(d.val, own, strategy)}.seed"
            if not d.user(key) and d.val(key) not in (None, TRINITY_MEGATRON_SEED):
                d.passthrough(key)
            continue
        engine = runs_engine(d.val, d.sem, role)
        unread = [] if engine else [section(d.val, own, strategy)]
        if role == "actor" and not (engine and reference_in_worker(d.val, d.sem, kl)):
            unread.append(section(d.val, REF, d.val(f"{REF}.strategy")))
        why = (f"verl {d.sem.release}'s legacy FSDP workers seed nothing" if not engine else
               "veRL builds no reference engine in the actor's worker (no KL, or LoRA keeps the reference in the actor)")
        for sec in unread:
            for k in (f"{sec}.full_determinism", f"{sec}.seed"):
                if d.user(k) and not d.done(k):
                    d.implied(k, f"{why}: not read (Trinity's FSDP engine would seed with it)")
