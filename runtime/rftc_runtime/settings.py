"""What the runtime reads from a Trinity-RFT 0.6 config, with Trinity's defaults and derivations.

The input is the config as a plain mapping (the IR's ``model_dump()`` or a Trinity YAML loaded with
OmegaConf), so the runtime depends on the config's meaning, never on the compiler's internals. Only stdlib
imports: ``rftc run --dry-run`` builds the plan from this without importing anything heavy.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

from rftc.trinity import cadence
from rftc_runtime.synchronizer import FixedSchedule

# Trinity-RFT 0.6.0 per-algorithm defaults, used when a field is None (reference: trinity-0.6.md §4.1).
# algorithm_type -> (advantage_fn, policy_loss_fn, kl_loss_fn, entropy_loss_fn, uses a critic)
ALGORITHM_DEFAULTS = {
    "ppo": ("ppo", "ppo", "k2", "default", True),
    "grpo": ("grpo", "ppo", "k2", "default", False),
    "grpo_verl": ("grpo", "ppo", "k2", "default", False),
    "dapo": ("grpo", "ppo", "none", "default", False),
    "reinforceplusplus": ("reinforceplusplus", "ppo", "k2", "default", False),
    "rloo": ("rloo", "ppo", "k2", "default", False),
    "sft": ("ppo", "sft", "none", "default", False),  # mode train on a dataset; no advantage is computed
}

# Trinity's StageConfig: the sections a stage replaces whole (trinity/common/config.py, Config.__iter__).
STAGE_SECTIONS = ("mode", "algorithm", "buffer", "data_processor", "explorer", "trainer")

DEFAULT_KL_ARGS = {"adaptive": False, "kl_coef": 0.001}


def _get(d: Any, path: str, default=None):
    cur = d
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur or cur[part] is None:
            return default
        cur = cur[part]
    return cur


@dataclass
class Optimizer:
    lr: float = 1e-6
    lr_warmup_steps: int = -1
    lr_warmup_steps_ratio: float = 0.0
    min_lr_ratio: float = 0.01
    lr_scheduler_type: str = "constant"
    optimizer_type: str = "adam"
    betas: tuple[float, float] = (0.9, 0.999)
    weight_decay: float = 0.01
    clip_grad: float = 1.0


@dataclass
class Algorithm:
    algorithm_type: str = "ppo"
    repeat_times: int = 1
    advantage_fn: str = "ppo"
    advantage_fn_args: dict = field(default_factory=dict)
    policy_loss_fn: str = "ppo"
    policy_loss_fn_args: dict = field(default_factory=dict)
    kl_loss_fn: str = "k2"
    kl_loss_fn_args: dict = field(default_factory=lambda: dict(DEFAULT_KL_ARGS))
    kl_penalty_fn: str = "none"
    kl_penalty_fn_args: dict = field(default_factory=lambda: dict(DEFAULT_KL_ARGS))
    entropy_loss_fn: str = "default"
    entropy_loss_fn_args: dict = field(default_factory=dict)
    loss_agg_mode: str = "token-mean"
    use_critic: bool = False
    optimizer: Optimizer = field(default_factory=Optimizer)

    @property
    def needs_reference(self) -> bool:
        return self.kl_loss_fn != "none" or self.kl_penalty_fn != "none"


# Trinity-RFT 0.6's critic optimizer (trinity/trainer/verl/config.py, the verl >= 0.8 path): fixed defaults that
# trainer.trainer_config.critic.optim overrides key by key.
CRITIC_OPTIMIZER = {"lr": 1e-5, "lr_warmup_steps": -1, "lr_warmup_steps_ratio": 0.0, "min_lr_ratio": 0.01,
                    "lr_scheduler_type": "constant", "optimizer_type": "adamw", "betas": (0.9, 0.999),
                    "weight_decay": 0.01, "clip_grad": 1.0}


@dataclass
class Critic:
    """The value model Trinity trains for algorithm_type ppo: its defaults (same source as CRITIC_OPTIMIZER)
    with trainer.trainer_config.critic merged over them."""

    model_path: str = ""
    optimizer: Optimizer = field(default_factory=lambda: Optimizer(**CRITIC_OPTIMIZER))
    ppo_epochs: int = 1
    cliprange_value: float = 0.5
    loss_agg_mode: str = "token-mean"  # Trinity's critic does not follow algorithm.loss_agg_mode
    loss_scale_factor: int | None = None
    micro_batch_size: int | None = None
    warmup: int = 0  # trainer.critic_warmup: the actor is not updated while warmup > the step's number
    gradient_checkpointing: bool = True  # trainer_config.critic.model.enable_gradient_checkpointing (veRL's default)


@dataclass
class Taskset:
    name: str
    path: str
    split: str = "train"
    subset_name: str | None = None
    prompt_key: str = "prompt"
    response_key: str = "response"
    system_prompt: str | None = None
    reward_fn: str | None = None
    reward_fn_args: dict = field(default_factory=dict)
    workflow: str | None = None  # default_workflow_type: rftc's veRL reward workflow or Trinity's simple_workflow
    workflow_args: dict = field(default_factory=dict)
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    logprobs: int = 0
    max_tokens: int | None = None
    repeat_times: int = 1
    selector: str = "sequential"
    seed: int = 42


@dataclass
class SFTData:
    """The dataset of algorithm_type sft: buffer.trainer_input.experience_buffer read by Trinity's sft formatter
    (format.prompt_type messages: a list of chat messages under messages_key; plaintext: prompt/response keys)."""

    path: str
    split: str = "train"
    subset_name: str | None = None
    prompt_type: str = "messages"
    messages_key: str = "message"
    prompt_key: str = "prompt"
    response_key: str = "response"
    system_prompt_key: str | None = None
    system_prompt: str | None = None
    selector: str = "sequential"
    concatenated_multi_turn: bool = False


@dataclass
class Settings:
    source: str
    project: str = "Trinity-RFT"
    group: str = ""
    name: str = "rft"
    checkpoint_root_dir: str = ""
    continue_from_checkpoint: bool = True
    model_path: str = ""
    max_model_len: int | None = None
    max_prompt_tokens: int | None = None
    max_response_tokens: int | None = None
    algorithm: Algorithm = field(default_factory=Algorithm)
    batch_size: int = 1
    train_batch_size: int = 0
    total_epochs: int = 1
    explore_total_steps: int | None = None
    taskset: Taskset | None = None
    eval_tasksets: list[Taskset] = field(default_factory=list)
    engine_num: int = 1
    tensor_parallel_size: int = 1
    enforce_eager: bool = False
    dtype: str = "bfloat16"
    seed: int = 42
    gpu_memory_utilization: float = 0.9
    eval_interval: int = 100
    eval_on_startup: bool = True
    save_interval: int = 0
    train_total_steps: int | None = None
    grad_clip: float = 1.0
    save_hf_checkpoint: str = "last"
    max_checkpoints_to_keep: int = 0  # 0 keeps every saved step
    ppo_epochs: int = 1
    micro_batch_size: int | None = None
    log_prob_micro_batch_size: int | None = None  # rollout.log_prob_micro_batch_size_per_gpu: old log-probs
    ref_micro_batch_size: int | None = None  # ref.log_prob_micro_batch_size_per_gpu
    trainer_strategy: str = "fsdp2"  # Trinity 0.6's default
    use_remove_padding: bool = True
    gradient_checkpointing: bool = True  # trainer_config.actor_rollout_ref.model.enable_gradient_checkpointing
    critic: Critic | None = None  # set exactly when the algorithm trains a critic
    sync_method: str = "nccl"
    sync_style: str = "fixed"
    sync_interval: int = 1
    sync_offset: int = 0
    explorer_sync_interval: int | None = None  # None: sync_interval (Trinity's default)
    trainer_sync_interval: int | None = None
    monitor_type: str = "tensorboard"
    gpu_per_node: int = 0
    node_num: int = 0
    mode: str = "both"
    sft_data: SFTData | None = None  # set for algorithm_type sft
    stages: list[Settings] = field(default_factory=list)  # each stage's settings, in order (Trinity's stages)
    stage_name: str | None = None
    raw: dict = field(default_factory=dict, repr=False)

    @property
    def checkpoint_job_dir(self) -> str:
        root = os.path.abspath(self.checkpoint_root_dir or "checkpoints")
        return os.path.join(root, *[p for p in (self.project, self.group, self.name) if p])

    def schedule(self) -> FixedSchedule:
        return FixedSchedule(self.sync_interval, self.sync_offset, self.explorer_sync_interval,
                             self.trainer_sync_interval)

    @property
    def experiences_per_step(self) -> int:
        """Trinity: buffer.train_batch_size, 0 meaning batch_size x repeat_times."""
        return self.train_batch_size or self.batch_size * self.algorithm.repeat_times


def _workflow_args(args: dict) -> dict:
    """A relative custom reward file is the launch's (veRL reads it from where it starts): pinned here, before
    the explorer's process, whose working directory may differ, loads it."""
    args = dict(args)
    crf = dict(args.get("custom_reward_function") or {})
    if crf.get("path") and not os.path.isabs(os.path.expanduser(crf["path"])):
        args["custom_reward_function"] = {**crf, "path": os.path.abspath(crf["path"])}
    return args


