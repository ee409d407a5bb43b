"""What the shell stage hands to the veRL stage: each training launch found in a script, with its
arguments already expanded as bash would expand them, and the span of every argument."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from rftc.diagnostics.model import Span

COMMAND_LINE = "<command line>"  # Span.file for arguments given to rftc after "--" (they replace "$@")


@dataclass(frozen=True)
class Arg:
    text: str  # the word after expansion and quote removal; unknown variables appear as ${oc.env:NAME}
    span: Span  # where the word is written (for "$@" arguments: COMMAND_LINE, col = argument index)
    via: tuple[Span, ...] = ()  # assignments whose values reached this word, outermost first
    symbolic: bool = False  # part of the value is not known statically (environment, command substitution)


@dataclass(frozen=True)
class ForkEntry:
    """A fork's own entry module, as the veRL stage resolves it (rftc.verl.trainers.resolve): the file Python runs
    and what its @hydra.main declares, or the files and words its own code composes. The launch is converted as veRL's main_ppo on that config."""

    file: str  # the module's file (absolute)
    config_path: str | None  # @hydra.main's config_path, relative to the file's folder
    config_name: str | None
    named_by: str  # where the decorator is ("file:line"); a main without Hydra: where it calls its trainer
    plan: object = None  # a main without Hydra: what it composes (rftc.verl.primary.argparse_main.Plan)


@dataclass
class Invocation:
    index: int  # 0-based position among the launches found in the file
    module: str  # entry module, e.g. "verl.trainer.main_ppo" ("" when a script path is run instead)
    kind: str  # "main_ppo" | "recipe" | "experimental" | "sft" | "generation" | "eval" | "model_merger" | "other"
    launcher: str  # "python" | "ray job submit" | "torchrun" | "srun" | "uv run" | "array:LAUNCH" | "$CMD" (unset)
    span: Span  # the command's first word through its entry (`python3 -m verl.trainer.main_ppo`): where the
    #   diagnostics about the launch as a whole point (rftc.shell.launches.command_span)
    args: list[Arg]  # every argument after the module, in order (module "": the script path or -c first)
    overrides: list[Arg] = field(default_factory=list)  # the Hydra overrides among args, in order
    config_path: Arg | None = None  # --config-path / --config-dir / -cp value
    config_name: Arg | None = None  # --config-name / -cn value
    config_dir: bool = False  # config_path was given as --config-dir / -cd: relative to the working directory,
    #   not to the entry module as --config-path is
    hydra_refusal: tuple | None = None  # Hydra's command line refuses the arguments: (its error, the Arg or None)
    hydra_prints: tuple | None = None  # Hydra prints instead of running the job: (what it prints, the option's Arg)
    env: dict[str, str] = field(default_factory=dict)  # exported and inline environment at the launch
    cwd: str | None = None  # the directory the launch runs in: where it starts (--cwd; PWD from --env, or the
    #   current directory with --use-env) moved by the script's own cd's. Unknown start and a relative cd:
    #   "${oc.env:PWD}/sub"; None when neither is known (the launch runs where rftc is started)
    script: str = ""  # the script read that makes the launch: also where the launch is in a file it sources or
    #   runs (`bash train.sh "$@"`), which ``span`` names
    run_from: Span | None = None  # then the script's command that runs that file (several may run one launch)
    entry_file: str | None = None  # the entry module's file when the launch names it by path or under another
    #   package (`python3 verl/trainer/main_ppo.py`; `-m pkg.verl.trainer.main_ppo` -> pkg/verl/trainer/main_ppo.py),
    #   relative to cwd unless absolute; None when Python's import search finds the module (`-m verl...`)
    launcher_sizes: dict[str, Arg] = field(default_factory=dict)  # torchrun's nnodes / nproc_per_node, as given
    conditions: list[str] = field(default_factory=list)  # the undecidable branches it sits in, outermost first
    #   (`the \`then\` branch of \`[ "$A" = "$B" ]\` (line 95)`); empty when it runs whatever they decide
    primary: bool = True  # in the branches rftc takes (the first viable of each); False: another branch's launch
    loop: dict[str, str] = field(default_factory=dict)  # the for-loop variables around it and their values
    fork: ForkEntry | None = None  # the fork's own entry module it runs, once resolved (module keeps its name)
    own_trainers: tuple[str, ...] = ()  # trainer classes of a fork's own that its entry module runs (RFTC234)
    named: str = ""  # the module name the launch used, where it is a release-era name of ``module``
    #   (`recipe.fully_async_policy.fully_async_main`, rftc.verl.trainers.RECIPE_ERA)

    @property
    def is_training(self) -> bool:
        return self.kind in ("main_ppo", "recipe", "experimental", "sft")

    def data_dir(self) -> str | None:
        """Where the files the launch names by relative paths (data, reward functions) are read from: its cwd,
        else its script's folder; None for neither."""
        return self.cwd or (os.path.dirname(os.path.abspath(self.script)) if self.script and
                            os.path.isfile(self.script) else None)


def place(inv: Invocation, caller: bool = True) -> str:
    """Where a launch is written, for messages: "line 30" of its script; "train.sh:3, run from line 12" in a file the
    script runs or sources (without ``caller``, "train.sh:3")."""
    if inv.span.file == inv.script:
        return f"line {inv.span.line}"
    caller = f", run from line {inv.run_from.line}" if inv.run_from is not None and caller else ""
    return f"{os.path.basename(inv.span.file)}:{inv.span.line}{caller}"


def circumstances(inv: Invocation, launches: list[Invocation]) -> str:
    """What tells a launch apart from the others the same command makes (the script's command that runs the file it
    is in, the for-loop variables whose values differ between them, as in a curriculum) and the branches it sits
    in, for listings; "" when nothing does."""
    same = [i for i in launches if (i.span, i.run_from) == (inv.span, inv.run_from)]
    callers = {i.run_from for i in launches if i.span == inv.span}
    caller = f"run from line {inv.run_from.line}" if inv.run_from is not None and len(callers) > 1 else ""
    loop = " ".join(f"{k}={v}" for k, v in inv.loop.items() if len({i.loop.get(k) for i in same}) > 1)
    where = "; ".join(inv.conditions)
    if where and not inv.primary:
        where = f"another branch: {where}"
    return "; ".join(p for p in (caller, loop, where) if p)
