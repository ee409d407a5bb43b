"""The Trinity-RFT 0.6.0 config as pydantic models (trinity/common/config.py; trinity-0.6.md §1).

Class names are Trinity's dataclass names, so messages read like Trinity's ("Key 'x' not in 'TrainerConfig'").
Unknown keys are forbidden everywhere, as OmegaConf's structured merge forbids them. Values convert as
OmegaConf converts them (rftc.trinity.types). Fields Trinity computes are accepted and marked auto;
the ``*_args`` dicts and ``trainer.trainer_config`` stay dicts here and are checked against the registries
(rftc.trinity.registry) and verl's keys (rftc.trinity.generated.verl_trainer_keys) by the checks, as Trinity reads them later.
"""

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict

from rftc.trinity.types import (Bool, Dict, Float, FloatList, Int, OBool, ODict, OFloat, OInt, OStr, Str,
                                StrList, auto, deprecated, enum, fresh)

SyncMethod = enum("SyncMethod", ("nccl", "checkpoint", "memory"), {"online": "nccl", "offline": "checkpoint"})
SyncStyle = enum("SyncStyle", ("fixed", "trainer_driven", "explorer_driven", "fully_async"),
                 {"dynamic_by_explorer": "explorer_driven", "dynamic_by_trainer": "trainer_driven"})
SaveStrategy = enum("SaveStrategy", ("single_thread", "single_process", "single_node", "unrestricted"))
PromptType = enum("PromptType", ("messages", "plaintext"))


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=False, populate_by_name=False)


# --- algorithm -------------------------------------------------------------------------------------------

class OptimizerConfig(Section):
    lr: Float = 1e-6
    lr_warmup_steps: Int = -1
    lr_warmup_steps_ratio: Float = 0.0
    min_lr_ratio: Float = 0.01
    warmup_style: OStr = deprecated(None, "algorithm.optimizer.lr_scheduler_type")
    lr_scheduler_type: Str = "constant"
    optimizer_type: Str = "adam"
    betas: FloatList = fresh(lambda: [0.9, 0.999])
    weight_decay: Float = 0.01
    clip_grad: Float = 1.0


class AlgorithmConfig(Section):
    algorithm_type: Str = "ppo"
    repeat_times: Int = 1
    optimizer: OptimizerConfig = fresh(OptimizerConfig)
    sample_strategy: OStr = None
    sample_strategy_args: ODict = None
    advantage_fn: OStr = None
    advantage_fn_args: ODict = None
    kl_penalty_fn: OStr = None
    kl_penalty_fn_args: ODict = None
    policy_loss_fn: OStr = None
    policy_loss_fn_args: ODict = None
    kl_loss_fn: OStr = None
    kl_loss_fn_args: ODict = None
    entropy_loss_fn: OStr = None
    entropy_loss_fn_args: ODict = None
    loss_agg_mode: OStr = None
    enable_router_replay: Bool = False
    bypass_old_logprobs: Bool = True
    rollout_correction: ODict = None


# --- model -----------------------------------------------------------------------------------------------

class LoRAConfig(Section):
    name: OStr = None
    path: OStr = None
    base_model_name: OStr = None
    lora_rank: Int = 32
    lora_alpha: Int = 32
    lora_dtype: Str = "auto"
    target_modules: Str = "all-linear"
    exclude_modules: OStr = None
    is_dummy: Bool = auto(False)


class TinkerConfig(Section):
    enable: Bool = False
    rank: Int = 16
    seed: OInt = None
    train_mlp: Bool = True
    train_attn: Bool = True
    train_unembed: Bool = True
    base_url: OStr = None


class ExternalModelConfig(Section):
    enable: Bool = False
    base_url_env: Str = "OPENAI_BASE_URL"
    api_key_env: Str = "OPENAI_API_KEY"
    model_name: OStr = None


