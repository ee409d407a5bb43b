"""What the evaluator carries: variables and their scopes, what a subshell copies, what one analysis shares,
the bounds that keep evaluation finite, and the control-flow signals (exit, return, break, continue)."""

from __future__ import annotations

from dataclasses import dataclass

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Span
from rftc.shell.values import Field, Seg
from rftc.shell.invocation import Invocation

MAX_ITERATIONS = 1000  # loop iterations per script
MAX_WHILE = 100  # iterations of one while/until loop
MAX_DEPTH = 24  # nested function calls / sourced files / called scripts
MAX_CALLS = 5000  # function calls and command substitutions per script
MAX_VALUE = 1 << 20  # characters in one variable
MAX_INDEX = 1 << 16  # the highest array index assigned (rftc's arrays are lists, bash's are sparse)
MAX_BRANCHES = 2000  # branches of undecidable conditions evaluated per analysis (rftc.shell.explore)


class Exit(Exception):
    """`exit` (or `exec` of another program): the script stops."""


class Return(Exception):
    """`return` from a function or a sourced file."""


class Break(Exception):
    def __init__(self, n=1):
        self.n = n


class Continue(Exception):
    def __init__(self, n=1):
        self.n = n


@dataclass
class Var:
    segs: list | None = None  # scalar value
    items: list | None = None  # array elements (each a list of Seg)
    span: Span | None = None  # the assignment
    exported: bool = False


@dataclass(frozen=True)
class Code:
    """Text that `eval` or `bash -c` runs (see rftc.shell.files.Files.code_text)."""

    lines: list  # the text's lines
    pieces: list  # (offset in the text, the Seg of a word it was), for Files.traced


class State:
    """What a subshell copies: variables, functions, positional parameters, working directory, and which variables
    depend on a branch rftc could not decide."""

    def __init__(self):
        self.vars: dict[str, Var] = {}
        self.frames: list[dict[str, Var]] = []
        self.funcs: dict[str, tuple] = {}
        self.positional: list[Field] = []
        # the script's own arguments were not given (no `--`): None, else how many `shift` dropped; $1.. are then
        # unknown (the Nth argument), "$@" expands to nothing, $# is unknown
        self.args_unknown: int | None = None
        self.args_more = False  # arguments not given follow the positional ones: a caller's "$@" passed on
        self.cwd: list[Seg] | None = None
        self.taints: dict[str, tuple] = {}  # variable -> Taint notes (rftc.shell.notes)
        self.zero: list | None = None  # $0 when it is not the script's path: `bash -c CODE NAME` (segs)

    def fork(self) -> "State":
        s = State()
        s.vars = dict(self.vars)
        s.frames = [dict(f) for f in self.frames]
        s.funcs = dict(self.funcs)
        s.positional = list(self.positional)
        s.args_unknown = self.args_unknown
        s.args_more = self.args_more
        s.cwd = self.cwd
        s.taints = dict(self.taints)
        s.zero = self.zero
        return s


class Shared:
    """What every part of one analysis shares: results and budgets."""

    def __init__(self, diags: Diagnostics, sources: dict, env: dict, use_env: bool, script_path: str, name: str):
        self.diags = diags
        self.sources = sources
        self.env = env
        self.use_env = use_env
        self.script_path = script_path  # $0: the script bash runs now (a called script's while it runs)
        self.name = name  # the script analysed, by the name spans use: whose launches are those of what it runs
        self.callers: list[Span] = []  # the commands running the files being read (`bash x.sh`), outermost first
        self.invocations: list[Invocation] = []
        self.iterations = 0
        self.seen: set = set()
        self.exit_span: Span | None = None  # where the script stopped with `exit`, if it did
        self.calls = 0
        self.local_names: set[str] = set()  # see rftc.shell.files.script_variables()
        self.branches = 0  # branches of undecidable conditions evaluated (MAX_BRANCHES)
        self.quiet = 0  # > 0 while a condition is decided again to find the --env that picks a branch
        self.guards: set[Span] = set()  # conditions reported as guards (RFTC117), once each
        # syntax errors bash stops reading a file at, after running the lines before them: (error, lines run)
        self.stops: dict[Span | None, tuple] = {}
        self.code: dict[str, Code] = {}  # the text `eval` or `bash -c` runs, by the name its spans give it
        # the files the script writes (`cat > job.sh <<EOF`), by path: (what it printed, where, the command)
        self.written: dict[str, tuple[list, Span, str]] = {}
        self.slurm: dict = {}  # the SLURM_* variables a batch script's #SBATCH directives set (rftc.shell.slurm)

    def add(self, code: str, message: str, span: Span | None, **kw) -> None:
        if self.quiet:
            return
        key = (code, span, message)
        if key not in self.seen:
            self.seen.add(key)
            self.diags.add(code, message, span, **kw)
