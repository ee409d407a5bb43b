"""The precision the trainer trains in and the rollout generates in, in the semantic model (rftc.mapping.precision:
what each role's engine reads, per release and worker): a veRL launch's, per release and trainer, and a Trinity-RFT
0.6 config's, whose trainer runs verl 0.8.0's engine workers with the engine sections it builds and trainer_config's
over them, and whose explorer gives vLLM (or SGLang) explorer.rollout_model.dtype and no quantisation."""

from __future__ import annotations

from collections.abc import Mapping

from rftc.mapping.models import MCORE
from rftc.mapping.precision import (IN_ACTOR, QAT_DEFAULTS, Precision, describe, engine_dtype, rollout_precision,
                                    trinity_role, verl_roles, verl_sft)
from rftc.semantics.model import Value
from rftc.semantics.seeds import _engines
from rftc.trinity import workers
from rftc.trinity.registry import ALGORITHMS
from rftc.trinity.schema import TrinityConfig

FORMULA = "each role's weights, compute and gradient-reduce dtypes, optimizer state and QAT, as its engine reads them"
ROLLOUT_FORMULA = "the rollout engine's dtype and quantisation"
DEFAULTS = "trainer.trainer_strategy and the engine sections Trinity's trainer builds (Trinity's defaults)"


def precision_fields(r, sem, *, kl: bool, critic: bool) -> dict[str, Value]:
    """The trainer's and the rollout's precision of a veRL launch (``kl``: a KL uses the reference)."""
    roles = verl_roles(r.get, sem, kl=kl, critic=critic)
    keys = [k for _, _, read in roles for k in read]
    text, rollout_keys = rollout_precision(r.get, sem)
    return dict(precision=Value(describe([(role, p) for role, p, _ in roles]), r.where(*keys or [
        "actor_rollout_ref.actor.strategy"]), FORMULA),
                rollout_precision=Value(text, r.where(*rollout_keys), ROLLOUT_FORMULA))


def sft_precision_fields(r, get, sem, legacy: bool) -> dict[str, Value]:
    """The precision veRL's SFT trainer trains in (rftc.mapping.precision.verl_sft)."""
    p, keys = verl_sft(get, sem, legacy)
    return dict(precision=Value(describe([("actor", p)], single=True), r.where(*keys) if keys else
                                "fsdp_sft_trainer" if legacy else r.where("engine.strategy"), FORMULA))


def precision_view(x: TrinityConfig, put, where) -> None:
    """The engine sections Trinity's trainer builds (config.py _build_fsdp_engine_config: model_dtype fp32,
    mixed_precision {}, verl 0.8.0's QAT defaults; _build_mcore_engine_config: dtype bfloat16) with trainer_config's
    merged over them, and the rollout engine's dtype."""
    for role, sec in _engines(x.trainer.trainer_strategy).items():
        own, src = workers.engine_overrides(x, role, sec.rsplit(".", 1)[1])
        keys = ("dtype",) if x.trainer.trainer_strategy in MCORE else ("model_dtype", "mixed_precision")
        defaults = {"dtype": "bfloat16", "model_dtype": "fp32", "mixed_precision": {}}
        for k in keys:
            value = own.get(k, defaults[k])
            put(f"{sec}.{k}", {**defaults[k], **value} if isinstance(value, dict) else value, where(f"{src}.{k}"))
        qat = own.get("qat")
        put(f"{sec}.qat", {**QAT_DEFAULTS, **qat} if isinstance(qat, dict) else QAT_DEFAULTS if qat is None else qat,
            where(f"{src}.qat"))
    put("explorer.rollout_model.dtype", x.explorer.rollout_model.dtype)


def _trinity_roles(v: Mapping[str, Value], val, *, critic: bool, sft: bool = False):
    strategy = val("trainer.trainer_strategy", "fsdp2")
    engines = _engines(strategy)

    def role(name: str) -> tuple[Precision, list[str]]:
        sec = engines[name]
        # verl 0.8.0's Megatron optimizer config has no precision-aware settings
        p = trinity_role(lambda k: val(f"{sec}.{k}"), lambda k: None, strategy=strategy, role=name)
        return p, [f"{sec}.{k.split('.', 1)[0]}" for k in p.reads]

    roles = [("actor", *role("actor"))]
    algorithm = ALGORITHMS.get(val("algorithm.algorithm_type"))
    kl = any(val(k) not in (None, "none") for k in ("algorithm.kl_loss_fn", "algorithm.kl_penalty_fn"))
    if not sft and algorithm is not None and algorithm.use_reference and kl:
        in_actor = (val("verl.model.lora_rank", 0) or 0) > 0 or val("verl.model.lora_adapter_path") is not None
        roles.append(("ref", IN_ACTOR, ["model.lora_configs"]) if in_actor else ("ref", *role("ref")))
    if critic:
        roles.append(("critic", *role("critic")))
    return roles, ["trainer.trainer_strategy", *(k for _, _, keys in roles for k in keys)]


def _sources(v: Mapping[str, Value], keys: list[str]) -> str:
    """Where the file sets the keys read; Trinity's defaults named once."""
    sources = list(dict.fromkeys(v[k].source for k in keys if k in v))
    return ", ".join([s for s in sources if not s.endswith("(Trinity's default)")] or [DEFAULTS])


def trinity_precision_fields(v: Mapping[str, Value], val, *, critic: bool) -> dict[str, Value]:
    """The trainer's and the rollout's precision of a Trinity config (``view``'s keys)."""
    roles, keys = _trinity_roles(v, val, critic=critic)
    rollout = v.get("explorer.rollout_model.dtype", Value(None))
    return dict(precision=Value(describe([(r, p) for r, p, _ in roles]), _sources(v, keys), FORMULA),
                rollout_precision=Value(engine_dtype(rollout.value), rollout.source, ROLLOUT_FORMULA))


def trinity_sft_precision(v: Mapping[str, Value], val) -> Value:
    """An SFT config's: the actor's engine as in RL."""
    roles, keys = _trinity_roles(v, val, critic=False, sft=True)
    return Value(describe([(r, p) for r, p, _ in roles], single=True), _sources(v, keys), FORMULA)
