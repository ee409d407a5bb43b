"""What each role of the trainer trains and computes in, as veRL's workers read it, and what the rollout generates in.

A role's engine (rftc.mapping.seeds says which one the release runs it on, and which section it reads):

- the legacy FSDP workers (verl/workers/fsdp_workers.py; 0.1: verl/trainer/ppo/workers/fsdp_workers.py): the weights
  are loaded (and kept, with the optimizer's state) in fsdp_config.model_dtype, unset fp32 for the actor and bf16 for
  the reference (the critic's model.fsdp_config.model_dtype, unset fp32); FSDP casts the parameters to
  fsdp_config.mixed_precision.param_dtype, unset bf16 (from 0.6.1 fsdp_config.dtype), reduces gradients in its
  reduce_dtype (fp32) and casts buffers to its buffer_dtype (fp32, FSDP1 only); the actor's and the reference's
  forward runs under autocast in bf16 (verl/workers/actor/dp_actor.py; from 0.6.1 fsdp_config.dtype), the critic's in
  bf16 (dp_critic.py). 0.1 gives the reference no mixed precision. 0.7.1's actor trains with quantisation-aware
  training (fake-quantised weights) where actor.qat.enable (_init_qat_config).
- the legacy Megatron workers (verl/workers/megatron_workers.py): bf16, from 0.6.1 the actor's megatron.dtype (the
  reference's too) and the critic's own; fp32 main weights and optimizer state.
- the engine workers (verl/workers/engine/): FSDP (transformer_impl.py): weights in model_dtype (unset fp32; the
  forward-only reference bf16), parameters in mixed_precision.param_dtype (bf16), gradients reduced in its
  reduce_dtype, buffers in its buffer_dtype (FSDP1), autocast in bf16 (from 0.8.0 in the parameter dtype, none for
  fp32), QAT where the section's qat.enable (from 0.7.1; not the forward-only reference); fsdp_turbo
  (fsdp_turbo_impl.py, 0.9.1) casts as its turbo_config.distributed.fsdp_plan says. Megatron (transformer_impl.py):
  megatron.dtype (McoreEngineConfig takes bfloat16 or float16), fp32 main weights and optimizer state unless the
  optimizer is precision-aware (verl/utils/megatron/optimizer.py init_megatron_optim_config, from 0.9.0: under bf16,
  optim.use_precision_aware_optimizer with main_grads_dtype, exp_avg_dtype, exp_avg_sq_dtype), QAT where
  megatron.qat.enable (from 0.8.0). Other engines (veomni, torchtitan, automodel) are named, not read.

Buffers are named only where their cast loses precision against the weights (an FSDP1 buffer_dtype below them): a
buffer cast up holds the weights' values. Trinity-RFT 0.6's trainer runs verl 0.8.0's engine workers with the engine
sections it builds (trinity/trainer/verl/config.py _build_fsdp_engine_config: model_dtype fp32, dtype bfloat16,
mixed_precision {}; _build_mcore_engine_config: dtype bfloat16) and trainer_config's sections merged over them.
"""

from __future__ import annotations

from dataclasses import dataclass

from rftc.mapping.models import MCORE
from rftc.mapping.seeds import A, C, M, REF, runs_engine, section

TRINITY_VERL = "0.8.0"  # the verl release whose engine workers Trinity-RFT 0.6's trainer runs
R = "actor_rollout_ref.rollout"
FSDP = ("fsdp", "fsdp2", "fsdp_turbo")
OWN = {"actor": A, "ref": REF, "critic": C}
LABELS = {"actor": "actor", "ref": "reference", "critic": "critic"}
IN_ACTOR = "the actor's, without its LoRA adapter"
# PrecisionType.to_dtype's spellings (verl/utils/torch_dtypes.py HALF_LIST, FLOAT_LIST, BFLOAT_LIST)
_DTYPES = {16: "fp16", "16": "fp16", "fp16": "fp16", "float16": "fp16", 32: "fp32", "32": "fp32", "fp32": "fp32",
           "float32": "fp32", "bf16": "bf16", "bfloat16": "bf16"}
MEGATRON_DTYPES = ("bfloat16", "float16")  # McoreEngineConfig.__post_init__'s assert
# the QAT settings training reads: FSDP's apply_qat (verl/utils/qat/core.py), Megatron's apply_qat_to_modules
# (verl/utils/modelopt/qat_utils.py)
QAT_FIELDS = ("mode", "group_size", "ignore_patterns", "activation_observer")
MEGATRON_QAT_FIELDS = ("mode", "ignore_patterns")
# verl 0.8.0's QATEngineConfig defaults (verl/workers/config/engine.py), which a section Trinity builds starts from
QAT_DEFAULTS = {"enable": False, "mode": "w4a16", "group_size": 16,
                "ignore_patterns": ["lm_head", "embed_tokens", "re:.*mlp.gate$"],
                "activation_observer": "static_minmax", "quantization_config_path": None}
