"""Diagnostic codes of the Trinity config checks (RFTC4xx).

400-409 file and structure · 410-419 mode and algorithm · 420-429 model and lengths · 430-439 cluster and
GPUs · 440-449 synchronizer and explorer · 450-459 buffer · 460-469 trainer and the verl<0.8 path ·
470-499 what Trinity 0.6 lets through (traps). Errors are what Trinity 0.6.0 itself rejects when it loads
or validates the file; warnings and infos are what it accepts but what changes or breaks training later.
"""

from __future__ import annotations

from rftc.diagnostics.model import Code, Severity

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

def _ex(*, mode=None, cluster="{node_num: 1, gpu_per_node: 2}",
        model="{model_path: Qwen/Qwen2.5-0.5B-Instruct, max_model_len: 2048}",
        algorithm="{algorithm_type: grpo, repeat_times: 8, kl_loss_fn: k2}", buffer=None, rest=""):
    """A small config that is valid except for what the example changes (a section body is a flow mapping or
    a block starting with a newline)."""
    if buffer is None:
        buffer = "\n  batch_size: 16\n  explorer_input:\n" + TASKSET
    out = [f"mode: {mode}"] if mode else []
    for name, body in (("cluster", cluster), ("model", model), ("algorithm", algorithm), ("buffer", buffer)):
        if body is not None:
            out.append(f"{name}:{'' if body.startswith(chr(10)) else ' '}{body}")
    return "\n".join(out) + "\n" + rest


