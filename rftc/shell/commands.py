"""Commands: lists, pipelines, compound commands and loops, simple commands (assignments, functions, builtins,
external programs, the launches among them) and declarations. Conditions and the commands that choose between
branches are in rftc.shell.branches."""

from __future__ import annotations

import ast
import re

from rftc.diagnostics.model import Span
from rftc.shell import arith, filters, launches
from rftc.shell.builtins import date_format, redirect_targets, to_devnull, to_file
from rftc.shell.notes import Arguments, Split
from rftc.shell.state import MAX_CALLS, MAX_DEPTH, MAX_ITERATIONS, MAX_WHILE, Break, Continue, Exit, Return
from rftc.shell.syntax import (
    AndOr, ArithCommand, ArithFor, Assignment, ArrayAssignment, BraceGroup, Case, Command, CommandList, CompoundCommand,
    DBracket, DeclCommand, For, FunctionDef, If, Pipeline, Redirect, Redirection, Script, Select, SimpleCommand,
    Subshell, While,
)
from rftc.shell.values import Field, Seg, anchored, text_of

_NAME = re.compile(r"[A-Za-z_]\w*")


class Commands:
    """Runs the commands of one evaluator ``ev``; each returns the command's exit status."""

    def __init__(self, ev):
        self.ev = ev

    def run_script(self, script: Script) -> None:
        """Evaluate a whole file."""
        try:
            if script.body is not None:
                self.run_list(script.body)
        except Exit:
            raise
        except (Return, Break, Continue):
            pass

    def run_list(self, node: CommandList) -> int:
        ev = self.ev
        for item in node.items:  # a background job (`&`) is evaluated like any other
            ev.status = ev.branches.run_and_or(item) if isinstance(item, AndOr) else self.run_pipeline(item)
        return ev.status

    def run_pipeline(self, node: Pipeline) -> int:
        ev = self.ev
        cmds = node.commands
        if len(cmds) == 1:
            status = self.run_command(cmds[0])
        elif ev.capture is not None and (piped := self.piped(node)) is not None:
            status = piped
        else:
            status = 0
            for c in cmds:  # each part of a pipeline runs in a subshell
                status = self.subshell(lambda sub, c=c: sub.commands.run_command(c))
        ev.status = (0 if status else 1) if node.negated else status
        return ev.status

    def piped(self, node: Pipeline) -> int | None:
        """A pipeline whose output a substitution takes: the first command's output through the filters rftc
        computes (rftc.shell.filters: tr, wc, cut, head, tail, awk's print, sed's s///); None when any part is
        something else or reads what rftc does not know, and the pipeline runs as any other."""
        ev = self.ev
        first, *rest = node.commands
        out: list[Seg] = []
        status, sub = self.forked(lambda sub: sub.commands.run_command(first), out)
        if sub.capture_unknown or any(s.unknowns for s in out):
            return None
        text: str | None = text_of(out)
        for c in rest:
            if not isinstance(c, SimpleCommand) or c.assignments or c.redirects:
                return None
            fields = [f for w in c.words for f in ev.words.fields(w)]
            if not fields or any(f.symbolic for f in fields):
                return None
            text = filters.run([f.text for f in fields], text)
            if text is None:
                return None
            status = 0
        ev.emit([Seg.at(text, node.span)], newline=False)
        return status

    def subshell(self, fn) -> int:
        status, sub = self.forked(fn, self.ev.capture)
        self.ev.capture_unknown += sub.capture_unknown
        return status

    def forked(self, fn, capture: list | None):
        """Run ``fn(sub)`` on a copy ``sub`` of this shell whose output goes to ``capture``: (its status, sub)."""
        sub = self.ev.child(self.ev.st.fork(), capture=capture)
        try:
            status = fn(sub)
        except (Exit, Return, Break, Continue):
            status = sub.status
        return status, sub

    def run_command(self, node: Command) -> int:
        match node:
            case SimpleCommand():
                return self.run_simple(node)
            case DeclCommand():
                return self.run_decl(node)
            case FunctionDef():
                ev = self.ev
                ev.st.funcs[node.name] = (node.body, ev.file, ev.lines)
                return 0
        return self.run_compound(node.command)

    # ------------------------------------------------------------------ compound commands
    def run_compound(self, node: CompoundCommand) -> int:
        ev = self.ev
        match node:
            case BraceGroup():
                return self.run_list(node.body)
            case Subshell():
                return self.subshell(lambda sub: sub.commands.run_list(node.body))
            case If():
                return ev.branches.run_if(node)
            case For():
                return self.run_for(node)
            case ArithFor():
                return self.run_arith_for(node)
            case While():
                return self.run_while(node)
            case Case():
                return ev.branches.run_case(node)
            case DBracket():
                return ev.branches.run_dbracket(node)
            case ArithCommand():
                value, unknowns = ev.arith.evaluate(node.expr)
                if value is None:
                    ev.branches.note_uncertain(unknowns, node.span)
                    return 1
                return 0 if value else 1
            case Select():  # the body runs for each choice read from the terminal
                ev.g.add("RFTC110", "`select` loop not evaluated: it runs on the choices a user types", node.span,
                         hint="write the launch outside the select loop")
        return 0

    def _budget(self, span: Span) -> bool:
        g = self.ev.g
        g.iterations += 1
        if g.iterations > MAX_ITERATIONS:
            g.add("RFTC110", f"stopped evaluating loops after {MAX_ITERATIONS} iterations", span)
            return False
        return True

    def _bounded_iteration(self, n: int, span: Span, body: CommandList) -> bool:
        """Run iteration n of a for((;;))/while loop unless it passes the bound; False when the loop ends."""
        if n > MAX_WHILE or not self._budget(span):
            self.ev.g.add("RFTC110", f"loop stopped after {MAX_WHILE} iterations", span)
            return False
        return self._loop_body(body)

    def _loop_body(self, body: CommandList) -> bool:
        """Run one iteration; False when the loop must stop (break)."""
        try:
            self.run_list(body)
        except Break as b:
            if b.n > 1:
                raise Break(b.n - 1)
            return False
        except Continue as c:
            if c.n > 1:
                raise Continue(c.n - 1)
        return True

    def run_for(self, node: For) -> int:
        ev = self.ev
        items: list[Field] = []
        if node.words is not None:
            for w in node.words:
                items += ev.words.fields(w)
        else:
            items = list(ev.st.positional)
        outer, ev.loops = ev.loops, ev.loops + (node.name,)
        try:
            for f in items:
                if not self._budget(node.span):
                    break
                ev.vars.assign_segs(node.name, f.segs, node.span)
                if not self._loop_body(node.body):
                    break
        finally:
            ev.loops = outer
        return 0

    def run_arith_for(self, node: ArithFor) -> int:
        ev = self.ev
        if node.deferred is not None:  # bash rejects the expressions when the loop starts
            ev.arith.evaluate(node.deferred)
            ev.g.add("RFTC110", f"loop not evaluated: {ev.arith.error}", node.span)
            return 1
        if node.init is not None:
            ev.arith.evaluate(node.init)
        outer = ev.loops
        ev.loops += tuple(n for n in (arith.names(node.init) if node.init is not None else ()) if n not in ev.loops)
        try:
            return self._arith_loop(node)
        finally:
            ev.loops = outer

    def _arith_loop(self, node: ArithFor) -> int:
        ev = self.ev
        n = 0
        while True:
            if node.test is not None:
                value, unknowns = ev.arith.evaluate(node.test)
                if value is None:
                    names = ", ".join(sorted({"$" + u.name for u in unknowns})) or "its condition"
                    ev.g.add("RFTC110", f"loop not evaluated: its bound depends on {names}, not known statically; "
                             "the body is skipped", node.span, hint="pass --env NAME=value")
                    return 0
                if not value:
                    return 0
            n += 1
            if not self._bounded_iteration(n, node.span, node.body):
                return 0
            if node.step is not None:
                ev.arith.evaluate(node.step)

    def run_while(self, node: While) -> int:
        ev = self.ev
        n = 0
        while True:
            fork = ev.st.fork()  # a condition that is not static must not leave its effects
            ok, unc, _ = ev.branches.condition(node.condition)
            if unc:
                ev.st = fork
                what = ev.branches.decision(node.condition.span, unc, []).depends_on()
                ev.g.add("RFTC110", f"loop not evaluated: its condition depends on {what}, not known statically; "
                         "the body is skipped", node.span, hint="make the condition static or pass --env")
                return 0
            if ok == node.until:
                return 0
            n += 1
            if not self._bounded_iteration(n, node.span, node.body):
                return 0

    # ------------------------------------------------------------------ simple commands
    def run_simple(self, node: SimpleCommand) -> int:
        ev = self.ev
        assigns, words, redirects = node.assignments, node.words, node.redirects
        self.placeholders(redirects)
        if not words:
            for a in assigns:
                ev.vars.assign(a)
            if not assigns and ev.capture is not None and any(t[0].endswith("<") for t in redirect_targets(redirects)):
                ev.capture_unknown.append(("cat", ev.source_text(node.span), None))  # $(< file)
            return 0
        fields: list[Field] = []
        vanished: list[Field] = []  # expansions to nothing that carry notes, for a launch to report
        for w in words:
            fields += ev.words.fields(w, vanished)
        if not fields:
            for a in assigns:
                ev.vars.assign(a)
            return 0
        prefix: dict[str, str] = {}
        if not assigns:
            return self.run_fields(fields, prefix, node, vanished)
        # VAR=x cmd: the assignments hold for the command only; what the command itself sets stays, as in
        # bash (`IFS=, read -ra GPUS <<< "$X"` sets GPUS; a function's globals; a `cd`)
        before: dict[str, tuple] = {}
        for a in assigns:
            before.setdefault(a.name, (ev.vars.get(a.name), ev.st.taints.get(a.name)))
            ev.vars.assign(a, exported=True)
            prefix[a.name] = text_of(ev.vars.get(a.name).segs or [])
        try:
            return self.run_fields(fields, prefix, node, vanished)
        finally:
            for name, (var, taint) in before.items():
                scope = ev.vars.scope_of(name)
                scope.pop(name, None)
                ev.st.taints.pop(name, None)
                if var is not None:
                    scope[name] = var
                if taint is not None:
                    ev.st.taints[name] = taint

    def run_fields(self, fields: list[Field], prefix: dict, node: SimpleCommand, vanished: list[Field]) -> int:
        ev = self.ev
        name = fields[0].text
        if name in ev.st.funcs:
            return self.call_function(name, fields[1:], node.span, _passes_arguments(vanished))
        builtin = ev.builtins.find(name)
        if builtin is not None:
            return builtin(fields, node.span, node.redirects, node.words)
        return self.external(fields, prefix, node.span, node.redirects, vanished)

    def external(self, fields: list[Field], prefix: dict, span: Span, redirects: tuple[Redirection, ...],
                 vanished: list[Field] = ()) -> int:
        """A program run with ``fields``; ``vanished`` are the words that expanded to nothing (their notes)."""
        ev = self.ev
        name = fields[0].text
        base = name.rsplit("/", 1)[-1]
        ev.branches.note_uncertain([], span, base)  # whether a command succeeds is known where it runs
        if ev.capture is not None and not to_devnull(redirects):
            # what it prints is part of what the substitution prints, also where it runs for its status
            # (`$(cmd || true)` is cmd's output), unless it goes to a file
            if not to_file(redirects) and not _prints_nothing(fields):
                ev.capture_unknown.append((base, ev.source_text(span), date_format(fields) if base == "date" else None))
            return 0
        # a word that is only an unquoted value the caller gives is no word where it is unset, as rftc takes it
        split = [f for f in fields[1:] if _caller_words(f)]
        parts = launches.recognize([f for f in fields if not any(f is x for x in split)], prefix)
        if parts is not None:
            ev.recorder.add(parts, span, [*vanished, *split])
            if base == "exec":
                raise Exit()
            return 0
        inline = dict(prefix)
        at = launches.program(fields, inline)  # `exec bash x.sh`, `nohup ./x.sh &`, `srun -N2 bash x.sh`
        rest = fields[at:] if at is not None else []
        prog = rest[0].text.rsplit("/", 1)[-1] if rest else ""
        more = _passes_arguments(vanished)
        if prog in ("bash", "sh"):
            flags, args = _shell_options(rest[1:])
            if "c" in flags:  # bash -c CODE [NAME [ARGS...]]
                if args:
                    ev.files.call_code(args, inline, span, more)
            elif "s" not in flags:  # bash -s: the commands come from its input, the words are their arguments
                ev.files.call_script(args, inline, span, more)
        elif prog.endswith(".sh") or (rest and ev.files.is_written(rest[0])):
            ev.files.call_script(rest, inline, span, more)
        if base == "exec" and len(fields) > 1:
            raise Exit()
        if rest and rest[0] is not fields[0] or launches.is_shell(prog):
            return 0
        if launches.ORPHAN.match(name) and not fields[0].symbolic:
            n = sum(1 for f in fields if launches.ORPHAN.match(f.text) or re.match(r"[\w.+~]+=", f.text))
            where = f"line {span.line}" if span.last_line == span.line else f"lines {span.line}-{span.last_line}"
            what = "1 override" if n == 1 else f"{n} overrides"
            verb = "reaches" if n == 1 else "reach"
            ev.g.add("RFTC105", f"`{name[:60]}` runs as a command of its own: {what} on {where} never {verb} the "
                     "launch", span,
                     hint="a broken backslash continuation above cut them off; rejoin them to the launch command")
        if fields[0].symbolic and fields[0].origin:
            ev.recorder.unknown_program(fields[0], span)
        return 0

    def placeholders(self, redirects: tuple[Redirection, ...]) -> None:
        """`P=<your_path>/x`: a placeholder bash reads as the redirections `<your_path` and `>/x` (RFTC120)."""
        ev = self.ev
        for r in redirects:
            if not isinstance(r, Redirect) or r.op.strip() != "<" or r.op[0] in " \t":
                continue
            end = r.span
            rest = ev.lines[end.last_line - 1][(end.end_col or 1) - 1:] if end.last_line <= len(ev.lines) else ""
            if rest.startswith(">"):
                name = ev.source_text(end).lstrip("<")
                ev.g.add("RFTC120", f"`<{name}>` is a placeholder left in the script: bash reads it as the "
                         f"redirections `<{name}` and `>...`, so this command fails when the script runs",
                         Span(ev.file, end.line, end.col, end.last_line, (end.end_col or 1) + 1),
                         hint=f"replace `<{name}>` with the real value")

    def call_function(self, name: str, args: list[Field], span: Span, more: bool = False) -> int:
        """Run the function ``name`` with ``args`` (``more``: and the script's arguments, not given, after them)."""
        ev = self.ev
        ev.g.calls += 1
        if ev.depth >= MAX_DEPTH or ev.g.calls > MAX_CALLS:
            ev.g.add("RFTC114", f"function `{name}` not evaluated: more than {MAX_DEPTH} nested or {MAX_CALLS} "
                     "calls in all", span)
            return 0
        body, file, lines = ev.st.funcs[name]
        saved = (ev.st.positional, ev.st.args_unknown, ev.st.args_more, ev.file, ev.lines, ev.depth)
        ev.st.positional = [Field(anchored(a.segs, a.span), a.span) for a in args]
        ev.st.args_unknown, ev.st.args_more = None, more  # a function's arguments are those of its call
        ev.st.frames.append({})
        ev.file, ev.lines, ev.depth = file, lines, ev.depth + 1
        try:
            status = self.run_command(body)
        except Return:
            status = ev.status
        finally:  # in the state the body ended in (a branch it explored may have replaced it)
            ev.st.frames.pop()
            ev.st.positional, ev.st.args_unknown, ev.st.args_more, ev.file, ev.lines, ev.depth = saved
        return status

    # ------------------------------------------------------------------ declarations
    def run_decl(self, node: DeclCommand) -> int:
        """export / local / readonly / declare / typeset."""
        ev = self.ev
        kw = node.keyword
        if kw == "local" and not ev.st.frames:
            return 1  # bash: "local: can only be used in a function", and nothing is set
        local = kw == "local" or (kw in ("declare", "typeset") and bool(ev.st.frames))
        export = kw == "export"
        flags = ""
        self.placeholders(node.redirects)
        for c in node.args:
            if isinstance(c, (Assignment, ArrayAssignment)):
                ev.vars.assign(c, local=local, exported=True if (export or "x" in flags) else None)
                continue
            for f in ev.words.fields(c):
                if f.text.startswith("-") and len(f.text) > 1:
                    flags += f.text[1:]
                elif _NAME.fullmatch(f.text):
                    ev.vars.declare(f, flags, export=export, local=local)
        return 0


