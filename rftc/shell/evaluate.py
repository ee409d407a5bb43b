"""Static evaluation of a parsed launch script (rftc.shell.syntax). Nothing is executed.

Where values come from: assignments in the script (and files it sources), then the ``env`` the caller
gives, then ``os.environ`` only with ``use_env``, then what sbatch sets from a batch script's own ``#SBATCH``
directives (rftc.shell.slurm). Anything else is unknown and stays symbolic as
``${oc.env:NAME}``; ``${X:-d}`` with X unknown takes the default, as bash does with X unset.

Working directory: veRL scripts are run from the repository root, which rftc cannot see. The caller may
give ``cwd``; without it the working directory is ``${oc.env:PWD}`` (so ``$(pwd)`` and ``$PWD`` stay
symbolic), and ``cd`` moves relative to it. ``$0`` and ``${BASH_SOURCE[0]}`` are the script's absolute
path when the file exists, so ``$(cd "$(dirname "$0")" && pwd)`` is the real script directory.

Command substitution is evaluated for pure commands only (pwd, cd, dirname, basename, realpath,
readlink -f, echo, printf, seq, expr's arithmetic, cat of a heredoc), and their output piped through text filters
(rftc.shell.filters); ``$(date +F)`` becomes Hydra's ``${now:F}``; any other command's output is the
placeholder ``${oc.env:NAME}`` (RFTC_NUM_GPUS for nvidia-smi, RFTC_NPROC for nproc, HOSTNAME for hostname,
RFTC_SUBST_<CMD> otherwise), which the caller can set through ``env``.

A variable with a lowercase letter in its name that the script assigns somewhere is a script variable: read
before it is set it is empty (not an environment value). Upper-case names may come from the environment.

Conditions are decided when their operands are known; otherwise the branch bash would take with the
unknown variables unset is taken (an external command is assumed to succeed), with RFTC109. Loops run
per item when their items are known (bounded); a while loop whose condition is not static is skipped
with RFTC110.
"""

from __future__ import annotations

from rftc.diagnostics.model import Span
from rftc.shell.arith import Arithmetic
from rftc.shell.branches import Branches
from rftc.shell.builtins import Builtins
from rftc.shell.commands import Commands
from rftc.shell.expand import Expander
from rftc.shell.explore import Explorer
from rftc.shell.files import Files
from rftc.shell.recorder import Recorder
from rftc.shell.state import Shared, State
from rftc.shell.values import Seg
from rftc.shell.variables import Variables


class Evaluator:
    """One shell being evaluated: where it is (file, its lines, nesting depth), what it holds (``st``: variables,
    functions, arguments, working directory), where its output goes (``capture``, inside a command substitution),
    how it runs (deciding a condition, with unknown values unset), and the parts that evaluate it, one per concern:

    vars      variables and their scopes (rftc.shell.variables)
    words     word expansion (rftc.shell.expand, rftc.shell.params)
    arith     arithmetic (rftc.shell.arith)
    commands  lists, pipelines, compound and simple commands (rftc.shell.commands)
    builtins  builtin commands and command substitution (rftc.shell.builtins)
    files     sourced files, scripts run in a new shell, eval and bash -c (rftc.shell.files)
    branches  if, case, && ||, [[ ]] and how conditions are decided (rftc.shell.branches)
    explorer  every branch of a condition rftc cannot decide (rftc.shell.explore)
    recorder  the launches the script makes (rftc.shell.recorder)

    A subshell, a branch or a command substitution runs in a ``child`` with a state of its own.
    """

    def __init__(self, shared: Shared, state: State, file: str, lines: list[str], *, depth: int = 0,
                 capture: list | None = None):
        self.g = shared
        self.st = state
        self.file = file
        self.lines = lines
        self.depth = depth
        self.capture = capture  # command substitution: output pieces, else None
        # (command name, command text, date's output format or None) run while capturing
        self.capture_unknown: list[tuple[str, str, str | None]] = []
        self.unset_mode = False
        self.uncertain: list | None = None  # while deciding a condition: what it depended on
        self.status = 0
        self.loops: tuple[str, ...] = ()  # variables of the for loops around what runs
        self.vars = Variables(self)
        self.words = Expander(self)
        self.arith = Arithmetic(self)
        self.commands = Commands(self)
        self.builtins = Builtins(self)
        self.files = Files(self)
        self.branches = Branches(self)
        self.explorer = Explorer(self)
        self.recorder = Recorder(self)

    def child(self, state: State, *, capture: list | None) -> "Evaluator":
        """An evaluator for a subshell or a branch: the same file and context, its own state."""
        ev = Evaluator(self.g, state, self.file, self.lines, depth=self.depth, capture=capture)
        ev.unset_mode, ev.uncertain, ev.loops = self.unset_mode, self.uncertain, self.loops
        return ev

    def new_shell(self, state: State, file: str, text: str) -> "Evaluator":
        """An evaluator for a new bash process (`bash x.sh`, `bash -c`) reading ``text``."""
        return Evaluator(self.g, state, file, text.split("\n"), depth=self.depth + 1)

    def source_text(self, span: Span) -> str:
        if span.file != self.file:
            return ""
        lines = self.lines[span.line - 1:span.last_line]
        if not lines:
            return ""
        if len(lines) == 1:
            return lines[0][span.col - 1:(span.end_col or 0) - 1]
        return "\n".join([lines[0][span.col - 1:]] + lines[1:-1] + [lines[-1][:(span.end_col or 1) - 1]])

    def emit(self, segs: list[Seg], newline: bool = True) -> None:
        """Print (what a command substitution captures)."""
        if self.capture is not None:
            self.capture.extend(segs)
            if newline:
                self.capture.append(Seg("\n", self.file, 1, 1, 1, 1))