TASKSET = "    taskset: {path: openai/gsm8k, default_workflow_type: math_workflow}"
_EI = "\n  batch_size: 16\n  explorer_input:\n"
_MODEL = "\n  model_path: Qwen/Qwen2.5-0.5B-Instruct\n  max_model_len: "
_SFT_DATA = "\n  trainer_input:\n    experience_buffer: {path: open-r1/Mixture-of-Thoughts, storage_type: file}"
_TC = "trainer:\n  trainer_config:\n    actor_rollout_ref:\n      actor:"
EX = {
    "RFTC400": "model:\n  model_path: 'Qwen/Qwen2.5-0.5B\n",
    "RFTC401": _ex(rest="trainer:\n  ppo_max_token_len_per_gpu: 16384\n"),
    "RFTC402": _ex(buffer="\n  batch_size: lots\n  explorer_input:\n" + TASKSET),
    "RFTC403": _ex(rest="synchronizer:\n  sync_method: rdma\n"),
    "RFTC404": _ex(buffer=_EI + "    taskset: {path: '${data.train_path}', default_workflow_type: math_workflow}"),
    "RFTC405": _ex(model="\n  model_path: ${oc.env:RFTC_SURELY_UNSET_MODEL_DIR}/Qwen2.5-0.5B\n  max_model_len: 2048"),
    "RFTC406": _ex(rest="explorer:\n  rollout_model:\n    gpu_per_engine: 2\n"),
    "RFTC407": _ex(algorithm="\n  algorithm_type: grpo\n  repeat_times: 8\n  kl_loss_fn: k2\n  optimizer:\n"
                   "    warmup_style: constant"),
    "RFTC410": _ex(mode="training"),
    "RFTC411": _ex(algorithm="{algorithm_type: grp0, repeat_times: 8, kl_loss_fn: k2}"),
    "RFTC412": _ex(algorithm="{algorithm_type: grpo, repeat_times: 8, kl_loss_fn: low_var}"),
    "RFTC413": _ex(algorithm="{algorithm_type: sft}", buffer="\n  train_batch_size: 32\n  explorer_input:\n" + TASKSET
                   + "\n  trainer_input:\n    experience_buffer: {path: open-r1/Mixture-of-Thoughts}",
                   rest="trainer: {save_interval: 50}\n"),
    "RFTC414": _ex(mode="train", algorithm="{algorithm_type: sft}", buffer="{train_batch_size: 32}",
                   rest="trainer: {save_interval: 50}\n"),
    "RFTC415": _ex(mode="train", algorithm="{algorithm_type: sft}", buffer="\n  train_batch_size: 32" + _SFT_DATA),
    "RFTC416": _ex(mode="train", buffer="{train_batch_size: 64}", rest="synchronizer: {sync_method: nccl}\n"),
    "RFTC420": _ex(model=_MODEL + "1024\n  max_prompt_tokens: 1024\n  max_response_tokens: 512"),
    "RFTC421": _ex(model="{model_path: Qwen/Qwen2.5-0.5B-Instruct}"),
    "RFTC422": _ex(model=_MODEL + "2048\n  max_response_tokens: 1536"),
    "RFTC423": _ex(model=_MODEL + "2048\n  external_model: {enable: true, model_name: gpt-4o}"),
    "RFTC424": _ex(model=_MODEL + "2048\n  lora_configs:\n    - {name: a, lora_rank: 16}\n    - {name: b, lora_rank: 16}"),
    "RFTC430": _ex(cluster=None),
    "RFTC431": _ex(rest="explorer:\n  rollout_model: {engine_num: 2}\n"),
    "RFTC432": _ex(cluster="{node_num: 2, gpu_per_node: 4}", rest="explorer:\n  rollout_model: {engine_num: 2}\n"),
    "RFTC433": _ex(mode="explore", rest="explorer:\n  rollout_model: {engine_num: 2, tensor_parallel_size: 2}\n"),
    "RFTC434": _ex(mode="colocate"),
    "RFTC435": _ex(cluster="{node_num: 2, gpu_per_node: 4}", rest="explorer:\n  rollout_model: {tensor_parallel_size: 6}\n"),
    "RFTC436": _ex(rest="explorer:\n  rollout_model: {tensor_parallel_size: 0}\n"),
    "RFTC437": _ex(cluster="{node_num: 1, gpu_per_node: 4}", rest="explorer:\n  auxiliary_models:\n    - {engine_num: 1}\n"),
    "RFTC440": _ex(rest="synchronizer: {sync_interval: 0}\n"),
    "RFTC441": _ex(rest="explorer: {eval_interval: 10}\nsynchronizer: {sync_interval: 4}\n"),
    "RFTC442": _ex(rest="explorer:\n  over_rollout: {ratio: 1.5}\nsynchronizer: {sync_style: explorer_driven}\n"),
    "RFTC443": _ex(rest="explorer:\n  over_rollout: {ratio: 0.2}\n"),
    "RFTC444": _ex(rest="explorer: {concurrent_mode: parallel}\n"),
    "RFTC450": _ex(mode="train", buffer="{batch_size: 16}"),
    "RFTC451": _ex(buffer=_EI + TASKSET + "\n    tasksets:\n      - {path: openai/gsm8k, default_workflow_type: math_workflow}"),
    "RFTC452": _ex(buffer="{batch_size: 16}"),
    "RFTC453": _ex(buffer=_EI + "    taskset: {name: gsm8k, default_workflow_type: math_workflow}"),
    "RFTC454": _ex(buffer=_EI + "    taskset:\n      path: openai/gsm8k\n      default_workflow_type: math_workflow\n"
                   "      data_selector: {selector_type: shuffled}"),
    "RFTC455": _ex(buffer=_EI + TASKSET + "\n  trainer_input:\n    auxiliary_buffers:\n      sft_dataset: {storage_type: file}"),
    "RFTC456": _ex(buffer=_EI + TASKSET + "\n    eval_tasksets:\n      - {path: openai/gsm8k, split: test}",
                   rest="synchronizer: {sync_style: fully_async}\n"),
    "RFTC457": _ex(mode="train", buffer="{train_batch_size: 128}",
                   rest="data_processor:\n  task_pipeline:\n    inputs: [raw_tasks.jsonl]\n"),
    "RFTC460": _ex(rest="trainer: {save_hf_checkpoint: sometimes}\n"),
    "RFTC461": _ex(rest="trainer: {trainer_type: deepspeed}\n"),
    "RFTC462": _ex(cluster="{node_num: 1, gpu_per_node: 8}", buffer="\n  batch_size: 13\n  explorer_input:\n" + TASKSET,
                   rest="explorer:\n  rollout_model: {engine_num: 2}\n"),
    "RFTC463": _ex(cluster="{node_num: 1, gpu_per_node: 4}", rest="trainer: {ulysses_sequence_parallel_size: 2}\n"),
    "RFTC464": _ex(rest="trainer: {max_token_len_per_gpu: 1024}\n"),
    "RFTC465": _ex(rest=_TC.replace("trainer:\n", "trainer:\n  use_dynamic_bsz: false\n")
                   + " {ppo_micro_batch_size_per_gpu: 48}\n"),
    "RFTC470": _ex(buffer=_EI + "    taskset: {path: openai/gsm8k, default_workflow_type: math_workfow}"),
    "RFTC471": _ex(buffer=_EI + "    default_reward_fn_type: math_rewards\n" + TASKSET),
    "RFTC472": _ex(rest="explorer:\n  rollout_model: {engine_type: tgi}\n"),
    "RFTC473": _ex(algorithm="\n  algorithm_type: grpo\n  repeat_times: 8\n  kl_loss_fn: k2\n"
                   "  policy_loss_fn_args: {clip_ratio: 0.2}"),
    "RFTC488": _ex(algorithm="\n  algorithm_type: grpo\n  repeat_times: 8\n  kl_loss_fn: k2\n"
                   "  policy_loss_fn_args: {clip_range_high: 0.28}"),
    "RFTC474": _ex(rest="trainer:\n  trainer_config:\n    trainer: {critic_warmup: 0}\n"),
    "RFTC475": _ex(rest=_TC + " {ppo_mini_batch_size: 64}\n"),
    "RFTC476": _ex(rest=_TC + "\n        strategy: megatron\n        megatron: {tensor_model_parallel_size: 2}\n"),
    "RFTC466": _ex(rest=_TC.replace("trainer:\n", "trainer:\n  use_dynamic_bsz: false\n")
                   + " {ppo_micro_batch_size: 8}\n"),
    "RFTC477": _ex(rest=_TC + " {ppo_micro_batch_size_per_gpus: 4}\n"),
    "RFTC478": _ex(algorithm="{algorithm_type: grpo, kl_loss_fn: k2}"),
    "RFTC479": _ex(algorithm="\n  algorithm_type: grpo\n  repeat_times: 8\n  kl_loss_fn: k2\n  optimizer:\n"
                   "    lr_warmup_steps_ratio: 0.1"),
    "RFTC480": _ex(algorithm="{algorithm_type: grpo, repeat_times: 8}"),
    "RFTC481": _ex(model="{model_path: ./no/such/model, max_model_len: 2048}"),
    "RFTC482": _ex(algorithm="{algorithm_type: grpo, repeat_times: 8, kl_loss_fn: k2, loss_agg_mode: token_mean}"),
    "RFTC483": _ex(model="{model_path: Qwen/Qwen2.5-0.5B-Instruct, max_model_len: 2048, top_k: 50}"),
    "RFTC484": _ex(buffer=_EI + "    taskset: {path: openai/gsm8k, default_workflow_type: math_workflow, repeat_times: 4}"),
    "RFTC486": _ex(rest="checkpoint_root_dir: ./ckpt\nproject: demo\nname: run1\n"),
    "RFTC485": _ex(algorithm="{algorithm_type: mix, repeat_times: 8, kl_loss_fn: k2}"),
    "RFTC487": _ex(algorithm="{algorithm_type: rloo, repeat_times: 8, kl_loss_fn: k2}",
                   buffer="\n  batch_size: 16\n  train_batch_size: 12\n  explorer_input:\n" + TASKSET),
}


