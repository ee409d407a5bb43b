"""The trainer's seed in the semantic model (rftc.mapping.seeds: which key seeds a worker's process, as veRL's
workers read it): a veRL launch's, per release and trainer, and a Trinity-RFT 0.6 config's, whose trainer runs verl
0.8's engine workers with its own engine defaults and trainer_config's engine sections over them."""

from __future__ import annotations

from collections.abc import Mapping

from rftc.mapping.models import MCORE
from rftc.mapping.seeds import A, UNSEEDED, seed_key, verl_seed_key
from rftc.semantics.model import Value
from rftc.trinity import workers
from rftc.trinity.registry import ALGORITHMS
from rftc.trinity.schema import TrinityConfig

FORMULA = ("the seed set last in the worker's process: megatron.seed; another engine's seed where its "
           "full_determinism is on")


def verl_seed(get, where, sem, *, critic: bool, kl: bool) -> Value:
    """The seed each trained role's worker process is seeded with: the actor's, and a critic's after it ("unseeded"
    where nothing seeds the process). ``get``/``where`` read the config; ``kl``: a KL is used."""
    keys = [verl_seed_key(get, sem, "actor", kl)] + ([verl_seed_key(get, sem, "critic", kl)] if critic else [])
    return _seed([get(k) if k else UNSEEDED for k in keys], where(*([k for k in keys if k] or [f"{A}.strategy"])))


def verl_sft_seed(get, where, legacy: bool) -> Value:
    """The seed of veRL's SFT trainer: fsdp_sft_trainer seeds nothing; sft_trainer's engine (its ``engine``
    section) as the RL workers' engines."""
    key = None if legacy else seed_key(get, [("engine", get("engine.strategy"))], True)
    return _seed([get(key) if key else UNSEEDED], where(key or "engine.strategy"))


def _seed(seeds: list, source: str) -> Value:
    return Value(seeds[0] if len(seeds) == 1 else f"actor {seeds[0]}, critic {seeds[1]}", source, FORMULA)


def _engines(strategy: str) -> dict[str, str]:
    """The engine section each role of Trinity's veRL config has under ``strategy`` (config.py
    _build_actor_config, _build_ref_config, _build_critic_config)."""
    if strategy in MCORE:
        return {role: f"verl.{role}.megatron" for role in ("actor", "ref", "critic")}
    return {"actor": "verl.actor.fsdp_config", "ref": "verl.ref.fsdp_config", "critic": "verl.critic.fsdp"}


def seed_view(x: TrinityConfig, put, where) -> None:
    """The seeds of the engines Trinity's trainer builds: its Megatron engine's 42, veRL's FSDP engine's 42 and
    full_determinism off, with trainer_config's engine sections merged over them (none of them frozen), and the
    LoRA adapter path that keeps the reference in the actor."""
    lora = x.model.lora_configs[0] if x.model.lora_configs else None
    put("verl.model.lora_adapter_path", lora.path if lora is not None and not lora.is_dummy else None,
        where("model.lora_configs"))
    for role, sec in _engines(x.trainer.trainer_strategy).items():
        own, src = workers.engine_overrides(x, role, sec.rsplit(".", 1)[1])
        for k, default in (("seed", 42), ("full_determinism", False)):
            if k == "full_determinism" and x.trainer.trainer_strategy in MCORE:
                continue  # Megatron's engine always seeds
            put(f"{sec}.{k}", own.get(k, default), where(f"{src}.{k}"))


def trinity_seed(v: Mapping[str, Value], val, *, critic: bool) -> Value:
    """The seed of the actor's worker process (the reference engine built before the actor's where the algorithm
    uses one and LoRA does not keep it in the actor: trainer.py VERLTrainer), and the critic's (rftc.mapping.seeds)."""
    strategy = val("trainer.trainer_strategy", "fsdp")
    engines = _engines(strategy)
    algorithm = ALGORITHMS.get(val("algorithm.algorithm_type"))
    in_actor = (val("verl.model.lora_rank", 0) or 0) > 0 or val("verl.model.lora_adapter_path") is not None
    roles = ("ref", "actor") if algorithm is not None and algorithm.use_reference and not in_actor else ("actor",)

    def get(key: str):  # veRL's engine config defaults where the expansion leaves the key out
        return val(key, 42 if key.endswith(".seed") else False)

    keys = [seed_key(get, [(engines[role], strategy) for role in roles], True)]
    if critic:
        keys.append(seed_key(get, [(engines["critic"], strategy)], True))
    sources = [v[k].source for k in keys if k and k in v] or [v[k].source for k in ("trainer.trainer_strategy",)
                                                              if k in v]
    return _seed([get(k) if k else UNSEEDED for k in keys], ", ".join(sources))
