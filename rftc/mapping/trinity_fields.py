"""What each field of the Trinity-RFT 0.6 config (rftc.trinity.schema) does to training, as data: the quantities of
the semantic model (rftc.semantics.model) it feeds, under a condition where it feeds them only in some runs, or why
it does not change what is trained (rftc.mapping.classes' reasons; the veRL side's keys are classified in
rftc.mapping.rules). Paths name list items without their index and a dict's entries as ``*``; ``x.*`` covers a
subtree. A stage's field (``stages.<path>``) is classified as ``<path>``; the fields Trinity's validator fills in
(schema's ``auto``) follow the fields they are computed from. tests/test_classification.py holds every field to its
row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from rftc.mapping.classes import (BATCHING, CADENCE, DEBUG, FOLLOWS, KERNELS, MEMORY, NAMES, PLACEMENT, PROCESSES,
                                  PROFILING, UNREAD, no, to)
from rftc.plugins import WORKFLOW


@dataclass(frozen=True)
class Field:
    path: str
    feeds: str = ""
    when: str = ""
    inert: str = ""

    def matches(self, path: str) -> bool:
        return path.startswith(self.path[:-1]) if self.path.endswith("*") else path == self.path


TS = "buffer.explorer_input.tasksets"
EB = "buffer.trainer_input.experience_buffer"
RM = "explorer.rollout_model"
# the fields of data_selector each of Trinity's selectors reads (trinity/buffer/selector/selector.py); a selector
# of a plugin may read them all
SELECTOR_FIELDS = {"sequential": (), "shuffle": ("seed",), "random": ("seed",), "offline_easy2hard": ("feature_keys",),
                   "difficulty_based": ("feature_keys", "kwargs", "seed")}


def _algorithm(get) -> str | None:
    return get("algorithm.algorithm_type")


def _sft(get) -> bool:
    return _algorithm(get) == "sft"


def _taskset_value(get, key: str):
    """``key`` of the first training taskset (``tasksets``, else the deprecated ``taskset``)."""
    return get(f"{TS}.{key}") if get(TS) else get(f"buffer.explorer_input.taskset.{key}")


def _ts_unset(key: str):
    """The first training taskset leaves ``key`` unset: Trinity's validator fills it in from the default."""
    return lambda get: bool(get(TS) or get("buffer.explorer_input.taskset")) and _taskset_value(get, key) is None


def _other_workflow(get) -> bool:
    return _taskset_value(get, "default_workflow_type") != WORKFLOW


def _selector_reads(get, key: str, selector: str = "data_selector") -> bool:
    """The first training taskset's ``selector`` is set and reads ``key`` (rftc.semantics.trinity_inputs)."""
    kind = _taskset_value(get, f"{selector}.selector_type")
    return kind is not None and key in SELECTOR_FIELDS.get(kind, ("seed", "feature_keys", "kwargs"))


def _pipeline_writes(get) -> bool:
    """The task pipeline writes the training data (rftc.semantics.trinity_inputs)."""
    output = get("data_processor.task_pipeline.output")
    target = get(f"{EB}.path") if _sft(get) else _taskset_value(get, "path")
    return get("data_processor.task_pipeline") is not None and get("mode") in (
        ("train",) if _sft(get) else ("explore", "both")) and (output is None or output.path == target)


def _beyond_model(get) -> bool:
    from rftc.trinity.registry import ALGORITHMS

    algo = ALGORITHMS.get(_algorithm(get))
    return algo is None or algo.schema not in ("experience", "sft") or algo.default("sample_strategy") != "default"


def _beside(get) -> bool:
    """The explorer runs on GPUs of its own, ahead of the trainer (rftc.semantics.trinity compares GPUs then)."""
    return get("mode") == "both" and (bool(get("synchronizer.sync_offset"))
                                      or get("synchronizer.sync_style") != "fixed")


