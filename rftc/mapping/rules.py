"""The one-to-one part of the veRL -> Trinity-RFT 0.6 mapping, as data.

Each row says what becomes of one veRL key (or a subtree, ``key.*``, or the keys a prefix starts, ``key_*``):

map      the value goes to the Trinity field ``trinity`` (through ``transform``)
pass     the value goes to ``trainer.trainer_config`` at the same path (or at ``trinity``'s path where verl 0.8, the
         version Trinity 0.6 runs, moved the key): only keys Trinity 0.6 merges into the veRL worker config
         (trinity-0.6.md §3.3; never a frozen key or a dropped section)
implied  Trinity already behaves this way; nothing to write (the note says why)
handled  RFTC301: a knob of veRL's own workers, logging or processes that Trinity replaces
none     RFTC300: Trinity 0.6 has no equivalent; the note says what to do instead
rule     a relational rule computes it: ``trinity`` names the function (rftc/mapping/<module>.py)

``explicit`` rows are written even when the script leaves the key at veRL's default, because Trinity's
default differs in a way that changes training. docs/mapping.md is generated from this table.

Each row also says what the key does to training (the classification docs/diff.md links): ``feeds`` names the
quantities of rftc.semantics.model (TrainingRun or SftRun fields, space-separated) the key decides where the
condition ``when`` (a name of WHEN) holds; ``inert`` gives the reason (one of INERT) it does not change what is
trained. tests/test_classification.py holds every key of every bundled release to its row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from rftc.mapping.classes import (BATCHING, CADENCE, CLASS, DEBUG, FOLLOWS, KERNELS, MEMORY, NAMES, PLACEMENT,
                                  PROCESSES, PROFILING, UNREAD, no, to)
from rftc.mapping.correction import TRINITY_LOGPROBS
from rftc.mapping.draft import Draft, not_a_count, whole
from rftc.mapping.precision import TRINITY_VERL
from rftc.verl.micro import MEGATRON_SIZES


@dataclass(frozen=True)
class Rule:
    verl: str
    action: str
    trinity: str = ""
    note: str = ""
    transform: Callable[[Any], Any] | None = None
    explicit: bool = False
    feeds: str = ""  # the quantities the key decides (space-separated), where ``when`` holds
    when: str = ""  # a name of WHEN; "" = always
    inert: str = ""  # why the key does not change what is trained: one of INERT


def _lower(v):
    return v.lower() if isinstance(v, str) else v


def _engine(section: str, action: str, trinity: str = "", *, megatron: bool = False, role: str = "actor",
            seed: dict | None = None) -> list[Rule]:
    """The rows of a worker's FSDP or Megatron section of ``role`` ("actor", "ref", "critic") that change what is
    trained (the rest place, offload or tune): the precision it trains in (``_precision``), its seed (and the
    full_determinism an FSDP engine seeds under: ``seed`` maps each to its class; rftc.mapping.seeds), and
    Megatron's MoE routing replay and model-config override (``_megatron_model``). They keep the section's action;
    ``trinity`` is a rule's function, or the section a passed key moves to."""
    classes = {"seed": (seed or {})["seed"],
               **(_megatron_model(role) if megatron else {"full_determinism": (seed or {})["full_determinism"]}),
               **_precision(role, megatron)}
    return [Rule(f"{section}.{k}", action, f"{trinity}.{k}" if action == "pass" and trinity else trinity, **c)
            for k, c in classes.items()]


def _precision(role: str, megatron: bool) -> dict[str, dict]:
    """The classes of an engine section's precision keys (rftc.mapping.precision): what the role's engine reads
    (the legacy FSDP critic and the engines ignore fsdp_config.dtype; the forward-only reference trains no QAT), and
    the actor's qat, which the vLLM rollout's rollout.qat follows (0.7.1 on)."""
    unread = no(UNREAD)
    if megatron:
        out = {"dtype": to("precision", f"megatron_dtype_{role}")}
        train = ("mode",)
        out.update({f"qat.{k}": unread for k in ("group_size", "activation_observer")})
    else:
        out = {"dtype": to("precision", f"legacy_dtype_{role}") if role != "critic" else unread,
               "model_dtype": to("precision", f"fsdp_{role}"), "mixed_precision.*": to("precision", f"fsdp_{role}"),
               **{f"turbo_config.distributed.fsdp_plan.{k}_dtype": to("precision", f"turbo_{role}")
                  for k in ("param", "reduce", "output")}}
        train = ("mode", "group_size", "activation_observer")
    qat = {"actor": {"enable": to("precision rollout_precision", "qat_actor"),
                     "ignore_patterns": to("precision rollout_precision", "qat_patterns_actor"),
                     "quantization_config_path": to("rollout_precision", "rollout_qat"),
                     **{k: to("precision", "qat_train_actor") for k in train}},
           "critic": {"enable": to("precision", "engine_qat_critic"), "ignore_patterns": to(
               "precision", "qat_train_critic"), "quantization_config_path": unread,
                      **{k: to("precision", "qat_train_critic") for k in train}},
           "ref": {"enable": unread}}[role]
    return {**out, "qat.*": unread, "qat._target_": no(CLASS), **{f"qat.{k}": c for k, c in qat.items()}}


# an engine section's router replay: its mode (the files are read by no code of any release)
REPLAY = ("router_replay.*", "router_replay._target_", "router_replay.record_file", "router_replay.replay_file")
UNREPLAYED = {"router_replay._target_": no(CLASS), "router_replay.record_file": no(UNREAD),
              "router_replay.replay_file": no(UNREAD)}


def _megatron_model(role: str) -> dict[str, dict]:
    """The classes of ``role``'s Megatron section's router replay and override_mcore_model_config, which its engine
    reads (rftc.semantics.model_settings: the actor's router replay and frozen MoE router, the reference's replay,
    the critic's both; the reference is never trained, so its frozen router changes nothing)."""
    replay = to("moe_routing", f"megatron_replay_{role}")
    frozen = {"actor": to("frozen_modules", "megatron_frozen_actor"), "ref": no(KERNELS),
              "critic": to("critic_model_config", "megatron_frozen_critic")}[role]
    return {"router_replay.*": replay, **UNREPLAYED, "override_mcore_model_config": frozen,
            "override_mcore_model_config.*": frozen}


def _other_replay(role: str) -> list[tuple[str, dict]]:
    """The router replay and model-config override of ``role``'s MindSpeed and VeOmni sections, read where the role
    runs that engine (MindSpeed's is Megatron's; VeOmni replays routing, and has no Megatron model config)."""
    frozen = {"actor": to("frozen_modules", "mindspeed_frozen_actor"), "ref": no(KERNELS),
              "critic": to("critic_model_config", "mindspeed_frozen_critic")}[role]
    return [*((f"{e}.router_replay.*", to("moe_routing", f"{e}_replay_{role}")) for e in ("mindspeed", "veomni")),
            *((f"{e}.{k}", c) for e in ("mindspeed", "veomni") for k, c in UNREPLAYED.items()),
            ("mindspeed.override_mcore_model_config", frozen), ("mindspeed.override_mcore_model_config.*", frozen)]


def _optimizer(v):
    return {"adamw": "adamw", "adam": "adam", "sgd": "sgd"}.get(str(v).lower(), v)


def _seed_classes(role: str) -> dict[str, dict]:
    """The classes of ``role``'s engine sections' seed and full_determinism (rftc.mapping.seeds), and of mindspeed's
    seed (a Megatron engine: it always seeds; the reference's is set before the actor's)."""
    seed = to("trainer_seed", f"process_seed_{role}")
    return {"seed": seed, "full_determinism": to("trainer_seed", f"determinism_{role}"),
            "mindspeed": no(UNREAD) if role == "ref" else seed}


ACTOR_SEED, REF_SEED, CRITIC_SEED = (_seed_classes(role) for role in ("actor", "ref", "critic"))


def _other_engines(classes: dict) -> list[tuple[str, dict]]:
    """The seed rows of the engines other than FSDP and Megatron, the rest placement: veomni's and torchtitan's
    seed under full_determinism, mindspeed's always."""
    return [*((f"{e}.{k}", classes[k]) for e in ("torchtitan", "veomni") for k in ("seed", "full_determinism")),
            ("mindspeed.seed", classes["mindspeed"])]


A, R, C, M, D, T = ("actor_rollout_ref.actor", "actor_rollout_ref.rollout", "critic", "actor_rollout_ref.model",
                    "data", "trainer")
RM = "explorer.rollout_model"
NOT_CONVERTED = "it is not in the converted config"
CORRECTION_NOTE = ("passed to veRL's policy_loss.rollout_correction by Trinity, whose trainer (verl >= 0.8) reads none "
                   "of it: RFTC305 where veRL applies a correction")
MICRO = ("trainer.trainer_config's *_per_gpu: the global size / the data-parallel ranks (GPUs / SP; Megatron: "
         "/ TP x PP x CP), as the release's workers divide it")

