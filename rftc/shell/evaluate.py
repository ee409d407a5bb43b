"""Static evaluation of a parsed launch script: statements and control flow (builtins in rftc.shell.builtins).
Nothing is executed.

Where values come from: assignments in the script (and files it sources), then the ``env`` the caller
gives, then ``os.environ`` only with ``use_env``, then what sbatch sets from a batch script's own ``#SBATCH``
directives (rftc.shell.slurm). Anything else is unknown and stays symbolic as
``${oc.env:NAME}``; ``${X:-d}`` with X unknown takes the default, as bash does with X unset.

Working directory: veRL scripts are run from the repository root, which rftc cannot see. The caller may
give ``cwd``; without it the working directory is ``${oc.env:PWD}`` (so ``$(pwd)`` and ``$PWD`` stay
symbolic), and ``cd`` moves relative to it. ``$0`` and ``${BASH_SOURCE[0]}`` are the script's absolute
path when the file exists, so ``$(cd "$(dirname "$0")" && pwd)`` is the real script directory.

Command substitution is evaluated for pure commands only (pwd, cd, dirname, basename, realpath,
readlink -f, echo, printf, seq, expr's arithmetic), and their output piped through text filters
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

import os
import posixpath
import re
from dataclasses import replace

from rftc.diagnostics.model import Span
from rftc.shell import filters, launches
from rftc.shell.arith import ArithError, ArithUnknown, evaluate as arith_eval, parse_int
from rftc.shell.expand import Expander, arith_expr, node_span, tok_span
from rftc.shell.builtins import BUILTINS, Builtins, date_format, redirect_targets, to_devnull
from rftc.shell.explore import Explorer, ordinal
from rftc.shell.notes import Choice, Taint
from rftc.shell.state import MAX_CALLS, MAX_DEPTH, MAX_ITERATIONS, MAX_VALUE, MAX_WHILE, Break, Continue, Exit, \
    Code, Return, Shared, State, Var
from rftc.shell.values import Field, Seg, Unknown, anchored, cut


class Evaluator(Builtins, Explorer):
    def __init__(self, shared: Shared, state: State, file: str, text: str, *, depth: int = 0,
                 capture: list | None = None):
        self.g = shared
        self.st = state
        self.file = file
        self.lines = text.split("\n")
        self.depth = depth
        self.capture = capture  # command substitution: output pieces, else None
        # (command name, command text, date's output format or None) run while capturing
        self.capture_unknown: list[tuple[str, str, str | None]] = []
        self.unset_mode = False
        self.uncertain: list | None = None  # while deciding a condition: what it depended on
        self.arith_via: list = []  # assignments read by the last arithmetic expression
        self.arith_notes: list = []  # and the notes of the values it read
        self.arith_error = ""  # why the last arithmetic expression failed (as bash would), if it did
        self.status = 0
        self.testing = False  # running a command for its status (a condition, the left side of && / ||)
        self.loops: tuple[str, ...] = ()  # variables of the for loops around what runs
        self.exp = Expander(self)

    def child(self, state: State, *, capture: list | None) -> "Evaluator":
        """An evaluator for a subshell or a branch: the same file and context, its own state."""
        ev = Evaluator(self.g, state, self.file, "", depth=self.depth, capture=capture)
        ev.lines, ev.unset_mode, ev.uncertain = self.lines, self.unset_mode, self.uncertain
        ev.testing, ev.loops = self.testing, self.loops
        return ev

    # ------------------------------------------------------------------ lookups (used by Expander)
    @property
    def positional(self) -> list[Field]:
        return self.st.positional

    def _var(self, name: str) -> Var | None:
        for frame in reversed(self.st.frames):
            if name in frame:
                return frame[name]
        return self.st.vars.get(name)

    def lookup(self, name: str, span: Span):
        v = self._var(name)
        if v is not None:
            if v.items is not None:
                return ((), v.items[0]) if v.items and v.items[0] is not None else None
            return ((v.span,) if v.span else (), v.segs) if v.segs is not None else None
        if name.isdigit():
            i = int(name)
            if i == 0 and self.st.zero is not None:
                return (), self.st.zero
            if i == 0:
                return (), [Seg(self.g.script_path, span.file, span.line, span.col, span.last_line,
                                span.end_col or span.col)]
            return ((), self.st.positional[i - 1].segs) if i <= len(self.st.positional) else None
        if name == "#":
            if self.st.args_unknown is not None:
                return None
            return (), [self._seg(str(len(self.st.positional)), span)]
        if name == "?":
            return (), [self._seg(str(self.status), span)]
        if name == "PWD":
            return (), self.cwd_segs(span)
        if name == "BASH_SOURCE":
            return (), [self._seg(self.g.script_path, span)]
        value = self.g.env.get(name)
        if value is None and self.g.use_env:
            value = os.environ.get(name)
        if value is not None:
            return (), [self._seg(value, span)]
        if name in self.g.slurm:  # what sbatch sets from the script's own directives
            setting = self.g.slurm[name]
            self.g.add("RFTC122", f"${name} is {setting.value}: the script is a Slurm batch job, and sbatch sets it "
                       f"from `{setting.directive}`", setting.span,
                       hint=f"submitted with other options, pass --env {name}=value")
            return (setting.span,), [self._seg(setting.value, span)]
        if name in self.g.local_names:
            return (), []  # a script variable read before it is set: empty, as bash has it
        return None

    def unknown_name(self, name: str) -> str:
        """The name an unknown variable is reported by: the script's Nth argument counts `shift`s."""
        if name.isdigit() and name != "0" and self.st.args_unknown is not None:
            return str(int(name) + self.st.args_unknown)
        return name

    def from_environment(self, name: str) -> bool:
        """Whether an unset variable may be set where the script runs: an environment variable, or one of the
        script's arguments when they are not given."""
        if name.isdigit():
            return name != "0" and self.st.args_unknown is not None
        return name not in ("@", "*", "#", "?", "$", "!", "-") and not self.unset_mode

    def names_with_prefix(self, prefix: str) -> list[str]:
        names = set(self.st.vars) | {n for f in self.st.frames for n in f}
        return sorted(n for n in names if n.startswith(prefix))

    def is_array(self, name: str) -> bool:
        v = self._var(name)
        return v is not None and v.items is not None

    def lookup_array(self, name: str, span: Span):
        v = self._var(name)
        if v is not None and v.items is not None:  # elements carry their own assignment in via
            return (), [e for e in v.items if e is not None]
        val = self.lookup(name, span)
        if val is None:
            return None
        return val[0], [val[1]]

    def index_value(self, idx: str) -> int | None:
        t = idx.strip().lstrip("$").strip("{}")
        n = parse_int(t)
        if n is not None:
            return n
        if re.fullmatch(r"[A-Za-z_]\w*", t):
            try:
                return self.int_var(t, None)
            except (ArithUnknown, ArithError):
                return None
        return None

    def int_text(self, text: str) -> int | None:
        return self.index_value(text) if text.strip() else 0

    def _seg(self, text: str, span: Span, **kw) -> Seg:
        return Seg(text, span.file, span.line, span.col, span.last_line, span.end_col or span.col, **kw)

    def cwd_segs(self, span: Span) -> list[Seg]:
        if self.st.cwd is not None:
            return self.st.cwd
        if self.unset_mode:
            return []
        return [self._seg("${oc.env:PWD}", span, unknowns=(Unknown("var", "PWD", span),))]

    def source_text(self, span: Span) -> str:
        if span.file != self.file:
            return ""
        lines = self.lines[span.line - 1:span.last_line]
        if not lines:
            return ""
        if len(lines) == 1:
            return lines[0][span.col - 1:(span.end_col or 0) - 1]
        return "\n".join([lines[0][span.col - 1:]] + lines[1:-1] + [lines[-1][:(span.end_col or 1) - 1]])

    # ------------------------------------------------------------------ assignment
    def _bounded(self, name: str, segs: list, span: Span) -> list:
        """A value that grows without bound (a = $a$a in a loop) is cut off: unknown, with RFTC114."""
        if len(segs) > 4000 or sum(len(s.text) for s in segs) > MAX_VALUE:
            self.g.add("RFTC114", f"the value of ${name} grows beyond {MAX_VALUE} characters; not evaluated further",
                       span)
            return [self._seg(f"${{oc.env:{name}}}", span, unknowns=(Unknown("var", name, span),))]
        return segs

    def assign_segs(self, name: str, segs: list, span: Span, *, local: bool = False, append: bool = False,
                    exported: bool | None = None) -> None:
        old = self._var(name)
        if not append:
            self.st.taints.pop(name, None)  # the new value carries what it was computed from
        if append and old is not None and old.segs is not None:
            segs = self._bounded(name, old.segs + segs, span)
            append = False
        segs = self._bounded(name, segs, span)
        scope = self.st.frames[-1] if (local and self.st.frames) else self._scope_of(name)
        if append and old is not None:
            if old.items is not None:
                items = old.items[:-1] + [old.items[-1] + segs] if old.items else [segs]
                scope[name] = Var(None, items, span, old.exported)
                return
            segs = (old.segs or []) + segs
        keep = old.exported if old is not None else False
        scope[name] = Var(segs, None, span, keep if exported is None else exported)

    def _scope_of(self, name: str) -> dict:
        for frame in reversed(self.st.frames):
            if name in frame:
                return frame
        return self.st.vars

    def assign_items(self, name: str, items: list, span: Span, *, local=False, append=False,
                     exported: bool | None = None) -> None:
        old = self._var(name)
        if not append:
            self.st.taints.pop(name, None)
        scope = self.st.frames[-1] if (local and self.st.frames) else self._scope_of(name)
        if append and old is not None:
            base = old.items if old.items is not None else ([old.segs] if old.segs is not None else [])
            items = base + items
        keep = old.exported if old is not None else False
        scope[name] = Var(None, items, span, keep if exported is None else exported)

    def do_assign(self, node, *, local: bool = False, exported: bool | None = None) -> str:
        tok = node.children[0]
        m = re.match(r"([A-Za-z_]\w*)(\[[^\]]*\])?(\+?)=", tok.value)
        name, index, plus = m.group(1), m.group(2), bool(m.group(3))
        span = node_span(self.file, node)
        words = [c for c in node.children if not hasattr(c, "type")]
        if tok.type == "ARRAY_ASSIGN":
            items = []  # each element remembers the assignment that wrote it (a+= keeps the older ones)
            for w in words:
                for f in self.exp.fields(w):
                    segs = anchored(f.segs, f.span) if f.word_span else f.segs
                    items.append([replace(s, via=(span,) + s.via) for s in segs])
            self.assign_items(name, items, span, local=local, append=plus, exported=exported)
            return name
        segs = self.exp.value(words[0] if words else None)
        if index is not None:
            segs = [replace(s, via=(span,) + s.via) for s in segs]
            i = self.index_value(index[1:-1])
            v = self._var(name)
            items = list(v.items) if v is not None and v.items is not None else (
                [v.segs] if v is not None and v.segs is not None else [])
            if i is not None and i >= 0:
                while len(items) <= i:
                    items.append(None)  # a hole of a sparse array
                items[i] = (items[i] + segs) if (plus and items[i] is not None) else segs
                self.assign_items(name, items, span, local=local, exported=exported)
            return name
        self.assign_segs(name, segs, span, local=local, append=plus, exported=exported)
        return name

    def exported_env(self) -> dict[str, str]:
        out = {}
        for scope in [self.st.vars] + self.st.frames:
            for k, v in scope.items():
                if v.exported:
                    segs = v.segs if v.segs is not None else (v.items[0] if v.items else [])
                    out[k] = "".join(s.text for s in segs)
        return out

    # ------------------------------------------------------------------ arithmetic (used by arith.py)
    def arith(self, node, opener=None):
        """(value, []) or (None, unknowns) for an expression (None: empty, 0) after the token ``opener`` (`$((`,
        `((`); the assignments read are left in ``arith_via``, the notes of the values read in ``arith_notes``."""
        self.arith_via = []
        self.arith_notes = []
        self.arith_error = ""
        if opener is not None and self.g.runtime:
            runtime = self.g.runtime.get((self.file, opener.line, opener.column))
            if runtime is not None:  # bash reads the expression only when it evaluates it, and rejects it there
                self.arith_error = f"bash rejects `{runtime[1].strip()}` as an arithmetic expression"
                return None, []
        if node is None:
            return 0, []  # $(( )) is 0
        try:
            return arith_eval(node, self), []
        except ArithUnknown as e:
            return None, e.unknowns
        except (ArithError, RecursionError, ValueError, OverflowError) as e:
            self.arith_error = str(e) or type(e).__name__
            return None, []

    def int_var(self, name: str, tok, _depth: int = 0) -> int:
        span = tok_span(self.file, tok) if tok is not None else Span(self.file, 1, 1)
        val = self.lookup(name, span)
        if name in self.st.taints:
            self.arith_notes += [t for t in self.st.taints[name] if t not in self.arith_notes]
        if val is None:
            if self.unset_mode or self._var(name) is not None:
                return 0
            raise ArithUnknown([Unknown("var", self.unknown_name(name), span)])
        segs = val[1]
        for v in val[0] + tuple(x for s in segs for x in s.via):
            if v not in self.arith_via:
                self.arith_via.append(v)
        self.arith_notes += [n for s in segs for n in s.notes if n not in self.arith_notes]
        unknowns = [u for s in segs for u in s.unknowns]
        if unknowns:
            if self.unset_mode:
                return 0
            raise ArithUnknown(unknowns)
        text = "".join(s.text for s in segs).strip()
        if not text:
            return 0
        n = parse_int(text)
        if n is not None:
            return n
        if re.fullmatch(r"[A-Za-z_]\w*", text) and _depth < 8:
            return self.int_var(text, tok, _depth + 1)
        raise ArithError(f"{text}: not an integer")

    def int_element(self, name: str, index: int, tok) -> int:
        v = self._var(name)
        if v is None or v.items is None:
            return self.int_var(name, tok) if index == 0 else 0
        item = v.items[index] if -len(v.items) <= index < len(v.items) else None
        if item is None:
            return 0
        text = "".join(s.text for s in item).strip()
        if any(s.unknowns for s in item):
            raise ArithUnknown([u for s in item for u in s.unknowns])
        n = parse_int(text) if text else 0
        if n is None:
            raise ArithError(f"{text}: not an integer")
        return n

    def set_int(self, name: str, value: int, tok) -> None:
        span = tok_span(self.file, tok)
        self.assign_segs(name, [self._seg(str(value), span)], span)

    def atom_int(self, node) -> int:
        out: list = []
        self.exp.part(node, out, in_dq=True)
        segs = [s for s in out if isinstance(s, Seg)]
        unknowns = [u for s in segs for u in s.unknowns]
        if unknowns and not self.unset_mode:
            raise ArithUnknown(unknowns)
        text = "".join(s.text for s in segs).strip()
        if not text or unknowns:
            return 0
        n = parse_int(text)
        if n is None:
            if re.fullmatch(r"[A-Za-z_]\w*", text):
                return self.int_var(text, node if hasattr(node, "type") else None)
            raise ArithError(f"{text}: not an integer")
        return n

    # ------------------------------------------------------------------ statements
    def run(self, tree) -> None:
        """Evaluate a whole file (the parse tree's start node)."""
        try:
            for c in tree.children:
                if not hasattr(c, "type"):
                    self.run_list(c)
        except Exit:
            raise
        except (Return, Break, Continue):
            pass

    def run_list(self, node) -> int:
        for c in node.children:
            if hasattr(c, "type"):
                continue  # AMP: a background job; evaluated like any other
            self.status = self.run_and_or(c)
        return self.status

    def run_pipeline(self, node) -> int:
        ch = node.children
        negate = bool(ch) and hasattr(ch[0], "type") and ch[0].type == "BANG"
        cmds = [c for c in ch if not hasattr(c, "type")]
        if len(cmds) == 1:
            status = self.run_command(cmds[0])
        elif self.capture is not None and (piped := self.piped(cmds, node)) is not None:
            status = piped
        else:
            status = 0
            for c in cmds:  # each part of a pipeline runs in a subshell
                status = self.subshell(lambda ev, c=c: ev.run_command(c))
        self.status = (0 if status else 1) if negate else status
        return self.status

    def piped(self, cmds: list, node) -> int | None:
        """A pipeline whose output a substitution takes: the first command's output through the filters rftc
        computes (rftc.shell.filters: tr, wc, cut, head, tail, awk's print, sed's s///); None when any part is
        something else or reads what rftc does not know, and the pipeline runs as any other."""
        out: list[Seg] = []
        status, ev = self.forked(lambda ev: ev.run_command(cmds[0]), out)
        if ev.capture_unknown or any(s.unknowns for s in out):
            return None
        text: str | None = "".join(s.text for s in out)
        for c in cmds[1:]:
            if c.data != "simple_command" or any(part.data != "word" for part in c.children):
                return None
            fields = [f for w in c.children for f in self.exp.fields(w)]
            if not fields or any(f.symbolic for f in fields):
                return None
            text = filters.run([f.text for f in fields], text)
            if text is None:
                return None
            status = 0
        self.emit([self._seg(text, node_span(self.file, node))], newline=False)
        return status

    def subshell(self, fn) -> int:
        status, ev = self.forked(fn, self.capture)
        self.capture_unknown += ev.capture_unknown
        return status

    def forked(self, fn, capture: list | None) -> tuple[int, "Evaluator"]:
        """Run ``fn`` on a copy of this shell whose output goes to ``capture``: (its status, the copy)."""
        ev = self.child(self.st.fork(), capture=capture)
        try:
            status = fn(ev)
        except (Exit, Return, Break, Continue):
            status = ev.status
        return status, ev

    def run_command(self, node) -> int:
        kind = node.data
        if kind == "simple_command":
            return self.run_simple(node)
        if kind == "decl_command":
            return self.run_decl(node)
        if kind == "function_def":
            tok = next(c for c in node.children if hasattr(c, "type") and c.type in ("FUNC_DEF", "FUNC_NAME"))
            name = re.match(r"[^\s(]+", tok.value).group(0)
            body = next(c for c in node.children if not hasattr(c, "type"))
            self.st.funcs[name] = (body, self.file, self.lines)
            return 0
        return self.run_compound(node)

    # --- compound commands
    def run_compound(self, node) -> int:
        inner = node.children[0]
        kind = inner.data
        trees = [c for c in inner.children if not hasattr(c, "type")]
        if kind == "brace_group":
            return self.run_list(trees[0])
        if kind == "subshell":
            return self.subshell(lambda ev: ev.run_list(trees[0]))
        if kind == "if_cmd":
            return self.run_if(inner, trees)
        if kind == "for_cmd":
            return self.run_for(inner)
        if kind == "arith_for":
            return self.run_arith_for(inner)
        if kind == "while_cmd":
            return self.run_while(inner, trees)
        if kind == "case_cmd":
            return self.run_case(inner, trees)
        if kind == "dbracket":
            return self.run_dbracket(inner)
        if kind == "arith_cmd":
            value, unknowns = self.arith(arith_expr(inner), inner.children[0])
            if value is None:
                self.note_uncertain(unknowns, node_span(self.file, inner))
                return 1
            return 0 if value else 1
        if kind == "select_cmd":  # the body runs for each choice read from the terminal
            self.g.add("RFTC110", "`select` loop not evaluated: it runs on the choices a user types", node_span(
                self.file, inner), hint="write the launch outside the select loop")
            return 0
        return 0

    def _budget(self, span: Span) -> bool:
        self.g.iterations += 1
        if self.g.iterations > MAX_ITERATIONS:
            self.g.add("RFTC110", f"stopped evaluating loops after {MAX_ITERATIONS} iterations", span)
            return False
        return True

    def _bounded_iteration(self, n: int, span, body) -> bool:
        """Run iteration n of a for((;;))/while loop unless it passes the bound; False when the loop ends."""
        if n > MAX_WHILE or not self._budget(span):
            self.g.add("RFTC110", f"loop stopped after {MAX_WHILE} iterations", span)
            return False
        return self._loop_body(body)

    def _loop_body(self, body) -> bool:
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

    def run_for(self, node) -> int:
        ch = node.children
        name = next(c for c in ch if hasattr(c, "type") and c.type == "FOR_NAME").value
        has_in = any(hasattr(c, "type") and c.type == "IN" for c in ch)
        trees = [c for c in ch if not hasattr(c, "type")]
        body = trees[-1]
        items: list[Field] = []
        if has_in:
            for w in trees[:-1]:
                items += self.exp.fields(w)
        else:
            items = list(self.st.positional)
        span = node_span(self.file, node)
        outer, self.loops = self.loops, self.loops + (name,)
        try:
            for f in items:
                if not self._budget(span):
                    break
                self.assign_segs(name, f.segs, span)
                if not self._loop_body(body):
                    break
        finally:
            self.loops = outer
        return 0

    def run_arith_for(self, node) -> int:
        slots: list = [None, None, None]
        k = 0
        body = None
        for c in node.children:
            if hasattr(c, "type"):
                if c.type == "A_SEMI":
                    k += 1
                continue
            if c.data == "list":
                body = c
            elif k < 3:
                slots[k] = c
        span = node_span(self.file, node)
        opener = node.children[1]
        if self.g.runtime and self.arith(None, opener)[0] is None:
            slots = [None, None, None]  # bash rejects the expressions when the loop starts
            self.g.add("RFTC110", f"loop not evaluated: {self.arith_error}", span)
            return 1
        if slots[0] is not None:
            self.arith(slots[0])
        outer = self.loops
        self.loops += tuple(t.value.strip() for t in (slots[0].scan_values(lambda v: getattr(v, "type", "") == "A_NAME")
                                                     if slots[0] is not None and hasattr(slots[0], "scan_values")
                                                     else ()) if t.value.strip() not in self.loops)
        try:
            return self._arith_loop(slots, span, body)
        finally:
            self.loops = outer

    def _arith_loop(self, slots, span, body) -> int:
        n = 0
        while True:
            if slots[1] is not None:
                value, unknowns = self.arith(slots[1])
                if value is None:
                    names = ", ".join(sorted({"$" + u.name for u in unknowns})) or "its condition"
                    self.g.add("RFTC110", f"loop not evaluated: its bound depends on {names}, not known "
                               "statically; the body is skipped", span, hint="pass --env NAME=value")
                    return 0
                if not value:
                    return 0
            n += 1
            if not self._bounded_iteration(n, span, body):
                return 0
            if slots[2] is not None:
                self.arith(slots[2])

    def run_while(self, node, trees) -> int:
        until = node.children[0].type == "UNTIL"
        cond, body = trees[0], trees[1]
        span = node_span(self.file, node)
        n = 0
        while True:
            fork = self.st.fork()  # a condition that is not static must not leave its effects
            ok, unc, _ = self.condition(cond)
            if unc:
                self.st = fork
                what = self._decision(node_span(self.file, cond), unc, []).depends_on()
                self.g.add("RFTC110", f"loop not evaluated: its condition depends on {what}, not known "
                           "statically; the body is skipped", span, hint="make the condition static or pass --env")
                return 0
            if ok == until:
                return 0
            n += 1
            if not self._bounded_iteration(n, span, body):
                return 0

    # --- simple commands
    def run_simple(self, node) -> int:
        assigns = [c for c in node.children if c.data == "assignment"]
        words = [c for c in node.children if c.data == "word"]
        redirects = [c for c in node.children if c.data == "redirect"]
        self.placeholders(redirects)
        if not words:
            for a in assigns:
                self.do_assign(a)
            if not assigns and self.capture is not None and any(t[0].endswith("<") for t in redirect_targets(redirects)):
                self.capture_unknown.append(("cat", self.source_text(node_span(self.file, node)), None))  # $(< file)
            return 0
        fields: list[Field] = []
        for w in words:
            fields += self.exp.fields(w)
        if not fields:
            for a in assigns:
                self.do_assign(a)
            return 0
        prefix: dict[str, str] = {}
        if assigns:
            # VAR=x cmd: the assignments hold for the command only; what the command itself sets stays, as in
            # bash (`IFS=, read -ra GPUS <<< "$X"` sets GPUS; a function's globals; a `cd`)
            before: dict[str, tuple] = {}
            for a in assigns:
                name = re.match(r"[A-Za-z_]\w*", a.children[0].value).group()
                before.setdefault(name, (self._var(name), self.st.taints.get(name)))
                self.do_assign(a, exported=True)
                v = self._var(name)
                prefix[name] = "".join(s.text for s in (v.segs or []))
            try:
                return self.run_fields(fields, prefix, node, redirects, words)
            finally:
                for name, (var, taint) in before.items():
                    scope = self._scope_of(name)
                    scope.pop(name, None)
                    self.st.taints.pop(name, None)
                    if var is not None:
                        scope[name] = var
                    if taint is not None:
                        self.st.taints[name] = taint
        return self.run_fields(fields, prefix, node, redirects, words)

    def run_fields(self, fields: list[Field], prefix: dict, node, redirects, words) -> int:
        name = fields[0].text
        span = node_span(self.file, node)
        if name in self.st.funcs:
            return self.call_function(name, fields[1:], span)
        builtin = getattr(self, "b_" + BUILTINS.get(name, "_none"), None)
        if builtin is not None:
            return builtin(fields, span, redirects, words)
        return self.external(fields, prefix, node, span, redirects)

    def external(self, fields, prefix, node, span, redirects) -> int:
        name = fields[0].text
        base = name.rsplit("/", 1)[-1]
        self.note_uncertain([], span, base)  # whether a command succeeds is known where it runs
        if self.capture is not None and not to_devnull(redirects):
            if not self.testing:  # its output is what the substitution prints (run for its status, as in
                #                   `cmd && echo a`, it is taken to print nothing)
                self.capture_unknown.append((base, self.source_text(span),
                                             date_format(fields) if base == "date" else None))
            return 0
        parts = launches.recognize(fields, prefix)
        if parts is not None:
            self.add_launch(parts, span)
            if base == "exec":
                raise Exit()
            return 0
        inline = dict(prefix)
        at = launches.program(fields, inline)  # `exec bash x.sh`, `nohup ./x.sh &`, `srun -N2 bash x.sh`
        rest = fields[at:] if at is not None else []
        prog = rest[0].text.rsplit("/", 1)[-1] if rest else ""
        if prog in ("bash", "sh"):
            args = rest[1:]
            while args and args[0].text.startswith("-") and args[0].text != "-c":
                args = args[1:]  # bash -x run.sh
            if args and args[0].text == "-c":
                if len(args) > 1:
                    self.call_code(args[1:], inline, span)
            else:
                self.call_script(args, inline, span)
        elif prog.endswith(".sh"):
            self.call_script(rest, inline, span)
        if base == "exec" and len(fields) > 1:
            raise Exit()
        if rest and rest[0] is not fields[0] or launches.is_shell(prog):
            return 0
        if launches.ORPHAN.match(name) and not fields[0].symbolic:
            n = sum(1 for f in fields if launches.ORPHAN.match(f.text) or re.match(r"[\w.+~]+=", f.text))
            where = f"line {span.line}" if span.last_line == span.line else f"lines {span.line}-{span.last_line}"
            what = "1 override" if n == 1 else f"{n} overrides"
            verb = "reaches" if n == 1 else "reach"
            self.g.add("RFTC105", f"`{name[:60]}` runs as a command of its own: {what} on {where} never "
                       f"{verb} the launch", span,
                       hint="a broken backslash continuation above cut them off; rejoin them to the launch command")
        if fields[0].symbolic and fields[0].origin:
            self.g.add("RFTC115", f"the command comes from {fields[0].written}, {_unknown_why(fields[0])}; what it "
                       "runs is unknown", self.written_at(fields[0], span), hint=_unknown_hint(fields[0]))
        return 0

    def add_launch(self, parts: dict, span: Span) -> None:
        if self.g.quiet:
            return
        exported = self.exported_env()
        cwd = None
        if self.st.cwd is not None:
            cwd = "".join(s.text for s in self.st.cwd)
        code = self.g.code.get(self.file)
        if code is not None:  # eval / bash -c: where the words were written
            parts = dict(parts, args=[self.traced(f) for f in parts["args"]])
            if parts.get("span_start") is not None:
                span = self.traced(parts["span_start"]).span
        inv = launches.build(parts, index=len(self.g.invocations), span=span, cwd=cwd,
                             script=code.origin if code else self.file, exported=exported)
        inv.loop = {name: "".join(s.text for s in (self._var(name).segs or [])) for name in self.loops
                    if self._var(name) is not None and self._var(name).segs is not None}
        target = parts.get("target_unknown")
        if target is not None:
            self.g.add("RFTC115", f"the launched program comes from {target.written}, {_unknown_why(target)}; the "
                       "launch cannot be classified", self.written_at(target), hint=_unknown_hint(target))
        reported: set = set()
        for n in parts["span_start"].notes if parts.get("span_start") is not None else ():
            reported.add(n)  # the program itself (`$PYTHON -m ...`)
            self.report_choice(n, parts["span_start"].span)
        for f in parts["args"]:
            for u in f.unknowns:
                if (u.kind, u.name) not in reported:  # once per launch and name, where it first appears
                    reported.add((u.kind, u.name))
                    self.report_unknown(u)
            for n in f.notes:
                if n not in reported:
                    reported.add(n)
                    self.report_choice(n, f.span)
        self.g.invocations.append(inv)

    def report_choice(self, note, span: Span) -> None:
        """RFTC109 where a value rftc chose for something only the running machine decides reaches a launch."""
        if isinstance(note, Taint):
            self.g.add("RFTC109", note.message, span, hint="pass the --env shown to compile the other branch")
        elif isinstance(note, Choice):
            others = ", ".join(f"--env {note.knob}={o}" for o in note.options[1:])
            self.g.add("RFTC109", f"`{note.source}` prints one of {', '.join(note.options)} depending on the machine "
                       f"that runs it; rftc took {note.options[0]}, the first written; {others} takes another",
                       span, hint=f"pass --env {note.knob}=VALUE to decide it")

    def report_unknown(self, u: Unknown) -> None:
        if u.kind == "var" and (u.name.isdigit() or u.name == "#"):  # the script's own arguments
            what = (f"${u.name} is the script's {ordinal(int(u.name))} argument" if u.name.isdigit()
                    else "$# is the number of the script's arguments")
            self.g.add("RFTC106", f"{what}, which rftc is not given",
                       u.span, hint="pass the script's arguments after `--` (rftc convert SCRIPT -- ARG1 ARG2 ...)")
        elif u.kind == "var":
            self.g.add("RFTC106", f"${u.name} is not set in the script; kept as ${{oc.env:{u.name}}}", u.span,
                       hint=f"pass --env {u.name}=value to fix it at compile time")
        elif u.kind == "dyn":
            self.g.add("RFTC107", f"`{u.detail}` is only known at run time; kept as {u.name}", u.span)
        elif u.kind == "cmd":
            self.g.add("RFTC108", f"`{u.detail}` is not evaluated (rftc runs nothing); kept as ${{oc.env:{u.name}}}",
                       u.span, hint=f"pass --env {u.name}=value, or write the value into the script")
        elif u.kind == "alt":
            assumed = "set and not empty" if ":+" in u.detail else "set"
            self.g.add("RFTC116", f"`{u.detail}`: ${u.name} is not set in the script and the same value keeps it "
                       f"as ${{oc.env:{u.name}}}, so the alternative is used as if it were {assumed} (bash leaves "
                       "it out otherwise)", u.span,
                       hint=f"pass --env {u.name}=value (--env {u.name}= for empty) to decide it at compile time")
        elif u.kind == "length":
            self.g.add("RFTC108", f"`{u.detail}` is a length only known at run time; kept as "
                       f"${{oc.env:{u.name}}}", u.span, hint=f"pass --env {u.name}=value, or set the variable")
        elif u.kind == "arith":
            self.g.add("RFTC108", f"arithmetic {u.detail} is not evaluated; kept as ${{oc.env:{u.name}}}", u.span,
                       hint=f"pass --env {u.name}=value, or write the value into the script")

    def placeholders(self, redirects) -> None:
        """`P=<your_path>/x`: a placeholder bash reads as the redirections `<your_path` and `>/x` (RFTC120)."""
        for r in redirects:
            op = r.children[0]
            if getattr(op, "type", "") != "REDIR" or op.value.strip() != "<" or op.value[0] in " \t":
                continue
            end = node_span(self.file, r)
            rest = self.lines[end.last_line - 1][(end.end_col or 1) - 1:] if end.last_line <= len(self.lines) else ""
            if rest.startswith(">"):
                name = self.source_text(end).lstrip("<")
                self.g.add("RFTC120", f"`<{name}>` is a placeholder left in the script: bash reads it as the "
                           f"redirections `<{name}` and `>...`, so this command fails when the script runs",
                           Span(self.file, op.line, op.column, end.last_line, (end.end_col or 1) + 1),
                           hint=f"replace `<{name}>` with the real value")

    # --- functions, scripts, sourcing
    def call_function(self, name: str, args: list[Field], span: Span) -> int:
        self.g.calls += 1
        if self.depth >= MAX_DEPTH or self.g.calls > MAX_CALLS:
            self.g.add("RFTC114", f"function `{name}` not evaluated: more than {MAX_DEPTH} nested or {MAX_CALLS} "
                       "calls in all", span)
            return 0
        body, file, lines = self.st.funcs[name]
        saved = (self.st.positional, self.st.args_unknown, self.file, self.lines, self.depth)
        self.st.positional = [Field(anchored(a.segs, a.span), a.span) for a in args]
        self.st.args_unknown = None  # a function's arguments are those of its call
        self.st.frames.append({})
        self.file, self.lines, self.depth = file, lines, self.depth + 1
        try:
            status = self.run_command(body)
        except Return:
            status = self.status
        finally:
            self.st.frames.pop()
            self.st.positional, self.st.args_unknown, self.file, self.lines, self.depth = saved
        return status

    def resolve_path(self, path: str) -> str | None:
        """A path the script reads. Relative to the working directory when known; otherwise the script's
        directory or, since veRL scripts run from the repository root, the nearest ancestor holding it."""
        if path.startswith("/"):
            return path
        if self.st.cwd is not None and not any(s.unknowns for s in self.st.cwd):
            return posixpath.join("".join(s.text for s in self.st.cwd), path)
        if not os.path.isabs(self.g.script_path):
            return path
        base = os.path.dirname(self.g.script_path)
        d = base
        while True:
            candidate = os.path.join(d, path)
            if os.path.exists(candidate):
                return candidate
            parent = os.path.dirname(d)
            if parent == d:
                return os.path.join(base, path)
            d = parent

    def read_file(self, field: Field, span: Span, what: str) -> tuple[str, str] | None:
        if field.symbolic:
            names = ", ".join("$" + u.name for u in field.unknowns)
            self.g.add("RFTC111", f"{what} `{field.text}` not read: its path depends on {names}", span,
                       hint="pass --env NAME=value so rftc can find the file")
            return None
        path = self.resolve_path(field.text)
        try:
            with open(path, encoding="utf-8") as fh:
                return path, fh.read()
        except (OSError, UnicodeDecodeError, ValueError):
            self.g.add("RFTC111", f"{what} `{field.text}` cannot be read; what it sets stays unknown", span,
                       hint="put the file where the script expects it, or pass its variables with --env")
            return None

    def run_file(self, path: str, text: str, span: Span) -> None:
        from rftc.shell.parser import parse

        if self.depth >= MAX_DEPTH:
            self.g.add("RFTC114", f"`{path}` not read: files nested deeper than {MAX_DEPTH}", span)
            return
        self.g.sources[path] = text
        parsed = parse(text, path, self.g.diags, partial=True)
        if parsed.tree is None:
            return
        if parsed.stop is not None:
            self.g.stops.setdefault(parsed.stop[0].span, parsed.stop)
        for kind, s in parsed.breaks:
            report_break(self.g, kind, replace(s, file=path), text.split("\n"))
        self.g.local_names |= script_variables(parsed.tree)
        self.g.runtime.update({(path, *at): v for at, v in parsed.runtime.items()})
        saved = (self.file, self.lines, self.depth)
        self.file, self.lines, self.depth = path, text.split("\n"), self.depth + 1
        try:
            self.run(parsed.tree)
        except Return:
            pass
        finally:
            self.file, self.lines, self.depth = saved

    def call_script(self, fields: list[Field], prefix: dict, span: Span) -> bool:
        """`bash x.sh args` / `./x.sh args`: a new shell reading x.sh with the exported environment."""
        if not fields or not fields[0].text.endswith(".sh"):
            return False
        read = self.read_file(fields[0], span, "script")
        if read is None:
            return True
        path, text = read
        saved_path = self.g.script_path
        self.g.script_path = os.path.abspath(path) if os.path.exists(path) else path
        try:
            self._new_shell(path, text, {}, fields[1:], prefix, span)
        finally:
            self.g.script_path = saved_path
        return True

    def call_code(self, fields: list[Field], prefix: dict, span: Span) -> None:
        """`bash -c CODE [NAME [ARGS...]]`: a new shell running CODE, with NAME as $0 and ARGS as $1..."""
        name, text, held = self.code_text(fields[:1], span, "bash -c")
        zero = fields[1].segs if len(fields) > 1 else [self._seg("bash", span)]
        self._new_shell(name, text, held, fields[2:], prefix, span, zero=zero)

    def _new_shell(self, path: str, text: str, held: dict, args: list[Field], prefix: dict, span: Span, *,
                   zero: list | None = None) -> None:
        st = State()
        st.zero = zero
        for k, v in self.st.vars.items():
            if v.exported:
                st.vars[k] = v
        for k, v in prefix.items():
            st.vars[k] = Var([self._seg(v, span)], None, span, True)
        st.vars.update(held)
        st.positional = [Field(anchored(a.segs, a.span), a.span) for a in args]
        st.cwd = self.st.cwd
        sub = Evaluator(self.g, st, path, text, depth=self.depth + 1)
        try:
            sub.run_file(path, text, span)
        except Exit:
            pass

    def code_text(self, fields: list[Field], span: Span, what: str) -> tuple[str, str, dict[str, Var]]:
        """The commands `eval ARGS` and `bash -c CODE` run: (the name spans give them, the words joined by blanks
        as bash joins them, variables to set where they run). A value rftc does not know is read back through a
        variable that holds it, so that it stays what it was (`${oc.env:HOME}`, with its origin); inside single
        quotes the quote is closed around it, as its literal text would have stayed inside. Where each piece of the
        text comes from is kept for ``traced``."""
        from rftc.shell.scan import matched_pairs

        name = f"{span.file}:{span.line} ({what})"
        out: list[str] = []
        pieces: list[tuple[int, Seg]] = []  # (offset in the text, the piece of a word it was)
        held: dict[str, Var] = {}
        at = 0
        for f in fields:
            for seg in f.segs:
                if seg.unknowns:
                    var = f"RFTC_HELD_{len(held)}"
                    held[var] = Var([seg])  # no span: it is no assignment the value went through
                    ref = "${" + var + "}"
                    opened = matched_pairs("".join(out)).open
                    text = f"'\"{ref}\"'" if opened and opened[-1][0] == "'" else ref
                else:
                    pieces.append((at, seg))
                    text = seg.text
                out.append(text)
                at += len(text)
            out.append(" ")
            at += 1
        text = "".join(out[:-1])
        outer = self.g.code.get(span.file)
        self.g.code[name] = Code(outer.origin if outer else span.file, text.split("\n"), pieces)
        return name, text, held

    def written_at(self, field: Field, span: Span | None = None) -> Span:
        """Where a word rftc cannot know was written: in the text of `eval` / `bash -c`, where its unknown part was
        (the script's own line, not the generated text); else ``span``, or the word's own."""
        span = span or field.span
        if span.file in self.g.code and field.unknowns:
            return field.unknowns[0].span
        return span

    def traced(self, field: Field) -> Field:
        """A word of a launch in the text of `eval` / `bash -c`, placed where its pieces were written (with the
        assignments they went through), as the same word written out in the script would be."""
        segs = []
        for seg in field.segs:
            code = self.g.code.get(seg.file)
            if code is not None and seg.exact:
                at = sum(len(x) + 1 for x in code.lines[:seg.line - 1]) + seg.col - 1
                end = at + max(len(seg.text), 1)
                over = [(p, o) for p, o in code.pieces if p < end and at < p + len(o.text)]  # the pieces it spans
                if over:
                    (start, first), (last_at, last) = over[0], over[-1]
                    o = cut(first, max(at - start, 0), min(end - start, len(first.text)))
                    e = cut(last, max(at - last_at, 0), min(end - last_at, len(last.text)))
                    e = e if e.file == o.file else o
                    via = tuple(dict.fromkeys(v for _, p in over for v in p.via))
                    seg = replace(seg, file=o.file, line=o.line, col=o.col, end_line=e.end_line, end_col=e.end_col,
                                  exact=o.exact and len(over) == 1, via=via + seg.via)
            segs.append(seg)
        return Field(segs, None, field.origin)

    # --- declarations (export / local / readonly / declare)
    def run_decl(self, node) -> int:
        kw = node.children[0].value
        if kw == "local" and not self.st.frames:
            return 1  # bash: "local: can only be used in a function", and nothing is set
        local = kw in ("local",) or (kw in ("declare", "typeset") and bool(self.st.frames))
        export = kw == "export"
        flags = ""
        self.placeholders([c for c in node.children[1:] if c.data == "redirect"])
        for c in node.children[1:]:
            if c.data == "assignment":
                self.do_assign(c, local=local, exported=True if (export or "x" in flags) else None)
                continue
            if c.data == "redirect":
                continue
            for f in self.exp.fields(c):
                t = f.text
                if t.startswith("-") and len(t) > 1:
                    flags += t[1:]
                    continue
                if not re.fullmatch(r"[A-Za-z_]\w*", t):
                    continue
                if export or "x" in flags:
                    v = self._var(t)
                    if v is not None:
                        self._scope_of(t)[t] = replace(v, exported=True)
                    else:
                        val = self.lookup(t, f.span)
                        if val is not None:  # from the caller's environment
                            self.st.vars[t] = Var(val[1], None, None, True)
                elif local:
                    self.st.frames[-1][t] = Var([], None, f.span) if "a" not in flags else Var(None, [], f.span)
        return 0