class ModelConfig(Section):
    model_path: Str = ""
    trust_remote_code: Bool = False
    critic_model_path: Str = ""
    custom_chat_template: OStr = None
    chat_template_path: OStr = None
    temperature: Float = 1.0
    top_p: Float = 1.0
    top_k: Int = -1
    logprobs: Int = 0
    max_model_len: OInt = None
    max_prompt_tokens: OInt = None
    max_response_tokens: OInt = None
    min_response_tokens: Int = 0
    enable_prompt_truncation: Bool = True
    repetition_penalty: Float = 1.0
    enable_thinking: OBool = None
    lora_configs: Optional[list[LoRAConfig]] = None
    fully_sharded_loras: Bool = False
    max_cpu_loras: OInt = None
    rope_scaling: ODict = None
    rope_theta: OFloat = None
    tinker: TinkerConfig = fresh(TinkerConfig)
    external_model: ExternalModelConfig = fresh(ExternalModelConfig)


# --- cluster ---------------------------------------------------------------------------------------------

class ClusterConfig(Section):
    ray_address: Str = "auto"
    node_num: Int = 0  # 0: ask the Ray cluster (null is rejected at load: the field is a plain int)
    gpu_per_node: Int = 0
    total_gpu_num: Int = auto(0)
    rollout_gpu_num: Int = auto(0)
    auxiliary_model_gpu_num: Int = auto(0)
    explorer_gpu_num: Int = auto(0)
    trainer_gpu_num: Int = auto(0)
    trainer_node_num: Int = auto(0)
    trainer_gpu_num_per_node: Int = auto(0)


# --- buffer ----------------------------------------------------------------------------------------------

class FormatConfig(Section):
    prompt_type: PromptType = "messages"
    prompt_key: Str = "prompt"
    response_key: Str = "response"
    system_prompt_key: OStr = None
    system_prompt: OStr = None
    messages_key: Str = "message"
    tools_key: Str = "tools"
    image_key: OStr = None
    video_key: OStr = None
    reply_prefix: OStr = None
    workflow_key: Str = ""
    reward_fn_key: Str = ""
    chosen_key: Str = "chosen"
    rejected_key: Str = "rejected"
    enable_concatenated_multi_turn: Bool = False
    chat_template: OStr = None
    enable_thinking: OBool = None


class GenerationConfig(Section):
    temperature: OFloat = None
    top_p: OFloat = None
    top_k: Int = -1
    logprobs: OInt = None
    max_tokens: OInt = None
    n: Int = auto(1)


class DataSelectorConfig(Section):
    selector_type: OStr = "sequential"
    seed: Int = 42
    feature_keys: StrList = fresh(list)
    kwargs: Dict = fresh(dict)


class TasksetConfig(Section):
    name: Str = ""
    storage_type: Str = "file"
    path: OStr = None
    subset_name: OStr = None
    split: Str = "train"
    format: FormatConfig = fresh(FormatConfig)
    rollout_args: GenerationConfig = fresh(GenerationConfig)
    default_workflow_type: OStr = None
    default_reward_fn_type: OStr = None
    workflow_args: Dict = fresh(dict)
    reward_fn_args: Dict = fresh(dict)
    data_selector: DataSelectorConfig = fresh(DataSelectorConfig)
    task_selector: Optional[DataSelectorConfig] = deprecated(None, "data_selector")
    max_retry_times: Int = 3
    max_retry_interval: Int = 1
    enable_progress_bar: Bool = False
    repeat_times: Int = 1
    index: Int = auto(0)
    is_eval: Bool = auto(False)
    batch_size: Int = auto(1)
    total_epochs: Int = auto(1)
    total_steps: OInt = auto(None)
    ray_namespace: OStr = auto(None)


class ReplayBufferConfig(Section):
    enable: Bool = False
    priority_fn: Str = "linear_decay"
    reuse_cooldown_time: OFloat = None
    priority_fn_args: Dict = fresh(lambda: {"decay": 2.0})