# where a field feeds its quantities only in some runs: name -> (the condition in words, a predicate of get(path))
WHEN: dict[str, tuple[str, Callable]] = {
    "rl": ("an RL algorithm (not sft)", lambda get: not _sft(get)),
    "sft": ("algorithm_type sft (the experience buffer is the training data)", _sft),
    "algorithm_beyond_model": ("an algorithm that trains by more than its functions' defaults and critic, which the "
                               "model reads (its own sample strategy, a DPO or CPT schema, one rftc does not know)",
                               _beyond_model),
    "fsdp_lora": ("a LoRA adapter trains (the actor is not Megatron's, which trains every weight instead)",
                  lambda get: get("trainer.trainer_strategy") != "megatron"),
    "kl_loss": ("a KL loss (algorithm.kl_loss_fn not none)",
                lambda get: get("algorithm.kl_loss_fn") not in (None, "none")),
    "kl_in_reward": ("KL in the reward (algorithm.kl_penalty_fn not none)",
                     lambda get: get("algorithm.kl_penalty_fn") not in (None, "none")),
    "critic": ("a critic is trained (algorithm_type ppo)", lambda get: _algorithm(get) == "ppo"),
    "cosine": ("the lr schedule is cosine", lambda get: get("algorithm.optimizer.lr_scheduler_type") == "cosine"),
    "replay": ("the replay buffer is on", lambda get: bool(get("buffer.trainer_input.experience_buffer.replay_buffer."
                                                               "enable"))),
    "tinker": ("training runs on Tinker (model.tinker.enable)", lambda get: bool(get("model.tinker.enable"))),
    "external": ("an external model serves the rollout", lambda get: bool(get("model.external_model.enable"))),
    "ts_temperature": ("the training taskset leaves rollout_args.temperature unset",
                       _ts_unset("rollout_args.temperature")),
    "ts_top_p": ("the training taskset leaves rollout_args.top_p unset", _ts_unset("rollout_args.top_p")),
    "ts_workflow": ("the training taskset leaves default_workflow_type unset", _ts_unset("default_workflow_type")),
    "ts_reward_fn": ("the training taskset leaves default_reward_fn_type unset and its workflow reads it",
                     lambda get: _ts_unset("default_reward_fn_type")(get) and _other_workflow(get)),
    "other_workflow": ("the training taskset runs another workflow than rftc's veRL reward workflow (which reads "
                       "of a taskset its workflow_args, format.prompt_key and system_prompt only)", _other_workflow),
    "selector": ("the training taskset's rows are chosen by its data_selector (no deprecated task_selector replaces "
                 "it)", lambda get: _taskset_value(get, "task_selector") is None),
    **{f"selector_{k}": (f"the training taskset's data_selector reads {k}",
                         lambda get, k=k: _taskset_value(get, "task_selector") is None and _selector_reads(get, k))
       for k in ("seed", "feature_keys", "kwargs")},
    **{f"task_selector_{k}": (f"the training taskset's deprecated task_selector reads {k}",
                              lambda get, k=k: _selector_reads(get, k, "task_selector"))
       for k in ("seed", "feature_keys", "kwargs")},
    "task_pipeline": ("the task pipeline writes the training data (its output unset, or at the data's path): the "
                      "first training taskset (mode explore or both), an SFT run's experience buffer (mode train)",
                      _pipeline_writes),
    "entropy_coef": ("an entropy coefficient is set (algorithm.entropy_loss_fn_args)",
                     lambda get: bool((get("algorithm.entropy_loss_fn_args") or {}).get("entropy_coef"))),
    "fixed_sync": ("an RL run whose explorer and trainer sync every sync_interval steps (sync_style fixed)",
                   lambda get: not _sft(get) and get("synchronizer.sync_style") == "fixed"),
    "no_trainer_steps": ("trainer.total_steps is unset (it bounds the run first)",
                         lambda get: get("trainer.total_steps") is None),
    "not_fixed": ("the explorer and trainer sync by their own intervals (sync_style not fixed)",
                  lambda get: get("synchronizer.sync_style") != "fixed"),
    **{f"sft_selector_{k}": (f"the SFT experience buffer's data_selector reads {k}", lambda get, k=k: _sft(get) and (
        get(f"{EB}.data_selector.selector_type") is not None and k in SELECTOR_FIELDS.get(
            get(f"{EB}.data_selector.selector_type"), ("seed", "feature_keys", "kwargs")))) for k in
       ("seed", "feature_keys", "kwargs")},
    "thinking_inherited": ("the run's thinking switch is the model's: the rollout model's (RL) or the experience "
                           "buffer's format (SFT) leaves enable_thinking unset, and Trinity's validator fills it in",
                           lambda get: get(f"{EB}.format.enable_thinking") is None if _sft(get)
                           else get(f"{RM}.enable_thinking") is None),
    "template_file": ("the run's chat template is read from model.chat_template_path: model.custom_chat_template is "
                      "unset (and an SFT run's format.chat_template)", lambda get: get("model.custom_chat_template")
                      is None and not (_sft(get) and get(f"{EB}.format.chat_template") is not None)),
    "verl_workflow": ("the training taskset runs rftc's veRL reward workflow (its workflow_args name the reward; "
                      "another workflow's are its own)",
                      lambda get: _taskset_value(get, "default_workflow_type") == WORKFLOW),
    "beside": ("the explorer has GPUs of its own and runs ahead of the trainer", _beside),
    "offset": ("the explorer runs a fixed number of steps ahead (sync_offset)",
               lambda get: bool(get("synchronizer.sync_offset")) and get("synchronizer.sync_style") == "fixed"),
    "horizon": ("the lr schedule needs a horizon (not constant, or warmup by ratio; SFT)",
                lambda get: _sft(get) or get("algorithm.optimizer.lr_scheduler_type") != "constant"
                or bool(get("algorithm.optimizer.lr_warmup_steps_ratio"))),
    "sft_plaintext": ("SFT rows are prompt and response columns", lambda get: _sft(get) and get(
        f"{EB}.format.prompt_type") == "plaintext"),
    "sft_messages": ("SFT rows are chat messages", lambda get: _sft(get) and get(f"{EB}.format.prompt_type") ==
                     "messages"),
    "sft_dynamic": ("SFT micro-batches by tokens (trainer.use_dynamic_bsz)", lambda get: _sft(get) and bool(
        get("trainer.use_dynamic_bsz"))),
}