def _taskset(d: dict, index: int, model: dict, repeat_times: int, eval_: bool, default_reward,
             default_workflow) -> Taskset:
    fmt = d.get("format") or {}
    ra = d.get("rollout_args") or {}
    sel = d.get("data_selector") or d.get("task_selector") or {}
    return Taskset(
        name=d.get("name") or (f"eval_taskset_{index}" if eval_ else f"taskset_{index}"),
        path=d.get("path") or "",
        split=d.get("split") or "train",
        subset_name=d.get("subset_name"),
        prompt_key=fmt.get("prompt_key") or "prompt",
        response_key=fmt.get("response_key") or "response",
        system_prompt=fmt.get("system_prompt"),
        reward_fn=d.get("default_reward_fn_type") or default_reward,
        reward_fn_args=dict(d.get("reward_fn_args") or {}),
        workflow=d.get("default_workflow_type") or default_workflow,
        workflow_args=_workflow_args(d.get("workflow_args") or {}),
        # GenerationConfig: None inherits the model's sampling defaults; top_k is already -1 (never inherited).
        temperature=_first(ra.get("temperature"), model.get("temperature"), 1.0),
        top_p=_first(ra.get("top_p"), model.get("top_p"), 1.0),
        top_k=_first(ra.get("top_k"), -1),
        logprobs=_first(ra.get("logprobs"), model.get("logprobs"), 0),
        max_tokens=_first(ra.get("max_tokens"), model.get("max_response_tokens")),
        # Train tasksets are forced to algorithm.repeat_times; eval tasksets keep their own.
        repeat_times=int(d.get("repeat_times") or 1) if eval_ else repeat_times,
        selector=sel.get("selector_type") or "sequential",
        seed=int(sel.get("seed") or 42),
    )