AWARE = ("main_grads_dtype", "exp_avg_dtype", "exp_avg_sq_dtype")  # McoreOptimizerConfig (0.9.0 on)
AWARE_DTYPES = ("fp32", "float32", "32", "bf16", "bfloat16")  # its __post_init__'s assert
AWARE_NAMES = {"main_grads_dtype": "gradients", "exp_avg_dtype": "first moment", "exp_avg_sq_dtype": "second moment"}
# vLLM's (and SGLang's) dtype names (vllm/config: _STR_DTYPE_TO_TORCH_DTYPE, lower-cased)
ENGINE_DTYPES = {"half": "float16", "float16": "float16", "float": "float32", "float32": "float32",
                 "bfloat16": "bfloat16", "auto": "auto (the model's own dtype)"}


class Stop(Exception):
    """A value the worker refuses: the run stops at start."""


def short_dtype(value) -> str | None:
    """``value`` as PrecisionType.to_dtype reads it, by its short name (fp32, bf16, fp16); None where it raises."""
    return None if isinstance(value, bool) else _DTYPES.get(value) if isinstance(value, (int, str)) else None


def dtype(value, key: str) -> str:
    """``short_dtype``; Stop where PrecisionType.to_dtype raises."""
    got = short_dtype(value)
    if got is None:
        raise Stop(f"{key} {value!r} is no dtype veRL reads")
    return got


@dataclass(frozen=True)
class Precision:
    """One role's precision, as its engine applies it (None: a part the engine or role does not have)."""

    engine: str  # "fsdp", "megatron", or an engine rftc does not read
    weights: str | None = None  # FSDP: the dtype the weights (and the optimizer's state) are kept in
    params: str | None = None  # the dtype the forward and backward compute in (FSDP's parameter cast, Megatron's)
    autocast: str | None = None  # the autocast dtype around the forward, where it differs from params
    buffers: str | None = None  # an FSDP1 buffer cast below the weights
    output: str | None = None  # fsdp_turbo's output dtype
    reduce: str | None = None  # the dtype gradients are reduced in (a trained role's)
    optimizer: str | None = None  # Megatron: its optimizer's state
    qat: tuple | None = None  # ((setting, value), ...) of quantisation-aware training, where on
    stop: str | None = None  # why the run stops instead
    reads: tuple[str, ...] = ()  # the keys read for it

    def text(self) -> str:
        if self.stop:
            return f"the run stops ({self.stop})"
        if self.engine not in ("fsdp", "megatron"):
            return f"the {self.engine} engine's own (not read)"
        parts = [self.compute()]
        if self.engine == "fsdp":
            parts.insert(0, f"{self.weights} weights" + (" and optimizer state" if self.reduce else ""))
        elif self.optimizer:
            parts.insert(1, self.optimizer)
        if self.qat:
            parts.append("QAT " + ", ".join(f"{k} {v}" for k, v in self.qat))
        return ", ".join(parts)

    def compute(self) -> str:
        """The dtypes the forward and backward compute in, buffers are cast to, gradients are reduced in."""
        compute = self.params if self.autocast in (None, self.params) else \
            f"{self.params} parameters under {self.autocast} autocast"
        return ", ".join([f"{compute} compute"] + [f"{v} {k}" for k, v in (
            ("buffers", self.buffers), ("output", self.output), ("gradient reduce", self.reduce)) if v])


def _stopped(engine: str, reads: list[str], build) -> Precision:
    try:
        return build()
    except Stop as e:
        return Precision(engine, stop=str(e), reads=tuple(reads))


def _qat(q, fields: tuple[str, ...], reads: list[str], prefix: str) -> tuple | None:
    """The QAT settings training reads where ``q`` (a qat section) turns it on."""
    reads.append(f"{prefix}.enable")
    if not isinstance(q, dict) or q.get("enable") is not True:
        return None
    reads.extend(f"{prefix}.{k}" for k in fields)
    return tuple((k, q.get(k)) for k in fields)


def _lossy(cast: str | None, weights: str) -> str | None:
    """A buffer cast that loses precision against the weights (one up, or to theirs, holds their values)."""
    return None if cast in (None, weights, "fp32") else cast


