"""Diagnostic codes of the veRL stage (RFTC2xx): Hydra overrides, config composition and verl versions."""

from rftc.diagnostics.model import Code, Severity

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

CODES = [
    Code("RFTC200", "override-syntax", E, "Hydra's override grammar rejects this argument.",
         "Hydra parses every `key=value` argument with its override grammar before anything runs; this one does "
         "not parse (an unbalanced bracket, a stray '}', a quote inside an unquoted value). The training job "
         "would stop at startup. Fix the value, or quote it for Hydra ('...') to pass it as a plain string.",
         "trainer.experiment_name=qwen3_4b}", "overrides"),
    Code("RFTC201", "override-sweep", E, "An unquoted comma makes the value a Hydra sweep.",
         "For Hydra, `key=a,b` asks for several runs (a multirun sweep), and a plain launch rejects it with "
         "'Ambiguous value'. If the value is one string that contains commas, quote it for Hydra: "
         "`key='a,b'` (in a shell script: `key=\\'a,b\\'` or \"key='a,b'\").",
         "algorithm.rollout_correction.rollout_rs=token_k1,seq_max_k2", "overrides"),
    Code("RFTC202", "override-placeholder", E, "A placeholder like <path_to_model> was left in an override.",
         "The script still contains a template placeholder in angle brackets. Hydra's lexer rejects '<', so the "
         "job would not start; and the value is not a real one anyway. Replace it with the real path or value.",
         "actor_rollout_ref.model.path=<path_to_model>", "overrides"),
    Code("RFTC203", "unknown-key", E, "The override sets a key that is not in the veRL config.",
         "Hydra runs the config in struct mode: overriding a key that the composed config does not have stops "
         "the job at startup ('Could not override ...'). Usually a typo, a key of another verl version, or a key "
         "that exists only with another config (e.g. Megatron keys need model_engine=megatron). Fix the key, "
         "choose the right config, or prefix the override with '+' to add a new key on purpose.",
         "trainer.nnode=2", "overrides"),
    Code("RFTC204", "add-existing-key", E, "'+key=value' adds a key that already exists.",
         "A '+' prefix asks Hydra to append a new key; when the key already has a (non-null) value Hydra stops "
         "with 'Could not append to config'. Drop the '+' to override the value, or write '++' to add or "
         "override.", "+trainer.nnodes=2", "overrides"),
    Code("RFTC205", "delete-missing-key", E, "'~key' deletes a key that does not exist or is null.",
         "Hydra's '~' removes a key, and stops with 'Could not delete from config' when the key is missing or "
         "its value is null (or differs from the value given with '~key=value'). Remove the override, or fix "
         "the key.", "~trainer.no_such_key", "overrides"),
    Code("RFTC206", "duplicate-override", W, "The same key is set twice; the earlier value is ignored.",
         "Hydra applies overrides in order, so the last one wins and the earlier one has no effect. This is "
         "often a leftover from editing a long launch command. Remove the earlier override (or the later one, "
         "if it is the earlier value you meant).", "trainer.nnodes=1 trainer.nnodes=2", "overrides"),
    Code("RFTC207", "group-override", E, "A config group override names an option or group Hydra cannot compose.",
         "Overrides like `model_engine=megatron`, `engine=megatron` or `actor@actor_rollout_ref.actor=megatron_actor` "
         "choose a config file of a Hydra config group; rftc composes them as Hydra does on the release's own "
         "config files. An option or group that does not exist in this verl version, a package that matches no "
         "entry of the defaults list, or a choice whose config does not compose is Hydra's error, and the job "
         "would not start. Use one of the listed options.", "model_engine=megatrn", "overrides"),
    Code("RFTC208", "hydra-override", I, "An override of Hydra's own settings (hydra.*) is recorded, not applied.",
         "`hydra.*` keys configure Hydra (run directory, search path, logging), not the training job, so they "
         "do not appear in the effective veRL config. A `hydra.searchpath` naming an external package means the "
         "job may compose configs rftc does not see.", "hydra.run.dir=outputs/x", "overrides"),
    Code("RFTC209", "config-not-found", E, "--config-name names a config that cannot be found.",
         "Hydra looks for <config-name>.yaml in the --config-path directory (relative paths are relative to "
         "the entry module's directory). Without it the job stops at startup ('Cannot find primary config'). "
         "Fix the name or the path.", "--config-name=no_such_trainer", "cli"),
    Code("RFTC210", "config-path-unknown", E, "The config directory or name cannot be determined statically.",
         "The config directory (or name) comes from a value rftc cannot know (an environment variable without a "
         "default, a script argument, a command substitution), or points at a directory that does not exist "
         "next to the script. "
         "The effective config cannot be composed. Pass the variable with --env NAME=VALUE, or give the path.",
         "--config-path=$UNSET_DIR", "cli"),
    Code("RFTC211", "config-file-error", E, "A config file of the launch cannot be read or composed.",
         "A YAML file named by --config-path/--config-name (or in its defaults list) is not valid YAML, is not "
         "a mapping, or names a defaults entry that does not exist. Hydra would stop at startup. Fix the file.",
         "defaults: [no_such_file]", "yaml"),
    Code("RFTC212", "legacy-reward-key", W, "A legacy reward key that verl 0.9's main_ppo ignores.",
         "verl 0.9 still accepts `reward_model.*`, `custom_reward_function.*` and `sandbox_fusion.*` (they "
         "compose as null placeholders), but main_ppo no longer copies them into the new `reward.*` section, so "
         "they have no effect there: the reward function, reward manager or reward model you set is silently "
         "not used. Use the new key shown in the message.", "reward_model.reward_manager=dapo", "overrides"),
    Code("RFTC213", "unknown-verl-version", E, "--verl-version names a version rftc has no schema for.",
         "rftc bundles the composed default config of every verl release on PyPI (0.1 to 0.9.1) and cannot "
         "check overrides against another one. Use one of the bundled versions listed in the hint.",
         "--verl-version 0.2.1", "cli"),
    Code("RFTC214", "interpolation-error", E, "An interpolation in the config cannot be resolved.",
         "A value like ${a.b} refers to a key that does not exist, is mandatory and unset, forms a cycle, or "
         "uses a resolver rftc does not evaluate. verl would fail when it reads this value. Set the key it "
         "refers to, or replace the interpolation with a value.", "trainer.experiment_name='${no.such.key}'",
         "overrides"),
    Code("RFTC215", "key-of-other-version", E, "The key exists in another verl version, not in the one used.",
         "The override sets a key that the chosen verl version does not have, but another bundled version does: "
         "the script was written for another release, where the key was removed, renamed or not yet added. "
         "Hydra rejects it. Use the new key shown in the hint, or pick the version with --verl-version.",
         "actor_rollout_ref.actor.megatron.grad_offload=True", "overrides"),
    Code("RFTC216", "merge-type-mismatch", E, "A dict value is merged into a list (or a list into a dict).",
         "When the key holds a dict or a list, Hydra merges the override's value into it, and a dict cannot be "
         "merged into a list or the reverse. The job would stop at startup. Write a value of the key's kind.",
         "trainer.logger={a:1}", "overrides"),
    Code("RFTC217", "mandatory-value-unset", W, "A mandatory value (???) is left unset.",
         "The verl config marks this key as mandatory ('???'). Hydra composes without it, but verl fails when "
         "it reads the value (e.g. `actor_rollout_ref.rollout.name` must be vllm, sglang or trtllm). Set it.",
         "trainer.nnodes=1", "overrides"),
    Code("RFTC218", "no-schema", I, "rftc has no bundled config for this training entry point.",
         "The launch runs a trainer (a recipe, or another entry module) whose veRL config rftc does not bundle "
         "and that names no config of its own, so its overrides are not checked and no effective config is "
         "computed. Give --config-path/--config-name when the trainer uses a config folder next to it.",
         "python3 -m recipe.prime.main_prime trainer.nnodes=2", "sh"),
    Code("RFTC219", "version-choice", I, "Which verl version the overrides were checked against, and why.",
         "Without --verl-version, rftc uses the newest bundled verl release under which every key the launch "
         "sets exists, unless a key the launch sets has no effect there but does in an older release where "
         "every key exists too (e.g. algorithm.kl_ctrl.kl_coef without use_kl_in_reward: verl put the KL in "
         "the reward by default before 0.4.0) and veRL's startup checks pass there; then that older release (where "
         "they refuse the launch, the newest, and the note says so). A release the repository pins comes first "
         "(RFTC224). When no release accepts every key, it "
         "uses the one that rejects the fewest. This note appears when the choice is not the newest release, "
         "and names the releases that lack a key and the others where every key exists. The release decides "
         "the semantics too (batch units, KL switches, startup checks): where an older release was chosen "
         "over the newest where every key exists and the two train differently, the note is RFTC226, a "
         "warning naming what differs. Pass --verl-version to choose.",
         "actor_rollout_ref.actor.megatron.grad_offload=True", "overrides"),
    Code("RFTC220", "retired-key-no-op", W, "An override sets a removed key to the behaviour verl kept; it is dropped.",
         "No bundled verl version has every key the launch sets (it was written between two releases), and this "
         "override sets a key the chosen version removed, to the one behaviour that version still has (e.g. "
         "`reward_model.use_reward_loop=True`: since 0.7.1 the reward loop is always used). It changes nothing "
         "there, so rftc drops it instead of rejecting the launch. With --verl-version the key is the error "
         "Hydra gives (RFTC215). Remove the override.",
         "reward_model.use_reward_loop=True actor_rollout_ref.model.lora.merge=True", "overrides"),
    Code("RFTC221", "startup-check", E, "veRL's startup validation refuses the effective config.",
         "Before anything runs, main_ppo validates the composed config (verl.utils.config.validate_config and the "
         "actor/critic config classes it builds; RayPPOTrainer._validate_config in 0.5.0), with the rules of the "
         "verl version the launch is composed against: without dynamic batch sizes the actor, the rollout's and "
         "(with a KL term) the reference model's log-prob passes, and a critic each need exactly one of the "
         "deprecated global micro batch size and its per-GPU form; the batch must split over the GPUs; "
         "loss_agg_mode must be a known one; sequence parallelism needs use_remove_padding; sampled validation "
         "needs a temperature above 0. The message is veRL's own. When its workers start, veRL divides a global "
         "micro batch size by their data-parallel ranks (up to 0.7.x), and a size that divides to 0 fails there; "
         "from 0.8.0 the workers read only the per-GPU sizes (an assertion without a message, which rftc words). "
         "veRL stops at startup, and Trinity's trainer, "
         "which runs the same checks, fails the same way, so nothing is converted. Add or fix the key named in "
         "the hint.", "actor_rollout_ref.actor.ppo_mini_batch_size=64 (no ppo_micro_batch_size_per_gpu)",
         "overrides"),
    Code("RFTC222", "startup-notice", I, "veRL notices that a KL penalty is in both the reward and the loss.",
         "With algorithm.use_kl_in_reward=True and actor_rollout_ref.actor.use_kl_loss=True, main_ppo prints "
         "'NOTICE: You have both enabled in-reward kl and kl loss.' and goes on: the KL to the reference model is "
         "penalised twice. Keep one of them unless that is intended.",
         "algorithm.use_kl_in_reward=True actor_rollout_ref.actor.use_kl_loss=True", "overrides"),
    Code("RFTC223", "startup-deprecated", W, "veRL warns at startup that data.val_batch_size is deprecated.",
         "main_ppo prints 'WARNING: val_batch_size is deprecated.' when data.val_batch_size is set: validation "
         "data goes to the inference engines as one batch, so the value has no effect. Remove it.",
         "data.val_batch_size=1312", "overrides"),
    Code("RFTC224", "pinned-release", I, "The repository pins the verl release; the launch is composed under it.",
         "The repository the launch belongs to (the script's folder and its parents up to the first with setup.py, "
         "pyproject.toml, setup.cfg or .git) names the verl it installs: uv.lock or poetry.lock, "
         "requirements*.txt, pyproject's [project] dependencies, setup.py's install_requires (read, never run), "
         "setup.cfg, or a setup script that clones a release tag. That is stronger evidence than the keys the "
         "launch sets, so the bundled releases the pin allows are the only candidates (keys choose among them). "
         "Optional extras are ignored. Pass --verl-version to choose another.",
         "# pyproject.toml: dependencies = [\"verl==0.4.1\"]\npython3 -m verl.trainer.main_ppo data.train_files=x", "sh"),
    Code("RFTC225", "pin-passed-over", W, "The repository names verl in a way that pins no bundled release.",
         "A packaging file names verl but no bundled release: a branch (`verl @ git+...@main`), a commit, a "
         "submodule (it records a commit), or a release rftc has no schema for (newer than the bundled ones). The "
         "release is chosen by another pin or by the launch's keys, which may not be the one the job runs: pass "
         "--verl-version to name it, or --verl-source DIR to compose the checkout's own config.",
         "# requirements.txt: verl @ git+https://github.com/volcengine/verl@main\npython3 -m verl.trainer.main_ppo", "sh"),
    Code("RFTC226", "release-choice-changes-training", W, "The release the launch's keys point at trains "
         "differently from the newest release where every key exists.",
         "No --verl-version, no pin in the repository and no veRL checkout say which release the job runs, so rftc "
         "infers it from the keys the launch sets (RFTC219): here an older release than the newest where every "
         "key exists, because a key the launch sets has no effect in the newer ones (e.g. "
         "algorithm.kl_ctrl.kl_coef without use_kl_in_reward: verl put the KL in the reward by default before "
         "0.4.0). The launch composed under each of the two releases is read as rftc diff reads it, and they "
         "train differently: the message names every quantity that differs, with its value under each (e.g. KL "
         "in the reward, the entropy coefficient and the dual clip, whose defaults changed). Where the model cannot "
         "compute with the launch's values (one known only when the script runs, one of another kind than the "
         "key's default), it says why instead, and that the two may train differently. The conversion "
         "follows the older release; if the job runs another, pass --verl-version with it, or pin verl in the "
         "repository (requirements.txt, pyproject.toml, a lock file: RFTC224) so that every tool reads the same "
         "release. Where the two train the same, the choice is RFTC219, an info.",
         "algorithm.kl_ctrl.kl_coef=0.0005 actor_rollout_ref.rollout.name=vllm critic.ppo_micro_batch_size_per_gpu=2 "
         "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 "
         "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 "
         "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2", "overrides"),
    Code("RFTC227", "not-a-number", E, "An override gives a number key NaN, or an integer key infinity.",
         "Hydra reads `nan`, `inf` and a literal past 1.8e308 (such as a mistyped `1e309`) as floats. NaN in a "
         "numeric setting, or infinity in one that holds an integer (a length, a batch size, a step count), is "
         "no value veRL can compute with: it fails at startup or where it first uses the value. The override is "
         "not applied and nothing is written. Give the key a finite value of its kind.",
         "data.max_prompt_length=1e309", "overrides"),
    Code("RFTC228", "fork-lacks-startup-check", W, "A startup check of upstream veRL is not in the code of the "
         "veRL fork the launch runs.",
         "The launch imports a veRL fork whose own validation code (its trainer/ppo/ray_trainer.py, "
         "utils/config.py, workers/config/actor.py and critic.py, read with ast) never reads a setting one of "
         "upstream's startup checks (RFTC221) compares: the fork dropped or changed the check, and what its "
         "trainer does with those values is known only from its code. rftc does not present upstream's refusal as "
         "the fork's; the conversion follows upstream veRL's semantics, so read the fork's trainer before training "
         "with the result. A checkout without those files (a folder of configs) gets upstream's checks.",
         "python3 -m verl.trainer.main_ppo data.train_batch_size=16 actor_rollout_ref.actor.ppo_mini_batch_size=256"
         "   # from a fork whose _validate_config has no mini-batch check"),
    Code("RFTC229", "release-era-trainer", W, "The launch names an off-policy trainer by the module name of the "
         "releases that shipped it as a recipe.",
         "veRL shipped its one-step-off trainer as `recipe.one_step_off_policy.main_ppo` (0.5.0 to 0.7.0) and its "
         "fully asynchronous trainer as `recipe.fully_async_policy.fully_async_main` (0.6.1 to 0.7.0): recipes of "
         "the repository, beside the verl package, which no wheel ships; 0.7.1 moved them to "
         "`verl.experimental.one_step_off_policy.main_ppo` and `verl.experimental.fully_async_policy."
         "fully_async_main`, whose config folders its wheel bundles. From a checkout of those releases the launch "
         "runs: rftc converts it as that trainer, with the config 0.7.1 bundles for it and the semantics of the "
         "release pinned with --verl-version (else the last that shipped the name). A pinned release that did not "
         "ship the name is an error: the module does not exist there.",
         "python3 -m recipe.fully_async_policy.fully_async_main async_training.staleness_threshold=0.5"),
    Code("RFTC230", "verl-source", I, "The launch composes the config of a veRL checkout or fork, not a bundled release.",
         "`python3 -m verl.trainer.main_ppo` imports the `verl` package of the directory it runs in (or the copy "
         "the repository installs editable), and Hydra composes that copy's own config folder. rftc finds it as "
         "Python would (the launch's directory, the PYTHONPATH the script sets, then the script's folder and its "
         "parents: verl/, src/verl/, or "
         "a veRL checkout in a subfolder; --verl-source DIR names one) and composes it with hydra-core, so a "
         "fork's own keys and its group choices compose as they do for the job. The message names the folder, "
         "the version the checkout declares and the upstream release whose semantics (batch units, defaults, "
         "startup checks) the conversion follows; the note lists the keys the fork adds. To check against a "
         "bundled release instead, pass --verl-source bundled or --verl-version.",
         "rftc convert scripts/train.sh   # in a fork's checkout, beside its verl/trainer/config/", "cli"),
    Code("RFTC231", "config-chosen-by-keys", W, "The checkout's entry module is missing: the config was chosen by "
         "the launch's keys.",
         "Hydra composes the config that the entry module's @hydra.main names, and a fork may name its own "
         "(`config_name='ppo_trainer_mt'`). rftc reads that decorator from the checkout's copy of the module; where "
         "the copy is missing (the package has its config folder, not that module) or names the config through a variable, it tries "
         "upstream's name, and when that config lacks keys the launch sets while exactly one other config of the "
         "folder has them all, it composes that one and says so. Name the config with --config-name, or run rftc "
         "in the whole checkout, to make it certain.",
         "rftc convert train.sh   # beside a verl/trainer/config/ whose ppo_trainer_mt.yaml has the launch's "
         "keys, without verl/trainer/main_ppo.py", "cli"),
    Code("RFTC232", "first-of-several-launches", W, "The script trains several times; one config is the first "
         "launch's.",
         "A script that launches training more than once (a loop over curriculum stages or learning rates, a "
         "retry after a failure, one launch after another) runs them one after the other, and each has a config "
         "of its own. Where one config is asked for (stdout, -o FILE) rftc writes the one of "
         "the launch the script runs first and names the others. `--invocation N` converts another; "
         "`--out-dir DIR` writes one config per launch; `--list` shows them.",
         "for lr in 1e-6 2e-6; do\n  python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.optim.lr=$lr\ndone\n"),
    Code("RFTC233", "fork-entry-module", I, "A fork's own entry module runs veRL's PPO trainer: converted as main_ppo.",
         "`python3 -m myfork.trainer.main_ppo` runs the file Python finds for that name: along the launch's working "
         "directory (for `python3 path/main.py`, the file's folder), the PYTHONPATH the script sets, then what the "
         "repository installs (its src/ folder or root, nested projects), a regular package before a namespace "
         "one. rftc reads that file with ast, never importing it: its `@hydra.main(config_path=..., "
         "config_name=...)` names the config Hydra composes, relative to the file, and a module that calls veRL's "
         "run_ppo or RayPPOTrainer is veRL's main_ppo on that config. The message names the file, where Python "
         "finds it, the decorator's line and the config.",
         "python3 -m myfork.trainer.main_ppo data.train_files=x.parquet   # myfork/trainer/main_ppo.py: "
         "@hydra.main(config_path='config', config_name='ppo_trainer') ... run_ppo(config)"),
    Code("RFTC234", "fork-trainer-class", W, "The fork's entry module trains with a trainer class of its own.",
         "The module instantiates a trainer class that is not veRL's RayPPOTrainer (defined in the fork, or "
         "imported from it). The config is composed and converted as veRL's main_ppo, whose semantics Trinity "
         "follows; what the fork's class does differently (its own advantage, sampling or loss) is not in the "
         "converted config. The message names the class and the keys of the fork's config that no veRL release "
         "has, whose meaning only its code knows; read it before training with the result. The same holds for a "
         "checkout's own verl/trainer/main_ppo.py that trains with a class of its own.",
         "python3 -m myfork.main   # myfork/main.py: from myfork.trainer import MyPPOTrainer ... "
         "MyPPOTrainer(config)"),
    Code("RFTC235", "fork-entry-not-hydra", E, "The fork's entry module builds its config in a way rftc cannot "
         "follow from its source.",
         "The module Python runs for the launch calls veRL's trainer, and either names its config through a value "
         "rftc cannot read in its `@hydra.main`, or has no `@hydra.main` and builds its config in code whose "
         "outcome only its run knows: a path from the environment, a merge in a conditional or a loop, a call rftc "
         "does not follow, words argparse refuses. (A main that parses its words with argparse and merges "
         "OmegaConf.load files and from_dotlist / from_cli in straight-line code is composed.) The message names "
         "the line; nothing is composed. Convert a launch of verl.trainer.main_ppo with the config file it loads "
         "(`--config-path DIR --config-name NAME`).",
         "python3 -m myfork.train   # myfork/train.py: run_ppo(OmegaConf.load(os.environ['TRAIN_CONFIG']))"),
    Code("RFTC236", "container-config-path", W, "An absolute --config-path or a PYTHONPATH entry that is not here "
         "was found in the repository by its tail.",
         "A path like `/workspace/<repo>/cfg` exists where the job runs (a container that mounts the repository, "
         "the author's machine), not here. rftc looks for its tails, the longest first, from the launch's "
         "directory and the script's folder (the whole path in their parents too, a shorter tail only up to the "
         "repository's root), and composes the folder found, naming both. A PYTHONPATH entry the script sets "
         "(`/workspace/<repo>/third_party/verl`, or `{path_to_this_repo}/third_party/verl`, a placeholder the user "
         "fills in) is looked up the same way, up to the repository's root, and the veRL it holds is the one "
         "composed (RFTC230). Check that it is the folder the job sees at that path, or give the path relative to "
         "the repository.",
         "python3 -m verl.trainer.main_ppo --config-path=/workspace/myrepo/cfg --config-name=x"),
    Code("RFTC237", "hydra-command-line", E, "Hydra's command line refuses the launch's arguments.",
         "A veRL entry module is a Hydra app: @hydra.main parses its arguments with Hydra's own argparse parser "
         "before anything runs. An option it does not have (`--config_path` for `--config-path`), an option "
         "prefix that fits several of its options, an invalid choice, or a positional word after an option's "
         "value is its error (`error: unrecognized arguments: ...`), and the job does not start. A unique prefix "
         "of an option is that option (`--config-nam=x` is `--config-name=x`). Write Hydra's option, or the "
         "override as `key=value` before any option.",
         "python3 -m verl.trainer.main_ppo --config_path=cfg/ppo.yaml", "overrides"),
    Code("RFTC238", "namespace-verl-folder", I, "A `verl` folder of YAML alone is not the veRL Python imports: the "
         "launch is composed on a bundled release.",
         "A `verl/` folder with no __init__.py and no Python module is a namespace folder. Python's import system "
         "takes a regular package (the veRL the job installs) over it, so `python3 -m verl.trainer...` runs the "
         "installed veRL and Hydra composes that package's own config; the folder's YAML is never read (with no "
         "veRL installed, the entry module is not found at all). rftc composes a bundled release as for a launch "
         "with no checkout, the one the repository pins or the launch's keys fit, and names it. Pass "
         "--verl-version with the release the job installs, or --verl-source DIR to compose that folder anyway.",
         "rftc convert sft.sh   # beside a verl/trainer/config/sft_trainer.yaml with no verl/__init__.py", "cli"),
    Code("RFTC239", "verl-not-here", W, "The veRL the launch imports is not on this machine: the launch is checked "
         "against a bundled release instead.",
         "The script puts a folder first on PYTHONPATH that is not here and whose tail is nowhere in the repository "
         "(RFTC236): a path of another machine, or a git submodule that is not checked out (.gitmodules names its "
         "url and branch; the repository records its commit). Where the job runs, the veRL in that folder, if it "
         "holds one, is the one Python imports and its own config is what Hydra composes; whether it has the keys "
         "the launch sets is unknown here. The message names the entry (the submodule's url and branch) and the "
         "bundled release the launch was checked against instead. Check the submodule out (git submodule update "
         "--init) or pass --verl-source DIR with the checkout, or --verl-version with its release.",
         "export PYTHONPATH=$ROOT/verl:$PYTHONPATH   # verl/: a git submodule, not checked out\n"
         "python3 -m verl.trainer.main_ppo data.train_files=x.parquet", "sh"),
    Code("RFTC240", "hydra-prints-instead", E, "Hydra prints instead of training: the launch trains nothing.",
         "With `--cfg job|hydra|all`, `--help`, `--hydra-help`, `--info`, `--version` or `--shell-completion` a "
         "Hydra app prints (the composed config, its help, Hydra's information) and exits without running the "
         "job, so there is no training to convert. Remove the option to train.",
         "python3 -m verl.trainer.main_ppo --cfg job trainer.total_epochs=3", "overrides"),
    Code("RFTC241", "decoded-env-default", W, "oc.decode decodes an oc.env default: the variable is assumed unset.",
         "`${oc.decode:${oc.env:NAME,default}}` is OmegaConf's decode of the environment variable, or of the "
         "default where the environment does not set it. The script does not set NAME, so rftc decodes the "
         "default (as bash's ${NAME:-default} is read) and computes with it; a job whose environment sets NAME "
         "runs with that value instead. Pass --env NAME=VALUE (or export NAME in the script), or write the value.",
         "trainer.total_epochs='${oc.decode:${oc.env:EPOCHS,3}}'", "overrides"),
]