def _taskset(prefix: str, *, data: dict, train: dict) -> list[Field]:
    """A taskset's fields: ``data`` classifies what selects and formats its rows, ``train`` the rest of what it
    changes (a training taskset's sampling and reward; an evaluation taskset's are cadence)."""
    return [
        Field(f"{prefix}.*", **data),
        *[Field(f"{prefix}.{k}", **c) for k, c in [
            ("name", no(NAMES)), ("enable_progress_bar", no(NAMES)), ("max_retry_times", no(PROCESSES)),
            ("max_retry_interval", no(PROCESSES)), ("ray_namespace", no(FOLLOWS)), ("index", no(FOLLOWS)),
            ("is_eval", no(FOLLOWS)), ("batch_size", no(FOLLOWS)), ("total_epochs", no(FOLLOWS)),
            ("total_steps", no(FOLLOWS)), ("rollout_args.logprobs", no(NAMES)),
            ("default_workflow_type", train.get("reward", data)),
            ("default_reward_fn_type", train.get("reward_fn", data)), ("storage_type", train.get("data", data)),
            ("workflow_args", train.get("workflow_args", data)), ("reward_fn_args", train.get("reward_kwargs", data)),
            ("repeat_times", train.get("repeat_times", data)), ("rollout_args.n", no(FOLLOWS)),
            ("rollout_args.temperature", train.get("temperature", data)),
            ("rollout_args.top_p", train.get("top_p", data)), ("rollout_args.top_k", train.get("top_k", data)),
            ("rollout_args.max_tokens", train.get("max_response_length", data)),
            ("data_selector.*", train.get("data_order", data)), ("task_selector.*", train.get("task_selector", data)),
            *[(f"{s}.{k}", train.get(f"{s}_{k}", data)) for s in ("data_selector", "task_selector")
              for k in ("seed", "feature_keys", "kwargs")],
            ("format.*", train.get("data_columns", data)), ("format.prompt_key", train.get("prompt_key", data)),
            ("format.system_prompt", train.get("chat_template", data)),
            ("format.workflow_key", train.get("reward", data)), ("format.reward_fn_key", train.get("reward_fn", data)),
            ("format.image_key", train.get("media", data)), ("format.video_key", train.get("media", data)),
            ("format.enable_concatenated_multi_turn", train.get("multi_turn", data))]],
    ]