def legacy_fsdp(sec, sem, role: str, strategy: str, actor_qat=None) -> Precision:
    """A role of the legacy FSDP workers; ``sec(k)`` reads its FSDP section (the critic's model.fsdp_config),
    ``actor_qat`` the actor's qat section (0.7.1)."""
    reads_dtype = role != "critic" and sem.value("legacy_fsdp_dtype") == "dtype"
    reads = ["model_dtype", "mixed_precision"] + (["dtype"] if reads_dtype else [])

    def build() -> Precision:
        model = sec("model_dtype")
        weights = dtype(model, "model_dtype") if model is not None else "bf16" if role == "ref" else "fp32"
        own = dtype(sec("dtype"), "dtype") if reads_dtype else "bf16"
        mp, trained = sec("mixed_precision"), role != "ref"
        if role == "ref" and not sem.value("legacy_ref_mixed"):
            params, reduce, buffers = weights, None, None  # no MixedPrecision: FSDP keeps the weights' dtype
        elif mp is not None:
            if not isinstance(mp, dict):
                raise Stop(f"mixed_precision {mp!r} is no mapping")
            params, reduce, buffers = (dtype(mp.get(f"{k}_dtype", d), f"mixed_precision.{k}_dtype")
                                       for k, d in (("param", "bf16"), ("reduce", "fp32"), ("buffer", "fp32")))
        else:
            params, reduce, buffers = own, "fp32", "fp32"
        qat = _qat(actor_qat, QAT_FIELDS, reads, "qat") if role == "actor" and actor_qat is not None else None
        return Precision("fsdp", weights, params, own, _lossy(buffers, weights) if strategy == "fsdp" else None,
                         reduce=reduce if trained else None, qat=qat, reads=tuple(reads))
    return _stopped("fsdp", reads, build)


def engine_fsdp(sec, *, strategy: str, trained: bool, autocast: str, reads_qat: bool) -> Precision:
    """A role of the engine workers' FSDP engine (``autocast``: the release's engine_autocast); ``sec(k)`` reads its
    section; ``reads_qat``: the release's engine reads the section's qat (it has one)."""
    reads = ["model_dtype"]

    def build() -> Precision:
        model = sec("model_dtype")
        weights = dtype(model, "model_dtype") if model is not None else "fp32" if trained else "bf16"
        buffers, output = None, None
        if strategy == "fsdp_turbo":  # FSDPTurbo casts as its plan says (its own package reads the names)
            plan = "turbo_config.distributed.fsdp_plan"
            reads.extend(f"{plan}.{k}_dtype" for k in ("param", "reduce", "output"))
            params, reduce, output = (_DTYPES.get(v, v) if isinstance(v, (int, str)) else v
                                      for v in (sec(f"{plan}.{k}_dtype") for k in ("param", "reduce", "output")))
            cast = "bf16"  # its _build_fsdp_module sets no autocast dtype: the engine's default
        else:
            reads.append("mixed_precision")
            mp = sec("mixed_precision")
            if mp is not None and not isinstance(mp, dict):
                raise Stop(f"mixed_precision {mp!r} is no mapping")
            mp = mp or {}
            params, reduce, cast = (dtype(mp.get(f"{k}_dtype", d), f"mixed_precision.{k}_dtype")
                                    for k, d in (("param", "bf16"), ("reduce", "fp32"), ("buffer", "fp32")))
            buffers = _lossy(cast, weights) if strategy == "fsdp" else None
            cast = "bf16" if autocast == "bf16" else None if params == "fp32" else params
        qat = _qat(sec("qat"), QAT_FIELDS, reads, "qat") if trained and reads_qat else None
        return Precision("fsdp", weights, params, cast, buffers, output, reduce if trained else None, qat=qat,
                         reads=tuple(reads))
    return _stopped("fsdp", reads, build)


def megatron(sec, optim, *, trained: bool, reads_dtype: bool, reads_qat: bool) -> Precision:
    """A role of a Megatron worker: ``sec(k)`` reads the megatron section whose dtype it computes in (``reads_dtype``
    False: bf16, the legacy workers before 0.6.1), ``optim(k)`` the role's optim section."""
    reads = ["dtype"] if reads_dtype else []

    def build() -> Precision:
        d = sec("dtype") if reads_dtype else "bfloat16"
        if d not in MEGATRON_DTYPES:
            raise Stop(f"megatron.dtype {d!r}: McoreEngineConfig takes bfloat16 or float16")
        compute = dtype(d, "dtype")
        state = "fp32 main weights and optimizer state" if trained else None
        if trained and compute == "bf16" and optim("use_precision_aware_optimizer") is not None:
            reads.append("optim.use_precision_aware_optimizer")  # 0.9.0's init_megatron_optim_config, bf16 only
            if optim("use_precision_aware_optimizer") is True:
                reads.extend(f"optim.{k}" for k in AWARE)
                if any(optim(k) not in AWARE_DTYPES for k in AWARE):
                    raise Stop(f"optim's {', '.join(AWARE)}: McoreOptimizerConfig takes fp32 or bf16")
                state = "fp32 main weights, precision-aware optimizer: " + ", ".join(
                    f"{dtype(optim(k), k)} {AWARE_NAMES[k]}" for k in AWARE)
        qat = _qat(sec("qat"), MEGATRON_QAT_FIELDS, reads, "qat") if trained and reads_qat else None
        return Precision("megatron", params=compute, optimizer=state, qat=qat, reads=tuple(reads))
    return _stopped("megatron", reads, build)