RULES: list[Rule] = [
    # ---- batch sizes, steps, synchronisation (rftc/mapping/batch.py, steps.py, sync.py)
    Rule(f"{D}.train_batch_size", "rule", "batch.map_batch",
         "synchronizer.sync_interval = train_batch_size / ppo_mini_batch_size", feeds="steps_per_batch",
         when="train_batch"),
    Rule(f"{A}.ppo_mini_batch_size", "rule", "batch.map_batch", "buffer.batch_size; buffer.train_batch_size = mini x n",
         feeds="responses_per_step microbatch_loss"),
    Rule(f"{R}.n", "rule", "batch.map_batch", "algorithm.repeat_times", feeds="n"),
    Rule(f"{T}.total_epochs", "rule", "steps.map_steps", "buffer.total_epochs", feeds="total_epochs"),
    Rule(f"{T}.total_training_steps", "rule", "steps.map_steps",
         "trainer.total_steps and buffer.total_steps, x sync_interval (Trinity counts mini-batch steps)",
         feeds="total_steps", when="steps_bound"),
    Rule(f"{T}.save_freq", "rule", "steps.map_steps", "trainer.save_interval, x sync_interval", inert=CADENCE),
    Rule(f"{T}.test_freq", "rule", "steps.map_steps", "explorer.eval_interval, x sync_interval", inert=CADENCE),
    Rule(f"{A}.optim.lr_warmup_steps", "rule", "steps.map_steps",
         "algorithm.optimizer.lr_warmup_steps, x sync_interval", feeds="warmup_steps"),
    # ---- algorithm (rftc/mapping/algorithm.py)
    *[Rule(k, "rule", "algorithm.map_algorithm", n, **c) for k, n, c in [
        ("algorithm.adv_estimator", "algorithm.advantage_fn and algorithm.algorithm_type",
         to("advantage", "task_loss")),
        ("algorithm.gamma", "algorithm.advantage_fn_args.gamma (ppo, reinforceplusplus)", to("gamma", "discounted")),
        ("algorithm.lam", "algorithm.advantage_fn_args.lam (ppo)", to("lam", "critic")),
        ("algorithm.norm_adv_by_std_in_grpo", "no Trinity 0.6 equivalent for False (RFTC305)",
         to("norm_adv_by_std", "grpo")),
        ("algorithm.use_kl_in_reward", "algorithm.kl_penalty_fn (none when False)", to("kl_in_reward", "task_loss")),
        ("algorithm.kl_penalty", "algorithm.kl_penalty_fn", to("kl_in_reward", "kl_in_reward")),
        ("algorithm.kl_ctrl.*", "algorithm.kl_penalty_fn_args (kl_coef, adaptive, target_kl, horizon)",
         to("kl_in_reward_coef", "kl_in_reward")),
        ("algorithm.kl_ctrl.type", "algorithm.kl_penalty_fn_args.adaptive", to("kl_in_reward_ctrl", "kl_in_reward")),
        ("algorithm.kl_ctrl.horizon", "algorithm.kl_penalty_fn_args.horizon", to("kl_in_reward_ctrl", "adaptive_kl")),
        ("algorithm.kl_ctrl.target_kl", "algorithm.kl_penalty_fn_args.target_kl",
         to("kl_in_reward_ctrl", "adaptive_kl")),
        (f"{A}.use_kl_loss", "algorithm.kl_loss_fn (none when False: Trinity's default is k2)",
         to("kl_loss", "task_loss")),
        (f"{A}.kl_loss_type", "algorithm.kl_loss_fn", to("kl_loss", "kl_loss")),
        (f"{A}.kl_loss_coef", "algorithm.kl_loss_fn_args.kl_coef", to("kl_loss_coef", "kl_loss")),
        (f"{A}.entropy_coeff", "algorithm.entropy_loss_fn_args.entropy_coef", to("entropy_coef", "task_loss")),
        (f"{A}.clip_ratio", "algorithm.policy_loss_fn_args.clip_range_low/high",
         to("clip_low clip_high", "clip_ratio")),
        (f"{A}.clip_ratio_low", "algorithm.policy_loss_fn_args.clip_range_low", to("clip_low", "clipped")),
        (f"{A}.clip_ratio_high", "algorithm.policy_loss_fn_args.clip_range_high", to("clip_high", "clipped")),
        (f"{A}.clip_ratio_c", "algorithm.policy_loss_fn_args.clip_ratio_c", to("clip_ratio_c", "dual_clip")),
        (f"{A}.loss_agg_mode", "algorithm.loss_agg_mode (and policy_loss_fn_args.loss_agg_mode)",
         to("loss_agg_mode", "agg_read")),
        (f"{A}.policy_loss.loss_mode", "algorithm.policy_loss_fn (and algorithm_type gspo/cispo; sapo: RFTC344)",
         to("policy_loss", "no_bypass")),
        (f"{A}.tau_pos", "none: veRL's sapo loss is refused (RFTC344)", to("sapo_tau", "sapo")),
        (f"{A}.tau_neg", "none: veRL's sapo loss is refused (RFTC344)", to("sapo_tau", "sapo")),
        (f"{A}.ppo_epochs", "trainer.trainer_config.actor_rollout_ref.actor.ppo_epochs (and critic's)",
         to("ppo_epochs")),
        ("algorithm.rollout_correction.bypass_mode", "algorithm.bypass_old_logprobs (false when False, or where "
         "the release has no bypass mode: Trinity's default is true), and algorithm.rollout_correction.bypass_mode",
         to("logprob_source rollout_correction rollout_logprobs")),
    ]],
    Rule("algorithm.kl_ctrl._target_", "rule", "algorithm.map_algorithm", "", inert=CLASS),
    Rule("algorithm.rollout_correction.*", "map", "algorithm.rollout_correction", CORRECTION_NOTE,
         feeds="rollout_correction"),
    *[Rule(f"algorithm.rollout_correction.{k}", "map", f"algorithm.rollout_correction.{k}", CORRECTION_NOTE, **c)
      for k, c in [("loss_type", to("policy_loss rollout_correction", "bypass")),
                   ("use_policy_gradient", to("policy_loss rollout_correction", "bypass")),
                   ("rollout_is", to("rollout_correction", "reads_rollout_is")),
                   ("rollout_is_threshold", to("rollout_correction", "rollout_is_on")),
                   ("rollout_is_batch_normalize", to("rollout_correction", "rollout_is_on")),
                   ("rollout_rs", to("rollout_correction", "reads_rollout_rs")),
                   ("rollout_rs_threshold", to("rollout_correction", "rollout_rs_on")),
                   ("rollout_rs_threshold_lower", to("rollout_correction", "rollout_rs_on")),
                   ("rollout_token_veto_threshold", to("rollout_correction", "reads_veto"))]],
    *[Rule(f"algorithm.{k}", "none", "", "Trinity-RFT 0.6's trainer applies no rollout correction", **c)
      for k, c in [("rollout_is", to("rollout_correction", "legacy_is_read")),
                   ("rollout_is_threshold", to("rollout_correction", "legacy_is_applied")),
                   ("rollout_is_level", to("rollout_correction", "legacy_is_on")),
                   ("rollout_is_mode", to("rollout_correction", "legacy_is_on")),
                   ("rollout_is_veto_threshold", to("rollout_correction", "legacy_is_on")),
                   ("rollout_is_threshold_lower", to("rollout_correction", "legacy_is_mask"))]],
    Rule("algorithm._target_", "none", "", NOT_CONVERTED, inert=CLASS),
    Rule("algorithm.filter_groups.*", "rule", "sampling.map_dynamic_sampling",
         "the DAPO recipe's dynamic sampling -> rftc's VerlFilterGroups in "
         "data_processor.experience_pipeline.operators (main_ppo ignores it)", feeds="dynamic_sampling",
         when="filter_groups"),
    Rule("algorithm.filter_groups.max_num_gen_batches", "rule", "sampling.map_dynamic_sampling", "",
         feeds="group_refill", when="dapo_refill"),
    Rule("algorithm.filter_groups.max_inflight_gen_batches", "rule", "sampling.map_dynamic_sampling", "",
         feeds="group_refill", when="v1_sync_filter"),
    Rule("algorithm.filter_groups.enable", "rule", "sampling.map_dynamic_sampling", "", feeds="dynamic_sampling",
         when="group_filter_trainer"),
    Rule("algorithm.filter_groups._target_", "rule", "sampling.map_dynamic_sampling", "", inert=CLASS),
    Rule("algorithm.use_pf_ppo", "none", "", "preference-feedback PPO resampling has no Trinity equivalent",
         feeds="pf_ppo", when="critic"),
    Rule("algorithm.pf_ppo.*", "none", "", "preference-feedback PPO resampling has no Trinity equivalent",
         feeds="pf_ppo", when="pf_ppo"),
    Rule("algorithm.pf_ppo.weight_pow", "none", "", "preference-feedback PPO resampling has no Trinity equivalent",
         feeds="pf_ppo", when="pf_ppo_pow"),
    Rule("algorithm.pf_ppo._target_", "none", "", "preference-feedback PPO resampling has no Trinity equivalent",
         inert=CLASS),
    # ---- data (rftc/mapping/data.py)
    *[Rule(k, "rule", "data.map_data", n, **c) for k, n, c in [
        (f"{D}.train_files", "buffer.explorer_input.tasksets[i] (dir/split.parquet -> path dir, split)", to("data")),
        (f"{D}.val_files", "buffer.explorer_input.eval_tasksets[i]", no(CADENCE)),
        (f"{D}.prompt_key", "tasksets[i].format.prompt_key", to("data_columns")),
        (f"{D}.response_key", "tasksets[i].format.response_key", to("data_columns")),
        (f"{D}.image_key", "tasksets[i].format.image_key (RFTC305: rftc's veRL reward workflow reads no media)",
         to("media")),
        (f"{D}.video_key", "tasksets[i].format.video_key (RFTC305: rftc's veRL reward workflow reads no media)",
         to("media")),
        (f"{D}.max_prompt_length", "model.max_prompt_tokens (+ model.max_model_len)",
         to("max_prompt_length context_length")),
        (f"{D}.max_response_length", "model.max_response_tokens (+ model.max_model_len)",
         to("max_response_length context_length loss_scale")),
        (f"{R}.max_model_len", "model.max_model_len", to("context_length", "reads_context")),
        (f"{D}.filter_overlong_prompts", "model.enable_prompt_truncation (Trinity's default is true)",
         to("overlong_prompts prompt_truncation")),
        (f"{D}.truncation", "implied where filter_overlong_prompts leaves over-long prompts out; else RFTC305 "
         "(Trinity without enable_prompt_truncation gives vLLM the whole prompt)",
         to("prompt_truncation", "truncates")),
        (f"{D}.shuffle", "tasksets[i].data_selector.selector_type shuffle (veRL's default is true)",
         to("data_order", "no_sampler")),
        (f"{D}.seed", "tasksets[i].data_selector.seed", to("data_order", "no_sampler")),
        (f"{R}.val_kwargs.*", "eval_tasksets[i].rollout_args and repeat_times", no(CADENCE)),
        (f"{R}.temperature", "model.temperature", to("temperature")),
        (f"{R}.top_p", "model.top_p", to("top_p")),
        (f"{R}.top_k", "model.top_k", to("top_k")),
        (f"{R}.do_sample", "model.temperature 0 when false (the hf and naive rollouts; vLLM and SGLang do not read it)",
         to("do_sample", "sample_flag")),
    ]],
    Rule(f"{D}.val_batch_size", "handled", "", "deprecated in veRL; Trinity evaluates with buffer.batch_size",
         inert=CADENCE),
    Rule(f"{D}.return_raw_chat", "implied", "", "Trinity's workflows always receive the chat messages",
         inert=KERNELS),
    Rule(f"{D}.return_full_prompt", "handled", "", "prompt logging only", inert=NAMES),
    Rule(f"{D}.return_multi_modal_inputs", "implied", "", "Trinity's multimodal workflows read the inputs",
         inert=KERNELS),
    Rule(f"{D}.filter_overlong_prompts_workers", "handled", "", "pre-processing parallelism", inert=PROCESSES),
    Rule(f"{D}.dataloader_num_workers", "handled", "", "data-loading parallelism", inert=PROCESSES),
    Rule(f"{D}.reward_fn_key", "rule", "data.map_data", "tasksets[i].workflow_args.reward_fn_key",
         feeds="data_columns", when="rule_reward"),
    Rule(f"{D}.trust_remote_code", "map", "model.trust_remote_code", inert=PROCESSES),
    Rule(f"{D}.apply_chat_template_kwargs.enable_thinking", "map", "model.enable_thinking", feeds="chat_template"),
    Rule(f"{D}.apply_chat_template_kwargs.*", "none", "", "set the chat template (model.custom_chat_template)",
         feeds="chat_template"),
    Rule(f"{D}.apply_chat_template_kwargs", "none", "", "set the chat template (model.custom_chat_template)",
         feeds="chat_template"),
    Rule(f"{D}.custom_cls.*", "none", "", "a custom dataset class becomes a Trinity workflow or task pipeline",
         feeds="dataset_class"),
    Rule(f"{D}.custom_cls.name", "none", "", "a custom dataset class becomes a Trinity workflow or task pipeline",
         feeds="dataset_class", when="custom_dataset"),
    Rule(f"{D}.sampler.class_name", "none", "", "use a Trinity data_selector (difficulty_based, offline_easy2hard, "
         "...)", feeds="data_order", when="sampler"),
    Rule(f"{D}.sampler.*", "none", "", "use a Trinity data_selector (difficulty_based, offline_easy2hard, ...)",
         feeds="data_order"),
    Rule(f"{D}.datagen.*", "none", "", "dynamic data generation has no Trinity 0.6 equivalent",
         feeds="dataset_class", when="datagen"),
    Rule(f"{D}.datagen.name", "none", "", "dynamic data generation has no Trinity 0.6 equivalent",
         feeds="dataset_class", when="custom_datagen"),
    Rule(f"{D}.gen_batch_size", "rule", "sampling.map_dynamic_sampling",
         "the DAPO recipe's prompts per generation round (main_ppo: no equivalent)", feeds="group_refill",
         when="dapo_refill"),
    Rule(f"{D}.tool_config_path", "none", "", "tools are part of a Trinity workflow (tool_call_workflow); veRL "
         "measures a prompt with their schemas to leave it out", feeds="overlong_prompts", when="filters_prompts"),
    Rule(f"{D}.function_tool_path", "none", "", "tools are part of a Trinity workflow (tool_call_workflow); veRL "
         "measures a prompt with their schemas to leave it out", feeds="overlong_prompts", when="filters_prompts"),
    Rule(f"{D}.train_max_samples", "none", "", "select the rows in the dataset (Trinity reads the whole split)",
         feeds="max_samples"),
    Rule(f"{D}.val_max_samples", "none", "", NOT_CONVERTED, inert=CADENCE),
    Rule(f"{D}.validation_shuffle", "none", "", NOT_CONVERTED, inert=CADENCE),
    Rule(f"{D}.audio_key", "none", "", "audio columns need a Trinity multimodal workflow", feeds="media"),
    Rule(f"{D}.tokenizer", "implied", "", "no veRL trainer reads it (the tokenizer is the model's, or "
         "model.tokenizer_path's)", inert=UNREAD),
    Rule(f"{D}.use_shm", "none", "", NOT_CONVERTED, inert=PROCESSES),
    Rule(f"{D}.return_raw_input_ids", "none", "", NOT_CONVERTED, inert=KERNELS),
    Rule(f"{D}.mm_processor_kwargs", "none", "", NOT_CONVERTED, feeds="media"),
    Rule(f"{D}.image_patch_size", "none", "", NOT_CONVERTED, feeds="media"),
    Rule(f"{D}.continuous_token.*", "none", "", NOT_CONVERTED, feeds="tokenization"),
    Rule(f"{D}.continuous_token.model_family", "none", "", NOT_CONVERTED, feeds="tokenization",
         when="continuous_token"),
    # ---- model, optimizer, actor (rftc/mapping/models.py for the relational parts)
    Rule(f"{M}.path", "map", "model.model_path", explicit=True, feeds="model"),
    Rule(f"{M}.trust_remote_code", "map", "model.trust_remote_code", inert=PROCESSES),
    Rule(f"{M}.custom_chat_template", "map", "model.custom_chat_template", feeds="chat_template"),
    Rule(f"{M}.use_remove_padding", "rule", "models.map_models", "trainer.use_remove_padding", inert=KERNELS),
    Rule(f"{M}.enable_gradient_checkpointing", "pass", inert=MEMORY),
    Rule(f"{M}.gradient_checkpointing_kwargs.*", "none", "", NOT_CONVERTED, inert=MEMORY),
    Rule(f"{M}.override_config.*", "pass", feeds="model_config"),
    Rule(f"{M}.override_config", "none", "", NOT_CONVERTED, feeds="model_config"),
    # the Megatron workers' frozen router (0.4.0 to 0.7.x): verl 0.8's Megatron engine, Trinity's, reads it from
    # the actor's megatron.override_mcore_model_config
    Rule(f"{M}.override_config.moe_config.freeze_moe_router", "pass",
         f"{A}.megatron.override_mcore_model_config.moe_config.freeze_moe_router", feeds="frozen_modules",
         when="legacy_megatron_router"),
    Rule(f"{M}.use_liger", "pass", inert=KERNELS),
    Rule(f"{M}.use_fused_kernels", "pass", inert=KERNELS),
    Rule(f"{M}.fused_kernel_options.*", "pass", inert=KERNELS),
    Rule(f"{M}.enable_activation_offload", "pass", inert=MEMORY),
    Rule(f"{M}.use_shm", "handled", "", "model loading through /dev/shm", inert=PROCESSES),
    Rule(f"{M}.external_lib", "none", "", "load the library as a Trinity plugin (--plugin-dir)", inert=PROCESSES),
    Rule(f"{M}.tokenizer_path", "none", "", "Trinity's rollout engine tokenizes with "
         "explorer.rollout_model.model_path's tokenizer (the model's)", feeds="chat_template"),
    Rule(f"{M}.hf_config_path", "none", "", NOT_CONVERTED, feeds="model_config", when="engine_actor"),
    Rule(f"{M}._target_", "none", "", NOT_CONVERTED, inert=CLASS),
    *[Rule(f"{M}.{k}", "rule", "models.map_models", "model.lora_configs[0]", feeds="lora", when=w) for k, w in
      (("lora_rank", "fsdp_lora"), ("lora_alpha", "fsdp_lora_on"), ("target_modules", "fsdp_lora_on"))],
    Rule(f"{M}.exclude_modules", "rule", "models.map_models", "model.lora_configs[0]", feeds="lora",
         when="fsdp_lora_on"),
    Rule(f"{M}.lora_adapter_path", "rule", "models.map_models", "model.lora_configs[0]", feeds="lora",
         when="fsdp_adapter"),
    Rule(f"{M}.lora.*", "none", "", "Megatron LoRA settings: Trinity's LoRA is model.lora_configs (FSDP)",
         feeds="lora", when="megatron_lora"),
    *[Rule(f"{M}.lora.{k}", "none", "", "Megatron LoRA settings: Trinity's LoRA is model.lora_configs (FSDP)",
           inert=KERNELS) for k in ("merge", "a2a_experimental")],  # how weights reach the rollout; communication
    # the MTP loss: Trinity merges trainer_config's model.mtp over its own (a Megatron trainer trains it); the rest
    # drafts tokens for the rollout's speculative decoding
    Rule(f"{M}.mtp.*", "none", "", "Trinity's rollout engine drafts no tokens (speculative decoding)",
         inert=KERNELS),
    *[Rule(f"{M}.mtp.{k}", "pass", feeds="mtp", when="mtp_train")
      for k in ("enable", "enable_train", "mtp_loss_scaling_factor", "detach_encoder")],
    Rule(f"{M}.mtp._target_", "none", "", "multi-token prediction is not in Trinity-RFT 0.6", inert=CLASS),
    Rule(f"{M}.tiled_mlp.*", "none", "", "tiled MLP is not in the veRL workers Trinity runs", inert=MEMORY),
    Rule(f"{A}.optim.lr", "map", "algorithm.optimizer.lr", feeds="lr"),
    Rule(f"{A}.optim.lr_warmup_steps_ratio", "map", "algorithm.optimizer.lr_warmup_steps_ratio", feeds="warmup_ratio"),
    Rule(f"{A}.optim.weight_decay", "map", "algorithm.optimizer.weight_decay", feeds="weight_decay"),
    Rule(f"{A}.optim.betas", "map", "algorithm.optimizer.betas", feeds="betas", when="fsdp_optim"),
    Rule(f"{A}.optim.clip_grad", "rule", "models.map_models",
         "algorithm.optimizer.clip_grad where the release's actor clips at it", feeds="clip_grad", when="optim_clip"),
    Rule(f"{A}.optim.grad_clip", "rule", "models.map_models",
         "algorithm.optimizer.clip_grad where the release's actor clips at it (deprecated name)", feeds="clip_grad"),
    Rule(f"{A}.optim.optimizer", "map", "algorithm.optimizer.optimizer_type", transform=_optimizer, feeds="optimizer"),
    Rule(f"{A}.optim.lr_scheduler_type", "rule", "models.map_models", "algorithm.optimizer.lr_scheduler_type",
         feeds="lr_scheduler"),
    Rule(f"{A}.optim.warmup_style", "rule", "models.map_models", "algorithm.optimizer.lr_scheduler_type",
         feeds="lr_scheduler", when="scheduler_type_unset"),
    Rule(f"{A}.optim.lr_decay_style", "rule", "models.map_models", "algorithm.optimizer.lr_scheduler_type",
         feeds="lr_scheduler"),
    Rule(f"{A}.optim.min_lr_ratio", "rule", "models.map_models",
         "algorithm.optimizer.min_lr_ratio (veRL 0.0, Trinity 0.01: written for cosine schedules)",
         feeds="min_lr_ratio", when="cosine"),
    Rule(f"{A}.optim.num_cycles", "pass", feeds="lr_cycles", when="cosine"),
    Rule(f"{A}.optim.override_optimizer_config.*", "pass", feeds="optimizer"),
    Rule(f"{A}.optim.override_optimizer_config", "none", "", "Trinity 0.6 sets the actor optimizer from "
         "algorithm.optimizer only", feeds="optimizer"),
    Rule(f"{A}.optim.total_training_steps", "implied", "", "Trinity sets it from trainer.total_steps", inert=FOLLOWS),
    Rule(f"{A}.optim.*", "none", "", "Trinity 0.6 sets the actor optimizer from algorithm.optimizer only",
         feeds="lr_schedule_args"),
    *[Rule(f"{A}.optim.{k}", "none", "", "Trinity 0.6 sets the actor optimizer from algorithm.optimizer only", **c)
      for k, c in [("_target_", no(CLASS)), ("eps", to("eps")), ("name", to("optimizer")),
                   ("optimizer_impl", to("optimizer")), ("muon_*", to("optimizer", "muon")),
                   *((k, to("precision", "aware_on_actor")) for k in ("exp_avg_dtype", "exp_avg_sq_dtype",
                                                                       "main_grads_dtype")),
                   ("use_precision_aware_optimizer", to("precision", "aware_actor")),
                   ("use_checkpoint_opt_param_scheduler", no(CADENCE)),
                   ("use_layer_wise_distributed_optimizer", no(PLACEMENT)), ("min_lr", to("min_lr_ratio", "cosine")),
                   ("lr_min", to("lr_schedule_args", "veomni")),
                   ("min_lr_factor", to("lr_schedule_args", "torchtitan")),
                   ("lr_start", to("lr_schedule_args", "veomni")), ("lr_decay_ratio", to("lr_schedule_args", "veomni")),
                   ("decay_type", to("lr_schedule_args", "torchtitan")),
                   ("lr_wsd_decay_style", to("lr_schedule_args", "megatron_wsd")),
                   ("lr_wsd_decay_steps", to("lr_schedule_args", "megatron_wsd")),
                   # Megatron's scheduler starts and ends weight decay at weight_decay: the style changes nothing
                   ("weight_decay_incr_style", no(UNREAD))]],
    # the schedule settings Trinity's trainer_config carries (rftc/mapping/loss.py)
    *[Rule(f"{A}.optim.{k}", "rule", "loss.map_loss", n, **c) for k, n, c in [
        ("lr_warmup_init", "trainer_config's actor optim lr_warmup_init (Megatron; Trinity's default is min_lr_ratio "
         "x lr)", to("lr_schedule_args", "megatron_warmup")),
        ("lr_decay_steps", "trainer_config's actor optim lr_decay_steps x sync_interval (Megatron)",
         to("lr_horizon", "megatron_horizon")),
        ("zero_indexed_step", "trainer_config's actor optim zero_indexed_step where the release's actor reads it",
         to("lr_schedule_args", "engine_cosine"))]],
    Rule(f"{A}.use_dynamic_bsz", "rule", "models.map_models", "trainer.use_dynamic_bsz (veRL false, Trinity true)",
         feeds="microbatch_loss", when="actor_budget_switch"),
    Rule(f"{A}.ppo_max_token_len_per_gpu", "map", "trainer.max_token_len_per_gpu", feeds="microbatch_loss",
         when="actor_budget"),
    Rule(f"{A}.ulysses_sequence_parallel_size", "map", "trainer.ulysses_sequence_parallel_size",
         feeds="microbatch_loss", when="actor_fsdp_sp_ranks"),
    Rule(f"{A}.grad_clip", "rule", "models.map_models",
         "algorithm.optimizer.clip_grad where the release's actor clips at it (the legacy FSDP actor)",
         feeds="clip_grad", when="grad_clip"),
    Rule(f"{A}.strategy", "rule", "models.map_models", "trainer.trainer_strategy", feeds="responses_per_step",
         when="megatron_unit"),
    Rule(f"{A}.ppo_micro_batch_size_per_gpu", "pass", feeds="microbatch_loss", when="actor_micro_rows"),
    Rule(f"{A}.ppo_micro_batch_size", "rule", "micro.map_micro", MICRO, feeds="microbatch_loss",
         when="actor_global_micro"),
    Rule(f"{A}.shuffle", "pass", feeds="minibatch_order", when="actor_shuffle"),
    Rule(f"{A}.data_loader_seed", "pass", feeds="minibatch_order", when="actor_seed"),
    Rule(f"{A}.use_torch_compile", "pass", inert=KERNELS),
    Rule(f"{A}.loss_scale_factor", "none", "", "Trinity's policy loss divides a seq-mean-token-sum-norm loss by the "
         "longest response of each batch", feeds="loss_scale", when="token_sum_norm"),
    Rule(f"{A}.calculate_entropy", "pass", inert=NAMES),
    Rule(f"{A}.entropy_from_logits_with_chunking", "pass", inert=MEMORY),
    Rule(f"{A}.entropy_checkpointing", "pass", inert=MEMORY),
    Rule(f"{A}.checkpoint.*", "pass", inert=CADENCE),
    Rule(f"{A}.fsdp_config.ulysses_sequence_parallel_size", "map", "trainer.ulysses_sequence_parallel_size",
         inert=PLACEMENT),
    Rule(f"{A}.fsdp_config.*", "pass", inert=MEMORY),
    *_engine(f"{A}.fsdp_config", "pass", seed=ACTOR_SEED),
    Rule(f"{A}.megatron.*", "rule", "models.map_megatron",
         "trainer.megatron.* (parallel sizes), trainer.*_offload, the rest passed through", inert=PLACEMENT),
    *_engine(f"{A}.megatron", "rule", "models.map_megatron", megatron=True, seed=ACTOR_SEED),
    # the ranks a global micro-batch size is divided by (rftc.mapping.microloss)
    *[Rule(f"{A}.megatron.{k}", "rule", "models.map_megatron",
           "trainer.megatron.* (parallel sizes), trainer.*_offload, the rest passed through", feeds="microbatch_loss",
           when="actor_megatron_ranks") for k in MEGATRON_SIZES],
    Rule(f"{A}.profiler.*", "handled", "", "profiling", inert=PROFILING),
    # 0.7.1's legacy FSDP actor trains with QAT from actor.qat (rftc/mapping/precision.py)
    *[Rule(f"{A}.qat.{k}", "rule", "precision.map_precision",
           "trainer_config's actor fsdp_config.qat where the release's legacy FSDP actor reads it", **c)
      for k, c in [("*", to("precision", "legacy_qat_on_actor")), ("enable", to("precision", "legacy_qat_actor")),
                   ("quantization_config_path", no(UNREAD))]],
    Rule(f"{A}.use_fused_kernels", "implied", "", "follows actor_rollout_ref.model.use_fused_kernels", inert=FOLLOWS),
    Rule(f"{A}.use_remove_padding", "implied", "", "follows actor_rollout_ref.model.use_remove_padding",
         inert=FOLLOWS),
    Rule(f"{A}.rollout_n", "implied", "", "Trinity sets it from algorithm.repeat_times", inert=FOLLOWS),
    *[Rule(f"{A}.{k}", "none", "", NOT_CONVERTED, **c) for k, c in [
        ("_target_", no(CLASS)),
        ("policy_loss._target_", no(CLASS)),
        ("policy_loss.*", to("policy_loss_args")),
        ("calculate_sum_pi_squared", no(NAMES)),  # a statistic; the optimal-baseline estimators assert it is on
        ("sum_pi_squared_checkpointing", no(MEMORY)),
        ("entropy_from_logits_chunk_size", no(MEMORY)),
        ("freeze_vision_tower", to("frozen_modules", "legacy_fsdp_actor")),
        ("load_weight", to("model", "legacy_megatron_actor")),
        ("pad_to_length", no(KERNELS)),
        ("use_prefix_grouper", no(KERNELS)),
        ("use_rollout_log_probs", no(UNREAD)),
        ("profile.*", no(PROFILING)),
        ("router_replay.*", to("moe_routing", "legacy_replay_actor")),
        *UNREPLAYED.items(),
        ("mindspeed.*", no(PLACEMENT)),
        ("torchtitan.*", no(PLACEMENT)),
        *_other_engines(ACTOR_SEED),
        *_other_replay("actor"),
        ("veomni.*", no(PLACEMENT)),
        *((f"policy_loss.{k}", to("policy_loss_args", "clip_cov")) for k in ("clip_cov_ratio", "clip_cov_lb",
                                                                              "clip_cov_ub")),
        *((f"policy_loss.{k}", to("policy_loss_args", "kl_cov")) for k in ("kl_cov_ratio", "ppo_kl_coef")),
        ("policy_loss.dro_beta", to("policy_loss_args", "dro")),
    ]],
    # ---- reference policy
    Rule("actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu", "pass", inert=BATCHING),
    Rule("actor_rollout_ref.ref.log_prob_micro_batch_size", "rule", "micro.map_micro", MICRO, inert=BATCHING),
    Rule("actor_rollout_ref.ref.fsdp_config.*", "pass", inert=MEMORY),
    *_engine("actor_rollout_ref.ref.fsdp_config", "pass", role="ref", seed=REF_SEED),
    Rule("actor_rollout_ref.ref.use_torch_compile", "pass", inert=KERNELS),
    Rule("actor_rollout_ref.ref.entropy_from_logits_with_chunking", "pass", inert=MEMORY),
    Rule("actor_rollout_ref.ref.entropy_checkpointing", "pass", inert=MEMORY),
    *[Rule(f"actor_rollout_ref.ref.{k}", "rule", "models.map_models", n, **c) for k, n, c in [
        ("log_prob_use_dynamic_bsz", "follows trainer.use_dynamic_bsz", no(BATCHING)),
        ("log_prob_max_token_len_per_gpu", "follows trainer.max_token_len_per_gpu", no(BATCHING)),
        ("ulysses_sequence_parallel_size", "follows trainer.ulysses_sequence_parallel_size", no(PLACEMENT)),
        ("strategy", "follows trainer.trainer_strategy", to("trainer_seed", "determinism_ref"))]],
    *_engine("actor_rollout_ref.ref.megatron", "rule", "models.map_megatron", megatron=True, role="ref",
             seed={"seed": no(UNREAD)}),  # the actor's worker seeds with the actor's, set after it
    Rule("actor_rollout_ref.ref.megatron.*", "rule", "models.map_megatron", "passed through under megatron",
         inert=PLACEMENT),
    Rule("actor_rollout_ref.ref.profiler.*", "handled", "", "profiling", inert=PROFILING),
    *[Rule(f"actor_rollout_ref.ref.{k}", "none", "", NOT_CONVERTED, **c) for k, c in [
        ("_target_", no(CLASS)),
        ("model", to("reference_model", "own_reference")),
        ("model.path", to("reference_model", "own_reference")),
        ("model.*", no(UNREAD)),  # the worker reads ref.model.path only
        ("load_weight", to("reference_model", "legacy_megatron_ref")),
        ("optim.*", no(UNREAD)),
        ("entropy_from_logits_chunk_size", no(MEMORY)),
        ("pad_to_length", no(KERNELS)),
        ("param_offload", no(MEMORY)),
        ("rollout_n", no(FOLLOWS)),
        ("profile.*", no(PROFILING)),
        ("router_replay.*", no(KERNELS)),
        ("mindspeed.*", no(PLACEMENT)),
        ("torchtitan.*", no(PLACEMENT)),
        *_other_engines(REF_SEED),
        *_other_replay("ref"),
        ("veomni.*", no(PLACEMENT)),
    ]],
    Rule("actor_rollout_ref.hybrid_engine", "implied", "", "Trinity separates explorer and trainer",
         feeds="hybrid_rollout", when="hybrid_requested"),
    Rule("actor_rollout_ref.nccl_timeout", "map", "synchronizer.sync_timeout", inert=PROCESSES),
    Rule("actor_rollout_ref.profiler.*", "none", "", NOT_CONVERTED, inert=PROFILING),
    # ---- rollout -> explorer.rollout_model
    Rule(f"{R}.name", "rule", "models.map_models", f"{RM}.engine_type (vllm, sglang)",
         feeds="rollout_logprobs rollout_precision", when="rollout_name"),
    Rule(f"{R}.logprobs_mode", "rule", "correction.map_correction",
         f"Trinity's vLLM engines return {TRINITY_LOGPROBS} (RFTC305 for another mode)", feeds="rollout_logprobs",
         when="vllm_logprobs"),
    Rule(f"{R}.tensor_model_parallel_size", "rule", "gpu.map_gpus", f"{RM}.tensor_parallel_size", inert=PLACEMENT),
    Rule(f"{R}.data_parallel_size", "map", f"{RM}.data_parallel_size", inert=PLACEMENT),
    Rule(f"{R}.pipeline_model_parallel_size", "map", f"{RM}.pipeline_parallel_size", inert=PLACEMENT),
    Rule(f"{R}.expert_parallel_size", "map", f"{RM}.enable_expert_parallel", transform=lambda v: whole(v) > 1,
         inert=PLACEMENT),
    Rule(f"{R}.gpu_memory_utilization", "map", f"{RM}.gpu_memory_utilization", inert=MEMORY),
    Rule(f"{R}.enforce_eager", "map", f"{RM}.enforce_eager", inert=KERNELS),
    Rule(f"{R}.enable_chunked_prefill", "map", f"{RM}.enable_chunked_prefill", inert=KERNELS),
    Rule(f"{R}.enable_prefix_caching", "map", f"{RM}.enable_prefix_caching", inert=KERNELS),
    Rule(f"{R}.dtype", "map", f"{RM}.dtype", feeds="rollout_precision", when="engine_rollout"),
    Rule(f"{R}.ignore_eos", "rule", "models.map_models", f"{RM}.ignore_eos where the release's rollout reads it",
         feeds="ignore_eos", when="reads_ignore_eos"),
    *[Rule(f"{R}.{k}", "rule", "models.map_models", f"model.{t} where the release's rollout samples with it", feeds=q)
      for k, t, q in (("repetition_penalty", "repetition_penalty", "repetition_penalty"),
                      ("min_tokens", "min_response_tokens", "min_response_length"))],
    Rule(f"{R}.seed", "rule", "models.map_models", f"{RM}.seed (0 where the release has no rollout.seed)",
         feeds="sampling_seed"),
    Rule(f"{R}.max_num_batched_tokens", "map", f"{RM}.extra_engine_args.max_num_batched_tokens", inert=KERNELS),
    Rule(f"{R}.max_num_seqs", "map", f"{RM}.extra_engine_args.max_num_seqs", inert=KERNELS),
    Rule(f"{R}.engine_kwargs.vllm.*", "rule", "models.map_models", f"{RM}.extra_engine_args.*", inert=KERNELS),
    Rule(f"{R}.log_prob_micro_batch_size_per_gpu", "pass", inert=BATCHING),
    Rule(f"{R}.log_prob_micro_batch_size", "rule", "micro.map_micro", MICRO, inert=BATCHING),
    Rule(f"{R}.log_prob_use_dynamic_bsz", "rule", "models.map_models", "follows trainer.use_dynamic_bsz",
         inert=BATCHING),
    Rule(f"{R}.log_prob_max_token_len_per_gpu", "rule", "models.map_models", "follows trainer.max_token_len_per_gpu",
         inert=BATCHING),
    Rule(f"{R}.prompt_length", "implied", "", "Trinity uses model.max_prompt_tokens", inert=FOLLOWS),
    Rule(f"{R}.response_length", "implied", "", "Trinity uses model.max_response_tokens", inert=FOLLOWS),
    Rule(f"{R}.calculate_log_probs", "implied", "", "Trinity's explorer always returns rollout log-probs",
         feeds="rollout_correction rollout_logprobs", when="reads_logprobs"),
    Rule(f"{R}.mode", "implied", "", "Trinity's vLLM engines are asynchronous", feeds="multi_turn",
         when="turns_by_mode"),
    Rule(f"{R}.multi_turn.enable", "none", "", "multi-turn rollouts are a Trinity workflow (e.g. a multi-step one)",
         feeds="multi_turn", when="multi_turn_read"),
    Rule(f"{R}.multi_turn.*", "none", "", "multi-turn settings belong to a Trinity workflow", feeds="multi_turn",
         when="multi_turn"),
    Rule(f"{R}.multi_turn._target_", "none", "", "multi-turn settings belong to a Trinity workflow", inert=CLASS),
    Rule(f"{R}.agent.*", "none", "", "agent loops are Trinity workflows", feeds="multi_turn", when="agent_loop"),
    Rule(f"{R}.agent.agent_loop_config_path", "none", "", "agent loops are Trinity workflows", feeds="multi_turn",
         when="multi_turn_async"),
    Rule(f"{R}.agent.num_workers", "none", "", "agent loops are Trinity workflows", inert=PROCESSES),
    Rule(f"{R}.agent._target_", "none", "", "agent loops are Trinity workflows", inert=CLASS),
    Rule(f"{R}.agent.custom_async_server.*", "none", "", "agent loops are Trinity workflows", inert=KERNELS),
    *[Rule(f"{R}.{k}", "handled", "", n, **c) for k, n, c in [
        ("free_cache_engine", "the explorer keeps its own engines", no(MEMORY)),
        ("load_format", "weights are synchronised by Trinity's synchronizer", no(PROCESSES)),
        ("layered_summon", "weights are synchronised by Trinity's synchronizer", no(MEMORY)),
        ("update_weights_bucket_megabytes", "weights are synchronised by Trinity's synchronizer", no(MEMORY)),
        ("checkpoint_engine.*", "weights are synchronised by Trinity's synchronizer", no(PROCESSES)),
        ("disable_log_stats", "vLLM logging", no(NAMES)),
        ("skip_tokenizer_init", "engine start-up", no(PROCESSES)),
        ("enable_sleep_mode", "engine memory management", no(MEMORY)),
        ("max_num_batched_tokens_per_gpu", "engine tuning", no(KERNELS)),
        ("cudagraph_capture_sizes", "engine tuning", no(KERNELS)),
        ("engine_kwargs.*", "engine kwargs of another engine", no(KERNELS)),
        ("trace.*", "rollout tracing", no(NAMES)),
        ("profiler.*", "profiling", no(PROFILING)),
        ("nnodes", "placement is Trinity's", to("rollout_gpus", "separate_async")),
        ("n_gpus_per_node", "placement is Trinity's", to("rollout_gpus", "separate_async")),
    ]],
    Rule(f"{R}.use_fire_sampling", "implied", "", "not read: FIREvLLMRollout, the only code that reads it (verl "
         "0.3.0.post0 to 0.5.0), is built by no worker", inert=UNREAD),
    *[Rule(f"{R}.{k}", "none", "", NOT_CONVERTED, **c) for k, c in [
        ("_target_", no(CLASS)),
        ("full_determinism", no(KERNELS)),
        ("quantization", to("rollout_precision", "reads_quantization")),
        ("quantization_config_file", to("rollout_precision", "rollout_quantizes")),
        ("qat", to("rollout_precision", "vllm_rollout")),
        ("over_sample_rate", to("over_sampling", "over_sample_read")),
        ("enable_rollout_routing_replay", to("moe_routing", "replays_rollout_routing")),
        ("chat_scheduler", no(KERNELS)),
        ("scheduling_policy", no(KERNELS)),
        ("multi_stage_wake_up", no(MEMORY)),
        ("standalone_gpu_memory_utilization", no(MEMORY)),
        ("moe_load_balance_metrics_interval", no(NAMES)),
        ("router_config_path", no(PROCESSES)),
        ("mtp", no(KERNELS)),
        ("layer_name_map.*", no(KERNELS)),
        ("disaggregation.*", no(PLACEMENT)),
        ("prometheus.*", no(NAMES)),
        ("skip.*", no(DEBUG)),
        ("skip_rollout", no(DEBUG)),
        ("skip_dump_dir", no(DEBUG)),
    ]],
    # ---- critic
    Rule(f"{C}.model.path", "map", "model.critic_model_path", feeds="critic_model", when="critic"),
    Rule(f"{C}.model.use_remove_padding", "rule", "models.map_models", "trainer.use_remove_padding", inert=KERNELS),
    Rule(f"{C}.model.tokenizer_path", "implied", "", "Trinity uses the critic model's tokenizer", inert=UNREAD),
    Rule(f"{C}.model.enable_gradient_checkpointing", "pass", inert=MEMORY),
    # Trinity builds its critic's model config itself (trinity/trainer/verl/trainer.py): trainer_config's critic.model
    # reaches no worker
    Rule(f"{C}.model.override_config.*", "none", "", "Trinity-RFT 0.6 builds the critic's model config from "
         "model.critic_model_path and model.rope_theta only", feeds="critic_model_config", when="critic"),
    Rule(f"{C}.model.override_config", "none", "", "Trinity-RFT 0.6 builds the critic's model config from "
         "model.critic_model_path and model.rope_theta only", feeds="critic_model_config", when="critic"),
    Rule(f"{C}.model.override_config.moe_config.freeze_moe_router", "none", "", "Trinity-RFT 0.6 builds the "
         "critic's model config from model.critic_model_path and model.rope_theta only", feeds="critic_model_config",
         when="legacy_megatron_critic_router"),
    Rule(f"{C}.model.fsdp_config.*", "pass", f"{C}.fsdp.*", "verl 0.8 moved the critic's FSDP settings to critic.fsdp",
         inert=MEMORY),
    *_engine(f"{C}.model.fsdp_config", "pass", f"{C}.fsdp", role="critic", seed=CRITIC_SEED),
    Rule(f"{C}.model.*", "pass", inert=KERNELS),
    *[Rule(f"{C}.model.{k}", "none", "", "Trinity-RFT 0.6 builds the critic's model without LoRA", **c) for k, c in [
        ("lora_rank", to("critic_lora", "critic_fsdp")), ("lora_alpha", to("critic_lora", "critic_lora")),
        ("target_modules", to("critic_lora", "critic_lora")), ("exclude_modules", to("critic_lora", "critic_lora")),
        ("lora_adapter_path", to("critic_lora", "critic_lora")),
        ("lora.*", to("critic_lora", "critic_megatron_lora")), ("lora.merge", no(KERNELS)),
        ("lora.a2a_experimental", no(KERNELS))]],
    Rule(f"{C}.model.hf_config_path", "none", "", "Trinity-RFT 0.6 builds the critic's model config from "
         "model.critic_model_path and model.rope_theta only", feeds="critic_model_config", when="critic"),
    *[Rule(f"{C}.model.{k}", "pass", **c) for k, c in [
        # the critic takes the rollout's tokens: its tokenizer's template only goes into its checkpoints
        ("custom_chat_template", no(UNREAD)),
        ("external_lib", no(PROCESSES)), ("trust_remote_code", no(PROCESSES)), ("use_shm", no(PROCESSES)),
        ("enable_activation_offload", no(MEMORY)), ("gradient_checkpointing_kwargs.*", no(MEMORY)),
        ("tiled_mlp.*", no(MEMORY)), ("mtp.*", no(UNREAD)), ("_target_", no(CLASS))]],
    Rule(f"{C}.fsdp.*", "pass", inert=MEMORY),
    *_engine(f"{C}.fsdp", "pass", role="critic", seed=CRITIC_SEED),
    *[Rule(f"{C}.optim.{k}", "rule", "models.map_models",
           "trainer_config.critic.optim.clip_grad where the release's critic clips at it", feeds="critic_optimizer",
           when=w) for k, w in (("clip_grad", "critic_optim_clip"), ("grad_clip", "critic"))],
    Rule(f"{C}.optim.*", "pass", feeds="critic_optimizer", when="critic"),
    # the engine-specific schedule and state settings of the critic's optimizer (Megatron's, torchtitan's, veomni's:
    # rftc.semantics.loss.schedule_args)
    *[Rule(f"{C}.optim.{k}", "pass", feeds=q, when=w) for k, q, w in [
        *((k, "critic_optimizer", "critic_megatron_warmup") for k in ("lr_warmup_init",)),
        *((k, "critic_optimizer", "critic_megatron_cosine") for k in ("min_lr",)),
        *((k, "critic_optimizer", "critic_torchtitan") for k in ("decay_type", "min_lr_factor", "eps")),
        *((k, "critic_optimizer", "critic_veomni") for k in ("lr_min", "lr_start", "lr_decay_ratio")),
        ("name", "critic_optimizer", "critic"), ("lr_wsd_decay_style", "critic_optimizer", "critic_megatron_wsd")]],
    *[Rule(f"{C}.optim.{k}", "rule", "loss.map_loss", n, feeds="critic_optimizer", when=w) for k, n, w in [
        ("lr_decay_steps", "trainer_config.critic.optim.lr_decay_steps x sync_interval", "critic_megatron_decay"),
        ("lr_wsd_decay_steps", "trainer_config.critic.optim.lr_wsd_decay_steps x sync_interval",
         "critic_megatron_wsd"),
        ("zero_indexed_step", "trainer_config.critic.optim.zero_indexed_step where the release's critic reads it",
         "critic_engine_cosine")]],
    Rule(f"{C}.optim.weight_decay_incr_style", "pass", inert=UNREAD),  # start_wd = end_wd: the style changes nothing
    # Megatron's precision-aware optimizer (0.9.0 on), which verl 0.8.0's optimizer config (Trinity's) does not have
    *[Rule(f"{C}.optim.{k}", "none", "", f"verl {TRINITY_VERL}'s Megatron optimizer config, which Trinity-RFT 0.6 "
           "builds, has no precision-aware settings", **c) for k, c in [
        *((k, to("precision", "aware_on_critic")) for k in ("exp_avg_dtype", "exp_avg_sq_dtype", "main_grads_dtype")),
        ("use_precision_aware_optimizer", to("precision", "aware_critic"))]],
    Rule(f"{C}.optim.lr", "pass", feeds="critic_lr", when="critic"),
    *[Rule(f"{C}.optim.{k}", "pass", feeds="critic_optimizer", when=w) for k, w in [
        ("betas", "critic_fsdp_optim"), ("min_lr_ratio", "critic_cosine"), ("num_cycles", "critic_cosine"),
        ("muon_*", "critic_muon")]],
    *[Rule(f"{C}.optim.{k}", "pass", inert=i) for k, i in [
        ("_target_", CLASS), ("total_training_steps", FOLLOWS), ("use_checkpoint_opt_param_scheduler", CADENCE),
        ("use_layer_wise_distributed_optimizer", PLACEMENT)]],
    Rule(f"{C}.ppo_micro_batch_size_per_gpu", "pass", feeds="microbatch_loss", when="critic_micro_rows"),
    Rule(f"{C}.ppo_micro_batch_size", "rule", "micro.map_micro", MICRO, feeds="microbatch_loss",
         when="critic_global_micro"),
    Rule(f"{C}.forward_micro_batch_size", "rule", "micro.map_micro", MICRO, inert=BATCHING),
    Rule(f"{C}.forward_micro_batch_size_per_gpu", "pass", inert=BATCHING),
    Rule(f"{C}.cliprange_value", "pass", feeds="value_clip", when="critic"),
    Rule(f"{C}.ppo_epochs", "pass", feeds="critic_steps", when="critic"),
    Rule(f"{C}.shuffle", "pass", feeds="critic_steps", when="critic_shuffle"),
    Rule(f"{C}.data_loader_seed", "none", "", NOT_CONVERTED, feeds="critic_steps", when="critic_seed"),
    Rule(f"{C}.loss_agg_mode", "rule", "models.map_models",
         "trainer.trainer_config.critic.loss_agg_mode unless token-mean (Trinity's critic default)",
         feeds="critic_loss_agg_mode", when="critic"),
    Rule(f"{C}.loss_scale_factor", "none", "", "Trinity's critic (verl 0.8's) divides a seq-mean-token-sum-norm "
         "value loss by the longest response of each batch", feeds="critic_loss_agg_mode",
         when="critic_token_sum_norm"),
    Rule(f"{C}.checkpoint.*", "pass", inert=CADENCE),
    Rule(f"{C}.megatron.*", "rule", "models.map_megatron", "passed through under megatron", inert=PLACEMENT),
    # the critic's data-parallel ranks, where its step's loss reads them (rftc.mapping.microloss)
    *[Rule(f"{C}.megatron.{k}", "rule", "models.map_megatron", "passed through under megatron",
           feeds="microbatch_loss", when="critic_megatron_ranks") for k in MEGATRON_SIZES],
    Rule(f"{C}.fsdp.ulysses_sequence_parallel_size", "pass", feeds="microbatch_loss", when="critic_engine_sp_ranks"),
    Rule(f"{C}.model.fsdp_config.ulysses_sequence_parallel_size", "pass", f"{C}.fsdp.ulysses_sequence_parallel_size",
         feeds="microbatch_loss", when="critic_engine_sp_ranks"),
    *_engine(f"{C}.megatron", "rule", "models.map_megatron", megatron=True, role="critic", seed=CRITIC_SEED),
    *[Rule(f"{C}.{k}", "rule", "models.map_models", n, **c) for k, n, c in [
        ("enable", "implied by algorithm.algorithm_type (ppo trains a critic)", no(FOLLOWS)),
        ("strategy", "follows trainer.trainer_strategy (the worker that reads critic.optim)",
         to("critic_optimizer trainer_seed", "critic")),
        ("ppo_mini_batch_size", "follows buffer.train_batch_size", to("critic_steps microbatch_loss", "critic")),
        ("use_dynamic_bsz", "follows trainer.use_dynamic_bsz", to("microbatch_loss", "critic_budget_switch")),
        ("ppo_max_token_len_per_gpu", "follows trainer.max_token_len_per_gpu", to("microbatch_loss", "critic_budget")),
        ("forward_max_token_len_per_gpu", "follows trainer.max_token_len_per_gpu", no(BATCHING)),
        ("grad_clip", "trainer_config.critic.optim.clip_grad where the release's critic clips at it",
         to("critic_optimizer", "critic_grad_clip")),
        ("ulysses_sequence_parallel_size", "follows trainer.ulysses_sequence_parallel_size",
         to("microbatch_loss", "critic_fsdp_sp_ranks")),
        ("rollout_n", "follows algorithm.repeat_times", no(FOLLOWS))]],
    Rule(f"{C}.profiler.*", "handled", "", "profiling", inert=PROFILING),
    *[Rule(f"{C}.{k}", "none", "", NOT_CONVERTED, **c) for k, c in [
        ("_target_", no(CLASS)),
        ("kl_ctrl.*", no(UNREAD)),
        ("load_weight", to("critic_model", "legacy_megatron_critic")),
        ("nccl_timeout", no(PROCESSES)),
        ("mindspeed.*", no(PLACEMENT)),
        ("torchtitan.*", no(PLACEMENT)),
        *_other_engines(CRITIC_SEED),
        *_other_replay("critic"),
        ("veomni.*", no(PLACEMENT)),
    ]],
    # ---- rewards (rftc/mapping/rewards.py)
    Rule("reward_model.*", "rule", "rewards.map_rewards", "explorer.auxiliary_models (enable, model.path, rollout.*)",
         inert=PLACEMENT),
    *[Rule(f"reward_model.{k}", "rule", "rewards.map_rewards", "", **c) for k, c in [
        ("enable", to("reward", "legacy_rule_reward")), ("model.path", to("reward", "legacy_reward_model")),
        ("reward_manager", to("reward", "legacy_manager_name")),
        ("model.input_tokenizer", to("reward", "rm_worker")), ("max_length", to("reward", "rm_worker_template")),
        ("strategy", to("reward", "rm_worker_tokenizer")),
        # the FSDP reward-model worker reads only its attn_implementation (0.7.0, the one release with the key)
        ("model.override_config.*", no(KERNELS)), ("model.override_config", no(KERNELS)),
        ("launch_reward_fn_async", no(PROCESSES)), ("num_workers", no(PROCESSES)),
        ("reward_loop_source", to("reward", "loop_manager")),
        ("reward_loop_module_path", to("reward", "loop_importlib")),
        ("reward_loop_class_name", to("reward", "loop_class")), ("use_reward_loop", to("reward", "reward_loop_switch")),
        ("micro_batch_size", no(BATCHING)), ("micro_batch_size_per_gpu", no(BATCHING)),
        ("use_dynamic_bsz", no(BATCHING)), ("forward_max_token_len_per_gpu", no(BATCHING)),
        ("param_offload", no(MEMORY)), ("model.use_shm", no(PROCESSES)), ("model.external_lib", no(PROCESSES)),
        ("model.trust_remote_code", no(PROCESSES)), ("model.use_remove_padding", no(KERNELS)),
        ("model.use_fused_kernels", no(KERNELS)), ("model.fsdp_config.*", no(MEMORY)), ("load_weight", no(UNREAD)),
        ("rollout.*", no(KERNELS)), ("sandbox_fusion.url", to("reward", "trainer_sandbox")),
        *[(f"rollout.{k}", to("reward", "rm_engine_legacy")) for k in ("name", "prompt_length", "response_length",
                                                                      "dtype")],
        ("rollout.max_model_len", to("reward", "rm_engine_legacy_context")),
        ("sandbox_fusion.max_concurrent", no(PROCESSES)),
        ("sandbox_fusion.memory_limit_mb", to("reward", "trainer_sandbox_on")),
        ("profiler.*", no(PROFILING))]],
    Rule("reward.*", "rule", "rewards.map_rewards", "explorer.auxiliary_models (reward_model.*); custom reward",
         inert=PLACEMENT),
    *[Rule(f"reward.{k}", "rule", "rewards.map_rewards", "", **c) for k, c in [
        ("_target_", no(CLASS)), ("num_workers", no(PROCESSES)),
        ("custom_reward_function.path", to("reward", "reward_section_reward")),
        ("custom_reward_function.name", to("reward", "reward_custom_reward")),
        ("reward_manager.name", to("reward", "rule_reward")),
        ("reward_manager.source", to("reward", "section_manager")),
        ("reward_manager.module.path", to("reward", "section_importlib")),
        ("reward_manager.module.name", no(UNREAD)),  # it names the module in sys.modules, not the class
        ("reward_manager._target_", no(CLASS)),
        ("reward_manager.module._target_", no(CLASS)), ("reward_model.enable", to("reward", "rule_reward")),
        ("reward_model.model_path", to("reward", "reward_section_model")), ("reward_model._target_", no(CLASS)),
        ("reward_model.rollout.*", no(KERNELS)),
        *[(f"reward_model.rollout.{k}", to("reward", "rm_engine")) for k in
          ("name", "response_length", "prompt_length", "max_model_len", "dtype", "quantization")],
        *[(f"reward_model.rollout.{k}", to("reward", "rm_vllm")) for k in
          ("temperature", "top_p", "top_k", "ignore_eos", "seed", "quantization_config_file")],
        # no rollout server reads them (vllm_async_server.py, async_sglang_server.py)
        ("reward_model.rollout.do_sample", no(UNREAD)), ("reward_model.rollout.n", no(UNREAD)),
        ("sandbox_fusion.url", to("reward", "section_sandbox")), ("sandbox_fusion.max_concurrent", no(PROCESSES)),
        ("sandbox_fusion.memory_limit_mb", to("reward", "section_sandbox_on")),
        ("sandbox_fusion._target_", no(CLASS))]],
    # verl 0.7.0's top-level reward_manager: the trainer's reward function reads it without the reward loop
    Rule("reward_manager.*", "none", "", "a reward manager is a Trinity reward workflow", feeds="reward",
         when="trainer_manager"),
    Rule("reward_manager.module.path", "none", "", "a reward manager is a Trinity reward workflow", feeds="reward",
         when="trainer_importlib"),
    Rule("reward_manager.module.name", "none", "", "a reward manager is a Trinity reward workflow", inert=UNREAD),
    *[Rule(k, "none", "", "a reward manager is a Trinity reward workflow", inert=CLASS) for k in
       ("reward_manager._target_", "reward_manager.module._target_")],
    Rule("custom_reward_function.*", "rule", "rewards.map_rewards", "the reward workflow's workflow_args",
         feeds="reward", when="legacy_rule_reward"),
    Rule("custom_reward_function.name", "rule", "rewards.map_rewards", "the reward workflow's workflow_args",
         feeds="reward", when="legacy_custom_reward"),
    # migrated whole into reward.sandbox_fusion where any of its keys is set (migrate_legacy_reward_impl)
    Rule("sandbox_fusion.*", "none", "", "code-execution rewards need a Trinity workflow that calls the sandbox",
         feeds="reward", when="legacy_sandbox_on"),
    Rule("sandbox_fusion.url", "none", "", "code-execution rewards need a Trinity workflow that calls the sandbox",
         feeds="reward", when="legacy_sandbox"),
    # ---- trainer (rftc/mapping/trainer.py)
    *[Rule(f"{T}.{k}", "rule", "trainer.map_trainer", n, **c) for k, n, c in [
        ("project_name", "project", no(NAMES)), ("experiment_name", "name", no(NAMES)),
        ("nnodes", "cluster.node_num", to("trainer_gpus microbatch_loss", "trainer_gpus_count")),
        ("n_gpus_per_node", "cluster.gpu_per_node", to("trainer_gpus microbatch_loss", "trainer_gpus_count")),
        ("logger", "monitor.monitor_type (the first Trinity supports)", no(NAMES)),
        ("val_before_train", "explorer.eval_on_startup", to("mode", "val_only")),
        ("default_local_dir", "checkpoint_root_dir (Trinity appends <project>/<name>)", no(CADENCE)),
        ("resume_mode", "continue_from_checkpoint", no(CADENCE)),
        ("resume_from_path", "no equivalent: Trinity resumes from the latest checkpoint in the job dir", no(CADENCE)),
        ("balance_batch", "trainer.balance_batch", no(BATCHING)),
        ("max_actor_ckpt_to_keep", "trainer.max_checkpoints_to_keep", no(CADENCE)),
        ("max_critic_ckpt_to_keep", "trainer.max_checkpoints_to_keep", no(CADENCE)),
        ("val_only", "mode: bench", to("mode", "reads_val_only")),
        ("device", "cuda is implied", no(PLACEMENT)),
    ]],
    Rule(f"{T}.critic_warmup", "rule", "loss.map_loss", "trainer.critic_warmup = (critic_warmup - the release's first "
         "step) x sync_interval + 1 (Trinity's first step is 1)", feeds="critic_warmup"),
    *[Rule(f"{T}.{k}", "handled", "", n, **c) for k, n, c in [
        ("log_val_generations", "logging", no(NAMES)), ("log_train_generations", "logging", no(NAMES)),
        ("rollout_data_dir", "rollout dumps (Trinity keeps experiences in its buffer)", no(NAMES)),
        ("validation_data_dir", "validation dumps", no(NAMES)),
        ("ray_wait_register_center_timeout", "Ray start-up", no(PROCESSES)),
        ("use_legacy_worker_impl", "veRL worker selection", to("trainer_seed", "determinism_switch")),
        ("esi_redundant_time", "checkpoint timing", no(CADENCE)),
        ("del_local_ckpt_after_load", "checkpoint housekeeping", no(CADENCE)),
        ("hdfs_dir", "checkpoint upload", no(CADENCE)),
        ("profile_steps", "profiling", no(PROFILING)), ("profile_continuous_steps", "profiling", no(PROFILING)),
        ("npu_profile.*", "profiling", no(PROFILING)),
        ("remove_previous_ckpt_in_save", "checkpoint housekeeping", no(CADENCE)),
        ("checkpoint_callback_class", "checkpoint hooks", no(CADENCE)),
        ("save_hf_model", "Trinity's trainer.save_hf_checkpoint defaults to the last step", no(CADENCE)),
    ]],
    *[Rule(f"{T}.{k}", "none", "", NOT_CONVERTED, **c) for k, c in [
        ("default_hdfs_dir", no(CADENCE)),
        ("val_generations_to_log_to_wandb", no(NAMES)),
        ("controller_nsight_options.*", no(PROFILING)),
        ("worker_nsight_options.*", no(PROFILING))]],
    # ---- veRL's trainer loops: what each batch is generated with (rftc/mapping/offpolicy.py)
    *[Rule(k, "rule", "offpolicy.map_schedule", n, **c) for k, n, c in [
        (f"{T}.use_v1", "synchronizer.sync_offset (the trainer loop: veRL 0.9's v1 trainers)",
         to("policy_lag", "v1_async")),
        (f"{T}.v1.*", "synchronizer.sync_offset / sync_interval (warmup batches, parameter sync); RFTC340-RFTC342",
         to("policy_lag", "v1_async")),
        ("async_training.*", "synchronizer.sync_offset / sync_interval (staleness, parameter sync); RFTC340-RFTC342",
         to("policy_lag")),
        ("rollout.*", "the explorer's GPUs (rollout.nnodes x n_gpus_per_node of the off-policy trainers)",
         to("rollout_gpus")),
    ]],
    *[Rule(k, "rule", "offpolicy.map_schedule", "", **c) for k, c in [
        (f"{T}.v1.trainer_mode", to("policy_lag", "v1")), (f"{T}.v1.sync", no(UNREAD)),
        (f"{T}.v1.colocate_async.num_warmup_batches", to("ahead", "colocate_async")),
        (f"{T}.v1.separate_async.num_warmup_batches", to("ahead", "separate_async")),
        (f"{T}.v1.separate_async.parameter_sync_step", no(FOLLOWS)),
        (f"{T}.v1.separate_async.hybrid_rollout.*", to("hybrid_rollout", "hybrid_switch")),
        (f"{T}.v1.separate_async.hybrid_rollout.enable_switch", to("hybrid_rollout", "separate_async")),
        *[(f"{T}.v1.separate_async.hybrid_rollout.switch_threshold_{k}", to("hybrid_rollout", "hybrid_adaptive"))
          for k in ("step_up", "step_down", "release_steps")],
        (f"{T}.v1.separate_async.hybrid_rollout._target_", no(CLASS)),
        (f"{T}.v1.sampler.max_off_policy_threshold", to("staleness_filter", "stale")),
        (f"{T}.v1.sampler.max_off_policy_strategy", to("staleness_filter", "stale")),
        (f"{T}.v1.sampler.sync_refill_failed_groups", to("group_refill", "v1_sync_filter")),
        (f"{T}.v1.sampler.custom_sampler.*", to("replay_sampler", "custom_sampler")),
        (f"{T}.v1.sampler.sampler_kwargs", to("replay_sampler", "custom_sampler")),
        ("async_training.staleness_threshold", to("ahead")),
        ("async_training.require_batches", to("steps_per_batch")),
        ("async_training.partial_rollout", to("partial_rollout")),
        ("async_training.use_trainer_do_validate", no(CADENCE)),
        ("async_training.use_dynamic_resource_scheduling", no(PLACEMENT)),
        ("async_training.dynamic_schedule_*", no(PLACEMENT)),
        ("async_training.concurrent_samples_per_replica", no(PLACEMENT)),
        ("rollout.n", no(UNREAD)), ("rollout.total_rollout_steps", to("total_steps"))]],
    Rule("global_profiler.*", "handled", "", "profiling", inert=PROFILING),
    Rule("ray_kwargs.*", "handled", "", "Ray is started outside Trinity (ray start --head)", inert=PROCESSES),
    Rule("ray_init.*", "handled", "", "Ray is started outside Trinity (ray start --head)", inert=PROCESSES),
    Rule("transfer_queue.*", "handled", "", "veRL's data transfer layer; Trinity has its buffer", inert=PROCESSES),
    Rule("model_engine", "rule", "models.map_models", "trainer.trainer_strategy (megatron)", inert=PLACEMENT),
    # ---- on-policy distillation (rftc/mapping/distill.py): Trinity's on_policy_distill where veRL's trains alike
    Rule("distillation.*", "rule", "distill.map_distillation", "the teacher entries added beside teacher_model",
         feeds="teacher", when="teachers"),
    *[Rule(f"distillation.{k}", "rule", "distill.map_distillation", n, **c) for k, n, c in [
        ("enabled", "algorithm.algorithm_type on_policy_distill (RFTC339 where veRL's differs)",
         to("teacher distillation")),
        ("_target_", "", no(CLASS)), ("teacher_key", "RFTC339 for several teachers", to("teacher", "teachers")),
        ("nnodes", "explorer.auxiliary_models[0].engine_num, cluster.node_num (the teacher's GPUs)", no(PLACEMENT)),
        ("n_gpus_per_node", "explorer.auxiliary_models[0].engine_num, cluster (the teacher's GPUs)", no(PLACEMENT)),
        ("distillation_loss.*", "algorithm.algorithm_type (RFTC339 where it differs)",
         to("distillation", "distillation")),
        ("distillation_loss._target_", "", no(CLASS)),
        ("distillation_loss.topk", "RFTC339 (the top-k loss)", to("distillation", "distill_topk")),
        ("distillation_loss.log_prob_min_clamp", "RFTC339 (the top-k loss)", to("distillation", "distill_topk")),
        # the top-k loss's chunking: "only affects memory, not numerics" (fsdp/losses.py _chunked_topk_log_probs)
        ("distillation_loss.use_chunked_topk", "", no(KERNELS)),
        ("distillation_loss.chunked_topk_chunk_size", "", no(KERNELS)),
        ("distillation_loss.distillation_loss_coef", "RFTC339 (with task rewards)",
         to("distillation", "distill_task_rewards")),
        ("distillation_loss.policy_loss_mode", "algorithm.policy_loss_fn ppo (vanilla)",
         to("distillation policy_loss", "distill_pg")),
        ("distillation_loss.clip_ratio", "algorithm.policy_loss_fn_args.clip_range_low/high where low/high are null",
         to("distillation clip_low clip_high", "distill_clip_ratio")),
        ("distillation_loss.clip_ratio_low", "algorithm.policy_loss_fn_args.clip_range_low",
         to("distillation clip_low", "distill_pg")),
        ("distillation_loss.clip_ratio_high", "algorithm.policy_loss_fn_args.clip_range_high",
         to("distillation clip_high", "distill_pg")),
        ("teacher_models.teacher_model.*", "explorer.auxiliary_models[0] (the teacher's inference engine)",
         no(KERNELS)),
        ("teacher_models.teacher_model.model_path", "explorer.auxiliary_models[0].model_path",
         to("teacher", "one_teacher")),
        ("teacher_models.teacher_model.inference.dtype", "explorer.auxiliary_models[0].dtype",
         to("teacher", "one_teacher")),
        ("teacher_models.teacher_model._target_", "", no(CLASS)),
        ("teacher_models.teacher_model.inference._target_", "", no(CLASS)),
        # one teacher is keyed "default" whatever it says; with several, teacher_model is dropped
        ("teacher_models.teacher_model.key", "", no(UNREAD)),
        ("teacher_models.teacher_model.num_replicas", "explorer.auxiliary_models[0].engine_num", no(PLACEMENT)),
        # 0.9 asks the teacher at temperature 1.0 whatever it says; 0.8.0 stops at start unless it is 1.0
        ("teacher_models.teacher_model.inference.temperature", "workflow_args.temperature 1.0", no(UNREAD)),
        # the teacher's window: it is given prompt and response whole, and a run that trains fits them in it
        # (validate_and_prepare_for_distillation refuses a max_model_len below prompt + response + 1)
        *[(f"teacher_models.teacher_model.inference.{k}", "explorer.auxiliary_models[0].max_model_len", no(MEMORY))
          for k in ("max_model_len", "prompt_length", "response_length")]]],
    Rule("skip.*", "none", "", NOT_CONVERTED, inert=DEBUG),
]