def _caller_words(field: Field) -> bool:
    """A word that is still nothing but a value the caller gives, unquoted where it was written (notes.Split)."""
    return any(isinstance(n, Split) for n in field.notes) and field.symbolic and \
        all(s.unknowns for s in field.segs if s.text)


def _passes_arguments(vanished: list[Field]) -> bool:
    """Whether a command passes on the script's arguments, which rftc is not given (`f "$@"`, `bash x.sh "$@"`):
    the words of ``vanished`` carry the note of such a "$@"."""
    return any(isinstance(n, Arguments) for f in vanished for n in f.notes)


def _shell_options(args: list[Field]) -> tuple[str, list[Field]]:
    """bash's own options before its script or -c's code (`bash -x run.sh`, `bash -lc CODE`, `bash -eo pipefail
    run.sh`): (the one-letter flags given, the words after the options)."""
    flags = ""
    while args and args[0].text[:1] in "-+" and len(args[0].text) > 1:
        t, args = args[0].text, args[1:]
        if t == "--":
            break
        if t in ("--rcfile", "--init-file"):
            args = args[1:]
        elif not t.startswith("--"):
            flags += t[1:]
            if t[-1] in "oO":  # -o OPTION, +O SHOPT
                args = args[1:]
    return flags, args


def _prints_nothing(fields: list[Field]) -> bool:
    """A program that writes nothing on its standard output: `python3 -c 'import torch_npu'`, run to learn whether
    the import succeeds (Python's import statements print nothing)."""
    if not launches.is_python(fields[0].text):
        return False
    for i, f in enumerate(fields[1:-1], 1):
        if f.text == "-c":
            try:
                body = ast.parse(fields[i + 1].text).body
            except (SyntaxError, ValueError):
                return False
            return bool(body) and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in body)
        if not f.text.startswith("-"):
            return False
    return False