def ref_in_actor(get) -> bool:
    """The trainer computes the reference's log-probs with the actor without its LoRA adapter (ray_trainer.py
    RayPPOTrainer.__init__ ref_in_actor, from 0.4.0: model.lora_rank > 0, lora_adapter_path, from 0.7.1 model.lora.rank;
    releases without the keys have no LoRA)."""
    return any(isinstance(v, int) and not isinstance(v, bool) and v > 0
               for v in (get(f"{M}.lora.rank"), get(f"{M}.lora_rank"))) or get(f"{M}.lora_adapter_path") is not None


def verl_role(get, sem, role: str) -> tuple[Precision, tuple[str, ...]]:
    """The precision of the release's ``role`` ("actor", "ref", "critic") and the keys it is read from."""
    strategy = get(f"{A}.strategy") or "fsdp"
    if role != "actor":
        strategy = get(f"{OWN[role]}.strategy") or strategy
    engine = runs_engine(get, sem, "critic" if role == "critic" else "actor")
    trained = role != "ref"
    if strategy in MCORE:
        # the legacy ActorRolloutRefWorker computes the reference in the actor's megatron.dtype
        sec = f"{A if role == 'ref' and not engine else OWN[role]}.megatron"
        legacy = sem.value("legacy_megatron_dtype") == "megatron.dtype"
        p = megatron(lambda k: get(f"{sec}.{k}"), lambda k: get(f"{OWN[role]}.optim.{k}"), trained=trained,
                     reads_dtype=engine or legacy, reads_qat=engine and get(f"{sec}.qat") is not None)
        return p, tuple(f"{OWN[role]}.{k}" if k.startswith("optim.") else f"{sec}.{k}" for k in p.reads)
    if strategy not in FSDP:
        return Precision(str(strategy)), ()
    if not engine:  # the legacy critic reads model.fsdp_config
        sec = f"{C}.model.fsdp_config" if role == "critic" else f"{OWN[role]}.fsdp_config"
        qat = get(f"{A}.qat") if role == "actor" and get(f"{A}.qat") is not None else None
        p = legacy_fsdp(lambda k: get(f"{sec}.{k}"), sem, role, strategy, qat)
        return p, tuple(f"{A}.{k}" if k.startswith("qat.") else f"{sec}.{k}" for k in p.reads)
    sec = section(get, OWN[role], "fsdp")
    p = engine_fsdp(lambda k: get(f"{sec}.{k}"), strategy=strategy, trained=trained,
                    autocast=sem.value("engine_autocast"), reads_qat=get(f"{sec}.qat") is not None)
    return p, tuple(f"{sec}.{k}" for k in p.reads)


def verl_roles(get, sem, *, kl: bool, critic: bool) -> list[tuple[str, Precision | str, tuple[str, ...]]]:
    """(role, its precision or IN_ACTOR, the keys read) of each role the launch has: the actor, the reference where a
    KL uses it (``kl``), the critic where one is trained."""
    out = [("actor", *verl_role(get, sem, "actor"))]
    if kl:
        out.append(("ref", IN_ACTOR, (f"{M}.lora_rank",)) if ref_in_actor(get) else ("ref", *verl_role(get, sem, "ref")))
    if critic:
        out.append(("critic", *verl_role(get, sem, "critic")))
    return out