# Trinity's enum aliases (trinity-0.6.md: sync_method online/offline, sync_style dynamic_by_*); enums are
# case-insensitive.
ENUM_ALIASES = {"online": "nccl", "offline": "checkpoint", "dynamic_by_explorer": "explorer_driven",
                "dynamic_by_trainer": "trainer_driven"}


def _enum(value, default: str) -> str:
    v = str(value or default).lower()
    return ENUM_ALIASES.get(v, v)


def _first(*values):
    for v in values:
        if v is not None:
            return v
    return None


def _algorithm(a: dict) -> Algorithm:
    atype = a.get("algorithm_type") or "ppo"
    adv, pol, kl, ent, critic = ALGORITHM_DEFAULTS.get(atype, ALGORITHM_DEFAULTS["ppo"])
    opt = a.get("optimizer") or {}
    optimizer = Optimizer(**{k: (tuple(v) if k == "betas" else v) for k, v in opt.items()
                             if k in Optimizer.__dataclass_fields__ and v is not None})
    if opt.get("warmup_style") and not opt.get("lr_scheduler_type"):
        optimizer.lr_scheduler_type = opt["warmup_style"]  # deprecated alias, as Trinity copies it
    alg = Algorithm(
        algorithm_type=atype,
        repeat_times=int(a.get("repeat_times") or 1),
        advantage_fn=a.get("advantage_fn") or adv,
        advantage_fn_args=dict(a.get("advantage_fn_args") or {}),
        policy_loss_fn=a.get("policy_loss_fn") or pol,
        policy_loss_fn_args=dict(a.get("policy_loss_fn_args") or {}),
        kl_loss_fn=a.get("kl_loss_fn") or kl,
        kl_loss_fn_args={**DEFAULT_KL_ARGS, **(a.get("kl_loss_fn_args") or {})},
        kl_penalty_fn=a.get("kl_penalty_fn") or "none",
        kl_penalty_fn_args={**DEFAULT_KL_ARGS, **(a.get("kl_penalty_fn_args") or {})},
        entropy_loss_fn=a.get("entropy_loss_fn") or ent,
        entropy_loss_fn_args=dict(a.get("entropy_loss_fn_args") or {}),
        loss_agg_mode=a.get("loss_agg_mode") or "token-mean",
        use_critic=critic and atype in ALGORITHM_DEFAULTS,  # an unknown type is refused (RFTC505), not guessed
        optimizer=optimizer,
    )
    return alg


