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
from rftc.mapping.sampling import group_filter_operator
from rftc.plugins import DISTILL_WORKFLOWS, WORKFLOW


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
AUX = "buffer.trainer_input.auxiliary_buffers.*"
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


def _distilling(get) -> bool:
    """The trainer's advantage reads a workflow's teacher log-probs (on_policy_distill, jsd), and no experience
    operator filters by reward: no reward enters what is trained (rftc.semantics.distill)."""
    ops = get("data_processor.experience_pipeline.operators") or []
    return _teacher_advantage(get) and not any(group_filter_operator(op.name) for op in ops)


def _other_workflow(get) -> bool:
    return _taskset_value(get, "default_workflow_type") != WORKFLOW and not _distilling(get)


def queries_auxiliary(workflow: str | None, column: str | None) -> bool:
    """Whether a taskset's workflow may query the auxiliary models as judges or tools: Trinity's Workflow hands
    every workflow a client of each, and a row's own workflow (the ``column`` format.workflow_key names) may be
    any; rftc's reward workflow queries none, a distillation workflow the first for log-probs only (the teacher),
    and a taskset without a workflow runs none."""
    return bool(column) or workflow not in (None, WORKFLOW, *DISTILL_WORKFLOWS)


def _judge(get) -> bool:
    """The first auxiliary model is one the training taskset's workflow (its own, else explorer_input's default)
    may query (a judge, a tool), not a distillation's teacher."""
    workflow = _taskset_value(get, "default_workflow_type") or get("buffer.explorer_input.default_workflow_type")
    return bool(get("explorer.auxiliary_models")) and not _teacher(get) and queries_auxiliary(
        workflow, _taskset_value(get, "format.workflow_key"))


def _teacher(get) -> bool:
    """The first auxiliary model is the teacher whose log-probs a distillation advantage reads."""
    return bool(get("explorer.auxiliary_models")) and _teacher_advantage(get)


def _teacher_advantage(get) -> bool:
    """The trainer's advantage reads a workflow's teacher log-probs (on_policy_distill, jsd)."""
    from rftc.trinity.registry import TEACHER_ADVANTAGE_FNS

    return _function(get, "advantage_fn") in TEACHER_ADVANTAGE_FNS


def _function(get, field: str) -> str | None:
    """The algorithm's ``field`` (advantage_fn, entropy_loss_fn, ...): the config's, else its algorithm's default
    (Trinity's validator)."""
    from rftc.trinity.registry import ALGORITHMS, GLOBAL_DEFAULTS

    algo = ALGORITHMS.get(_algorithm(get))
    return get(f"algorithm.{field}") or (algo.default(field) if algo else GLOBAL_DEFAULTS.get(field))


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


def _explorer_syncs(get) -> bool:
    return get("synchronizer.sync_style") in ("trainer_driven", "explorer_driven")


def _strategy(get) -> str | None:
    """The sample strategy Trinity's validator leaves: the field, else the algorithm's default."""
    from rftc.trinity.registry import ALGORITHMS, GLOBAL_DEFAULTS

    algo = ALGORITHMS.get(_algorithm(get))
    return get("algorithm.sample_strategy") or (algo.default("sample_strategy") if algo else
                                                GLOBAL_DEFAULTS["sample_strategy"])


def _storage(get, prefix: str) -> str | None:
    """The storage of the (first) buffer at ``prefix``; the experience buffer's as Trinity's validator leaves it (a
    file in modes both and colocate is a queue: rftc.trinity.derive.experience_storage)."""
    storage = get(f"{prefix}.storage_type")
    return "queue" if prefix == EB and storage == "file" and get("mode") in ("both", "colocate") else storage


def _replay_queue(get, prefix: str) -> bool:
    """The buffer is a queue with replay_buffer.enable: an AsyncPriorityQueue that reads the replay settings (an
    SQL table replays without them, a file never)."""
    return _storage(get, prefix) == "queue" and bool(get(f"{prefix}.replay_buffer.enable"))


