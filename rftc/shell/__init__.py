"""The shell stage: read a veRL launch script exactly as bash would, without running it, and return
the launches it makes (:class:`~rftc.shell.invocation.Invocation`) with diagnostics RFTC1xx.

    result = analyze(text, "run.sh", env={"NNODES": "2"}, extra_args=("trainer.nnodes=4",))
    for inv in result.invocations: ...

See rftc.shell.evaluate for where values come from, grammar/launch.lark for the language read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Span
from rftc.shell.invocation import COMMAND_LINE, Arg, Invocation, place

__all__ = ["analyze", "ScriptResult", "Invocation", "Arg", "COMMAND_LINE"]


@dataclass
class ScriptResult:
    invocations: list[Invocation] = field(default_factory=list)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    sources: dict[str, str] = field(default_factory=dict)  # every file read, by the name spans use


def analyze(text: str, filename: str, *, env: dict[str, str] | None = None, use_env: bool = False,
            extra_args=None, cwd: str | None = None) -> ScriptResult:
    """Evaluate ``text`` (the script ``filename``) statically. Never raises.

    env        variables the script sees as set (like an environment), before os.environ
    use_env    also read os.environ for variables the script and ``env`` do not set
    extra_args the script's arguments (given after ``--``): $1..$N, $#, "$@", "$*", shift (spans in COMMAND_LINE,
               col = index + 1). None when they are not given: then $1.. are unknown, each named as the script's
               Nth argument (``${oc.env:N}`` in the text), $# is unknown, and "$@" / "$*" expand to nothing (the
               launch as the script writes it)
    cwd        the directory the launch starts in (``Invocation.cwd`` is where it runs after the script's own
               ``cd``s): default PWD from ``env``, or with ``use_env`` the current directory; otherwise unknown,
               ``${oc.env:PWD}``
    """
    result = ScriptResult()
    result.sources[filename] = text
    try:
        _analyze(text, filename, env or {}, use_env, None if extra_args is None else tuple(extra_args), cwd, result)
    except RecursionError:
        result.diagnostics.add("RFTC114", "the script nests too deeply to evaluate", Span(filename, 1, 1))
    except Exception as exc:  # never let a script crash the caller
        if os.environ.get("RFTC_DEBUG"):
            raise
        result.diagnostics.add("RFTC002", f"internal error in the shell stage: {type(exc).__name__}: {exc}",
                               Span(filename, 1, 1))
    return result


def _analyze(text, filename, env, use_env, extra_args, cwd, result: ScriptResult) -> None:
    from rftc.shell import slurm
    from rftc.shell.evaluate import Evaluator
    from rftc.shell.files import read_script
    from rftc.shell.state import Exit, Shared, State
    from rftc.shell.values import Field, Seg

    diags = result.diagnostics
    before = len(diags)
    script_path = os.path.abspath(filename) if filename and os.path.isfile(filename) else filename
    g = Shared(diags, result.sources, env, use_env, script_path, filename)
    parsed = read_script(g, text, filename)
    if parsed is None:
        return
    g.slurm = slurm.environment(text, filename)
    st = State()
    if extra_args is None:
        st.args_unknown = 0
    else:
        st.positional = [Field([Seg(a, COMMAND_LINE, 1, i + 1, 1, i + 1, quoted=True,
                                    fixed=Span(COMMAND_LINE, 1, i + 1))]) for i, a in enumerate(extra_args)]
    if cwd is None:  # the start directory, when the caller's environment says it
        cwd = env.get("PWD") or (os.environ.get("PWD") or os.getcwd() if use_env else None)
    if cwd is not None:
        st.cwd = [Seg(cwd, filename, 1, 1, 1, 1)]
    if extra_args:
        result.sources[COMMAND_LINE] = " ".join(extra_args)
    ev = Evaluator(g, st, filename, text.split("\n"))
    try:
        ev.commands.run_script(parsed.tree)
    except Exit:
        pass
    result.invocations = g.invocations
    if parsed.stop is not None and not g.invocations:  # as if the script were not read: the error is the news
        del diags[before:]
    _report_stops(g)
    if parsed.stop is None or g.invocations:
        _summarize(result, filename, g.exit_span)


def _report_stops(g) -> None:
    """A syntax error bash meets after it ran a launch is a warning (RFTC121): the launch happened. Without a launch
    it is the error it is."""
    for error, lines in g.stops.values():
        if not g.invocations:
            g.diags.append(error)
            continue
        file = error.span.file if error.span else "the script"
        ran = "line 1" if lines == 1 else f"lines 1-{lines}"
        g.diags.add("RFTC121", f"{error.message}; bash first runs the commands before it ({ran}) and stops reading "
                  f"{file} here: rftc converts the launches that run", error.span, hint=error.hint)


def _summarize(result: ScriptResult, filename: str, exit_span: Span | None) -> None:
    invs = result.invocations
    if not invs:
        if exit_span is not None:
            result.diagnostics.add("RFTC112", f"no python launch found: the script exits at line {exit_span.line} "
                                   "before reaching one", exit_span,
                                   hint="if it expects arguments (a `$#` check), pass them after `--`")
            return
        result.diagnostics.add("RFTC112", "no python launch found in this script", Span(filename, 1, 1),
                               hint="rftc looks for `python -m ...` run directly or through ray job submit, "
                               "torchrun, srun, uv run, or a launcher array/variable")
    elif len(invs) > 1:
        training = [i for i in invs if i.is_training and i.primary] or [i for i in invs if i.is_training]
        by_command: dict = {}  # one entry per command that launches (a loop runs one several times)
        for i in invs:
            by_command.setdefault((i.span, i.run_from), []).append(i)
        listing = "; ".join(
            (f"#{same[0].index}" if len(same) == 1 else f"#{same[0].index}..#{same[-1].index} ({len(same)} times)")
            + f" {same[0].module or (same[0].args[0].text if same[0].args else same[0].launcher)} "
            f"({place(same[0])})" for same in by_command.values())
        if training:
            verdict = f"the first training launch is #{training[0].index}"
        else:
            verdict = "none of them is a training launch"
        result.diagnostics.add("RFTC113", f"{len(invs)} launches: {listing}; {verdict}",
                               (training[0] if training else invs[0]).span)