def _critic(model: dict, trainer: dict, tc: dict) -> Critic:
    c = _get(tc, "critic", {}) or {}
    opt = dict(CRITIC_OPTIMIZER)
    for k, v in (c.get("optim") or {}).items():  # veRL's optimizer key names -> the runtime's
        if v is None:
            continue
        if k == "optimizer":
            opt["optimizer_type"] = str(v).lower()
        elif k == "grad_clip":  # veRL's deprecated name for clip_grad
            opt["clip_grad"] = v
        elif k == "warmup_style" and not (c.get("optim") or {}).get("lr_scheduler_type"):
            opt["lr_scheduler_type"] = v
        elif k in Optimizer.__dataclass_fields__:
            opt[k] = tuple(v) if k == "betas" else v
    return Critic(
        model_path=model.get("critic_model_path") or model.get("model_path") or "",
        optimizer=Optimizer(**opt),
        ppo_epochs=int(c.get("ppo_epochs") or 1),
        cliprange_value=float(_first(c.get("cliprange_value"), 0.5)),
        loss_agg_mode=c.get("loss_agg_mode") or "token-mean",
        loss_scale_factor=c.get("loss_scale_factor"),
        micro_batch_size=c.get("ppo_micro_batch_size_per_gpu"),
        warmup=int(trainer.get("critic_warmup") or 0),
        gradient_checkpointing=_get(c, "model.enable_gradient_checkpointing", True) is not False,
    )


def model_lengths(model: dict) -> tuple[int | None, int | None, int | None]:
    """(max_model_len, max_prompt_tokens, max_response_tokens) as Trinity 0.6's validator fills them
    (trinity-0.6.md §2.2, _check_model_len): the length unset is the sum of the other two; with a length, neither
    token limit set splits it in half (prompt L // 2), and one set is capped at L - 1 and the other takes the
    rest. Without a length Trinity needs both limits (the length is their sum) and refuses the config otherwise;
    here vLLM then takes the model's own length."""
    length, prompt, response = (model.get(k) for k in ("max_model_len", "max_prompt_tokens", "max_response_tokens"))
    if length is None:
        return (prompt + response if prompt is not None and response is not None else None), prompt, response
    if prompt is None and response is None:
        prompt = length // 2
        response = length - prompt
    elif prompt is None:
        response = min(response, length - 1)
        prompt = length - response
    elif response is None:
        prompt = min(prompt, length - 1)
        response = length - prompt
    return length, prompt, response