class ExperienceBufferConfig(Section):
    name: Str = ""
    storage_type: Str = "queue"
    path: OStr = None
    capacity: Int = 10000
    max_read_timeout: Int = 1800
    replay_buffer: ReplayBufferConfig = fresh(ReplayBufferConfig)
    max_retry_times: Int = 3
    max_retry_interval: Int = 1
    split: Str = "train"
    subset_name: OStr = None
    format: FormatConfig = fresh(FormatConfig)
    enable_progress_bar: Bool = False
    data_selector: DataSelectorConfig = fresh(DataSelectorConfig)
    schema_type: OStr = auto(None)
    index: Int = auto(0)
    batch_size: Int = auto(1)
    tokenizer_path: OStr = auto(None)
    total_epochs: Int = auto(1)
    total_steps: OInt = auto(None)
    ray_namespace: OStr = auto(None)


class ExplorerInput(Section):
    taskset: Optional[TasksetConfig] = None
    tasksets: list[TasksetConfig] = fresh(list)
    eval_tasksets: list[TasksetConfig] = fresh(list)
    default_workflow_type: OStr = None
    default_eval_workflow_type: OStr = None
    default_reward_fn_type: OStr = None


class TrainerInput(Section):
    experience_buffer: Optional[ExperienceBufferConfig] = None
    auxiliary_buffers: dict[str, ExperienceBufferConfig] = fresh(dict)


class BufferConfig(Section):
    batch_size: Int = 1
    train_batch_size: Int = 0
    total_epochs: Int = 1
    total_steps: OInt = None
    explorer_input: ExplorerInput = fresh(ExplorerInput)
    trainer_input: TrainerInput = fresh(TrainerInput)
    explorer_output: Any = auto(None)
    tokenizer_path: OStr = auto(None)
    cache_dir: OStr = auto(None)


# --- explorer --------------------------------------------------------------------------------------------

class InferenceModelConfig(Section):
    model_path: OStr = None
    name: OStr = None
    trust_remote_code: Bool = False
    engine_type: Str = "vllm"
    engine_num: Int = 1
    tensor_parallel_size: Int = 1
    data_parallel_size: Int = 1
    pipeline_parallel_size: Int = 1
    enable_expert_parallel: Bool = False
    gpu_per_engine: Int = auto(1)
    extra_engine_args: Dict = fresh(dict)
    use_v1: Bool = True
    enforce_eager: Bool = False
    enable_prefix_caching: Bool = True
    enable_chunked_prefill: Bool = True
    gpu_memory_utilization: Float = 0.9
    dtype: Str = "bfloat16"
    seed: Int = 42
    temperature: OFloat = None
    top_p: OFloat = None
    top_k: OInt = None
    logprobs: OInt = None
    max_model_len: OInt = None
    max_prompt_tokens: OInt = None
    max_response_tokens: OInt = None
    min_response_tokens: OInt = None
    enable_prompt_truncation: OBool = None
    repetition_penalty: OFloat = None
    enable_thinking: OBool = None
    rope_scaling: ODict = None
    rope_theta: OFloat = None
    chat_template: OStr = None
    ignore_eos: Bool = False
    enable_multimodal: Bool = False
    enable_history: Bool = False
    enable_openai_api: Bool = False
    enable_log_requests: Bool = False
    base_port: OInt = None
    api_key: Str = "EMPTY"
    enable_auto_tool_choice: Bool = False
    tool_call_parser: OStr = None
    reasoning_parser: OStr = None
    external_model_config: Optional[ExternalModelConfig] = auto(None)
    weight_sync_buffer_size: Int = 1024
    nnodes: Int = auto(1)
    node_rank: Int = auto(0)
    enable_return_routed_experts: Bool = auto(False)
    bundle_indices: Str = auto("")
    engine_id: Int = auto(0)
    ray_namespace: Str = auto("")
    ray_actor_name: OStr = auto(None)
    sync_method: Any = auto(None)
    checkpoint_job_dir: Str = auto("")
    cuda_visible_devices: OStr = auto(None)
    enable_lora: Bool = auto(False)
    enable_runtime_lora_updating: Bool = auto(False)
    lora_modules: Any = auto(None)
    lora_kwargs: Any = auto(None)