def find_rule(key: str, rules: list[Rule] = RULES) -> Rule | None:
    """The most specific row for ``key``: its own row, else the longest pattern it falls under (the first of equals
    in the table)."""
    exact, patterns = _index(rules)
    row = exact.get(key)
    return row if row is not None else next((r for r in patterns if key.startswith(r.verl[:-1])), None)


_INDEXES: dict[int, tuple[list[Rule], dict[str, Rule], list[Rule]]] = {}


def _index(rules: list[Rule]) -> tuple[dict[str, Rule], list[Rule]]:
    """A table's rows by key, and its patterns longest first (built once per table)."""
    got = _INDEXES.get(id(rules))
    if got is None or got[0] is not rules:
        exact: dict[str, Rule] = {}
        for r in rules:
            if not r.verl.endswith("*"):
                exact.setdefault(r.verl, r)
        patterns = sorted((r for r in rules if r.verl.endswith("*")), key=lambda r: -len(r.verl))
        got = _INDEXES[id(rules)] = (rules, exact, patterns)
    return got[1], got[2]


def apply_rules(d: Draft, rules: list[Rule] = RULES) -> None:
    """Apply the table (main_ppo's, or another trainer's: rftc.mapping.sft_rules) to every key the script set
    that no relational rule has accounted for, then the ``explicit`` rows; finally report any key no rule
    covers (nothing is dropped silently)."""
    for key in d.cfg.user_keys():
        if d.done(key):
            continue
        r = _rule_for(d, key, rules)
        if r is None:
            _unmapped(d, key)
        elif r.action == "map":
            _map(d, r, key)
        elif r.action == "pass":
            d.passthrough(key, under=_target(r, key) if r.trinity else None)
        elif r.action == "implied":
            d.implied(key, r.note)
        elif r.action == "handled":
            d.report("RFTC301", f"{key} is left out: {r.note}, which Trinity manages itself", key)
        elif r.action == "none":
            d.report("RFTC300", f"{key} has no Trinity-RFT 0.6 equivalent; {r.note}", key)
        # "rule" rows whose function did not account for the key fall through to the safety net below
    for r in rules:
        if r.explicit and r.action == "map" and not d.done(r.verl) and d.val(r.verl) is not None:
            _map(d, r, r.verl)
    stopped = d.diags.has_errors
    for key in d.cfg.user_keys():
        if d.done(key):
            continue
        r = _rule_for(d, key, rules)
        if stopped and r is not None and r.action == "rule":
            d.implied(key, "not converted: the conversion stopped at an error")  # its rule needed that value
        else:
            _unmapped(d, key)