def stage_configs(cfg: dict) -> list[tuple[str, dict]]:
    """Each stage's whole config, as Trinity's Config.__iter__ builds it: the stage's sections replace the
    global ones, the run is named <name>/<stage_name>, and save_hf_checkpoint is forced to last (the next stage
    starts from that checkpoint)."""
    out = []
    for stage in cfg.get("stages") or []:
        c = copy.deepcopy({k: v for k, v in cfg.items() if k != "stages"})
        for key in STAGE_SECTIONS:
            if stage.get(key) is not None:
                c[key] = copy.deepcopy(stage[key])
        name = stage.get("stage_name") or ""
        if name:
            c["name"] = f"{cfg.get('name') or 'rft'}/{name}"
        c["trainer"] = {**(c.get("trainer") or {}), "save_hf_checkpoint": "last"}
        out.append((name, c))
    return out


def with_model_path(cfg: dict, path: str) -> dict:
    """A stage's config starting from ``path`` (the previous stage's HF checkpoint), as Trinity replaces
    model.model_path before validating the stage (so an unset critic_model_path follows it)."""
    return {**cfg, "model": {**(cfg.get("model") or {}), "model_path": path}}


def _sft_data(buffer: dict) -> SFTData | None:
    eb = (buffer.get("trainer_input") or {}).get("experience_buffer") or {}
    if not eb.get("path"):
        return None
    fmt = eb.get("format") or {}
    return SFTData(path=eb["path"], split=eb.get("split") or "train", subset_name=eb.get("subset_name"),
                   prompt_type=str(fmt.get("prompt_type") or "messages").lower(),
                   messages_key=fmt.get("messages_key") or "message", prompt_key=fmt.get("prompt_key") or "prompt",
                   response_key=fmt.get("response_key") or "response",
                   system_prompt_key=fmt.get("system_prompt_key"), system_prompt=fmt.get("system_prompt"),
                   selector=((eb.get("data_selector") or {}).get("selector_type") or "sequential"),
                   concatenated_multi_turn=bool(fmt.get("enable_concatenated_multi_turn")))


def _positive(value) -> int | None:
    return int(value) if value else None