def verl_sft(get, sem, legacy: bool) -> tuple[Precision, tuple[str, ...]]:
    """The precision veRL's SFT trainer trains in, and the keys it is read from: fsdp_sft_trainer's fixed mixed
    precision (bf16 parameters and autocast, fp32 gradient reduce and buffers) over fp32 weights (from 0.4.0
    model.fsdp_config.model_dtype, unset fp32); the engine trainer's ``engine`` section as the RL workers' engines."""
    if legacy:
        key = "model.fsdp_config.model_dtype"
        reads = sem.value("sft_model_dtype") == "read"
        weights = get(key) if reads and get(key) is not None else "fp32"
        p = _stopped("fsdp", [], lambda: Precision("fsdp", dtype(weights, "model_dtype"), "bf16", reduce="fp32"))
        return p, (key,) if reads else ()
    strategy = get("engine.strategy") or "fsdp"

    def sec(k: str):
        return get(f"engine.{k}")
    if strategy in MCORE:
        p = megatron(sec, lambda k: get(f"optim.{k}"), trained=True, reads_dtype=True,
                     reads_qat=get("engine.qat") is not None)
    elif strategy in FSDP:
        p = engine_fsdp(sec, strategy=strategy, trained=True, autocast=sem.value("engine_autocast"),
                        reads_qat=get("engine.qat") is not None)
    else:
        return Precision(str(strategy)), ()
    return p, tuple(k if k.startswith("optim.") else f"engine.{k}" for k in p.reads)


def describe(roles: list[tuple[str, Precision | str]], *, single: bool = False) -> str:
    """The roles' precisions in words (``single``: one role, unnamed: an SFT run's model)."""
    texts = [(r, p if isinstance(p, str) else p.text()) for r, p in roles]
    return texts[0][1] if single else "; ".join(f"{LABELS[r]}: {t}" for r, t in texts)


def trinity_role(sec, optim, *, strategy: str, role: str) -> Precision:
    """A role as Trinity's trainer builds it: verl 0.8.0's engine workers (``sec(k)`` reads the engine section with
    Trinity's defaults and trainer_config's over them, ``optim(k)`` the role's optim section)."""
    from rftc.verl.releases.semantics import resolve

    trained = role != "ref"
    if strategy in MCORE:
        return megatron(sec, optim, trained=trained, reads_dtype=True, reads_qat=True)
    return engine_fsdp(sec, strategy=strategy, trained=trained,
                       autocast=resolve(TRINITY_VERL, snapshot=False).value("engine_autocast"), reads_qat=True)


def rollout_precision(get, sem) -> tuple[str, tuple[str, ...]]:
    """What the training rollout generates in, and the keys it is read from: the hf and naive rollouts generate with
    the actor's FSDP module; vLLM, SGLang and TensorRT-LLM are given rollout.dtype and rollout.quantization (0.7.0
    on; vllm_async_server.py _apply_quantization also its quantization_config_file, and from 0.7.1 the QAT
    rollout.qat follows, ${oc.select:actor.fsdp_config.qat,...}: with it on, the weights the rollout receives are
    quantised as its quantization_config_path says, ignore_patterns over its ignore list)."""
    name = get(f"{R}.name") or "vllm"
    if name in ("hf", "naive"):
        return f"the actor's FSDP module ({name} rollout)", (f"{R}.name",)
    keys = [f"{R}.name", f"{R}.dtype"]
    text = engine_dtype(get(f"{R}.dtype"))
    quant, qat = get(f"{R}.quantization"), get(f"{R}.qat") if name == "vllm" else None
    if qat is not None and not isinstance(qat, dict):
        return f"the run stops (rollout.qat {qat!r} is no mapping)", (*keys, f"{R}.qat")
    if isinstance(qat, dict) and qat.get("enable"):
        keys.append(f"{R}.qat")
        if not qat.get("quantization_config_path"):
            return "the run stops (QAT's quantization_config_path is unset)", tuple(keys)
        text += (f", QAT-quantised weights ({qat.get('quantization_config_path')}, ignoring "
                 f"{qat.get('ignore_patterns')})")
        quant = "qat"
    elif quant is not None:
        keys.append(f"{R}.quantization")
        text += f", {quant} quantisation"
    if quant is not None and name == "vllm" and get(f"{R}.quantization_config_file") is not None:
        keys.append(f"{R}.quantization_config_file")
        text += f" (config file {get(f'{R}.quantization_config_file')})"
    return text, tuple(keys)


def engine_dtype(value) -> str:
    """An inference engine's dtype by vLLM's name (its names lower-cased); one it does not know stops the run."""
    name = ENGINE_DTYPES.get(value.lower()) if isinstance(value, str) else None
    return name if name is not None else f"the run stops (the engine has no dtype {value!r})"


# ---- the conversion: each role's precision as the release's worker reads it, for Trinity's engine workers

TC = "trainer.trainer_config"
TRINITY_DEFAULTS = {"model_dtype": "fp32", "mixed_precision": {}, "dtype": "bfloat16", "qat": QAT_DEFAULTS}
MEGATRON_NAMES = {"bf16": "bfloat16", "fp16": "float16"}  # megatron.dtype's spelling of a compute dtype


