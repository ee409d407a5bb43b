"""Diagnostic codes of the shell stage (RFTC100-RFTC199): reading a launch script as bash would."""

from __future__ import annotations

from rftc.diagnostics.model import Code, Severity

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

CODES = [
    Code("RFTC100", "shell-syntax-error", E, "The script is not valid bash (in the subset rftc reads).",
         "bash would refuse to run this line too, or it uses a construct outside grammar/launch.lark. bash runs "
         "the commands before the error and stops there; when no launch comes before it, there is nothing to "
         "compile (one that does is RFTC121). Fix the line (the message shows the token where reading stopped and "
         "what was expected there).",
         "if [ \"$X\" = y ]; then\n  python3 -m verl.trainer.main_ppo\n"),
    Code("RFTC101", "unterminated-quote", E, "A quote is opened and never closed.",
         "bash would read everything up to the end of the file as one word (or refuse to run). The launch cannot "
         "be read. Close the quote.", "python3 -m verl.trainer.main_ppo trainer.project_name='demo\n"),
    Code("RFTC102", "continuation-cut-by-comment", W, "A comment line inside a backslash continuation ends the command.",
         "bash ends the command at the comment line, so every argument after it is dropped from the launch and "
         "the following lines run as separate commands (which fail). veRL runs without those overrides; so does "
         "the compiled config. Move the comment out of the continued command or delete it.",
         "python3 -m verl.trainer.main_ppo \\\n    trainer.nnodes=1 \\\n    # a note\n    trainer.total_epochs=15\n"),
    Code("RFTC103", "backslash-space", W, "A backslash followed by blanks at the end of a line does not continue it.",
         "`\\ ` escapes the blank: bash passes a lone ' ' argument and ends the command at the end of the line. "
         "The arguments on the following lines are lost (they run as a separate command). Delete the blanks "
         "after the backslash.", "python3 -m verl.trainer.main_ppo \\ \n    trainer.nnodes=1\n"),
    Code("RFTC104", "blank-line-after-continuation", W, "A backslash continuation runs into a blank line.",
         "The blank line ends the command: the arguments after it are not passed to the launch, and run as a "
         "separate command instead. Remove the blank line or the trailing backslash.",
         "python3 -m verl.trainer.main_ppo \\\n    trainer.nnodes=1 \\\n\n    trainer.total_epochs=15\n"),
    Code("RFTC105", "orphan-override-line", W, "Override lines run as a command of their own.",
         "A broken continuation (RFTC102-RFTC104) left `key=value` lines that bash runs as a separate command, "
         "which does not exist. Those overrides never reach the launch; rftc does not apply them either. Rejoin "
         "them to the launch command.", "python3 -m verl.trainer.main_ppo \\\n\n    trainer.nnodes=2\n"),
    Code("RFTC106", "unset-variable-symbolic", I, "A variable the script never sets reaches the launch.",
         "Its value comes from the environment the script runs in, which rftc cannot see. It is kept as an "
         "OmegaConf environment interpolation `${oc.env:NAME}` and resolved when the config is loaded. Pass "
         "`--env NAME=value` to rftc to fix the value at compile time. The script's own arguments (`$1`, `$#`) are "
         "named as such when they are not given after `--`: a value made from one is never written into the "
         "config as an environment variable (a GPU count or rollout tensor parallel size is assumed, RFTC318; any "
         "other value is RFTC311).",
         "python3 -m verl.trainer.main_ppo data.train_files=$HOME/data/train.parquet\n"),
    Code("RFTC107", "dynamic-command-substitution", I, "A command substitution whose value is only known at run time.",
         "`$(date ...)`, `$(nproc)`, `$(nvidia-smi ... | wc -l)` and `$(hostname)` are not evaluated. A date "
         "becomes Hydra's `${now:FORMAT}` resolver (one per blank-separated part of the format, so an unquoted date "
         "splits into words as bash splits it); the others become `${oc.env:NAME}` interpolations named in "
         "the message. Pass `--env NAME=value` to fix them at compile time.",
         "python3 -m verl.trainer.main_ppo trainer.experiment_name=run-$(date +%Y%m%d)\n"),
    Code("RFTC108", "unresolved-command-substitution", W, "A command substitution rftc cannot evaluate.",
         "rftc never runs commands from the script. Only pwd, cd, dirname, basename, realpath, readlink -f, "
         "echo, printf and `cat` of a heredoc or here-string are evaluated; any other `$(...)` is kept as the "
         "`${oc.env:NAME}` interpolation named in the message. Arithmetic `$((...))` that needs a variable the "
         "script does not set (or that fails in bash, such as a division by a variable set only later) is kept "
         "as `${oc.env:RFTC_ARITH_NAME}`, one word as bash's integer would be. Pass `--env NAME=value`, or "
         "write the value into the script.",
         "python3 -m verl.trainer.main_ppo trainer.nnodes=$(python3 -c 'print(2)')\n"),
    Code("RFTC109", "branch-value-chosen", W, "A launch value depends on something only the running machine decides.",
         "A condition rftc cannot decide (it reads a variable the script never sets, a file, a command's result or "
         "output) gives a variable different values in its branches, or a command substitution prints one of a few "
         "literals (`cmd && echo a || echo b`). rftc evaluated every branch and took the first viable one in "
         "source order (a branch ending in a failing exit is a guard, never taken); the message names the variable, "
         "what was taken, and the `--env NAME=VALUE` that takes another branch. Pass it to compile the other one.",
         "DEVICE=$(python3 -c 'import torch_npu' 2>/dev/null && echo npu || echo gpu)\n"
         "case \"$DEVICE\" in gpu) N=8 ;; npu) N=16 ;; esac\npython3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=$N\n"),
    Code("RFTC110", "loop-not-evaluated", W, "A loop whose iterations cannot be known statically.",
         "The loop body is skipped (or stopped after rftc's iteration bound). Launches or assignments inside it "
         "are not seen. Make the loop bounds literal, or pass the variables it depends on with `--env`.",
         "while ! nvidia-smi; do sleep 1; done\n"),
    Code("RFTC111", "source-missing", W, "A sourced file cannot be read.",
         "Variables and functions it defines are unknown to rftc, so values that depend on them stay symbolic "
         "(`${oc.env:NAME}`). Put the file beside the script, or pass its variables with `--env`.",
         "source ./env.sh\n"),
    Code("RFTC112", "no-launch", W, "No python launch was found in the script.",
         "The script never runs `python -m ...` (directly, or through ray job submit, torchrun, srun, uv run, "
         "a launcher array or variable). There is nothing to compile. Check that the launch line is reached "
         "(not inside a branch that is not taken) and not hidden behind a construct rftc does not read.",
         "echo 'nothing to run here'\n"),
    Code("RFTC113", "several-launches", I, "The script launches more than one python program.",
         "Each launch is listed; the commands that compile one training run use the first training launch "
         "(main_ppo, a recipe, an experimental trainer or SFT) unless told otherwise. Check that it is the one "
         "you mean.", "python3 -m verl.trainer.main_ppo trainer.nnodes=1\npython3 -m verl.model_merger merge\n"),
    Code("RFTC114", "unsupported-construct", W, "A bash construct rftc does not evaluate.",
         "Functions nested or called too often, command substitutions or files nested too deeply, and values that "
         "grow without bound are not evaluated. Anything they would set stays unknown. Rewrite the part that "
         "matters for the launch without them. (`eval` and `bash -c` are evaluated: their text is read as bash "
         "reads it; a diagnostic inside it names the command, e.g. `run.sh:12 (eval)`.)",
         "retry() { retry; }\nretry\n"),
    Code("RFTC115", "launch-target-unknown", W, "A launch whose program is not known statically.",
         "The command that starts python comes from a variable that is not set (`$COMMAND`), or the module name "
         "`-m` is not known. The launch cannot be classified or compiled. Set the variable in the script or with "
         "`--env`.", "$COMMAND trainer.nnodes=2\n"),
    Code("RFTC116", "alternative-not-static", W, "`${VAR:+word}` on a variable rftc cannot know, used plainly too.",
         "The variable is not set in the script, so its value comes from the environment. An unknown variable is "
         "taken as unset where the script decides on it (`${NAME:-default}`, `${NAME:+word}`, conditions), and "
         "kept as `${oc.env:NAME}` where its value is used. When one value does both, as in "
         "`${SUFFIX:+\"-\"}${SUFFIX}`, the `${oc.env:NAME}` part only loads with NAME set, so `word` is used as "
         "if NAME were set (and, with ':+', not empty). If NAME is unset or empty when the script runs, bash "
         "leaves `word` out and the value differs. Pass `--env NAME=value` (or `--env NAME=`) to decide it.",
         'python3 -m verl.trainer.main_ppo trainer.experiment_name=run${SUFFIX:+"-"}${SUFFIX}\n'),
    Code("RFTC117", "guard-assumed-passed", I, "A check that stops the script is assumed to pass.",
         "A condition rftc cannot decide leads to a failing `exit` or `return` (`[ -z \"$MODEL_PATH\" ] && exit 1`, "
         "`[ -d \"$DATA\" ] || exit 1`, a usage check on `$#`): the author's intent is that it passes where the "
         "script runs, so rftc reads on as if it did. The message names the condition and the `--env` (or the "
         "script arguments after `--`) that decide it.",
         "if [ -z \"$MODEL_PATH\" ]; then echo 'set MODEL_PATH'; exit 1; fi\n"),
    Code("RFTC118", "launch-under-condition", I, "A launch runs only in one branch of a condition rftc cannot decide.",
         "Other branches of the condition are viable too (they launch differently or not at all), so whether this "
         "launch runs is decided where the script runs (`[ \"$MASTER_IP\" = \"$CURR_IP\" ]`: the head node). rftc "
         "compiles it as the script's launch; `--list` shows every launch with the conditions it sits under.",
         "if [ \"$RANK\" = 0 ]; then python3 -m verl.trainer.main_ppo trainer.nnodes=2; else ray start --address=$HEAD; fi\n"),
    Code("RFTC119", "exploration-bound", W, "Too many branches of undecidable conditions to explore.",
         "rftc evaluates every branch of a condition it cannot decide, up to a bound per script (branches of nested "
         "conditions and of conditions in loops count). Past it, each further condition is decided as bash would "
         "decide it with the unknown variables unset and commands succeeding. Pass `--env NAME=value` for the "
         "values the conditions read, so that fewer stay undecided.",
         "for i in $(seq 1000); do if [ -f \"/ckpt/$i\" ]; then N=$i; fi; done\n"),
    Code("RFTC120", "placeholder-redirect", W, "A `<placeholder>` left in the script reads as two redirections.",
         "`export PYTHONPATH=<your_path>/x` is valid bash: `<your_path` redirects the input and `>/x` the output, so "
         "the command fails when the script runs (the file `your_path` does not exist) and sets nothing. Replace "
         "the placeholder with the real value.",
         "export PYTHONPATH=<your_path>/verl:$PYTHONPATH\n"),
    Code("RFTC121", "syntax-error-after-launch", W, "A syntax error that bash meets only after the launch ran.",
         "bash reads and runs a script one top-level command at a time (a loop or an `if` with all its lines), so "
         "the commands before a syntax error run, the launch among them, and bash stops (exit status 2) when it "
         "reaches the error; `bash -n` rejects the whole file. rftc converts the launches that run and reports "
         "the error here. Fix the line: the script fails after training.",
         "python3 -m verl.trainer.main_ppo trainer.nnodes=1\ndone\n"),
    Code("RFTC122", "slurm-directive", I, "A SLURM_* variable is read from the batch script's own #SBATCH directives.",
         "A script with `#SBATCH` lines before its first command is a Slurm batch job: sbatch allocates what they "
         "ask for and sets SLURM_JOB_NUM_NODES / SLURM_NNODES (--nodes), SLURM_GPUS_ON_NODE (--gres=gpu:N, "
         "--gpus-per-node, --gpus on one node, or --gpus-per-task times --ntasks-per-node), SLURM_NTASKS, "
         "SLURM_NTASKS_PER_NODE, SLURM_CPUS_PER_TASK, SLURM_GPUS_PER_NODE, SLURM_GPUS_PER_TASK, SLURM_GPUS, "
         "SLURM_JOB_NAME and SLURM_JOB_PARTITION in the job's environment. rftc reads them as the job `sbatch "
         "run.sh` starts has them; options given on sbatch's command line override the directives: pass them with "
         "--env NAME=value.",
         "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:8\npython3 -m verl.trainer.main_ppo "
         "trainer.nnodes=$SLURM_JOB_NUM_NODES trainer.n_gpus_per_node=$SLURM_GPUS_ON_NODE\n"),
    Code("RFTC123", "unquoted-caller-value", W, "A launch word that is only an unquoted value the caller gives.",
         "A word such as `$EXTRA_ARGS` or `$1`, unquoted, whose variable the script never sets: bash splits the "
         "value it has where the script runs into words (on blanks), so it may be no word at all (unset or "
         "empty, as bash has it where nothing sets it), one, or many overrides. rftc cannot know which, never "
         "guesses one override, and leaves the word out of the launch, as bash does with the variable unset. "
         "Pass `--env NAME='key=value key2=value2'` to compile the words it holds (the script's arguments after "
         "`--`), or quote it (`\"$NAME\"`) when it is one word.",
         "python3 -m verl.trainer.main_ppo trainer.nnodes=1 $EXTRA_ARGS\n"),
    Code("RFTC124", "launch-arguments-from-caller", W, "Every argument of the launch is the script's own, not given.",
         "The launch passes `\"$@\"` and nothing else: its overrides are whatever the script's user gives when "
         "running it (`bash run.sh data.train_files=... trainer.nnodes=2`). Without them rftc reads the launch as "
         "bash runs the script with no arguments, on the config's defaults, and what veRL then refuses is what "
         "the user's arguments usually supply. Pass the script's arguments after `--` "
         "(`rftc convert run.sh -- key=value ...`).",
         "python3 -m verl.trainer.main_ppo \"$@\"\n"),
]