def from_mapping(cfg: dict, source: str = "<config>") -> Settings:
    """Build the runtime's settings from a Trinity config mapping (values already resolved)."""
    if cfg.get("stages"):
        stages = [dataclasses.replace(from_mapping(c, source), stage_name=name) for name, c in stage_configs(cfg)]
        top = from_mapping({k: v for k, v in cfg.items() if k != "stages"}, source)
        return dataclasses.replace(top, stages=stages, raw=cfg)
    model = dict(cfg.get("model") or {})
    model["max_model_len"], model["max_prompt_tokens"], model["max_response_tokens"] = model_lengths(model)
    buffer = cfg.get("buffer") or {}
    ei = buffer.get("explorer_input") or {}
    explorer = cfg.get("explorer") or {}
    rollout = explorer.get("rollout_model") or {}
    trainer = cfg.get("trainer") or {}
    sync = cfg.get("synchronizer") or {}
    alg = _algorithm(cfg.get("algorithm") or {})
    mode = str(cfg.get("mode") or "both").lower()
    default_reward = ei.get("default_reward_fn_type")
    tasksets = ([ei["taskset"]] if ei.get("taskset") else []) + list(ei.get("tasksets") or [])
    tc = trainer.get("trainer_config") or {}
    actor = _get(tc, "actor_rollout_ref.actor", {}) or {}
    return Settings(
        source=source,
        project=cfg.get("project") or "Trinity-RFT",
        group=cfg.get("group") or "",
        name=cfg.get("name") or "rft",
        checkpoint_root_dir=cfg.get("checkpoint_root_dir") or "",
        continue_from_checkpoint=cfg.get("continue_from_checkpoint", True) is not False,
        model_path=model.get("model_path") or "",
        max_model_len=model.get("max_model_len"),
        max_prompt_tokens=model.get("max_prompt_tokens"),
        max_response_tokens=model.get("max_response_tokens"),
        algorithm=alg,
        batch_size=int(buffer.get("batch_size") or 1),
        train_batch_size=int(buffer.get("train_batch_size") or 0),
        total_epochs=int(buffer.get("total_epochs") or 1),
        explore_total_steps=buffer.get("total_steps"),
        taskset=_taskset(tasksets[0], 0, model, alg.repeat_times, False, default_reward,
                         ei.get("default_workflow_type")) if tasksets else None,
        eval_tasksets=[_taskset(t, i, model, alg.repeat_times, True, default_reward,
                                ei.get("default_eval_workflow_type") or ei.get("default_workflow_type"))
                       for i, t in enumerate(ei.get("eval_tasksets") or [])],
        engine_num=int(rollout.get("engine_num") or 1),
        tensor_parallel_size=int(rollout.get("tensor_parallel_size") or 1),
        enforce_eager=bool(rollout.get("enforce_eager", False)),
        dtype=rollout.get("dtype") or "bfloat16",
        seed=int(_first(rollout.get("seed"), 42)),
        gpu_memory_utilization=float(rollout.get("gpu_memory_utilization") or 0.9),
        eval_interval=cadence.eval_interval(int(explorer.get("eval_interval") or 100),
                                            int(sync.get("explorer_sync_interval") or sync.get("sync_interval") or 1),
                                            mode, alg.algorithm_type),
        eval_on_startup=explorer.get("eval_on_startup", True) is not False,
        save_interval=int(trainer.get("save_interval") or 0),
        train_total_steps=trainer.get("total_steps"),
        grad_clip=float(_first(trainer.get("grad_clip"), 1.0)),
        save_hf_checkpoint=trainer.get("save_hf_checkpoint") or "last",
        max_checkpoints_to_keep=int(trainer.get("max_checkpoints_to_keep") or 0),
        ppo_epochs=int(actor.get("ppo_epochs") or 1),
        micro_batch_size=actor.get("ppo_micro_batch_size_per_gpu"),
        log_prob_micro_batch_size=_get(tc, "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu"),
        ref_micro_batch_size=_get(tc, "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu"),
        trainer_strategy=str(trainer.get("trainer_strategy") or "fsdp2").lower(),
        use_remove_padding=trainer.get("use_remove_padding", True) is not False,
        gradient_checkpointing=_get(tc, "actor_rollout_ref.model.enable_gradient_checkpointing", True) is not False,
        critic=_critic(model, trainer, tc) if alg.use_critic else None,
        sync_method=_enum(sync.get("sync_method"), "nccl"),
        sync_style=_enum(sync.get("sync_style"), "fixed"),
        sync_interval=int(sync.get("sync_interval") or 1),
        sync_offset=int(sync.get("sync_offset") or 0),
        explorer_sync_interval=_positive(sync.get("explorer_sync_interval")),
        trainer_sync_interval=_positive(sync.get("trainer_sync_interval")),
        monitor_type=(cfg.get("monitor") or {}).get("monitor_type") or "tensorboard",
        gpu_per_node=int((cfg.get("cluster") or {}).get("gpu_per_node") or 0),
        node_num=int((cfg.get("cluster") or {}).get("node_num") or 0),
        mode=mode,
        sft_data=_sft_data(buffer) if alg.algorithm_type == "sft" else None,
        raw=cfg,
    )