class OverRolloutConfig(Section):
    ratio: Float = 0.0
    wait_after_min: Float = 30.0
    return_partial_tasks: Bool = False


class DynamicTimeoutConfig(Section):
    enable: Bool = False
    warmup_min_steps: Int = 1
    ratio: Float = 3.0


class ExplorerConfig(Section):
    name: Str = "explorer"
    runner_per_model: Int = 8
    runner_prepare_concurrency: Int = 8
    runner_prepare_max_retries: Int = 2
    max_timeout: Int = 1800
    max_retry_times: Int = 2
    env_vars: Dict = fresh(dict)
    concurrent_mode: Str = "sequential"
    max_repeat_times_per_runner: OInt = None
    runner_num: OInt = deprecated(None, "explorer.runner_per_model")
    rollout_model: InferenceModelConfig = fresh(InferenceModelConfig)
    auxiliary_models: list[InferenceModelConfig] = fresh(list)
    eval_interval: Int = 100
    eval_on_startup: Bool = True
    bench_on_latest_checkpoint: Bool = False
    proxy_port: Int = 8010
    listen_address: Str = "0.0.0.0"
    service_status_check_interval: Int = 60
    min_running_model_num: Int = 1
    db_url: OStr = None
    over_rollout: OverRolloutConfig = fresh(OverRolloutConfig)
    dynamic_timeout: DynamicTimeoutConfig = fresh(DynamicTimeoutConfig)
    runner_state_report_interval: Int = 0
    max_inflight_batches: Int = 2


# --- trainer ---------------------------------------------------------------------------------------------

class MegatronConfig(Section):
    tensor_model_parallel_size: Int = 1
    pipeline_model_parallel_size: Int = 1
    virtual_pipeline_model_parallel_size: OInt = None
    expert_model_parallel_size: Int = 1
    expert_tensor_parallel_size: OInt = None
    context_parallel_size: Int = 1
    sequence_parallel: Bool = True


class TrainerConfig(Section):
    name: Str = "trainer"
    trainer_type: Str = "verl"
    trainer_strategy: Str = "fsdp2"
    save_interval: Int = 0
    enable_preview: Bool = False
    total_steps: OInt = None
    save_hf_checkpoint: Str = "last"
    grad_clip: Float = 1.0
    use_dynamic_bsz: Bool = True
    use_remove_padding: Bool = True
    balance_batch: Bool = True
    critic_warmup: Int = 0
    max_token_len_per_gpu: OInt = None
    ulysses_sequence_parallel_size: Int = 1
    fix_actor_microbatch_loss_scale: Bool = False
    param_offload: Bool = False
    optimizer_offload: Bool = False
    grad_offload: Bool = False
    offload_policy: Bool = False
    save_strategy: SaveStrategy = "unrestricted"
    max_checkpoints_to_keep: Int = 0
    megatron: MegatronConfig = fresh(MegatronConfig)
    trust_remote_code: Bool = auto(False)
    trainer_config: Any = fresh(dict)
    trainer_config_path: Str = deprecated("", "trainer.trainer_config")


# --- synchronizer, monitor, data processor, service, log ------------------------------------------------

class SynchronizerConfig(Section):
    sync_method: SyncMethod = "nccl"
    sync_style: SyncStyle = "fixed"
    sync_interval: Int = 1
    explorer_sync_interval: OInt = None
    trainer_sync_interval: OInt = None
    sync_offset: Int = 0
    sync_timeout: Int = 3600
    group_name: Str = "rollout_weight_sync"
    wait_for_checkpoint: Bool = False
    explorer_world_size: OInt = auto(None)
    ray_namespace: Str = auto("")


class MonitorConfig(Section):
    monitor_type: Str = "tensorboard"
    monitor_args: ODict = None
    detailed_stats: Bool = False
    enable_ray_timeline: Bool = False
    cache_dir: Str = auto("")