def _buffer(prefix: str, *, data: dict, rows: tuple = ()) -> list[Field]:
    """An experience buffer's fields: ``data`` classifies what selects and formats its rows, ``rows`` those that
    only some runs read (an SFT run's training data); the queue's own settings do not train."""
    return [
        Field(f"{prefix}.*", **data),
        *[Field(f"{prefix}.{k}", **c) for k, c in [
            ("name", no(NAMES)), ("enable_progress_bar", no(NAMES)), ("max_retry_times", no(PROCESSES)),
            ("max_retry_interval", no(PROCESSES)), ("max_read_timeout", no(PROCESSES)), ("capacity", no(MEMORY)),
            ("ray_namespace", no(FOLLOWS)), ("index", no(FOLLOWS)), ("batch_size", no(FOLLOWS)),
            ("total_epochs", no(FOLLOWS)), ("total_steps", no(FOLLOWS)), ("schema_type", no(FOLLOWS)),
            ("tokenizer_path", no(FOLLOWS)), ("replay_buffer.*", to("replay_buffer", "replay")),
            ("replay_buffer.enable", to("replay_buffer")),
            ("format.workflow_key", no(UNREAD)), ("format.reward_fn_key", no(UNREAD)),
            ("format.chosen_key", no(UNREAD)), ("format.rejected_key", no(UNREAD)), *rows]],
    ]


# the training data of an SFT run (the experience buffer): what selects and formats its rows, by the run's format
SFT_BUFFER = (("data_selector.*", to("data_order", "sft")),
              ("format.chat_template", to("chat_template", "sft")),
              ("format.enable_thinking", to("chat_template", "sft")),
              ("format.prompt_type", to("loss_tokens", "sft")),
              ("format.prompt_key", to("loss_tokens", "sft_plaintext")),
              ("format.response_key", to("loss_tokens", "sft_plaintext")),
              ("format.system_prompt_key", to("loss_tokens", "sft_plaintext")),
              ("format.system_prompt", to("loss_tokens", "sft_plaintext")),
              ("format.reply_prefix", to("loss_tokens", "sft_plaintext")),
              ("format.messages_key", to("loss_tokens", "sft_messages")),
              ("format.tools_key", to("data_columns", "sft_messages")),
              ("format.enable_concatenated_multi_turn", to("loss_tokens", "sft_messages")),
              ("format.image_key", to("data_columns", "sft")), ("format.video_key", to("data_columns", "sft")),
              ("storage_type", to("data", "sft")), ("subset_name", to("data", "sft")),
              ("data_selector.selector_type", to("data_order", "sft")),
              *((f"data_selector.{k}", to("data_order", f"sft_selector_{k}")) for k in ("seed", "feature_keys",
                                                                                        "kwargs")))


def _inference(prefix: str, *, sampling: dict, placement: dict, own: dict | None = None) -> list[Field]:
    """An inference engine's fields (the rollout model, an auxiliary model): ``sampling`` classifies what decides
    the text it generates (``own``: the fields with a quantity of their own), ``placement`` its GPUs; the engine's
    tuning does not train."""
    own = own or {}
    return [
        Field(f"{prefix}.*", **no(KERNELS)),
        *[Field(f"{prefix}.{k}", **own.get(k, c)) for k, c in [
            ("model_path", sampling), ("dtype", sampling), ("seed", sampling), ("repetition_penalty", sampling),
            ("max_model_len", sampling), ("min_response_tokens", sampling), ("rope_scaling", sampling),
            ("rope_theta", sampling), ("ignore_eos", sampling), ("chat_template", sampling),
            ("enable_thinking", sampling), ("temperature", no(FOLLOWS)), ("top_p", no(FOLLOWS)),
            ("top_k", no(FOLLOWS)), ("logprobs", no(NAMES)), ("max_prompt_tokens", no(FOLLOWS)),
            ("max_response_tokens", no(FOLLOWS)), ("enable_prompt_truncation", no(FOLLOWS)),
            ("name", no(NAMES)), ("trust_remote_code", no(PROCESSES)), ("enable_expert_parallel", no(PLACEMENT)),
            *[(k, placement) for k in ("engine_num", "tensor_parallel_size", "data_parallel_size",
                                       "pipeline_parallel_size")],
            ("gpu_memory_utilization", no(MEMORY)), ("enable_log_requests", no(NAMES)), ("base_port", no(PROCESSES)),
            ("api_key", no(PROCESSES)), ("enable_openai_api", no(PROCESSES)),
            ("external_model_config.*", no(FOLLOWS)), ("weight_sync_buffer_size", no(MEMORY))]],
    ]