def _micro_reads(get, *what: str) -> bool:
    """Whether the step's loss on Trinity's verl trainer reads any of ``what`` ("micro", "ranks", "budget"), for the
    actor (its policy loss's loss_agg_mode, Trinity's aggregate_loss) or a critic (trainer_config.critic's, verl
    0.8's agg_loss): rftc.mapping.microloss; "switch": trainer.use_dynamic_bsz changes it."""
    from rftc.mapping.microloss import SUM, reads, switches
    from rftc.mapping.precision import TRINITY_VERL
    from rftc.verl.releases.semantics import resolve

    if get("model.tinker.enable") or get("trainer.trainer_type") == "tinker":
        return False
    args = get("algorithm.policy_loss_fn_args") or {}
    modes = [(args.get("loss_agg_mode") or get("algorithm.loss_agg_mode") or _function(get, "loss_agg_mode")
              or "token-mean", "token_sum")]
    if _algorithm(get) == "ppo":
        critic = ((get("trainer.trainer_config") or {}).get("critic") or {}).get("loss_agg_mode") or "token-mean"
        modes.append((critic, resolve(TRINITY_VERL, snapshot=False).value("sum_norm")))
    dynamic = bool(get("trainer.use_dynamic_bsz"))
    if "switch" in what:
        return any(switches(SUM, SUM, mode, sum_norm) for mode, sum_norm in modes)
    return any(w in reads(SUM, mode, sum_norm, dynamic) for mode, sum_norm in modes for w in what)


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
    "kl_in_reward": ("KL in the reward (algorithm.kl_penalty_fn not none) of an advantage that reads it (not a "
                     "distillation's)", lambda get: get("algorithm.kl_penalty_fn") not in (None, "none")
                     and not _teacher_advantage(get)),
    "reward_advantage": ("an RL algorithm whose advantage reads the reward (not a distillation's)",
                         lambda get: not _sft(get) and not _teacher_advantage(get)),
    "critic": ("a critic is trained (algorithm_type ppo)", lambda get: _algorithm(get) == "ppo"),
    "cosine": ("the lr schedule is cosine", lambda get: get("algorithm.optimizer.lr_scheduler_type") == "cosine"),
    "replay_read": ("the trainer reads a queue or an SQL table, which replay where replay_buffer.enable (a file "
                    "never does)", lambda get: _storage(get, EB) in ("queue", "sql")),
    "replay": ("the trainer reads a queue with replay_buffer.enable (an SQL table replays without its settings)",
               lambda get: _replay_queue(get, EB)),
    "strategy_args": ("the sample strategy reads its arguments (staleness_control, mix with its auxiliary buffer, a "
                      "plugin's)", lambda get: _strategy(get) not in ("default", "warmup") and not (
                          _strategy(get) == "mix" and get("buffer.trainer_input.auxiliary_buffers") in (None, {}))),
    "mix": ("the sample strategy is mix (it reads an auxiliary buffer)", lambda get: _strategy(get) == "mix"),
    "mix_replay_read": ("the sample strategy is mix and its auxiliary buffer is a queue or an SQL table",
                        lambda get: _strategy(get) == "mix" and _storage(get, AUX) in ("queue", "sql")),
    "mix_replay": ("the sample strategy is mix and its auxiliary buffer a queue with replay_buffer.enable",
                   lambda get: _strategy(get) == "mix" and _replay_queue(get, AUX)),
    "tinker": ("training runs on Tinker (trainer.trainer_type tinker, which model.tinker.enable sets)",
               lambda get: bool(get("model.tinker.enable")) or get("trainer.trainer_type") == "tinker"),
    "no_tinker": ("model.tinker.enable is off (on, the validator sets trainer_type tinker)",
                  lambda get: not get("model.tinker.enable")),
    "external": ("an external model serves the rollout", lambda get: bool(get("model.external_model.enable"))),
    "ts_temperature": ("the training taskset leaves rollout_args.temperature unset",
                       _ts_unset("rollout_args.temperature")),
    "ts_top_p": ("the training taskset leaves rollout_args.top_p unset", _ts_unset("rollout_args.top_p")),
    "ts_workflow": ("the training taskset leaves default_workflow_type unset", _ts_unset("default_workflow_type")),
    "ts_reward_fn": ("the training taskset leaves default_reward_fn_type unset and its workflow reads it",
                     lambda get: _ts_unset("default_reward_fn_type")(get) and _other_workflow(get)),
    "other_workflow": ("the training taskset runs another workflow than rftc's veRL reward workflow (which reads "
                       "of a taskset its workflow_args, format.prompt_key and system_prompt only), and its reward "
                       "is read (no distillation advantage)", _other_workflow),
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
    "entropy_loss": ("an RL algorithm with an entropy loss (algorithm.entropy_loss_fn, or its algorithm's default, "
                     "not none)", lambda get: not _sft(get) and _function(get, "entropy_loss_fn") != "none"),
    "entropy_coef": ("an entropy coefficient is set (algorithm.entropy_loss_fn_args)",
                     lambda get: bool((get("algorithm.entropy_loss_fn_args") or {}).get("entropy_coef"))),
    "fixed_sync": ("an RL run whose explorer and trainer sync every sync_interval steps (sync_style fixed)",
                   lambda get: not _sft(get) and get("synchronizer.sync_style") == "fixed"),
    "no_trainer_steps": ("trainer.total_steps is unset (it bounds the run first)",
                         lambda get: get("trainer.total_steps") is None),
    "not_fixed": ("the explorer and trainer sync by their own intervals (sync_style not fixed)",
                  lambda get: get("synchronizer.sync_style") != "fixed"),
    "fully_async": ("the explorer takes each weight version as the trainer publishes it (sync_style fully_async)",
                    lambda get: get("synchronizer.sync_style") == "fully_async"),
    "explorer_syncs": ("the explorer updates its weights every explorer_sync_interval of its steps (sync_style "
                       "trainer_driven, explorer_driven)", _explorer_syncs),
    "explorer_batch": ("the explorer's step size counts: it runs a fixed number of steps ahead (sync_offset), an "
                       "experience operator filters groups (it refills them), or it syncs by its own interval",
                       lambda get: bool(get("synchronizer.sync_offset")) and get("synchronizer.sync_style") == "fixed"
                       or group_filter_operator(get("data_processor.experience_pipeline.operators.name") or "")
                       or _explorer_syncs(get)),
    "workflow_args": ("the training taskset runs rftc's veRL reward workflow, whose workflow_args name the reward "
                      "where it is read (no distillation advantage), or a distillation workflow, whose "
                      "workflow_args.temperature is the teacher's (another workflow's are its own)",
                      lambda get: (_taskset_value(get, "default_workflow_type") == WORKFLOW and not _distilling(get))
                      or (_teacher_advantage(get) and _taskset_value(get, "default_workflow_type")
                          in DISTILL_WORKFLOWS)),
    "judge": ("the first auxiliary model is one the training taskset's workflow may query (not rftc's reward or a "
              "distillation workflow; not the teacher a distillation advantage reads)", _judge),
    "auxiliary_read": ("the first auxiliary model is read: a workflow may query it, or it is the teacher a "
                       "distillation advantage reads", lambda get: _judge(get) or _teacher(get)),
    "judge_top_k": ("the first auxiliary model is one a workflow may query and leaves top_k unset (the model's)",
                    lambda get: _judge(get) and get("explorer.auxiliary_models.top_k") is None),
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
    "horizon": ("the lr schedule needs a horizon (not constant, or warmup by ratio; SFT)",
                lambda get: _sft(get) or get("algorithm.optimizer.lr_scheduler_type") != "constant"
                or bool(get("algorithm.optimizer.lr_warmup_steps_ratio"))),
    "sft_plaintext": ("SFT rows are prompt and response columns", lambda get: _sft(get) and get(
        f"{EB}.format.prompt_type") == "plaintext"),
    "sft_messages": ("SFT rows are chat messages", lambda get: _sft(get) and get(f"{EB}.format.prompt_type") ==
                     "messages"),
    # how a step's loss is made from its micro-batches (rftc.mapping.microloss): Trinity's trainer adds them up
    "micro_switch": ("trainer.use_dynamic_bsz changes the micro-batches a step's loss adds up (not a "
                     "seq-mean-token-sum-norm policy loss alone, whose token sums add up alike; not on Tinker)",
                     lambda get: _micro_reads(get, "switch")),
    "micro_budget": ("micro-batches by tokens (trainer.use_dynamic_bsz) whose losses a step adds up (not on Tinker)",
                     lambda get: _micro_reads(get, "budget")),
    "micro_sp": ("an FSDP trainer's Ulysses size splits its GPUs into the data-parallel ranks a step's loss reads, "
                 "or sets the token budget where trainer.max_token_len_per_gpu is unset (Trinity's validator)",
                 lambda get: get("trainer.trainer_strategy") != "megatron" and (_micro_reads(get, "ranks") or (
                     _micro_reads(get, "budget") and get("trainer.max_token_len_per_gpu") is None))),
    "micro_megatron": ("a Megatron trainer whose step's loss reads its data-parallel ranks (GPUs / TP x PP x CP)",
                       lambda get: get("trainer.trainer_strategy") == "megatron" and _micro_reads(get, "ranks")),
    "trainer_gpus_read": ("the explorer has GPUs of its own and runs ahead of the trainer, or a step's loss reads the "
                          "trainer's data-parallel ranks", lambda get: _beside(get) or _micro_reads(get, "ranks")),
    "explorer_gpus_read": ("the explorer has GPUs of its own and runs ahead of the trainer, or (mode both, whose "
                           "trainer takes the GPUs the explorer's engines leave) a step's loss reads the trainer's "
                           "data-parallel ranks", lambda get: _beside(get) or (
                               get("mode") == "both" and _micro_reads(get, "ranks"))),
    "auxiliary_gpus_read": ("mode both, whose trainer takes the GPUs the explorer's engines leave, and a step's loss "
                            "reads the trainer's data-parallel ranks", lambda get: get("mode") == "both"
                            and _micro_reads(get, "ranks")),
    # off-policy rollouts (rftc.semantics.offpol)
    "rollout_logprobs": ("an RL trainer takes the rollout engine's log-probs as the old ones "
                         "(algorithm.bypass_old_logprobs)", lambda get: not _sft(get)
                         and get("algorithm.bypass_old_logprobs") is not False),
    "over_rollout": ("the explorer over-rolls out (explorer.over_rollout.ratio > 0)",
                     lambda get: (get("explorer.over_rollout.ratio") or 0) > 0),
    "dynamic_timeout": ("the explorer's dynamic timeout is on (explorer.dynamic_timeout.enable)",
                        lambda get: bool(get("explorer.dynamic_timeout.enable"))),
    "lora_adapter": ("a LoRA adapter trains from model.lora_configs' path (not Megatron's)", lambda get: get(
        "trainer.trainer_strategy") != "megatron" and get("model.lora_configs.path") is not None),
    "megatron": ("a Megatron trainer (its engine replays MoE routing; FSDP's does not)",
                 lambda get: get("trainer.trainer_strategy") == "megatron"),
    "fresh_lora": ("a LoRA adapter trains from these settings (not Megatron's; no adapter path, or the validator's "
                   "dummy one)", lambda get: get("trainer.trainer_strategy") != "megatron" and (
                       get("model.lora_configs.path") is None or bool(get("model.lora_configs.is_dummy")))),
    "fsdp_trainer": ("an FSDP trainer (Megatron's optimizer takes its betas from override_optimizer_config)",
                     lambda get: get("trainer.trainer_strategy") != "megatron"),
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