def _rule_for(d: Draft, key: str, rules: list[Rule]) -> Rule | None:
    """The row for ``key``. A key a fork adds takes a section's row only where the row drops or implies it: a
    row that passes or maps a whole section names the fields of upstream veRL, which the fork's key is not."""
    r = find_rule(key, rules)
    if r is not None and key in d.cfg.fork_keys and r.verl.endswith(".*") and r.action in ("map", "pass"):
        return None
    return r


def _unmapped(d: Draft, key: str) -> None:
    if key in d.cfg.fork_keys:
        d.report("RFTC327", f"{key}={d.fmt_value(key)} is a feature of the veRL fork at {d.cfg.source}, not of "
                 "upstream veRL; Trinity's workflow must provide it", key,
                 hint="implement it in the Trinity workflow or plugin that runs this job, or drop the override")
    else:
        d.report("RFTC300", f"{key} has no Trinity-RFT 0.6 equivalent; {NOT_CONVERTED}", key)


def _target(r: Rule, key: str) -> str:
    """``trinity`` for ``key``; for a subtree row, the key's path below the subtree appended."""
    if r.verl.endswith(".*"):
        return r.trinity.removesuffix(".*") + key[len(r.verl) - 2:]
    return r.trinity


def _map(d: Draft, r: Rule, key: str) -> None:
    value = d.val(key)
    target = _target(r, key)
    try:
        value = r.transform(value) if r.transform else value
    except (TypeError, ValueError):
        d.report("RFTC313", f"{key} has an unexpected value {value!r}{not_a_count(value)}", key)
        return
    d.set(target, value, key, note="" if d.user(key) else "veRL default")