# a training taskset's fields: what its rows are sampled and scored with (repeat_times follows algorithm.repeat_times)
TRAINING_TASKSET = {
    "reward": to("reward", "rl"), "reward_fn": to("reward", "other_workflow"),
    "workflow_args": to("reward", "verl_workflow"), "data": to("data", "rl"),
    "reward_kwargs": to("reward_kwargs", "other_workflow"), "repeat_times": no(FOLLOWS),
    "temperature": to("temperature", "rl"), "top_p": to("top_p", "rl"), "top_k": to("top_k", "rl"),
    "max_response_length": to("max_response_length", "rl"), "data_order": to("data_order", "selector"),
    "task_selector": to("data_order", "rl"),
    **{f"data_selector_{k}": to("data_order", f"selector_{k}") for k in ("seed", "feature_keys", "kwargs")},
    **{f"task_selector_{k}": to("data_order", f"task_selector_{k}") for k in ("seed", "feature_keys", "kwargs")},
    "data_columns": to("data_columns", "other_workflow"), "prompt_key": to("data_columns", "rl"),
    "chat_template": to("chat_template", "rl"), "multi_turn": to("multi_turn", "rl"),
    "media": to("data_columns media", "rl")}

FIELDS: list[Field] = [
    # ---- the run
    *[Field(k, **c) for k, c in [
        ("mode", to("mode", "rl")), ("project", no(NAMES)), ("group", no(NAMES)), ("name", no(NAMES)),
        ("checkpoint_root_dir", no(CADENCE)), ("checkpoint_job_dir", no(FOLLOWS)), ("ray_namespace", no(PROCESSES)),
        ("continue_from_checkpoint", no(CADENCE)),
        ("ignore_validator_suggestions", no(PROCESSES)),  # only the memory estimate's refusal (config_validator)
        ("stages.stage_name", no(NAMES)), ("stages.mode", to("mode", "rl"))]],
    # ---- algorithm
    *[Field(f"algorithm.{k}", **c) for k, c in [
        ("algorithm_type", to("algorithm", "algorithm_beyond_model")), ("repeat_times", to("n", "rl")),
        ("sample_strategy", to("experience_selection")), ("sample_strategy_args", to("experience_selection")),
        ("advantage_fn", to("advantage", "rl")), ("advantage_fn_args", to("advantage_args", "rl")),
        ("kl_penalty_fn", to("kl_in_reward", "rl")), ("kl_penalty_fn_args", to("kl_in_reward_coef", "kl_in_reward")),
        ("policy_loss_fn", to("policy_loss", "rl")),
        ("policy_loss_fn_args", to("clip_low clip_high clip_ratio_c sapo_tau", "rl")),
        ("kl_loss_fn", to("kl_loss", "rl")), ("kl_loss_fn_args", to("kl_loss_coef", "kl_loss")),
        ("entropy_loss_fn", to("entropy_coef", "entropy_coef")), ("entropy_loss_fn_args", to("entropy_coef", "rl")),
        ("loss_agg_mode", to("loss_agg_mode")), ("enable_router_replay", to("moe_routing")),
        ("bypass_old_logprobs", to("logprob_source", "rl")), ("rollout_correction", to("rollout_correction", "rl")),
        ("optimizer.lr", to("lr")), ("optimizer.lr_warmup_steps", to("warmup_steps")),
        ("optimizer.lr_warmup_steps_ratio", to("warmup_ratio")), ("optimizer.min_lr_ratio", to("min_lr_ratio",
                                                                                                 "cosine")),
        ("optimizer.warmup_style", to("lr_scheduler")), ("optimizer.lr_scheduler_type", to("lr_scheduler")),
        ("optimizer.optimizer_type", to("optimizer")), ("optimizer.betas", to("betas")),
        ("optimizer.weight_decay", to("weight_decay")), ("optimizer.clip_grad", to("clip_grad"))]],
    # ---- data processing
    # Data-Juicer's processing of the first training taskset's data, where the pipeline writes it
    Field("data_processor.task_pipeline.*", **to("data", "task_pipeline")),
    Field("data_processor.task_pipeline.num_process", **no(PROCESSES)),
    Field("data_processor.task_pipeline.output.*", **no(UNREAD)),  # the pipeline reads only its output's path
    Field("data_processor.task_pipeline.output.path", **to("data", "task_pipeline")),
    Field("data_processor.experience_pipeline.*", **to("experience_pipeline")),
    Field("data_processor.experience_pipeline.save_input", **no(DEBUG)),
    Field("data_processor.experience_pipeline.input_save_path", **no(DEBUG)),
    *_buffer("data_processor.experience_pipeline.output", data=to("experience_pipeline")),
    # ---- model
    *[Field(f"model.{k}", **c) for k, c in [
        ("model_path", to("model")), ("trust_remote_code", no(PROCESSES)), ("critic_model_path",
                                                                            to("critic_model", "critic")),
        ("custom_chat_template", to("chat_template")), ("chat_template_path", to("chat_template", "template_file")),
        ("temperature", to("temperature", "ts_temperature")), ("top_p", to("top_p", "ts_top_p")),
        ("top_k", no(UNREAD)),  # the taskset's rollout_args.top_k (-1 unless set) always wins
        ("logprobs", no(NAMES)), ("max_model_len", to("context_length max_length")),
        ("max_prompt_tokens", to("max_prompt_length context_length", "rl")),
        ("max_response_tokens", to("max_response_length context_length", "rl")),
        ("min_response_tokens", to("min_response_length", "rl")),
        ("enable_prompt_truncation", to("overlong_prompts prompt_truncation", "rl")),
        ("repetition_penalty", to("repetition_penalty")),
        ("enable_thinking", to("chat_template", "thinking_inherited")), ("fully_sharded_loras", no(KERNELS)),
        ("max_cpu_loras", no(MEMORY)),
        ("rope_scaling", to("model_config")), ("rope_theta", to("model_config")),
        ("lora_configs.*", to("lora")), ("lora_configs.name", no(NAMES)),
        ("lora_configs.path", to("lora_args", "fsdp_lora")), ("lora_configs.base_model_name", no(FOLLOWS)),
        ("lora_configs.lora_dtype", to("precision", "fsdp_lora")),
        ("lora_configs.exclude_modules", to("lora_args", "fsdp_lora")),
        ("lora_configs.is_dummy", to("lora_args", "fsdp_lora")),
        ("tinker.*", to("tinker", "tinker")), ("tinker.enable", to("tinker")), ("tinker.base_url", no(PROCESSES)),
        ("external_model.*", to("external_model", "external")), ("external_model.enable", to("external_model")),
        ("external_model.base_url_env", no(PROCESSES)), ("external_model.api_key_env", no(PROCESSES))]],
    # ---- cluster: the explorer's GPUs against the trainer's
    Field("cluster.*", **no(FOLLOWS)),
    Field("cluster.ray_address", **no(PROCESSES)),
    Field("cluster.node_num", **to("trainer_gpus", "beside")),
    Field("cluster.gpu_per_node", **to("trainer_gpus", "beside")),
    # ---- buffer
    *[Field(f"buffer.{k}", **c) for k, c in [
        ("batch_size", to("ahead", "offset")), ("train_batch_size", to("responses_per_step examples_per_step")),
        ("total_epochs", to("total_epochs")), ("total_steps", to("total_steps", "no_trainer_steps")),
        ("explorer_output", no(FOLLOWS)), ("tokenizer_path", no(FOLLOWS)), ("cache_dir", no(FOLLOWS)),
        ("explorer_input.default_workflow_type", to("reward", "ts_workflow")),
        ("explorer_input.default_reward_fn_type", to("reward", "ts_reward_fn")),
        ("explorer_input.default_eval_workflow_type", no(CADENCE))]],
    *_taskset(TS, data=to("data", "rl"), train=TRAINING_TASKSET),
    *_taskset("buffer.explorer_input.taskset", data=to("data", "rl"), train=TRAINING_TASKSET),
    *_taskset("buffer.explorer_input.eval_tasksets", data=no(CADENCE), train={}),
    *_buffer(EB, data=to("data", "sft"), rows=SFT_BUFFER),
    *_buffer("buffer.trainer_input.auxiliary_buffers.*", data=to("auxiliary_data")),
    # ---- explorer
    Field("explorer.*", **no(PROCESSES)),
    *[Field(f"explorer.{k}", **c) for k, c in [
        ("name", no(NAMES)), ("eval_interval", no(CADENCE)), ("eval_on_startup", no(CADENCE)),
        ("bench_on_latest_checkpoint", no(CADENCE)), ("max_inflight_batches", to("explorer_ahead")),
        ("runner_per_model", no(PLACEMENT)), ("runner_num", no(PLACEMENT)),
        ("over_rollout.*", to("over_sampling")), ("dynamic_timeout.*", to("over_sampling")),
        ("runner_state_report_interval", no(NAMES))]],
    *_inference(RM, sampling=to("rollout_engine", "rl"), placement=to("rollout_gpus", "beside"),
                own={"seed": to("sampling_seed", "rl"), "repetition_penalty": to("repetition_penalty", "rl"),
                     "min_response_tokens": to("min_response_length", "rl"), "ignore_eos": to("ignore_eos", "rl")}),
    *_inference("explorer.auxiliary_models", sampling=to("auxiliary_models"), placement=no(PLACEMENT)),
    Field("explorer.auxiliary_models.model_path", **to("auxiliary_models")),
    # ---- trainer
    *[Field(f"trainer.{k}", **c) for k, c in [
        ("name", no(NAMES)), ("trainer_type", to("trainer_backend")), ("trainer_strategy", to("trainer_seed")),
        ("save_interval", no(CADENCE)), ("enable_preview", no(NAMES)), ("total_steps", to("lr_horizon", "horizon")),
        ("save_hf_checkpoint", no(CADENCE)),
        ("grad_clip", no(UNREAD)),  # Trinity writes it to the critic's frozen grad_clip: no worker reads it
        ("use_dynamic_bsz", to("micro_batch", "sft")),
        ("use_remove_padding", no(KERNELS)), ("balance_batch", no(BATCHING)),
        ("critic_warmup", to("critic_warmup", "critic")), ("max_token_len_per_gpu", to("micro_batch", "sft_dynamic")),
        ("ulysses_sequence_parallel_size", to("micro_batch", "sft_dynamic")),  # the token budget (RL: placement)
        ("fix_actor_microbatch_loss_scale", to("microbatch_loss_scale")), ("param_offload", no(MEMORY)),
        ("optimizer_offload", no(MEMORY)), ("grad_offload", no(MEMORY)), ("offload_policy", no(MEMORY)),
        ("save_strategy", no(CADENCE)), ("max_checkpoints_to_keep", no(CADENCE)), ("megatron.*", no(PLACEMENT)),
        ("trust_remote_code", no(FOLLOWS)),
        # the veRL worker config Trinity merges: its keys are veRL's, classified by rftc.mapping.rules
        ("trainer_config", to("ppo_epochs critic_lr value_clip minibatch_order critic_steps trainer_seed", "rl")),
        ("trainer_config_path", to("trainer_config_file"))]],
    # ---- synchronizer, monitor, service, log
    *[Field(f"synchronizer.{k}", **c) for k, c in [
        ("sync_method", no(PROCESSES)), ("sync_style", to("policy_lag", "rl")),
        ("sync_interval", to("policy_lag steps_per_batch", "rl")),
        ("explorer_sync_interval", to("weight_sync", "not_fixed")),  # how often the explorer takes new weights
        ("trainer_sync_interval", to("policy_lag steps_per_batch", "not_fixed")),
        ("sync_offset", to("policy_lag", "fixed_sync")), ("sync_timeout", no(PROCESSES)), ("group_name", no(PROCESSES)),
        ("wait_for_checkpoint", no(PROCESSES)), ("explorer_world_size", no(FOLLOWS)), ("ray_namespace", no(FOLLOWS))]],
    Field("monitor.*", **no(NAMES)),
    Field("monitor.enable_ray_timeline", **no(PROFILING)),
    Field("service.*", **no(PROCESSES)),
    Field("log.*", **no(NAMES)),
]


def find_field(path: str) -> Field | None:
    """The most specific row for ``path`` (a stage's field as the field it stands for)."""
    if path.startswith("stages.") and not any(f.path == path for f in FIELDS):
        path = path[len("stages."):]
    best: Field | None = None
    for f in FIELDS:
        if f.matches(path) and (best is None or _specificity(f) > _specificity(best)):
            best = f
    return best


def _specificity(f: Field) -> tuple[int, int]:
    return (0 if f.path.endswith("*") else 1, len(f.path))