def _buffer(prefix: str, *, data: dict, rows: tuple = (), own: dict | None = None) -> list[Field]:
    """An experience buffer's fields: ``data`` classifies what selects and formats its rows, ``rows`` those that
    only some runs read (an SFT run's training data), ``own`` the buffer's own class of a common field (its replay
    settings, and what its reader reads that the validator sets in others); the queue's own settings do not
    train."""
    own = own or {}
    return [
        Field(f"{prefix}.*", **data),
        *[Field(f"{prefix}.{k}", **own.get(k, c)) for k, c in [
            ("name", no(NAMES)), ("enable_progress_bar", no(NAMES)), ("max_retry_times", no(PROCESSES)),
            ("max_retry_interval", no(PROCESSES)), ("max_read_timeout", no(PROCESSES)), ("capacity", no(MEMORY)),
            ("ray_namespace", no(FOLLOWS)), ("index", no(FOLLOWS)), ("batch_size", no(FOLLOWS)),
            ("total_epochs", no(FOLLOWS)), ("total_steps", no(FOLLOWS)), ("schema_type", no(FOLLOWS)),
            ("tokenizer_path", no(FOLLOWS)), ("replay_buffer.*", no(UNREAD)), ("replay_buffer.enable", no(UNREAD)),
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
              ("format.tools_key", to("loss_tokens", "sft_messages")),  # the template's tools=
              ("format.enable_concatenated_multi_turn", to("loss_tokens", "sft_messages")),
              ("format.image_key", to("media", "sft")), ("format.video_key", to("media", "sft")),
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
    "reward": to("reward multi_turn teacher", "rl"), "reward_fn": to("reward", "other_workflow"),
    "workflow_args": to("reward teacher", "workflow_args"), "data": to("data", "rl"),
    "reward_kwargs": to("reward_kwargs", "other_workflow"), "repeat_times": no(FOLLOWS),
    "temperature": to("temperature", "rl"), "top_p": to("top_p", "rl"), "top_k": to("top_k", "rl"),
    "max_response_length": to("max_response_length", "rl"), "data_order": to("data_order", "selector"),
    "task_selector": to("data_order", "rl"),
    **{f"data_selector_{k}": to("data_order", f"selector_{k}") for k in ("seed", "feature_keys", "kwargs")},
    **{f"task_selector_{k}": to("data_order", f"task_selector_{k}") for k in ("seed", "feature_keys", "kwargs")},
    "data_columns": to("data_columns", "other_workflow"), "prompt_key": to("data_columns", "rl"),
    "chat_template": to("chat_template", "rl"), "media": to("data_columns media", "rl"),
    # a taskset's format.enable_concatenated_multi_turn: Trinity's SFTFormatter alone reads it, another workflow may
    "multi_turn": to("data_columns", "other_workflow")}

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
        ("sample_strategy", to("experience_selection")),
        ("sample_strategy_args", to("experience_selection", "strategy_args")),
        ("advantage_fn", to("advantage", "rl")), ("advantage_fn_args", to("advantage_args", "rl")),
        ("kl_penalty_fn", to("kl_in_reward", "reward_advantage")),
        ("kl_penalty_fn_args", to("kl_in_reward_coef", "kl_in_reward")),
        ("policy_loss_fn", to("policy_loss", "rl")),
        ("policy_loss_fn_args", to("clip_low clip_high clip_ratio_c sapo_tau policy_loss_args", "rl")),
        ("kl_loss_fn", to("kl_loss", "rl")), ("kl_loss_fn_args", to("kl_loss_coef", "kl_loss")),
        ("entropy_loss_fn", to("entropy_coef", "entropy_coef")),
        ("entropy_loss_fn_args", to("entropy_coef", "entropy_loss")),
        ("loss_agg_mode", to("loss_agg_mode microbatch_loss")), ("enable_router_replay", to("moe_routing", "megatron")),
        ("bypass_old_logprobs", to("logprob_source rollout_logprobs", "rl")),
        ("rollout_correction", no(UNREAD)),  # Trinity's trainer (verl >= 0.8) reads none of it: rftc.semantics.offpol
        ("optimizer.lr", to("lr")), ("optimizer.lr_warmup_steps", to("warmup_steps")),
        ("optimizer.lr_warmup_steps_ratio", to("warmup_ratio")), ("optimizer.min_lr_ratio", to("min_lr_ratio",
                                                                                                 "cosine")),
        ("optimizer.warmup_style", to("lr_scheduler")), ("optimizer.lr_scheduler_type", to("lr_scheduler")),
        ("optimizer.optimizer_type", to("optimizer")), ("optimizer.betas", to("betas", "fsdp_trainer")),
        ("optimizer.weight_decay", to("weight_decay")), ("optimizer.clip_grad", to("clip_grad"))]],
    # ---- data processing
    # Data-Juicer's processing of the first training taskset's data, where the pipeline writes it
    Field("data_processor.task_pipeline.*", **to("data", "task_pipeline")),
    Field("data_processor.task_pipeline.num_process", **no(PROCESSES)),
    Field("data_processor.task_pipeline.output.*", **no(UNREAD)),  # the pipeline reads only its output's path
    Field("data_processor.task_pipeline.output.path", **to("data", "task_pipeline")),
    # the experience operators: group filters (dynamic sampling, whose refill follows) and the others
    Field("data_processor.experience_pipeline.*", **to("dynamic_sampling group_refill experience_pipeline")),
    Field("data_processor.experience_pipeline.save_input", **no(DEBUG)),
    Field("data_processor.experience_pipeline.input_save_path", **no(DEBUG)),
    # ExperiencePipeline writes to the trainer's experience buffer and reads no other input (get_input_buffers is
    # never called): trinity/buffer/pipelines/experience_pipeline.py
    Field("data_processor.experience_pipeline.inputs", **no(UNREAD)),
    Field("data_processor.experience_pipeline.output.*", **no(UNREAD)),
    # ---- model
    *[Field(f"model.{k}", **c) for k, c in [
        ("model_path", to("model")), ("trust_remote_code", no(PROCESSES)), ("critic_model_path",
                                                                            to("critic_model", "critic")),
        ("custom_chat_template", to("chat_template")), ("chat_template_path", to("chat_template", "template_file")),
        ("temperature", to("temperature", "ts_temperature")), ("top_p", to("top_p", "ts_top_p")),
        # the taskset's rollout_args.top_k (-1 unless set) always wins for the rollout; an auxiliary model takes it
        ("top_k", to("auxiliary_models", "judge_top_k")),
        # the context sets the token budget where trainer.max_token_len_per_gpu is unset (micro-batch loss)
        ("logprobs", no(NAMES)), ("max_model_len", to("context_length max_length microbatch_loss")),
        ("max_prompt_tokens", to("max_prompt_length context_length microbatch_loss", "rl")),
        ("max_response_tokens", to("max_response_length context_length microbatch_loss", "rl")),
        ("min_response_tokens", to("min_response_length", "rl")),
        ("enable_prompt_truncation", to("overlong_prompts prompt_truncation", "rl")),
        ("repetition_penalty", to("repetition_penalty")),
        ("enable_thinking", to("chat_template", "thinking_inherited")), ("fully_sharded_loras", no(KERNELS)),
        ("max_cpu_loras", no(MEMORY)),
        # rope_scaling reaches the rollout engine only (build_verl_config leaves it out); rope_theta the trainer too
        ("rope_scaling", to("model_config", "rl")), ("rope_theta", to("model_config")),
        ("lora_configs.*", to("lora", "fresh_lora")), ("lora_configs.name", no(NAMES)),
        ("lora_configs.path", to("lora", "fsdp_lora")), ("lora_configs.base_model_name", no(FOLLOWS)),
        ("lora_configs.lora_dtype", no(UNREAD)),  # Trinity 0.6 declares it and reads it nowhere
        ("lora_configs.exclude_modules", to("lora", "fresh_lora")),
        ("lora_configs.is_dummy", to("lora", "lora_adapter")),
        ("tinker.*", to("trainer_backend", "tinker")), ("tinker.enable", to("trainer_backend")),
        ("tinker.base_url", no(PROCESSES)),
        ("external_model.*", to("external_model", "external")), ("external_model.enable", to("external_model")),
        ("external_model.base_url_env", no(PROCESSES)), ("external_model.api_key_env", no(PROCESSES))]],
    # ---- cluster: the explorer's GPUs against the trainer's
    Field("cluster.*", **no(FOLLOWS)),
    Field("cluster.ray_address", **no(PROCESSES)),
    Field("cluster.node_num", **to("trainer_gpus microbatch_loss", "trainer_gpus_read")),
    Field("cluster.gpu_per_node", **to("trainer_gpus microbatch_loss", "trainer_gpus_read")),
    # ---- buffer
    *[Field(f"buffer.{k}", **c) for k, c in [
        ("batch_size", to("ahead group_refill experiences_per_update", "explorer_batch")),
        ("train_batch_size", to("responses_per_step examples_per_step microbatch_loss")),
        ("total_epochs", to("total_epochs")), ("total_steps", to("total_steps", "no_trainer_steps")),
        ("explorer_output", no(FOLLOWS)), ("tokenizer_path", no(FOLLOWS)), ("cache_dir", no(FOLLOWS)),
        ("explorer_input.default_workflow_type", to("reward multi_turn", "ts_workflow")),
        ("explorer_input.default_reward_fn_type", to("reward", "ts_reward_fn")),
        ("explorer_input.default_eval_workflow_type", no(CADENCE))]],
    *_taskset(TS, data=to("data", "rl"), train=TRAINING_TASKSET),
    *_taskset("buffer.explorer_input.taskset", data=to("data", "rl"), train=TRAINING_TASKSET),
    *_taskset("buffer.explorer_input.eval_tasksets", data=no(CADENCE), train={}),
    *_buffer(EB, data=to("data", "sft"), rows=SFT_BUFFER, own={
        "replay_buffer.enable": to("replay_buffer", "replay_read"), "replay_buffer.*": to("replay_buffer", "replay"),
        "capacity": to("replay_buffer", "replay")}),
    # the mix sample strategy's SFT data (the other strategies read no auxiliary buffer)
    *_buffer(AUX, data=to("experience_selection", "mix"), own={
        "total_epochs": to("experience_selection", "mix"), "total_steps": to("experience_selection", "mix"),
        "replay_buffer.enable": to("experience_selection", "mix_replay_read"),
        "replay_buffer.*": to("experience_selection", "mix_replay"),
        "capacity": to("experience_selection", "mix_replay")}),
    # ---- explorer
    Field("explorer.*", **no(PROCESSES)),
    *[Field(f"explorer.{k}", **c) for k, c in [
        ("name", no(NAMES)), ("eval_interval", no(CADENCE)), ("eval_on_startup", no(CADENCE)),
        ("bench_on_latest_checkpoint", no(CADENCE)), ("max_inflight_batches", to("ahead policy_lag", "fully_async")),
        ("runner_per_model", no(PLACEMENT)), ("runner_num", no(PLACEMENT)),
        ("over_rollout.*", to("over_sampling")), ("dynamic_timeout.*", to("over_sampling")),
        ("over_rollout.wait_after_min", to("over_sampling", "over_rollout")),
        ("dynamic_timeout.ratio", to("over_sampling", "dynamic_timeout")),
        ("dynamic_timeout.warmup_min_steps", to("over_sampling", "dynamic_timeout")),
        ("runner_state_report_interval", no(NAMES))]],
    # the rollout engine's own copies of the model's settings (the validator fills an unset one from model.*)
    *_inference(RM, sampling=to("rollout_engine", "rl"), placement=to("rollout_gpus microbatch_loss",
                                                                      "explorer_gpus_read"),
                own={"dtype": to("rollout_precision", "rl"), "seed": to("sampling_seed", "rl"),
                     "repetition_penalty": to("repetition_penalty", "rl"),
                     "min_response_tokens": to("min_response_length", "rl"), "ignore_eos": to("ignore_eos", "rl"),
                     "model_path": to("model chat_template", "rl"), "max_model_len": to("context_length", "rl"),
                     "rope_scaling": to("model_config", "rl"), "rope_theta": to("model_config", "rl"),
                     "chat_template": to("chat_template", "rl"), "enable_thinking": to("chat_template", "rl")}),
    Field(f"{RM}.engine_type", **to("rollout_logprobs", "rollout_logprobs")),  # vLLM's processed_logprobs or not
    # a judge's fields decide what it answers; a distillation teacher's log-probs are its model's, in its dtype
    # (the model's rope settings where it leaves its own unset), whatever it would sample with
    *_inference("explorer.auxiliary_models", sampling=to("auxiliary_models", "judge"),
                placement=to("microbatch_loss", "auxiliary_gpus_read"),
                own={**{k: to("auxiliary_models teacher", "auxiliary_read") for k in (
                    "model_path", "dtype", "rope_scaling", "rope_theta")},
                     **{k: to("auxiliary_models", "judge") for k in (
                         "temperature", "top_p", "top_k", "max_prompt_tokens", "max_response_tokens",
                         "enable_prompt_truncation")}}),
    # ---- trainer
    *[Field(f"trainer.{k}", **c) for k, c in [
        ("name", no(NAMES)), ("trainer_type", to("trainer_backend", "no_tinker")),
        ("trainer_strategy", to("trainer_seed precision")),
        ("save_interval", no(CADENCE)), ("enable_preview", no(NAMES)), ("total_steps", to("lr_horizon", "horizon")),
        ("save_hf_checkpoint", no(CADENCE)),
        ("grad_clip", no(UNREAD)),  # Trinity writes it to the critic's frozen grad_clip: no worker reads it
        ("use_dynamic_bsz", to("micro_batch microbatch_loss", "micro_switch")),
        ("use_remove_padding", no(KERNELS)), ("balance_batch", no(BATCHING)),
        ("critic_warmup", to("critic_warmup", "rl")),
        ("max_token_len_per_gpu", to("micro_batch microbatch_loss", "micro_budget")),
        # the data-parallel ranks, and the token budget where max_token_len_per_gpu is unset
        ("ulysses_sequence_parallel_size", to("micro_batch microbatch_loss", "micro_sp")),
        # read by the Tinker trainer only (verl 0.8's engine workers, which Trinity's verl trainer runs, do not)
        ("fix_actor_microbatch_loss_scale", to("trainer_backend", "tinker")), ("param_offload", no(MEMORY)),
        ("optimizer_offload", no(MEMORY)), ("grad_offload", no(MEMORY)), ("offload_policy", no(MEMORY)),
        ("save_strategy", no(CADENCE)), ("max_checkpoints_to_keep", no(CADENCE)), ("megatron.*", no(PLACEMENT)),
        *((f"megatron.{k}", to("microbatch_loss", "micro_megatron")) for k in (
            "tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size")),
        ("trust_remote_code", no(FOLLOWS)),
        # the veRL worker config Trinity merges: its keys are veRL's, classified by rftc.mapping.rules
        ("trainer_config", to("ppo_epochs critic_lr value_clip minibatch_order critic_steps trainer_seed precision "
                              "critic_loss_agg_mode critic_optimizer lr_schedule_args microbatch_loss", "rl")),
        # deprecated: Trinity 0.6 reads no file from it (its legacy verl < 0.8 path refuses it without trainer_config)
        ("trainer_config_path", no(UNREAD))]],
    # ---- synchronizer, monitor, service, log
    *[Field(f"synchronizer.{k}", **c) for k, c in [
        ("sync_method", no(PROCESSES)), ("sync_style", to("policy_lag", "rl")),
        ("sync_interval", to("policy_lag steps_per_batch", "rl")),
        ("explorer_sync_interval", to("experiences_per_update", "explorer_syncs")),
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
