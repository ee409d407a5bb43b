"""Diagnostic codes of `rftc diff` and the way back from Trinity to veRL (RFTC6xx)."""

from rftc.diagnostics.model import Code, Severity

CODES = [
    Code("RFTC600", "nothing-to-compare", Severity.ERROR,
         "One side of `rftc diff` has no training run to compare.",
         "rftc diff compares what two configs train, so each side must be a veRL launch that composes (a launch "
         "script of main_ppo, an off-policy trainer or an SFT trainer) or a Trinity-RFT config that Trinity would "
         "load and validate. This side is not: its own diagnostics, printed with this one, say why; fix that side "
         "first (rftc lint or rftc check shows the same diagnostics). An SFT run and a reinforcement learning run "
         "have no quantities in common (docs/diff.md), so one compared with the other is this error too: compare "
         "the SFT launch with an SFT config (or stage), the RL launch with an RL one. Nothing is compared.",
         "rftc diff run.sh broken.yaml", "cli"),
]
CODES.append(
    Code("RFTC601", "verl-cannot-express", Severity.WARNING,
         "veRL cannot train what the Trinity config trains in one of the quantities of the semantic model.",
         "`rftc convert --to verl` composes the launch it writes, as `rftc verl-config` would, and compares what it "
         "trains with what the config trains (docs/diff.md). This quantity differs: veRL has no setting for it (an "
         "explorer running ahead with sync_offset, an LR horizon of sys.maxsize, a Trinity-only loss or "
         "workflow, experiences per step that are not whole groups of repeat_times), so the launch trains "
         "differently there. Change the config so veRL can express it, or accept the difference the message names.",
         "rftc convert --to verl offpolicy.yaml", "cli"))
CODES.append(
    Code("RFTC602", "verl-key-missing", Severity.WARNING,
         "The chosen veRL release has no key for a setting of the Trinity config.",
         "`rftc convert --to verl` writes the overrides of one veRL release (--verl-version, default the newest "
         "bundled). This one names a key that release's config does not have (a newer sampling knob, a worker "
         "setting passed through trainer.trainer_config), so it is not in the launch, and the release trains with "
         "its own behaviour there. Where that changes a quantity of the semantic model RFTC601 says so too. Choose "
         "a release that has the key, or drop the setting.",
         "rftc convert --to verl config.yaml --verl-version 0.2", "cli"))
CODES.append(
    Code("RFTC603", "verl-no-stages", Severity.ERROR,
         "A Trinity config with stages has no single veRL launch.",
         "`rftc convert --to verl` writes one veRL launch. A config with `stages` runs several trainers one after "
         "the other, each stage after the first starting from the model the stage before it saved "
         "(trinity-0.6.md: Config.__iter__ replaces model.model_path with that checkpoint). veRL has no pipeline of "
         "trainers, and the path of that checkpoint in veRL's layout (the last global_step_N folder) is known only "
         "once the previous launch has run, so a script of the launches in order would guess it: no launch is "
         "written. Write each stage as a config of its own, with model.model_path the previous stage's saved "
         "model, and convert each.",
         "rftc convert --to verl sft_then_grpo.yaml", "cli"))
CODES.append(
    Code("RFTC604", "diff-which-stage", Severity.ERROR,
         "`rftc diff` was given a Trinity config with stages and no --stage.",
         "Trinity never trains the global sections of a config with `stages` as they are written: it runs each "
         "stage in turn, as the config with that stage's sections laid over it (trinity-0.6.md: Config.__iter__), "
         "and each stage after the first starts from the checkpoint the stage before it saved. Each stage is a "
         "training run of its own, and they can differ in kind (an SFT warm-up, then GRPO), so there is no one run "
         "to compare. Name the stage with --stage NAME (its stage_name, or its 1-based position); the message lists "
         "the config's stages.",
         "rftc diff sft.sh sft_then_grpo.yaml", "cli"))
CODES.append(
    Code("RFTC610", "verl-world-size", Severity.WARNING,
         "The veRL launch trains on fewer GPUs than the Trinity config's trainer.",
         "`rftc convert --to verl` gives the launch the GPUs of Trinity's trainer (veRL colocates the rollout on "
         "them). veRL splits each step's batch (data.train_batch_size x rollout.n responses) evenly over all its "
         "GPUs and refuses to start otherwise; where the trainer's GPU count does not divide the batch (sequence or "
         "model parallel groups, or a batch that is not whole groups of repeat_times), the launch takes the most "
         "GPUs up to the trainer's that do. What is trained is the same; each GPU takes a larger share, so the run "
         "is slower and needs more memory per GPU. Make buffer.train_batch_size x sync_interval a multiple of the "
         "trainer's GPUs, or accept the smaller launch.",
         "rftc convert --to verl config.yaml", "cli"))