def _trinity_sections(role: str, megatron: bool, sft: str | None) -> tuple[str, list[str]]:
    """The engine section Trinity builds for ``role`` (its path in trainer_config) and the veRL sections the
    conversion passes into it (``sft``: the SFT trainer's own, model.fsdp_config or engine)."""
    kind = "megatron" if megatron else "fsdp_config"
    target = f"{OWN[role]}.{kind}" if role != "critic" else f"{C}.{'megatron' if megatron else 'fsdp'}"
    if sft is not None:
        return f"{A}.{kind}", [sft]
    if role == "critic" and not megatron:
        return target, [f"{C}.model.fsdp_config", f"{C}.fsdp"]
    return target, [target]


def _trinity_value(d, target: str, sources: list[str], k: str, unread: set[str]):
    """Subkey ``k`` of the Trinity engine section ``target`` as the conversion leaves it: what it has written,
    the user's keys it will pass there (those of ``sources`` verl 0.8.0 has; not ``unread``), Trinity's default."""
    from rftc.mapping.draft import worker_setting

    default = TRINITY_DEFAULTS[k]
    written = d.get(f"{TC}.{target}.{k}")
    passed = {key[len(s) + len(k) + 2:]: d.val(key) for s in sources for key in d.user_keys_under(f"{s}.{k}")
              if key not in unread and not d.done(key) and worker_setting(f"{target}{key[len(s):]}")}
    if isinstance(default, dict):
        return {**default, **(written if isinstance(written, dict) else {}), **{p: v for p, v in passed.items() if p}}
    return passed.get("", written if written is not None else default)


def align(d, role: str, p: Precision, reads: tuple[str, ...], *, sft: str | None = None) -> None:
    """Write what Trinity's engine needs to train ``role`` as the release does (``p``, read from ``reads``): the
    section's model_dtype, a Megatron section's dtype, QAT's settings; the user's keys of the section that the
    release's worker does not read are left out (Trinity's engine would); a compute, reduce or buffer cast Trinity's
    engine would apply otherwise is RFTC305."""
    from rftc.mapping.models import strategy

    if p.engine not in ("fsdp", "megatron") or p.stop:
        return
    megatron = strategy(d) == "megatron" if sft is None else d.get("trainer.trainer_strategy") == "megatron"
    if megatron != (p.engine == "megatron"):
        return  # another engine: the strategy's own report says so
    target, sources = _trinity_sections(role, megatron, sft)
    tstrategy = "megatron" if megatron else d.get("trainer.trainer_strategy") or "fsdp2"
    trole = "actor" if sft is not None else role
    label = f"the {LABELS[role]}" if sft is None else "the model"
    release = d.sem.release

    def trinity(unread: set[str]) -> Precision:
        return trinity_role(lambda k: _trinity_value(d, target, sources, k, unread), lambda k: None,
                            strategy=tstrategy, role=trole)

    def read(key: str, keys) -> bool:
        return any(key == k or key.startswith(k + ".") for k in keys)

    # the user's keys Trinity's engine reads there and the release's worker does not: not passed
    t_reads = [f"{s}.{k}" for s in sources for k in trinity(set()).reads]
    unread = {key for s in sources for key in d.user_keys_under(s) if read(key, t_reads) and not read(key, reads)}
    for key in sorted(unread):
        if not d.done(key):
            d.implied(key, f"verl {release}'s worker does not read it for {label} (Trinity's engine would)")
    t = trinity(unread)
    source = next((k for k in reads if d.user(k)), reads[0] if reads else f"{A}.strategy")

    def src(suffix: str) -> str:  # the key the part is read from, else the role's
        return next((k for k in reads if k.endswith(suffix)), source)

    if megatron and p.params != t.params:
        d.set(f"{TC}.{target}.dtype", MEGATRON_NAMES[p.params], src(".dtype"),
              note=f"verl {release} computes {label} in {p.params}; Trinity's Megatron engine in {t.params}")
    if not megatron and p.weights != t.weights:
        d.set(f"{TC}.{target}.model_dtype", p.weights, src(".model_dtype"),
              note=f"verl {release} keeps {label}'s weights in {p.weights}; Trinity's FSDP engine in {t.weights}")
    if p.qat != t.qat:
        theirs = _trinity_value(d, target, sources, "qat", unread)
        for k, v in (("enable", p.qat is not None), *(p.qat or ())):
            if k == "enable" or theirs.get(k) != v:
                d.set(f"{TC}.{target}.qat.{k}", v, src(f".qat.{k}"), note=f"verl {release} trains {label} so")
    if not megatron and p.compute() != t.compute():
        d.report("RFTC305", f"verl {release} trains {label} with {p.compute()}; Trinity's FSDP engine (verl "
                 f"{TRINITY_VERL}) would with {t.compute()}: it casts the parameters to mixed_precision.param_dtype "
                 "(bf16), autocasts in it and reduces in its reduce_dtype (fp32), and the converted config cannot "
                 "set mixed_precision (a setting verl's config file does not list)", source, settles=False)