def _c(code, name, sev, summary, explanation, example):
    return Code(code, name, sev, summary, explanation, example, "yaml")


CODES = [
    _c("RFTC400", "yaml-syntax", E, "The file is not valid YAML.",
       "Trinity loads the file with OmegaConf, which stops at the first YAML syntax error, so the job never "
       "starts. Nothing else in the file was checked. Fix the syntax at the reported line (indentation, an "
       "unclosed quote or bracket, a duplicate key, a tab).",
       EX["RFTC400"]),
    _c("RFTC401", "unknown-key", E, "A key that Trinity-RFT 0.6.0's config does not have.",
       "Trinity merges the file into its structured config, and OmegaConf rejects any key the schema lacks "
       "(`Key 'x' not in 'TrainerConfig'`), so the job fails at load. This is often an old key name (for "
       "example `trainer.ppo_max_token_len_per_gpu`, now `trainer.max_token_len_per_gpu`) or a veRL key put "
       "in the wrong section. Rename it as suggested, or move veRL-only keys under `trainer.trainer_config`.",
       EX["RFTC401"]),
    _c("RFTC402", "wrong-type", E, "A value OmegaConf cannot convert to the field's type.",
       "OmegaConf converts values to the declared type when Trinity loads the file (\"3\" becomes 3) and "
       "fails on what it cannot convert (`Value 'lots' of type 'str' could not be converted to Integer`), a "
       "null in a field that is not optional, or a mapping where a scalar belongs. The job fails at load. Write "
       "a value of the field's type (`rftc schema` lists them).",
       EX["RFTC402"]),
    _c("RFTC403", "invalid-enum", E, "A value outside an enum field's members.",
       "Enum fields (`synchronizer.sync_method`, `synchronizer.sync_style`, `trainer.save_strategy`, "
       "`format.prompt_type`) accept their member names in any case plus Trinity's aliases (`online`, "
       "`offline`, `dynamic_by_explorer`, `dynamic_by_trainer`); anything else fails at load. Use one of the "
       "listed members.",
       EX["RFTC403"]),
    _c("RFTC404", "bad-interpolation", E, "An OmegaConf interpolation that cannot be resolved.",
       "Trinity resolves `${...}` interpolations when it builds its config object; a reference to a key that "
       "does not exist, an unknown resolver or a malformed expression fails the load with an interpolation "
       "error. Point the reference at an existing key (`${model.model_path}`) or use a supported resolver "
       "(`oc.env`, `oc.decode`, `oc.select`).",
       EX["RFTC404"]),
    _c("RFTC405", "env-var-missing", W, "An `${oc.env:VAR}` without a default names a variable that is not set.",
       "Trinity fails at load with `Environment variable 'VAR' not found` when the variable is missing where "
       "the job runs. rftc cannot know the job's environment, so this is a warning (an error with "
       "`--env-strict`); checks that need the value are skipped. Set the variable where the job runs or give a "
       "default: `${oc.env:VAR,default}`.",
       EX["RFTC405"]),
    _c("RFTC406", "auto-field-set", W, "A field Trinity computes itself is set in the file.",
       "Trinity's validator overwrites this field (for example `cluster.trainer_gpu_num`, "
       "`explorer.rollout_model.gpu_per_engine`, a taskset's `batch_size` or `rollout_args.n`), so the value "
       "in the file has no effect and misleads readers. Remove it and set the inputs it is computed from.",
       EX["RFTC406"]),
    _c("RFTC407", "deprecated-key", W, "A deprecated key that Trinity renames or ignores.",
       "Trinity 0.6 still reads `algorithm.optimizer.warmup_style` (copied into `lr_scheduler_type`), a "
       "taskset's `task_selector` (read as `data_selector`) and `explorer.runner_num` (ignored) with a warning; "
       "`trainer.trainer_config_path` is rejected on the verl<0.8 path and ignored on the verl>=0.8 path. "
       "`rftc check --fix` rewrites the renamed ones.",
       EX["RFTC407"]),
    _c("RFTC410", "invalid-mode", E, "`mode` is not one of Trinity's modes.",
       "Trinity's validator raises `Invalid mode: <m>` before anything runs. Use one of both, train, explore, "
       "bench, serve, colocate.",
       EX["RFTC410"]),
    _c("RFTC411", "unknown-algorithm", E, "`algorithm.algorithm_type` is not registered in Trinity 0.6.0.",
       "Trinity looks the name up in its algorithm registry and raises `Invalid module key: <x>`, so the job "
       "fails at validation. Use a registered name (the message suggests the closest) or a dotted import path "
       "of a plugin class.",
       EX["RFTC411"]),
    _c("RFTC412", "unknown-function", E, "An algorithm function or monitor name is not registered.",
       "`advantage_fn`, `policy_loss_fn`, `kl_loss_fn`, `kl_penalty_fn`, `entropy_loss_fn`, "
       "`sample_strategy` and `monitor.monitor_type` are looked up in Trinity's registries during validation; an "
       "unknown name raises `Invalid module key: <x>` and the job does not start. Use a registered name or a "
       "dotted import path.",
       EX["RFTC412"]),
    _c("RFTC413", "offline-algorithm-mode", E, "SFT, CPT and DPO run only in `mode: train`.",
       "Their check_config raises `SFT does not support `both` mode` (or `dpo`) for modes both and explore: "
       "there is no explorer for these algorithms. Set `mode: train` and give the data as "
       "`buffer.trainer_input.experience_buffer`.",
       EX["RFTC413"]),
    _c("RFTC414", "offline-algorithm-data", E, "SFT, CPT or DPO without `buffer.trainer_input.experience_buffer.path`.",
       "In train mode these algorithms read their dataset from the experience buffer's path; Trinity raises "
       "``buffer.trainer_input.experience_buffer.path` is required when `algorithm.algorithm_type == sft``. "
       "Set the path to the dataset (a HF dataset directory or file).",
       EX["RFTC414"]),
    _c("RFTC415", "offline-algorithm-save-interval", E, "SFT, CPT or DPO with `trainer.save_interval` 0.",
       "For these algorithms Trinity sets `synchronizer.sync_interval = trainer.save_interval`; the default 0 "
       "then fails the assertion ``sync_interval` must be positive.`. Set `trainer.save_interval` to how often "
       "(in steps) to save a checkpoint.",
       EX["RFTC415"]),
    _c("RFTC416", "value-forced", W, "Trinity overrides a value in the file.",
       "Trinity's validator replaces this value with a warning in its log (for example `sync_method: nccl` "
       "becomes `checkpoint` in train mode or with LoRA, `memory` in colocate; DPO forces `repeat_times: 2` and a "
       "KL loss; a `file` experience buffer becomes a `queue` in both mode). The job runs with Trinity's value, "
       "not yours. Write the value Trinity will use so the file says what runs.",
       EX["RFTC416"]),
    _c("RFTC420", "lengths-exceed-window", E, "max_prompt_tokens + max_response_tokens exceeds max_model_len.",
       "Trinity raises ``max_prompt_tokens` + `max_response_tokens` (P + R) exceeds `max_model_len` (L)`: a "
       "prompt and response of full length would not fit the model's window. Raise `model.max_model_len` or "
       "lower one of the two.",
       EX["RFTC420"]),
    _c("RFTC421", "max-model-len-unknown", E, "`max_model_len` cannot be determined.",
       "Without `model.max_model_len`, Trinity needs both `max_prompt_tokens` and `max_response_tokens` to "
       "compute it and otherwise raises `Unable to determine `max_model_len`, please set it manually.`. Set "
       "`model.max_model_len` (or both token limits).",
       EX["RFTC421"]),
    _c("RFTC422", "lengths-derived", I, "Trinity derives or adjusts a length limit.",
       "Where only some of max_model_len, max_prompt_tokens, max_response_tokens, min_response_tokens are set, "
       "Trinity fills or clamps the others (for example a prompt budget of max_model_len // 2). The derived "
       "value is what the job uses; set it explicitly if it is not what you intend.",
       EX["RFTC422"]),
    _c("RFTC423", "model-backend-mode", E, "An external or Tinker model used where Trinity does not allow it.",
       "`model.external_model.enable` is only supported in `bench` mode (`External model is only supported in "
       "`bench` mode.`) and needs `model_name`; Tinker training cannot train a critic (`Critic model is not "
       "supported when using tinker!`). Trinity rejects these at validation.",
       EX["RFTC423"]),
    _c("RFTC424", "lora-count", E, "More than one LoRA adapter.",
       "Trinity 0.6 raises `Only one lora adapter is supported for now.`. Keep one entry in `model.lora_configs`.",
       EX["RFTC424"]),
    _c("RFTC430", "cluster-size-unknown", W, "`cluster.node_num` or `cluster.gpu_per_node` is not set.",
       "Trinity then calls `ray.init(address=cluster.ray_address)` and counts the GPUs of the running Ray "
       "cluster (no Ray: `ConnectionError`; one node with one GPU: mode forced to colocate). The GPU split "
       "cannot be checked here. Set both fields, or pass `--nodes M --gpus-per-node N` to rftc check.",
       EX["RFTC430"]),
    _c("RFTC431", "no-trainer-gpu", E, "The explorer takes every GPU and leaves none for the trainer.",
       "Trinity splits the cluster: rollout engines (engine_num x TP x DP x PP) and auxiliary models first, the "
       "trainer gets the rest and needs at least one GPU: `Not enough GPUs for trainer. Explorer requires E "
       "GPUs, but total available GPUs are T.`. Lower `engine_num` or the parallel sizes, or add GPUs.",
       EX["RFTC431"]),
    _c("RFTC432", "trainer-partial-node", E, "Trainer GPUs spill over a node boundary without filling whole nodes.",
       "When the trainer needs more GPUs than one node has, Trinity requires whole nodes: `Trainer must use an "
       "integer number of nodes, but got trainer_gpu_num (X) with gpu_per_node (G).`. Change `engine_num` or "
       "the parallel sizes so the trainer's share is a multiple of gpu_per_node.",
       EX["RFTC432"]),
    _c("RFTC433", "explorer-exceeds-cluster", E, "The explorer needs more GPUs than the cluster has.",
       "In explore, bench and serve modes Trinity raises `Total GPU number (T) is less than the number of GPUs "
       "required for rollout (E).`. Lower `engine_num` or the parallel sizes, or add GPUs.",
       EX["RFTC433"]),
    _c("RFTC434", "colocate-cluster", E, "`mode: colocate` on a cluster that is not exactly one GPU.",
       "Colocate runs explorer and trainer on one GPU; Trinity raises `Colocate mode requires exactly 1 GPU, "
       "but got N GPUs. Please use `both` mode instead.`, and `In colocate mode, ...` when there is more than "
       "one rollout engine, an engine of more than one GPU, an auxiliary model or sequence parallelism. Use "
       "`mode: both` on larger clusters.",
       EX["RFTC434"]),
    _c("RFTC435", "engine-placement", E, "An inference engine cannot be placed on the cluster's nodes.",
       "An engine larger than a node (TP x DP x PP > gpu_per_node) must span whole nodes (`Multi-node inference "
       "requires gpu_per_engine to be a multiple of cluster.gpu_per_node`), vLLM cannot use data parallelism "
       "across nodes, and SGLang needs TP divisible by DP. Trinity rejects these at validation.",
       EX["RFTC435"]),
    _c("RFTC436", "parallel-size", E, "A rollout parallel size below 1.",
       "Trinity raises ``rollout_model.tensor_parallel_size` must be >= 1, but got 0.` (likewise for data and "
       "pipeline parallel sizes, and for auxiliary models). Use 1 or more.",
       EX["RFTC436"]),
    _c("RFTC437", "auxiliary-model-path", E, "An auxiliary model without `model_path`.",
       "Auxiliary models (judges, reward models, teachers) do not inherit the trained model's path; Trinity "
       "raises `auxiliary model's model_path is required.`. Set `model_path` on each entry.",
       EX["RFTC437"]),
    _c("RFTC440", "sync-interval", E, "The synchronizer interval is not positive.",
       "Trinity asserts ``sync_interval` must be positive.`; the job stops at validation. Use 1 or more "
       "(for SFT/DPO the interval is `trainer.save_interval`).",
       EX["RFTC440"]),
    _c("RFTC441", "eval-interval-rounded", I, "Trinity rounds `explorer.eval_interval` down to a multiple of the sync interval.",
       "Evaluation runs only at synchronisation points, so Trinity replaces eval_interval by "
       "max(eval_interval // explorer_sync_interval, 1) x explorer_sync_interval. Evaluation then happens at "
       "that cadence, not the one written. Write the rounded value to make the file say what runs.",
       EX["RFTC441"]),
    _c("RFTC442", "over-rollout-ratio", E, "`explorer.over_rollout.ratio` outside [0, 1).",
       "Trinity raises `over_rollout_ratio should be in [0.0, 1.0)`. The ratio is the share of a batch's tasks "
       "the explorer may leave unfinished; use a value such as 0.1.",
       EX["RFTC442"]),
    _c("RFTC443", "over-rollout-fixed-sync", E, "Over-rollout with `sync_style: fixed`.",
       "Trinity raises `over_rollout is not compatible with fixed sync_style, please set "
       "`synchronizer.sync_style` to `explorer_driven` or `trainer_driven`.`.",
       EX["RFTC443"]),
    _c("RFTC444", "concurrent-mode", E, "`explorer.concurrent_mode` is not one of its three values.",
       "Trinity raises `Invalid explorer.concurrent_mode: <x>`. Use sequential, asynchronous or multi-threading.",
       EX["RFTC444"]),
    _c("RFTC450", "train-batch-size-required", E, "`buffer.train_batch_size` is required here.",
       "In train mode and for SFT/DPO there is no explorer batch to derive it from; Trinity raises "
       "``buffer.train_batch_size` is required when `mode` is 'train' or `algorithm.algorithm_type` is 'sft' "
       "or 'dpo'`. Set it to the number of experiences per trainer step.",
       EX["RFTC450"]),
    _c("RFTC451", "taskset-and-tasksets", E, "Both `taskset` and `tasksets` are set.",
       "Trinity raises `Do not support setting `taskset` and `tasksets` simultaneously!`. Put every training "
       "taskset in the `tasksets` list.",
       EX["RFTC451"]),
    _c("RFTC452", "no-taskset", E, "No training taskset in a mode that explores.",
       "Trinity raises `At least one taskset should be provided in explorer_input!` for modes both, explore "
       "and colocate. Add `buffer.explorer_input.taskset` (or `tasksets`).",
       EX["RFTC452"]),
    _c("RFTC453", "taskset-path", E, "A taskset without `path`.",
       "Trinity raises `Train taskset [<name>]'s path is not configured.` (or Eval taskset). Set `path` to a "
       "dataset directory, file or hub id that HF `load_dataset` can read.",
       EX["RFTC453"]),
    _c("RFTC454", "unknown-selector", E, "A data selector Trinity does not have.",
       "Trinity looks each taskset's and buffer's `data_selector.selector_type` up in its selector registry "
       "during validation and raises `Invalid module key: <x>`. Use sequential, shuffle, random, "
       "offline_easy2hard or difficulty_based (or a dotted import path).",
       EX["RFTC454"]),
    _c("RFTC455", "auxiliary-buffer-path", E, "An auxiliary buffer without `path`.",
       "Auxiliary buffers (such as the SFT data of the `mix` algorithm) are read from files; Trinity rejects "
       "one without `path`. Set it.",
       EX["RFTC455"]),
    _c("RFTC456", "fully-async-eval", E, "Eval tasksets with `sync_style: fully_async`.",
       "Trinity raises `Eval tasksets are not supported in fully asynchronous synchronization style.`. Remove "
       "the eval tasksets or use another sync style.",
       EX["RFTC456"]),
    _c("RFTC457", "task-pipeline-output", E, "A task pipeline without a usable output.",
       "A `data_processor.task_pipeline` writes its processed tasks to `output`; in train mode (other than "
       "SFT/DPO) there is no taskset to default to and Trinity raises ``data_processor.task_pipeline.output` is "
       "missing.`, and an output path that already exists is rejected (`Task pipeline output path ... already "
       "exists.`). Set `output` to a new path.", EX["RFTC457"]),
    _c("RFTC460", "save-hf-checkpoint", E, "`trainer.save_hf_checkpoint` is not last, always or never.",
       "Trinity raises `Invalid trainer.save_hf_checkpoint: x, must be one of 'last', 'always', or 'never'.`.",
       EX["RFTC460"]),
    _c("RFTC461", "trainer-type", E, "`trainer.trainer_type` is not verl or tinker.",
       "Trinity raises `Invalid trainer type: <x>`. Use verl (or tinker with `model.tinker.enable`).",
       EX["RFTC461"]),
    _c("RFTC462", "legacy-batch-divisibility", W, "train_batch_size is not divisible by trainer GPUs / SP.",
       "With verl < 0.8 installed Trinity 0.6 rejects this at validation (`The batch size (B) must be divisible "
       "by the number of GPUs (W) divided by the sequence parallelism size (S).`); with verl >= 0.8 it passes "
       "validation and veRL's workers fail or split the batch unevenly when the trainer starts. Choose "
       "train_batch_size (batch_size x repeat_times) divisible by trainer_gpu_num / SP.",
       EX["RFTC462"]),
    _c("RFTC463", "legacy-sp-divisibility", W, "Trainer GPUs not divisible by the sequence-parallel size.",
       "With verl < 0.8 Trinity rejects this at validation (`The number of trainer GPUs (W) must be divisible by "
       "`actor.ulysses_sequence_parallel_size` (S).`); with verl >= 0.8 the trainer fails when it builds its "
       "device mesh. Make trainer_gpu_num a multiple of `trainer.ulysses_sequence_parallel_size`.",
       EX["RFTC463"]),
    _c("RFTC464", "token-budget", W, "`trainer.max_token_len_per_gpu` x SP is below max_model_len.",
       "One full-length sequence does not fit a micro-batch: veRL >= 0.8 fails with `max_token_len must be "
       "greater than the sequence length`; the verl<0.8 path silently raises the budget to "
       "ceil(max_model_len / SP). Raise max_token_len_per_gpu (or leave it unset: Trinity uses "
       "ceil(2 x max_model_len / SP)).",
       EX["RFTC464"]),
    _c("RFTC465", "micro-batch-divisibility", W, "Per-GPU mini-batch not divisible by the micro-batch size.",
       "With `trainer.use_dynamic_bsz: false`, veRL splits each GPU's share of train_batch_size "
       "(train_batch_size / (trainer GPUs / SP)) into micro-batches of `ppo_micro_batch_size_per_gpu`; the worker "
       "raises `normalized ppo_mini_batch_size X should be divisible by ppo_micro_batch_size_per_gpu Y` when the "
       "trainer starts. Pick sizes that divide.",
       EX["RFTC465"]),
    _c("RFTC466", "trainer-config-global-micro-batch", W, "A global micro-batch size in `trainer.trainer_config`.",
       "veRL's `ppo_micro_batch_size` and `log_prob_micro_batch_size` are global sizes that veRL's legacy workers "
       "divide by their data-parallel ranks (GPUs / SP) when they start. With `trainer.use_dynamic_bsz: false` and "
       "verl >= 0.8 (what pip installs beside Trinity-RFT 0.6) Trinity builds veRL's engine workers, which read "
       "only the `*_per_gpu` sizes: the trainer fails when it starts (an assertion that the per-GPU size is set), "
       "and a section with both is refused. Write the per-GPU size instead: the global size divided by the "
       "trainer's GPUs over the sequence-parallel size, as the message computes it (`rftc convert` writes it "
       "from a veRL script).",
       EX["RFTC466"]),
    _c("RFTC470", "unknown-workflow", W, "A workflow name Trinity 0.6.0 does not register.",
       "Trinity does not check workflow names at validation; the explorer fails when it builds the first task, "
       "after Ray, the models and the trainer have started. Use a registered workflow (the message suggests the "
       "closest), a dotted import path, or register your own through a plugin.",
       EX["RFTC470"]),
    _c("RFTC471", "unknown-reward-fn", W, "A reward function name Trinity 0.6.0 does not register.",
       "Reward function names are resolved only when a workflow runs; an unknown name fails the first rollout. "
       "Use a registered reward function, a dotted import path, or a plugin.",
       EX["RFTC471"]),
    _c("RFTC472", "unknown-engine-type", W, "An inference engine type Trinity does not support.",
       "`engine_type` must start with vllm, sglang, tinker or external; Trinity checks it only when it creates "
       "the engine (`Unsupported engine type`), after the cluster has been set up.",
       EX["RFTC472"]),
    _c("RFTC473", "unknown-function-arg", W, "A `*_args` key the named function does not take.",
       "Trinity passes `*_args` to the function's constructor without checking it and does not merge it with "
       "the defaults; an unknown key raises TypeError when the trainer or explorer builds the function, "
       "usually after minutes of start-up. Use the function's argument names (listed in the message).",
       EX["RFTC473"]),
    _c("RFTC488", "function-args-refused", W, "The named function's constructor refuses its `*_args`.",
       "Trinity builds a function given `*_args` with those arguments alone (its default_args() only where "
       "`*_args` is unset), the constructor filling in the rest. The ppo and gspo policy losses take each clip "
       "bound from clip_range_low/high, else clip_range, and raise when one of them comes out unset: Trinity's "
       "validation accepts the config, and the trainer fails when it builds the loss. Set clip_range, or both clip_range_low and clip_range_high.",
       EX["RFTC488"]),
    _c("RFTC474", "trainer-config-dropped", W, "A `trainer.trainer_config` section Trinity 0.6 drops.",
       "With verl >= 0.8 Trinity keeps only the model, actor, ref, rollout and critic sections of "
       "trainer_config (also under actor_rollout_ref) and silently drops the rest (`trainer:`, `algorithm:`, "
       "`data:`, ...). Values there have no effect; most have a Trinity field instead (for example "
       "`trainer.critic_warmup`, `trainer.balance_batch`, `trainer.max_checkpoints_to_keep`).",
       EX["RFTC474"]),
    _c("RFTC475", "trainer-config-frozen", W, "A `trainer.trainer_config` key Trinity controls itself.",
       "Trinity 0.6 ignores these keys with `Ignoring trainer_config override for '<key>' — this field is "
       "controlled by global_config`: it writes them from its own fields (batch sizes, token budget, sequence "
       "parallelism, strategy, KL loss, ...). Set the Trinity field named in the message instead.",
       EX["RFTC475"]),
    _c("RFTC476", "trainer-config-megatron", W, "Megatron or strategy settings inside `trainer.trainer_config`.",
       "Trinity 0.6 freezes the strategy and strips the engine block of the other strategy, so "
       "`actor.strategy: megatron` with `actor.megatron.*` silently trains with FSDP2. Use "
       "`trainer.trainer_strategy: megatron` and `trainer.megatron.*`.",
       EX["RFTC476"]),
    _c("RFTC477", "trainer-config-unknown", W, "A `trainer.trainer_config` key verl does not have.",
       "Trinity merges trainer_config into veRL's worker configs without checking it; with verl >= 0.8 an "
       "unknown key fails only when the trainer builds its config (`__init__() got an unexpected keyword "
       "argument`), after the explorer has started. Remove or rename it.",
       EX["RFTC477"]),
    _c("RFTC478", "group-algorithm-repeat-one", W, "A group-relative algorithm with `repeat_times: 1`.",
       "GRPO-style advantages normalise rewards within each task's group of rollouts; with one rollout per task "
       "every advantage is 0 and the policy does not learn. Trinity declares a larger default for these "
       "algorithms but never applies it (the field's own default 1 wins). Set `algorithm.repeat_times` "
       "(veRL's rollout.n), for example with `rftc check --fix --fix-repeat-times 8`.",
       EX["RFTC478"]),
    _c("RFTC479", "lr-schedule-no-horizon", W, "LR warmup ratio or cosine schedule without `trainer.total_steps`.",
       "Trinity's LR schedule horizon is trainer.total_steps; unset, it is sys.maxsize, so a warmup ratio "
       "makes the warmup last forever (the LR stays ~0) and a cosine schedule never decays. Set "
       "`trainer.total_steps` (veRL's total steps x sync_interval), or use `lr_warmup_steps`.",
       EX["RFTC479"]),
    _c("RFTC480", "kl-loss-default", I, "KL loss is on by Trinity's default (k2).",
       "Where `algorithm.kl_loss_fn` is unset, Trinity adds a k2 KL loss (coefficient 0.001) for this "
       "algorithm; veRL's default is off (`use_kl_loss=False`). A config ported from veRL without KL loss "
       "trains differently. Write `kl_loss_fn: none` or the KL you want.",
       EX["RFTC480"]),
    _c("RFTC481", "path-not-found", W, "A local path in the config does not exist.",
       "Trinity does not check model or data paths at validation; a missing local path fails when the engine, "
       "trainer or reader opens it, after the cluster has started. Fix the path (relative paths are relative "
       "to the directory the job starts in), or pass `--no-path-checks` when checking on another machine.",
       EX["RFTC481"]),
    _c("RFTC482", "unknown-runtime-name", W, "A name Trinity resolves only at run time is not one it knows.",
       "Storage types, `trainer.trainer_strategy`, `algorithm.loss_agg_mode`, replay priority functions and "
       "experience operators are looked up when the component starts; an unknown name fails then. Use a "
       "listed value.",
       EX["RFTC482"]),
    _c("RFTC483", "top-k-not-inherited", W, "`model.top_k` does not reach the tasksets.",
       "Tasksets inherit model.temperature, top_p and logprobs where their rollout_args leave them unset, but "
       "rollout_args.top_k defaults to -1 (not None), so model.top_k is never copied in and rollouts sample "
       "without top-k. Set `rollout_args.top_k` on each taskset.",
       EX["RFTC483"]),
    _c("RFTC484", "train-taskset-repeat-times", W, "`repeat_times` on a training taskset.",
       "Trinity overwrites a training taskset's repeat_times with `algorithm.repeat_times`; only eval tasksets "
       "use their own. Set `algorithm.repeat_times` instead.",
       EX["RFTC484"]),
    _c("RFTC485", "mix-without-expert-data", W, "A `mix` sample strategy without its expert-data buffer.",
       "The mix strategy reads expert (SFT) data from `buffer.trainer_input.auxiliary_buffers.<sft_dataset_name>` "
       "(default `sft_dataset`); without it the trainer fails when it builds the sampler. Add the auxiliary "
       "buffer with a path.",
       EX["RFTC485"]),
    _c("RFTC486", "job-dir-exists", I, "The experiment's checkpoint directory already exists.",
       "Trinity resumes from the latest checkpoint in <checkpoint_root_dir>/<project>/<group>/<name> when it is not "
       "empty (continue_from_checkpoint, default true), or renames the experiment to <name>_<timestamp> when "
       "continue_from_checkpoint is false. Rerunning the same file therefore does not start a fresh run. Change "
       "`name` or clear the directory for a fresh run.", EX["RFTC486"]),
    _c("RFTC487", "trainer-advantage-split-group", W, "Trainer steps split task groups whose advantages the "
       "trainer computes.",
       "For algorithms that compute advantages in the trainer (ppo, grpo_verl, rloo, reinforceplusplus, ...), "
       "Trinity computes them on each trainer step's experiences. A group-relative advantage (rloo, grpo) needs "
       "all of a task's rollouts in the same step; when buffer.train_batch_size is not a multiple of "
       "algorithm.repeat_times, steps hold parts of groups and those advantages come from part of the rollouts "
       "(veRL computes them on the whole batch before splitting it into mini-batches). Make train_batch_size a "
       "multiple of repeat_times, or use an algorithm whose advantages the explorer computes per task (grpo).",
       EX["RFTC487"]),
]