def script_variables(tree) -> set[str]:
    """Names the script assigns that are not environment-style (they have a lowercase letter). Read before
    their first assignment they are empty rather than unknown: `s="${s}x"` in a loop starts from ''.
    Upper-case names (PYTHONPATH, NNODES) may come from the environment and stay unknown until set."""
    names = set()
    for tok in tree.scan_values(lambda t: getattr(t, "type", "") in ("ASSIGN", "ARRAY_ASSIGN", "FOR_NAME")):
        m = re.match(r"[A-Za-z_]\w*", tok.value)
        if m and any(c.islower() for c in m.group(0)):
            names.add(m.group(0))
    return names


def _lost_arguments(lines: list[str], line: int) -> bool:
    """Whether the first code line after ``line`` (1-based) looks like more arguments of the cut command."""
    for text in lines[line:]:
        t = text.strip()
        if not t or t.startswith("#"):
            continue
        return bool(launches.ORPHAN.match(t) or t[0] in "-$\"'" or re.match(r"[\w.+~]+=\S", t))
    return False


def report_break(g: Shared, kind: str, span: Span, lines: list[str]) -> None:
    """Warn where a continuation silently ends a command (RFTC102-104), when arguments follow that are lost."""
    if kind == "space":
        g.add("RFTC103", "backslash followed by a blank: bash passes a ' ' argument and ends the command here; "
              "the lines after it are not part of it", span, hint="delete the blanks after the backslash")
    elif not _lost_arguments(lines, span.line):
        return
    elif kind == "comment":
        g.add("RFTC102", f"this comment line ends the continued command above: the arguments after line "
              f"{span.line} are not part of it (bash drops them too)", span,
              hint="move the comment out of the command, or delete it")
    else:
        g.add("RFTC104", f"blank line after a backslash continuation: the command ends at line {span.line - 1}; "
              "the arguments after it are not part of it", span,
              hint="remove the blank line (or the trailing backslash)")


def _unknown_why(field: Field) -> str:
    if all(u.kind == "var" for u in field.unknowns):
        return "which is not set"
    return "which is only known when the script runs"


def _unknown_hint(field: Field) -> str:
    """How to give rftc a word it cannot know: the script's arguments, or --env for each value it stands for."""
    if any(u.kind == "var" and (u.name.isdigit() or u.name in ("#", "@", "*")) for u in field.unknowns):
        return "pass the script's arguments after `--` (rftc convert SCRIPT -- ARG1 ARG2 ...)"
    knobs = [m.group(1) if (m := re.search(r"oc\.env:(\w+)", u.name)) else u.name for u in field.unknowns]
    return "set it in the script, or pass " + ", ".join(f"--env {k}=..." for k in dict.fromkeys(knobs)) + \
        " with the value it stands for"
