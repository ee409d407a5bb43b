"""veRL's TrainingWorkerConfig for each role the plan places (actor, reference, critic), from the settings:
what Trinity's trainer builds into veRL's actor/ref/critic configs, in veRL's own config classes."""

from __future__ import annotations

# The plan's precision names -> veRL's PrecisionType names.
PRECISION = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}


def _model(path: str, s, role) -> object:
    from verl.workers.config import HFModelConfig

    # sdpa: veRL's default, flash_attention_2, needs the flash-attn package; remove-padding (packed sequences)
    # works with sdpa and gives the same numbers.
    return HFModelConfig(path=path, override_config={"attn_implementation": "sdpa"},
                         use_remove_padding=s.use_remove_padding,
                         enable_gradient_checkpointing=role.gradient_checkpointing)


def _engine(role, plan) -> object:
    from verl.workers.config import FSDPEngineConfig

    dtype = PRECISION[plan.train_dtype]
    return FSDPEngineConfig(
        strategy=plan.strategy, forward_only=role.forward_only, model_dtype="fp32",
        mixed_precision={"param_dtype": dtype, "reduce_dtype": "fp32", "buffer_dtype": "fp32"},
        use_dynamic_bsz=False, micro_batch_size_per_gpu=role.micro_batch_size,
        infer_micro_batch_size_per_gpu=role.infer_micro_batch_size,
        use_remove_padding=True, use_torch_compile=plan.device != "cpu", seed=plan.seed)


def _optimizer(o, clip_grad: float, total_steps: int) -> object:
    from verl.workers.config import FSDPOptimizerConfig

    name = {"adam": "AdamW", "adamw": "AdamW", "sgd": "SGD"}[o.optimizer_type]  # veRL's FSDP workers: adam is AdamW
    return FSDPOptimizerConfig(
        optimizer=name, lr=o.lr, betas=tuple(o.betas), weight_decay=o.weight_decay, clip_grad=clip_grad,
        lr_warmup_steps=o.lr_warmup_steps, lr_warmup_steps_ratio=o.lr_warmup_steps_ratio,
        min_lr_ratio=o.min_lr_ratio, lr_scheduler_type=o.lr_scheduler_type, total_training_steps=total_steps)


def training_worker_config(role, s, plan, total_steps: int) -> object:
    """The TrainingWorkerConfig of one of the plan's roles (plan.RoleSpec)."""
    from verl.trainer.config import CheckpointConfig
    from verl.workers.config import TrainingWorkerConfig

    if role.name == "critic":
        model_type, path, optim = "value_model", s.critic.model_path, _optimizer(
            s.critic.optimizer, s.critic.optimizer.clip_grad, total_steps)
    else:
        model_type, path = "language_model", s.model_path
        optim = None if role.forward_only else _optimizer(s.algorithm.optimizer, s.grad_clip, total_steps)
    return TrainingWorkerConfig(model_type=model_type, model_config=_model(path, s, role),
                                engine_config=_engine(role, plan), optimizer_config=optim,
                                checkpoint_config=CheckpointConfig())