def map_sft_precision(d, legacy: bool) -> None:
    """The model's precision as veRL's SFT trainer reads it, for Trinity's engine (``align``)."""
    p, reads = verl_sft(d.val, d.sem, legacy)
    align(d, "actor", p, reads, sft="model.fsdp_config" if legacy else "engine")


def map_precision(d, critic: bool) -> None:
    """Each role's precision as the release's worker reads it, for Trinity's engine workers (``align``), and the
    rollout's: a QAT-quantised rollout (the actor's qat, which rollout.qat follows) is RFTC305, Trinity's explorer
    generating in explorer.rollout_model.dtype."""
    from rftc.verl.releases import semantics

    kl = bool(d.val(f"{A}.use_kl_loss")) or bool(semantics.kl_in_reward(d.sem, d.val))
    roles = verl_roles(d.val, d.sem, kl=kl, critic=critic)
    for role, p, reads in roles:
        if isinstance(p, Precision):
            align(d, role, p, reads)
    for key in d.user_keys_under(f"{A}.qat"):  # 0.7.1's legacy FSDP actor's (align writes it as the engine's)
        if not d.done(key):
            d.implied(key, "carried by trainer_config's actor fsdp_config.qat" if key in roles[0][2] else
                      f"not read by verl {d.sem.release}'s workers (0.7.1's legacy FSDP actor reads it)")
    _, keys = rollout_precision(d.val, d.sem)
    if f"{R}.qat" in keys and not d.user(f"{R}.qat"):
        qat = next((k for k in (f"{A}.fsdp_config.qat.enable", f"{A}.megatron.qat.enable") if d.user(k)), None)
        if qat is not None:
            d.report("RFTC305", f"verl {d.sem.release}'s vLLM rollout generates with the QAT-quantised weights "
                     f"({R}.qat follows {qat.rsplit('.', 1)[0]}); Trinity's explorer generates in "
                     "explorer.rollout_model.dtype", qat, settles=False)


# ---- where a key decides what a role trains in (rftc.mapping.classes WHEN: the rows of rules.py, sft_rules.py)

def _reads(role: str, get, release: str) -> tuple[str, ...]:
    """The keys the release reads for ``role``'s precision ("sft": the SFT trainer's model); () where the run has no
    such role (no KL to use a reference, or LoRA keeping it in the actor; no critic)."""
    from rftc.mapping.sft import LEGACY
    from rftc.verl.releases import semantics

    sem = semantics.resolve(release, snapshot=False)
    if role == "sft":
        return verl_sft(get, sem, get(LEGACY) is not None)[1]
    kl = bool(get(f"{A}.use_kl_loss")) or bool(semantics.kl_in_reward(sem, get))
    if role == "ref" and (not kl or ref_in_actor(get)) or role == "critic" and get("algorithm.adv_estimator") != "gae":
        return ()
    return verl_role(get, sem, role)[1]


def _read(role: str, *tests):
    """The release reads a key of ``role``'s own sections (not 0.7.1's actor.qat) ending as one of ``tests``
    ("sft": the SFT trainer's keys)."""
    own = "" if role == "sft" else OWN[role] + "."

    def holds(get, release: str) -> bool:
        return any(k.startswith(own) and not k.startswith(f"{A}.qat.") and k.endswith(t)
                   for k in _reads(role, get, release) for t in tests)
    return holds


def _vllm(get) -> bool:
    return (get(f"{R}.name") or "vllm") == "vllm"


def _rollout_qat(get, release: str = "") -> bool:
    """The vLLM rollout quantises the weights it receives for QAT (rollout.qat on, 0.7.1 on)."""
    qat = get(f"{R}.qat")
    return _vllm(get) and isinstance(qat, dict) and qat.get("enable") is True