class OperatorConfig(Section):
    name: Str = ""
    args: Dict = fresh(dict)


class TaskPipelineConfig(Section):
    operators: list[OperatorConfig] = fresh(list)
    num_process: Int = 4
    config_path: OStr = None
    inputs: StrList = fresh(list)
    output: Optional[TasksetConfig] = None
    target_fields: StrList = fresh(list)
    priority_weights: Dict = fresh(dict)
    top_k: Int = -1


class ExperiencePipelineConfig(Section):
    operators: list[OperatorConfig] = fresh(list)
    save_input: Bool = True
    input_save_path: OStr = None
    inputs: Dict = fresh(dict)
    output: Optional[ExperienceBufferConfig] = None


class DataProcessorConfig(Section):
    task_pipeline: Optional[TaskPipelineConfig] = None
    experience_pipeline: ExperiencePipelineConfig = fresh(ExperiencePipelineConfig)


class DataJuicerServiceConfig(Section):
    server_url: OStr = None
    auto_start: Bool = False
    port: OInt = None


class ServiceConfig(Section):
    data_juicer: Optional[DataJuicerServiceConfig] = None


class LogConfig(Section):
    level: Str = "INFO"
    group_by_node: Bool = False
    save_dir: Str = auto("")


class StageConfig(Section):
    stage_name: Str
    mode: OStr = None
    algorithm: Optional[AlgorithmConfig] = None
    buffer: Optional[BufferConfig] = None
    data_processor: Optional[DataProcessorConfig] = None
    explorer: Optional[ExplorerConfig] = None
    trainer: Optional[TrainerConfig] = None


class TrinityConfig(Section):
    """The whole config file (Trinity's ``Config``)."""

    model_config = ConfigDict(extra="forbid", validate_default=False, title="Config")

    mode: Str = "both"
    project: Str = "Trinity-RFT"
    group: Str = ""
    name: Str = "rft"
    checkpoint_root_dir: Str = ""
    checkpoint_job_dir: Str = auto("")
    ray_namespace: Str = ""
    continue_from_checkpoint: Bool = True
    ignore_validator_suggestions: Bool = False
    algorithm: AlgorithmConfig = fresh(AlgorithmConfig)
    data_processor: DataProcessorConfig = fresh(DataProcessorConfig)
    model: ModelConfig = fresh(ModelConfig)
    cluster: ClusterConfig = fresh(ClusterConfig)
    buffer: BufferConfig = fresh(BufferConfig)
    explorer: ExplorerConfig = fresh(ExplorerConfig)
    trainer: TrainerConfig = fresh(TrainerConfig)
    monitor: MonitorConfig = fresh(MonitorConfig)
    synchronizer: SynchronizerConfig = fresh(SynchronizerConfig)
    service: ServiceConfig = fresh(ServiceConfig)
    log: LogConfig = fresh(LogConfig)
    stages: list[StageConfig] = fresh(list)


def section_at(path: tuple) -> type[BaseModel] | None:
    """The model class of the mapping at ``path`` (keys and list indices), or None where the path leaves
    the typed tree (inside a dict-typed field such as ``trainer_config``)."""
    cls: type[BaseModel] | None = TrinityConfig
    free_key = False
    for part in path:
        if isinstance(part, int):
            continue
        if free_key:  # the key of a dict[str, Model] entry
            free_key = False
            continue
        field = cls.model_fields.get(part) if cls else None
        if field is None:
            return None
        cls, free_key = _model_in(field.annotation)
    return None if free_key else cls


def _model_in(annotation) -> tuple[type[BaseModel] | None, bool]:
    """The model inside Optional[...], list[...] or dict[str, ...]; True when it is a dict's value type."""
    import typing

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is dict and len(args) == 2:
        inner, _ = _model_in(args[1])
        return inner, inner is not None
    for a in args:
        found, is_dict = _model_in(a)
        if found is not None:
            return found, is_dict
    return None, False
