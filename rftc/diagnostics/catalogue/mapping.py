"""Diagnostics of the mapping stage (veRL -> Trinity-RFT 0.6): RFTC300-RFTC399."""

from rftc.diagnostics.model import Code, Severity

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

CODES = [
    Code("RFTC300", "no-trinity-equivalent", W, "A setting of the script has no Trinity-RFT 0.6 equivalent.",
         "Trinity-RFT 0.6 has no field that does what this veRL setting does, and passing it through "
         "`trainer.trainer_config` would be ignored or rejected. The converted config runs without it, so "
         "training can differ from veRL's. Remove the setting, or implement the behaviour in Trinity (a "
         "workflow, an operator or a plugin) as the message suggests.",
         "python3 -m verl.trainer.main_ppo algorithm.use_pf_ppo=True"),
    Code("RFTC301", "handled-by-trinity", I, "A setting controls something Trinity-RFT manages itself.",
         "The setting tunes veRL's own rollout workers, logging or process management, which Trinity-RFT "
         "replaces (its explorer runs vLLM, its monitor logs). It does not change what is trained, so it is "
         "left out of the converted config. Nothing to fix; silence with --disable RFTC301.",
         "python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.free_cache_engine=True"),
    Code("RFTC302", "batch-not-divisible", E, "data.train_batch_size is not a multiple of ppo_mini_batch_size.",
         "Trinity runs one explorer step per mini-batch and synchronizes weights every "
         "train_batch_size / ppo_mini_batch_size steps, so the ratio must be a whole number. veRL 0.2 to 0.7 run "
         "the remainder as a last, smaller mini-batch (the actor's update_policy splits the batch); 0.1 and, from "
         "0.8.0, the engine workers assert that the batch divides. The message says which the release does. "
         "Where the release counts the mini-batch in responses, one that is not a multiple of rollout.n splits a "
         "prompt's responses over two optimizer steps; that converts (RFTC329) unless Trinity computes the "
         "algorithm's advantages in the trainer, on each step's experiences, where veRL computes them on the "
         "whole batch. Nothing is written. Choose one of the nearest valid values the message lists.",
         "python3 -m verl.trainer.main_ppo data.train_batch_size=1000 actor_rollout_ref.actor.ppo_mini_batch_size=256"),
    Code("RFTC303", "lr-horizon-unknown", W, "The learning-rate schedule needs a horizon rftc cannot compute.",
         "A warmup ratio or a cosine schedule is relative to the total number of training steps. veRL computes "
         "it from the dataset size; Trinity-RFT 0.6 uses `trainer.total_steps`, and without it sys.maxsize, so "
         "warmup never ends and the learning rate stays near 0. The data files are not readable here. Pass "
         "`--dataset-size ROWS` (training rows) or `--total-steps N` (veRL steps), or make the files available.",
         "python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.1"),
    Code("RFTC304", "unsupported-advantage-estimator", E, "algorithm.adv_estimator has no Trinity-RFT 0.6 equivalent.",
         "The advantage estimator decides what is trained. Trinity-RFT 0.6's estimators and the veRL estimators "
         "rftc's Trinity advantage class computes with veRL's own functions (gpg, reinforce_plus_plus_baseline, "
         "opo, grpo_passk) are supported; the others read data Trinity's trainer does not produce (remax's "
         "greedy-baseline rewards, the optimal-token baseline's squared token probabilities), so the script "
         "cannot be converted faithfully. Nothing is written. Use one of the supported estimators the message "
         "lists.",
         "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=remax"),
    Code("RFTC305", "unsupported-value", W, "A setting's value cannot be expressed in Trinity-RFT 0.6.",
         "Trinity-RFT 0.6 knows the setting, but not this value (for example a KL estimator it does not "
         "register, or GRPO without standard-deviation normalisation). The converted config uses the closest "
         "behaviour the message names, so training differs from veRL's. Change the value, or accept the "
         "difference.",
         "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo algorithm.norm_adv_by_std_in_grpo=False"),
    Code("RFTC306", "gpu-split-impossible", E, "No split of the GPUs between explorer and trainer is valid.",
         "veRL runs rollout and training on the same GPUs; Trinity-RFT gives the explorer (rollout engines and "
         "auxiliary models) and the trainer separate GPUs. With the script's GPU count, tensor parallel size, "
         "sequence parallel size and batch sizes no split satisfies Trinity's and veRL's rules. Nothing is "
         "written. Add GPUs, lower the rollout tensor parallel size, or pass --explorer-gpus N.",
         "python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=2 actor_rollout_ref.rollout.tensor_model_parallel_size=2"),
    Code("RFTC307", "custom-reward-relative-path", W, "The custom reward function file is named by a relative path.",
         "veRL loads custom_reward_function.path from the directory the launch runs in. The converted config "
         "keeps the path in the reward workflow's workflow_args, and Trinity-RFT's workers load it from the "
         "directory `trinity run` starts in. Give an absolute path, or start Trinity where the launch ran. "
         "(`rftc run` starts where you call it, as veRL does, so it does not report this.)",
         "python3 -m verl.trainer.main_ppo custom_reward_function.path=rewards.py custom_reward_function.name=score"),
    Code("RFTC308", "reward-model-needs-workflow", W, "A reward model becomes an auxiliary model.",
         "veRL scores responses with the reward model itself; Trinity-RFT serves it as an auxiliary vLLM model "
         "(explorer.auxiliary_models) and the workflow must call it. The converted config reserves its GPUs, "
         "but the rewards are only the model's if the workflow you choose queries it.",
         "python3 -m verl.trainer.main_ppo reward_model.enable=True reward_model.model.path=/models/rm"),
    Code("RFTC309", "logger-reduced", I, "Several loggers become one Trinity monitor.",
         "Trinity-RFT 0.6 writes to one monitor (tensorboard, wandb, mlflow or swanlab) and always logs to the "
         "console. The first logger it supports is used; the others are dropped.",
         "python3 -m verl.trainer.main_ppo trainer.logger='[console,wandb,tensorboard]'"),
    Code("RFTC310", "conflicting-values", W, "Two settings map to one Trinity field with different values.",
         "veRL sets this separately per role (actor, reference, critic, rollout); Trinity-RFT 0.6 has one "
         "field for all of them. The converted config uses the value the message names (the actor's); the "
         "other role trains with it too. Make the values equal to silence this.",
         "python3 -m verl.trainer.main_ppo model.use_remove_padding=True critic.model.use_remove_padding=False"),
    Code("RFTC311", "value-not-static", E, "A value the conversion needs is not known without running the script.",
         "The value comes from the environment or a command substitution, and the mapping computes with it "
         "(batch sizes, GPU counts, step counts). Nothing is written. Pass it with `--env NAME=VALUE`, use "
         "`--use-env`, or append the override after `--`.",
         "python3 -m verl.trainer.main_ppo data.train_batch_size=$BATCH"),
    Code("RFTC312", "no-main-ppo-launch", E, "The script has no launch of a trainer rftc converts.",
         "rftc converts launches of veRL's main_ppo trainer (its v1 trainer modes included), its one-step-off "
         "and fully async trainers (verl.experimental.one_step_off_policy.main_ppo, "
         "verl.experimental.fully_async_policy.fully_async_main), its SFT trainers and the DAPO recipe's main_dapo "
         "(directly, through ray job submit, torchrun, srun or uv run). Generation and other recipes have other "
         "configs and semantics. A module rftc does not know that Python would not find here either (not in the "
         "launch's directory, the PYTHONPATH the script sets or the repository) is named as Python's \"No module "
         "named ...\" names it. Nothing is written. Use `rftc convert --list` to see the launches found, and "
         "`--invocation N` to pick one.",
         "python3 -m recipe.prime.main_prime data.train_files=x.parquet"),
    Code("RFTC313", "invalid-value", E, "A setting has a value of the wrong type or range for the conversion.",
         "The mapping needs a number (or a boolean, or a list) here and the script gives something else, a "
         "size that must be positive is not, or a GPU count is beyond any cluster (more than 16384 GPUs in all, "
         "or in one engine: rftc.mapping.gpu.MAX_GPUS). Nothing is written. Fix the value in the script.",
         "python3 -m verl.trainer.main_ppo data.train_batch_size=lots"),
    Code("RFTC314", "no-train-files", E, "The script names no training data.",
         "Trinity-RFT needs at least one taskset (buffer.explorer_input.tasksets) with a path; veRL's "
         "data.train_files is empty or unset. Nothing is written. Set data.train_files.",
         "python3 -m verl.trainer.main_ppo data.train_files=null"),
    Code("RFTC315", "single-gpu-colocate", I, "A one-GPU job becomes a Trinity colocate run.",
         "Trinity-RFT normally gives the explorer and the trainer separate GPUs; with one GPU it offers `mode: "
         "colocate`, which time-shares the GPU (rollout memory capped at 25%, one engine, tensor parallel 1). "
         "This is the closest match to veRL's colocated single-GPU run.",
         "python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=1"),
    Code("RFTC316", "frozen-by-trinity", W, "A role-specific setting differs from the value Trinity forces.",
         "Trinity-RFT 0.6 derives this veRL field from one of its own (for example every role's token budget "
         "from trainer.max_token_len_per_gpu) and ignores an override in trainer.trainer_config. The script's "
         "value is not used. Set the Trinity field instead, or accept the derived value.",
         "python3 -m verl.trainer.main_ppo critic.ppo_max_token_len_per_gpu=65536"),
    Code("RFTC317", "explorer-on-extra-gpus", W, "The explorer gets GPUs beyond the ones the script uses.",
         "veRL time-shares every GPU between rollout and training; Trinity-RFT gives the explorer GPUs of its own. "
         "When no split of the script's GPUs is valid (the rollout or megatron parallel sizes span them all), the "
         "converted config keeps veRL's whole world size for the trainer (same data and model parallelism, same "
         "batch splits) and puts the rollout engines on extra nodes: cluster.node_num grows. If you cannot add "
         "the nodes, lower the rollout tensor parallel size or pass --explorer-gpus N to choose the explorer's size.",
         "python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=2 actor_rollout_ref.rollout.tensor_model_parallel_size=2"),
    Code("RFTC318", "cluster-size-assumed", W, "A GPU count or rollout engine size only the environment knows is assumed to be "
         "veRL's default.",
         "trainer.nnodes, trainer.n_gpus_per_node or actor_rollout_ref.rollout.tensor_model_parallel_size comes "
         "from a variable the script never sets (for example $SLURM_JOB_NUM_NODES, or $ROLLOUT_TP_SIZE that "
         "TinyZero-style scripts leave to the caller). The cluster's layout does not change what is trained "
         "(veRL's batch sizes are global; tensor parallelism only shards the inference engine), but Trinity's "
         "config needs it for cluster.node_num / cluster.gpu_per_node, the rollout engines' size and the split of "
         "the GPUs between explorer and trainer. The conversion assumes veRL's default (1 node, 8 GPUs per node, "
         "rollout tensor parallel size 2), and every value computed from it says so in its comment. Pass --nodes "
         "N / --gpus-per-node N / --rollout-tp N, or the variable with --env NAME=N (or --use-env); --werror "
         "makes this an error.",
         "python3 -m verl.trainer.main_ppo trainer.nnodes=$SLURM_JOB_NUM_NODES"),
    Code("RFTC319", "micro-batch-fitted", W, "A micro-batch size is lowered to divide a trainer GPU's share.",
         "Trinity-RFT's trainer gives each of its GPUs an equal share of the step's experiences and splits it into "
         "micro-batches of exactly ppo_micro_batch_size_per_gpu (and log_prob_micro_batch_size_per_gpu for the "
         "old and reference log-probs); its worker stops when the size does not divide the share. veRL's workers "
         "took a smaller last micro-batch (the update's until 0.4.0, the log-probs' until 0.8.0), so scripts "
         "often set sizes that do not divide, and the trainer's share on the GPUs Trinity leaves it differs from "
         "veRL's anyway (where the script's release needs the size to divide its own share too, one that does "
         "not is the script's error, RFTC306). The converted config uses the largest size that divides the "
         "share and is no larger than the script's: the same gradients (each micro-batch's loss is weighted by "
         "its share of the batch), no more memory, a little slower. Set a size that divides the share, or "
         "actor_rollout_ref.actor.use_dynamic_bsz=True, to choose yourself.",
         "python3 -m verl.trainer.main_ppo data.train_batch_size=220 actor_rollout_ref.rollout.n=5 "
         "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8 trainer.n_gpus_per_node=4  # --verl-version 0.3.0.post1"),
    Code("RFTC325", "mini-batch-is-the-batch", W, "ppo_mini_batch_size is larger than the train batch.",
         "The mini-batch holds more responses than one train batch has (data.train_batch_size x rollout.n; "
         "verl 0.1 counted ppo_mini_batch_size in responses, later releases in prompts). The verl release the "
         "config follows accepts it (its startup check came in 0.3.0.post0 and skips dynamic batch sizes) and "
         "trains each batch as one mini-batch, so the converted config takes the whole batch per trainer step. "
         "veRL scales that step's loss by the configured mini-batch; Adam's update hardly depends on the scale, "
         "but gradient clipping does. Lower ppo_mini_batch_size to the batch to make that explicit.",
         "python3 -m verl.trainer.main_ppo data.train_batch_size=8 actor_rollout_ref.rollout.n=4 "
         "actor_rollout_ref.actor.ppo_mini_batch_size=64 actor_rollout_ref.actor.use_dynamic_bsz=True"),
    Code("RFTC326", "release-behaviour-uncertain", W, "A checkout's verl may behave either way here.",
         "The config comes from a checkout or fork of verl whose verl/version/version names a release, but veRL's "
         "main branch carried that number before and after several changes (forks declaring 0.1 have keys only "
         "verl 0.2 released). This change is one its config keys cannot place, and the two behaviours convert "
         "differently: rftc follows the declared release and names the other outcome. Read the code the message "
         "names in the checkout to know which one it runs.",
         "python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.ppo_mini_batch_size=64 "
         "actor_rollout_ref.rollout.n=8  # from a checkout declaring verl 0.1"),
    Code("RFTC327", "fork-feature", W, "The launch sets a key only its veRL fork has; Trinity's workflow must provide it.",
         "The key is in the config of the veRL fork the launch runs (composed from the fork's own folder, see "
         "RFTC230) and in no upstream release's. It drives code of that fork (a retriever, multi-turn tool calls, "
         "a state mask, a data filter), which neither upstream veRL nor Trinity-RFT 0.6 has, and no Trinity "
         "field means the same thing. The conversion goes on without it: the Trinity workflow (or plugin) that "
         "runs the job must implement the feature, or the training differs from the fork's. --report lists "
         "every such key.",
         "python3 -m verl.trainer.main_ppo max_turns=4   # run from a fork whose config adds max_turns"),
    Code("RFTC328", "not-read-by-trainer", W, "The launch sets a key its trainer composes but never reads.",
         "veRL's main_ppo composes algorithm.filter_groups (its AlgoConfig has the section since 0.5) but only the "
         "DAPO recipe's trainer (recipe.dapo.main_dapo) and, from verl 0.9.0, main_ppo's v1 trainers "
         "(trainer.use_v1, the default) sample dynamically with it; main_ppo's other trainers train on every "
         "prompt, and so does the converted config. Launch a trainer that filters groups (rftc converts it), or "
         "drop the key.",
         "python3 -m verl.trainer.main_ppo trainer.use_v1=False algorithm.filter_groups.enable=True"),
    Code("RFTC329", "mini-batch-splits-groups", I, "A mini-batch counted in responses splits a prompt's responses.",
         "Releases that count ppo_mini_batch_size in responses (verl 0.1, the Megatron worker before 0.3.0.post0) "
         "let an optimizer step take part of a prompt's rollout.n responses; veRL computes the advantages on the "
         "whole batch first. Trinity-RFT 0.6 does the same when the algorithm computes advantages per task in "
         "the explorer: the converted config explores the fewest tasks whose responses fill whole trainer steps "
         "(buffer.batch_size), trains ppo_mini_batch_size experiences a step (buffer.train_batch_size) and syncs "
         "after one veRL batch on both sides (synchronizer.explorer_sync_interval and sync_interval). Nothing "
         "to fix.",
         "python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer algorithm.adv_estimator=grpo "
         "actor_rollout_ref.rollout.n=16 actor_rollout_ref.actor.ppo_mini_batch_size=24  # --verl-version 0.2"),
    Code("RFTC330", "sft-rows-not-truncated", W, "veRL truncates long SFT rows; Trinity trains them in full.",
         "veRL's SFT datasets cut a row longer than data.max_length on the side data.truncation names (left or "
         "right). Trinity-RFT 0.6's SFT formatter renders the whole conversation and does not truncate, so such "
         "rows train on more tokens than in veRL (and need more memory). Shorten or drop the long rows in the "
         "data, or accept the difference.",
         "python3 -m verl.trainer.fsdp_sft_trainer data.train_files=/data/train.parquet data.truncation=right"),
    Code("RFTC331", "sft-loss-per-micro-batch", W, "Trinity adds up the SFT micro-batches' losses.",
         "Trinity-RFT 0.6's trainer (verl 0.8's engine with its own loss) takes each micro-batch's token mean and "
         "adds the micro-batches up, so its step's gradient is the micro-batches a GPU times their mean. veRL's "
         "fsdp_sft_trainer averages its micro-batches' token means (data.micro_batch_size_per_gpu rows each); its "
         "engine SFT trainer (verl.trainer.sft_trainer) takes the token mean of the whole step from 0.6.1. The "
         "warning names the micro-batches Trinity adds up: with gradient clipping a larger gradient is cut sooner, "
         "and tokens weigh within their micro-batch. A micro-batch size of the rows a GPU takes a step makes it "
         "one micro-batch a GPU, where memory allows.",
         "python3 -m verl.trainer.fsdp_sft_trainer data.train_files=/data/train.parquet"),
    Code("RFTC332", "sft-single-turn-template", W, "Single-turn SFT rows end with other tokens in Trinity.",
         "veRL's single-turn SFT dataset puts the prompt through the chat template as a user message and appends "
         "the response text and the tokenizer's EOS token. Trinity-RFT 0.6 (format.prompt_type plaintext) renders "
         "prompt and response as a conversation with the chat template, so the response ends with the template's "
         "end-of-turn tokens, which can differ from the EOS token. Check the template, or convert the data to "
         "chat messages.",
         "python3 -m verl.trainer.fsdp_sft_trainer data.train_files=/data/train.parquet"),
    Code("RFTC333", "sft-several-files", E, "The SFT launch names several training files.",
         "Trinity-RFT 0.6's SFT experience buffer reads one path: a file, or a folder whose data files it reads "
         "together. Nothing is written. Put the files in one folder and pass the folder, or pass one file.",
         "python3 -m verl.trainer.fsdp_sft_trainer data.train_files=[/data/a.parquet,/data/b.parquet]"),
    Code("RFTC334", "stage-starts-from-previous", W, "A later stage starts from the previous stage's model.",
         "In a pipeline of several launches (`rftc convert sft.sh grpo.sh`), Trinity-RFT 0.6 starts every stage "
         "after the first from the previous stage's latest Hugging Face checkpoint, in place of model.model_path. "
         "The launch's own model path (given here) is not used; where it is the first stage's base model, the "
         "stage trains from the fine-tuned model instead, which is what the pipeline means.",
         "rftc convert sft.sh grpo.sh -o pipeline.yaml"),
    Code("RFTC335", "stage-shared-setting", W, "Launches of a pipeline differ on a setting Trinity shares.",
         "Trinity-RFT 0.6's stages replace the mode, algorithm, buffer, data_processor, explorer and trainer "
         "sections; the others (model, cluster, synchronizer, monitor, project, checkpoint_root_dir) are one for "
         "every stage. Where the launches differ there, the message says which value the pipeline keeps. Make "
         "the scripts agree, or convert them as separate configs.",
         "rftc convert sft.sh grpo.sh -o pipeline.yaml"),
    Code("RFTC336", "checkpoint-folder-assumed", W, "The checkpoint folder is a script argument rftc is not given.",
         "trainer.default_local_dir names where checkpoints go, not what is trained, and the script takes it from "
         "an argument (`$2`) that rftc was not given. The config writes checkpoints under ./checkpoints/<project>/"
         "<name> instead. Pass the script's arguments after `--` (rftc convert SCRIPT -- ARG1 ARG2 ...), or set "
         "checkpoint_root_dir in the config.",
         "python3 -m verl.trainer.sft_trainer data.train_files=/data/t.parquet trainer.default_local_dir=$2"),
    Code("RFTC337", "sft-images-not-read", W, "Images in multi-turn SFT rows are not read by Trinity.",
         "From verl 0.7.0 veRL's multi-turn SFT dataset passes the images and videos of a row (its `images` and "
         "`videos` columns) to a multimodal model's processor, in place of the `<image>`/`<video>` placeholders "
         "of the messages. Trinity-RFT 0.6's SFT formatter reads images only for single-turn rows "
         "(format.image_key); from chat messages it reads the text. A text-only dataset or model is unaffected; "
         "for a multimodal one, put the images into the messages' content, or train it in veRL.",
         "python3 -m verl.trainer.sft_trainer data.train_files=/data/captions/train.parquet"),
    Code("RFTC338", "workflow-supplies-advantage-inputs", W, "The advantage reads inputs only the workflow writes.",
         "Trinity-RFT 0.6's gigpo advantage (the algorithm of veRL-agent's gigpo estimator) groups the steps of "
         "multi-turn trajectories by their anchor state and discounts each step's own reward. It reads both from "
         "each experience's info (env_state_hash, step_reward), which the workflow writes as the fork's environment "
         "loop records them. Without them every step is its own anchor group and only the last step is rewarded, "
         "so the advantages are the episode's alone. Run the job with a workflow that writes both, each hash "
         "unique to its task.",
         "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=gigpo algorithm.gigpo.step_advantage_w=1.0"),
    Code("RFTC339", "unsupported-distillation", E, "veRL's on-policy distillation trains otherwise than Trinity-RFT "
         "0.6's on_policy_distill.",
         "veRL 0.8 and 0.9 train a student on a teacher model's log-probs (distillation.enabled): the loss_mode "
         "estimate from the trained policy's log-prob and the teacher's, backpropagated or as the advantage of a PPO "
         "loss, with or without the task rewards' loss, clamped or not, from one teacher or several. Trinity-RFT "
         "0.6's on_policy_distill is one of these: the reverse KL k1 of each sampled token (teacher minus student "
         "log-prob) as the advantage of its ppo loss, without task rewards or clamps, the teacher the first "
         "auxiliary model its distillation workflow asks. `rftc convert` writes it where the launch trains so "
         "(loss_mode k1, use_policy_gradient, no use_task_rewards, no loss_max_clamp, one teacher, one epoch over "
         "each batch and the trainer's own old log-probs, so that the student's log-prob in the advantage is the "
         "policy each step trains, as veRL's is), and stops with this error naming each difference otherwise: "
         "converting the launch as another algorithm would train something else. Train the job in veRL, or write "
         "the Trinity config by hand.",
         "python3 -m verl.trainer.main_ppo distillation.enabled=True "
         "distillation.teacher_models.teacher_model.model_path=/models/teacher"),
    Code("RFTC343", "fork-keys-no-learning", E, "A fork's config has keys rftc cannot read, and the converted run "
         "would not learn.",
         "The veRL fork the launch runs declares keys of its own (RFTC327) that hold counts (integers above 1), "
         "which the conversion leaves out, and the converted config trains a group-relative algorithm with one rollout per task (RFTC478): every "
         "advantage is 0. A fork whose code takes the group size or the batch from one of its own keys (a "
         "`policy_rollout_n` read in place of rollout.n) trains groups the conversion does not have, so nothing "
         "is written. Set actor_rollout_ref.rollout.n to the group size the fork's code uses.",
         "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo policy_rollout_n=8   # a fork's key"),
    Code("RFTC344", "unsupported-policy-loss", E, "veRL's policy loss has no Trinity-RFT 0.6 equivalent.",
         "Trinity-RFT 0.6 registers a policy loss of the same name that computes another gradient. veRL's sapo "
         "loss is the soft gate of the ratio itself, sigmoid(tau x (ratio - 1)) x 4 / tau times the advantage, "
         "always aggregated seq-mean-token-mean: its gradient in a token's log-prob is 1 x the advantage at "
         "ratio 1 and vanishes as the ratio leaves 1. Trinity's sapo multiplies the log-prob by the detached "
         "gate: its gradient is 2 / tau x the advantage at ratio 1 and grows with the ratio, aggregated by "
         "loss_agg_mode. No Trinity loss trains veRL's, so nothing is written. Use a loss Trinity has (vanilla, "
         "gspo, cispo, gpg), or train the job in veRL.",
         "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo "
         "actor_rollout_ref.actor.policy_loss.loss_mode=sapo"),
    Code("RFTC340", "off-policy-lag-differs", W, "Trinity reproduces a veRL trainer loop's lag only approximately.",
         "veRL's asynchronous trainers (main_ppo's v1 colocate_async and separate_async, one_step_off_policy, "
         "fully_async_policy) generate rollouts ahead of the trainer. Trinity-RFT 0.6's fixed sync style "
         "reproduces a lag of whole explorer steps (synchronizer.sync_offset) and a weight update every "
         "sync_interval trainer steps. The message says what differs and by how much: a lag that is not whole "
         "explorer steps, a replay-buffer threshold that drops or waits for old rollouts, trainer GPUs lent to "
         "rollout, or a rollout whose GPUs per node differ from the trainer's. Change the veRL setting so that "
         "the lag is whole batches, or accept the difference.",
         "python3 -m verl.trainer.main_ppo trainer.v1.trainer_mode=colocate_async "
         "trainer.v1.sampler.max_off_policy_threshold=1"),
    Code("RFTC341", "partial-rollout", W, "veRL resumes unfinished responses with new weights; Trinity does not.",
         "veRL's colocate_async, separate_async and fully_async trainers (the latter with "
         "async_training.partial_rollout, on by default) abort unfinished requests at a weight update and "
         "resume them with the new weights, so one response can be generated by two weight versions. Trinity-RFT "
         "0.6 generates each response with one version: the lag is the same, the mixture within a response is "
         "not. Set async_training.partial_rollout=False in the veRL launch to compare like with like.",
         "python3 -m verl.trainer.main_ppo trainer.v1.trainer_mode=colocate_async"),
    Code("RFTC342", "async-setting-not-carried", W, "A setting of veRL's asynchronous trainer loop has no Trinity "
         "equivalent.",
         "The setting changes which rollouts veRL trains on (a custom replay-buffer sampler, refilling failed "
         "groups, a rollout budget) and Trinity-RFT 0.6 has no field for it; the converted config trains "
         "without it. Implement it in a Trinity sample strategy or workflow, or drop it.",
         "python3 -m verl.trainer.main_ppo trainer.v1.trainer_mode=separate_async "
         "trainer.v1.sampler.sync_refill_failed_groups=True"),
]