def _when() -> dict:
    roles = {"actor": "the actor's", "ref": "the reference's (a KL uses it and no LoRA keeps it in the actor)",
             "critic": "a critic's"}
    out = {}
    for role, whose in roles.items():
        out.update({
            f"fsdp_{role}": (f"{whose} FSDP engine loads the weights in model_dtype (and casts as mixed_precision says)",
                             _read(role, ".model_dtype")),
            f"turbo_{role}": (f"{whose} fsdp_turbo engine casts as turbo_config.distributed.fsdp_plan says",
                              _read(role, "fsdp_plan.param_dtype")),
            f"megatron_dtype_{role}": (f"{whose} Megatron engine computes in its own megatron.dtype (the legacy "
                                       "worker: from 0.6.1, the reference in the actor's)",
                                       _read(role, ".megatron.dtype"))})
    for role in ("actor", "ref"):
        out[f"legacy_dtype_{role}"] = (f"{roles[role]} legacy FSDP worker casts parameters to fsdp_config.dtype "
                                       "(without mixed_precision) and autocasts in it (0.6.1 to 0.7.1)",
                                       _read(role, ".fsdp_config.dtype"))
    for role in ("actor", "critic"):
        out[f"qat_train_{role}"] = (f"QAT is on in {roles[role]} engine section, which trains with it (0.7.1 on)",
                                    _read(role, ".qat.mode"))
        out[f"aware_{role}"] = (f"{roles[role]} Megatron engine computes in bf16 and reads "
                                "optim.use_precision_aware_optimizer (0.9.0 on)",
                                _read(role, ".optim.use_precision_aware_optimizer"))
        out[f"aware_on_{role}"] = (f"{roles[role]} Megatron optimizer is precision-aware, its state in the "
                                   "optim section's dtypes", _read(role, ".optim.exp_avg_dtype"))
    out["engine_qat_critic"] = ("a critic's engine reads its section's qat (0.7.1 on)", _read("critic", ".qat.enable"))
    out["qat_actor"] = ("the actor's engine reads its section's qat (0.7.1 on), or the vLLM rollout's rollout.qat "
                        "follows it", lambda get, release: _read("actor", ".qat.enable")(get, release) or (
                            _vllm(get) and isinstance(get(f"{R}.qat"), dict)))
    out["qat_patterns_actor"] = ("the actor trains with QAT from its section, or the vLLM rollout quantises for it: "
                                 "either reads ignore_patterns", lambda get, release: _read(
                                     "actor", ".qat.ignore_patterns")(get, release) or _rollout_qat(get))
    out["legacy_qat_actor"] = ("0.7.1's legacy FSDP actor reads actor.qat", lambda get, release: f"{A}.qat.enable" in
                               _reads("actor", get, release))
    out["legacy_qat_on_actor"] = ("0.7.1's legacy FSDP actor trains with QAT (actor.qat.enable)", lambda get, release:
                                  f"{A}.qat.mode" in _reads("actor", get, release))
    out["engine_rollout"] = ("the rollout is an inference engine's (vLLM, SGLang, TensorRT-LLM), given rollout.dtype",
                             lambda get, release: (get(f"{R}.name") or "vllm") not in ("hf", "naive"))
    out["reads_quantization"] = ("the rollout is an inference engine's and quantises as rollout.quantization says (not "
                                 "vLLM's for QAT)", lambda get, release: (get(f"{R}.name") or "vllm") not in (
                                     "hf", "naive") and not _rollout_qat(get))
    out["vllm_rollout"] = ("the rollout is vLLM's, which reads rollout.qat (0.7.1 on)", lambda get, release: _vllm(get))
    out["rollout_qat"] = ("the vLLM rollout quantises the weights it receives for QAT (rollout.qat.enable)",
                          _rollout_qat)
    out["rollout_quantizes"] = ("the vLLM rollout quantises (rollout.quantization, or QAT), reading "
                                "quantization_config_file", lambda get, release: _vllm(get) and (
                                    get(f"{R}.quantization") is not None or _rollout_qat(get)))
    out.update({
        "model_dtype_sft": ("fsdp_sft_trainer reads model.fsdp_config.model_dtype (0.4.0 on)",
                            _read("sft", "model.fsdp_config.model_dtype")),
        "fsdp_sft": ("the engine SFT trainer's FSDP engine loads the weights in engine.model_dtype",
                     _read("sft", "engine.model_dtype")),
        "megatron_sft": ("the engine SFT trainer's Megatron engine computes in engine.dtype",
                         _read("sft", "engine.dtype")),
        "turbo_sft": ("the engine SFT trainer's fsdp_turbo engine casts as engine.turbo_config.distributed.fsdp_plan "
                      "says", _read("sft", "fsdp_plan.param_dtype")),
        "qat_sft": ("the engine SFT trainer's engine reads engine.qat (0.7.1 on)", _read("sft", "engine.qat.enable")),
        "qat_train_sft": ("QAT is on in the engine SFT trainer's engine", _read("sft", "engine.qat.mode")),
        "qat_fsdp_sft": ("QAT is on in the engine SFT trainer's FSDP engine (which reads group_size and the "
                         "activation observer)", _read("sft", "engine.qat.group_size"))})
    return out


WHEN = _when()
