"""The veRL worker settings Trinity-RFT 0.6's trainer builds from a config (trinity/trainer/verl/config.py, the
verl >= 0.8 path): trainer.trainer_config's actor, rollout, reference and critic sections over Trinity's own
defaults. ``rftc run`` builds its trainer's roles from these."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from rftc.dotted import get
from rftc.trinity.schema import OptimizerConfig, TrinityConfig

# The critic's optimizer: fixed defaults that trainer_config.critic.optim overrides key by key, under veRL's key
# names (optimizer -> optimizer_type, grad_clip -> clip_grad, warmup_style -> lr_scheduler_type).
CRITIC_OPTIMIZER = {"lr": 1e-5, "lr_warmup_steps": -1, "lr_warmup_steps_ratio": 0.0, "min_lr_ratio": 0.01,
                    "lr_scheduler_type": "constant", "optimizer_type": "adamw", "betas": [0.9, 0.999],
                    "weight_decay": 0.01, "clip_grad": 1.0}


@dataclass(frozen=True)
class Actor:
    """The actor's veRL settings that Trinity takes from trainer_config (veRL's defaults where unset)."""

    ppo_epochs: int = 1
    micro_batch_size: int | None = None  # actor.ppo_micro_batch_size_per_gpu
    log_prob_micro_batch_size: int | None = None  # rollout.log_prob_micro_batch_size_per_gpu: old log-probs
    ref_micro_batch_size: int | None = None  # ref.log_prob_micro_batch_size_per_gpu
    gradient_checkpointing: bool = True  # actor_rollout_ref.model.enable_gradient_checkpointing


@dataclass(frozen=True)
class Critic:
    """The value model Trinity trains for algorithm_type ppo: its defaults with trainer_config.critic over them."""

    model_path: str
    optimizer: OptimizerConfig = field(default_factory=lambda: OptimizerConfig(**CRITIC_OPTIMIZER))
    ppo_epochs: int = 1
    cliprange_value: float = 0.5
    loss_agg_mode: str = "token-mean"  # Trinity's critic does not follow algorithm.loss_agg_mode
    loss_scale_factor: int | None = None
    micro_batch_size: int | None = None
    warmup: int = 0  # trainer.critic_warmup: the actor is not updated while warmup > the step's number
    gradient_checkpointing: bool = True  # critic.model.enable_gradient_checkpointing (veRL's default)


def actor(cfg: TrinityConfig) -> Actor:
    tc = cfg.trainer.trainer_config or {}
    return Actor(ppo_epochs=int(get(tc, "actor_rollout_ref.actor.ppo_epochs") or 1),
                 micro_batch_size=get(tc, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"),
                 log_prob_micro_batch_size=get(tc, "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu"),
                 ref_micro_batch_size=get(tc, "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu"),
                 gradient_checkpointing=get(tc, "actor_rollout_ref.model.enable_gradient_checkpointing") is not False)


FSDP_OPTIMIZERS = {"adam": "AdamW", "adamw": "AdamW", "sgd": "SGD"}  # config.py _map_optimizer_name_fsdp


def actor_optim(cfg: TrinityConfig) -> dict:
    """The actor's optim section Trinity's trainer builds (config.py _build_optimizer_config from
    algorithm.optimizer; Megatron's under its own key names) with trainer_config's actor optim keys merged over it
    (_normalize_trainer_config, _deep_merge: none of them is frozen)."""
    o = cfg.algorithm.optimizer
    optim = {"lr": o.lr, "lr_warmup_steps_ratio": o.lr_warmup_steps_ratio, "lr_warmup_steps": o.lr_warmup_steps,
             "weight_decay": o.weight_decay, "betas": list(o.betas), "clip_grad": o.clip_grad,
             "override_optimizer_config": None}
    if cfg.trainer.trainer_strategy.startswith("megatron"):
        optim.update(optimizer=o.optimizer_type, min_lr=o.min_lr_ratio * o.lr, lr_decay_style=o.lr_scheduler_type,
                     lr_warmup_init=o.min_lr_ratio * o.lr, **_megatron_schedule(cfg))
    else:
        optim.update(optimizer=FSDP_OPTIMIZERS.get(o.optimizer_type, o.optimizer_type), optimizer_impl="torch.optim",
                     min_lr_ratio=o.min_lr_ratio, lr_scheduler_type=o.lr_scheduler_type, num_cycles=0.5,
                     zero_indexed_step=True)
    tc = cfg.trainer.trainer_config or {}
    arr = tc.get("actor_rollout_ref")
    actor = arr.get("actor") if isinstance(arr, dict) and "actor" in arr else tc.get("actor")
    _merge(optim, (actor or {}).get("optim") or {} if isinstance(actor, dict) else {})
    return optim


def critic_optim(cfg: TrinityConfig) -> dict:
    """The critic's optim section Trinity's trainer builds (config.py _build_critic_optimizer_config: fixed
    defaults) with trainer_config.critic.optim merged over it, its keys as written (veRL's optimizer config reads
    grad_clip over clip_grad and warmup_style over lr_scheduler_type)."""
    optim = {"lr": 1e-5, "lr_warmup_steps_ratio": 0.0, "lr_warmup_steps": -1, "weight_decay": 0.01,
             "betas": [0.9, 0.999], "clip_grad": 1.0}
    if not cfg.trainer.trainer_strategy.startswith("megatron"):
        optim.update(optimizer="AdamW", min_lr_ratio=0.01, lr_scheduler_type="constant", num_cycles=0.5,
                     zero_indexed_step=True)
    else:
        optim.update(optimizer="adam", lr_warmup_init=0.0, lr_decay_style="constant", min_lr=0.0,
                     **_megatron_schedule(cfg))
    critic = (cfg.trainer.trainer_config or {}).get("critic")
    _merge(optim, (critic or {}).get("optim") or {} if isinstance(critic, dict) else {})
    return optim


def _megatron_schedule(cfg: TrinityConfig) -> dict:
    """The schedule settings config.py gives a Megatron optim section besides its warmup start and floor: the decay
    over the run (trainer.total_steps, else sys.maxsize), wsd's exponential decay, a constant weight decay."""
    return {"lr_decay_steps": cfg.trainer.total_steps or sys.maxsize, "weight_decay_incr_style": "constant",
            "lr_wsd_decay_style": "exponential", "lr_wsd_decay_steps": None}


def _merge(base: dict, over: dict) -> None:
    for k, v in over.items():
        if k == "_target_":
            continue
        if isinstance(base.get(k), dict) and isinstance(v, dict):
            _merge(base[k], v)
        else:
            base[k] = v


def critic(cfg: TrinityConfig) -> Critic:
    """The critic of an expanded config (rftc.trinity.expand: critic_model_path is filled)."""
    c = get(cfg.trainer.trainer_config or {}, "critic") or {}
    optim = c.get("optim") or {}
    opt = dict(CRITIC_OPTIMIZER)
    for k, v in optim.items():
        if v is None:
            continue
        if k == "optimizer":
            opt["optimizer_type"] = str(v).lower()
        elif k == "grad_clip":
            opt["clip_grad"] = v
        elif k == "warmup_style" and not optim.get("lr_scheduler_type"):
            opt["lr_scheduler_type"] = v
        elif k in OptimizerConfig.model_fields:
            opt[k] = v
    cliprange = c.get("cliprange_value")
    return Critic(model_path=cfg.model.critic_model_path, optimizer=OptimizerConfig(**opt),
                  ppo_epochs=int(c.get("ppo_epochs") or 1),
                  cliprange_value=float(0.5 if cliprange is None else cliprange),
                  loss_agg_mode=c.get("loss_agg_mode") or "token-mean", loss_scale_factor=c.get("loss_scale_factor"),
                  micro_batch_size=c.get("ppo_micro_batch_size_per_gpu"), warmup=cfg.trainer.critic_warmup,
                  gradient_checkpointing=get(c, "model.enable_gradient_checkpointing") is not False)


def engine_overrides(cfg: TrinityConfig, role: str, name: str) -> tuple[dict, str]:
    """trainer_config's engine section ``name`` (fsdp_config, the critic's fsdp, megatron) of ``role`` ("actor",
    "ref", "critic"), which Trinity merges over the section its trainer builds (none of its keys is frozen), and
    its path: under actor_rollout_ref, else in the flat layout Trinity also reads."""
    tc = cfg.trainer.trainer_config or {}
    arr = tc.get("actor_rollout_ref") if isinstance(tc.get("actor_rollout_ref"), dict) else {}
    over = (tc if role == "critic" else arr).get(role)
    if role != "critic" and not isinstance(over, dict):
        over = tc.get(role)
    own = over.get(name) if isinstance(over, dict) else None
    src = "trainer.trainer_config." + ("critic" if role == "critic" else f"actor_rollout_ref.{role}") + f".{name}"
    return (own if isinstance(own, dict) else {}), src
