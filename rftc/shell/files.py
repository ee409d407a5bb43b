"""The files and texts a script runs: itself, what it sources (`source` / `.`), the scripts it runs in a new shell
(`bash x.sh`, `./x.sh`), and the text `eval` and `bash -c` run, whose words are traced back to where they were
written."""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import replace

from rftc.diagnostics.model import Span
from rftc.shell import launches
from rftc.shell.builtins import WRITES
from rftc.shell.parser import Parsed, parse
from rftc.shell.scan import matched_pairs
from rftc.shell.state import MAX_DEPTH, Code, Exit, Return, Shared, State, Var
from rftc.shell.syntax import Redirect, Script
from rftc.shell.values import Field, Seg, anchored, cut


def read_script(g: Shared, text: str, path: str) -> Parsed | None:
    """Parse a file the analysis reads and note what its parse found: a syntax error bash stops at (after running
    the lines before it), the continuations that end commands early (RFTC102-104), the script's own variables.
    None when it does not parse."""
    parsed = parse(text, path, g.diags, partial=True)
    if parsed.tree is None:
        return None
    if parsed.stop is not None:
        g.stops.setdefault(parsed.stop[0].span, parsed.stop)
    for kind, s in parsed.breaks:
        report_break(g, kind, s, text.split("\n"))
    g.local_names |= script_variables(parsed.tree)
    return parsed


def script_variables(script: Script) -> set[str]:
    """Names the script assigns that are not environment-style (they have a lowercase letter). Read before
    their first assignment they are empty rather than unknown: `s="${s}x"` in a loop starts from ''.
    Upper-case names (PYTHONPATH, NNODES) may come from the environment and stay unknown until set."""
    return {name for name in script.assigned if any(c.islower() for c in name)}


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


def _lost_arguments(lines: list[str], line: int) -> bool:
    """Whether the first code line after ``line`` (1-based) looks like more arguments of the cut command."""
    for text in lines[line:]:
        t = text.strip()
        if not t or t.startswith("#"):
            continue
        return bool(launches.ORPHAN.match(t) or t[0] in "-$\"'" or re.match(r"[\w.+~]+=\S", t))
    return False


class Files:
    """Reading and running files and texts for one evaluator ``ev``."""

    def __init__(self, ev):
        self.ev = ev

    def resolve_path(self, path: str) -> str | None:
        """A path the script reads. Relative to the working directory when known; otherwise the script's
        directory or, since veRL scripts run from the repository root, the nearest ancestor holding it."""
        ev = self.ev
        if path.startswith("/"):
            return path
        if ev.st.cwd is not None and not any(s.unknowns for s in ev.st.cwd):
            return posixpath.join("".join(s.text for s in ev.st.cwd), path)
        if not os.path.isabs(ev.g.script_path):
            return path
        base = os.path.dirname(ev.g.script_path)
        d = base
        while True:
            candidate = os.path.join(d, path)
            if os.path.exists(candidate):
                return candidate
            parent = os.path.dirname(d)
            if parent == d:
                return os.path.join(base, path)
            d = parent

    def read_file(self, field: Field, span: Span, what: str) -> tuple[str, str, dict[str, Var]] | None:
        """The file a command reads as a script: (the name spans give it, its text, variables to set where it runs
        (``code_text``)); a file the script wrote itself (``write``) is what it wrote. None when it cannot be read."""
        g = self.ev.g
        written = g.written.get(self._written_key(field))
        if written is not None:
            segs, at, how = written
            return self._code([segs], at, how, "")
        if field.symbolic:
            names = ", ".join("$" + u.name for u in field.unknowns)
            g.add("RFTC111", f"{what} `{field.text}` not read: its path depends on {names}", span,
                  hint="pass --env NAME=value so rftc can find the file")
            return None
        path = self.resolve_path(field.text)
        try:
            with open(path, encoding="utf-8") as fh:
                return path, fh.read(), {}
        except (OSError, UnicodeDecodeError, ValueError):
            g.add("RFTC111", f"{what} `{field.text}` cannot be read; what it sets stays unknown", span,
                  hint="put the file where the script expects it, or pass its variables with --env")
            return None

    def run_file(self, path: str, text: str, span: Span) -> None:
        """Run the file ``path`` in this shell (`source`, `eval`, or a new shell's script)."""
        ev = self.ev
        if ev.depth >= MAX_DEPTH:
            ev.g.add("RFTC114", f"`{path}` not read: files nested deeper than {MAX_DEPTH}", span)
            return
        ev.g.sources[path] = text
        parsed = read_script(ev.g, text, path)
        if parsed is None:
            return
        saved = (ev.file, ev.lines, ev.depth)
        ev.file, ev.lines, ev.depth = path, text.split("\n"), ev.depth + 1
        ev.g.callers.append(span)
        try:
            ev.commands.run_script(parsed.tree)
        except Return:
            pass
        finally:
            ev.file, ev.lines, ev.depth = saved
            ev.g.callers.pop()

    def call_script(self, fields: list[Field], prefix: dict, span: Span, more: bool = False) -> None:
        """`bash x.sh args` / `./x.sh args`: a new shell reading x.sh with the exported environment (``more``: the
        script's arguments, not given, follow ``args``)."""
        if not fields:
            return
        read = self.read_file(fields[0], span, "script")
        if read is None:
            return
        path, text, held = read
        g = self.ev.g
        saved_path = g.script_path
        g.script_path = os.path.abspath(path) if os.path.exists(path) else fields[0].text  # $0: as the caller names it
        try:
            self._new_shell(path, text, held, fields[1:], prefix, span, more=more)
        finally:
            g.script_path = saved_path

    def write(self, printed: list[Seg], redirects: tuple, span: Span, command: str) -> None:
        """`cat > FILE <<EOF ... EOF`, `echo ... >> FILE`: what ``command`` prints into FILE, kept as the file's
        text for the script to run later (`bash FILE`, `source FILE`); a file appended to that the script did not
        write keeps what it holds on disk."""
        target = next((r for r in reversed(redirects) if isinstance(r, Redirect) and r.op.strip() in WRITES), None)
        if target is None:
            return
        name = Field(self.ev.words.segs(target.target))
        key = self._written_key(name)
        if target.op.strip() == ">>":
            if key not in self.ev.g.written:
                return
            printed = self.ev.g.written[key][0] + printed
        self.ev.g.written[key] = (printed, span, f"{command} > {name.text}")

    def is_written(self, field: Field) -> bool:
        """Whether the script wrote the file ``field`` names (``write``)."""
        return self._written_key(field) in self.ev.g.written

    def _written_key(self, field: Field) -> str:
        """A file the script writes, by its path; a path that depends on a value rftc does not know, by the text
        that stands for it (the same variable names the same file when it is read back)."""
        return field.text if field.symbolic else self.resolve_path(field.text) or field.text

    def call_code(self, fields: list[Field], prefix: dict, span: Span, more: bool = False) -> None:
        """`bash -c CODE [NAME [ARGS...]]`: a new shell running CODE, with NAME as $0 and ARGS as $1..."""
        name, text, held = self.code_text(fields[:1], span, "bash -c")
        zero = fields[1].segs if len(fields) > 1 else [Seg.at("bash", span)]
        self._new_shell(name, text, held, fields[2:], prefix, span, zero=zero, more=more)

    def _new_shell(self, path: str, text: str, held: dict, args: list[Field], prefix: dict, span: Span, *,
                   zero: list | None = None, more: bool = False) -> None:
        ev = self.ev
        st = State()
        st.zero, st.args_more = zero, more
        for k, v in ev.st.vars.items():
            if v.exported:
                st.vars[k] = v
        for k, v in prefix.items():
            st.vars[k] = Var([Seg.at(v, span)], None, span, True)
        st.vars.update(held)
        st.positional = [Field(anchored(a.segs, a.span), a.span) for a in args]
        st.cwd = ev.st.cwd
        sub = ev.new_shell(st, path, text)
        try:
            sub.files.run_file(path, text, span)
        except Exit:
            pass

    def code_text(self, fields: list[Field], span: Span, what: str) -> tuple[str, str, dict[str, Var]]:
        """The commands `eval ARGS` and `bash -c CODE` run: (the name spans give them, the words joined by blanks
        as bash joins them, variables to set where they run). A value rftc does not know is read back through a
        variable that holds it, so that it stays what it was (`${oc.env:HOME}`, with its origin); inside single
        quotes the quote is closed around it, as its literal text would have stayed inside. Where each piece of the
        text comes from is kept for ``traced``."""
        return self._code([f.segs for f in fields], span, what, " ")

    def _code(self, words: list[list[Seg]], span: Span, what: str, sep: str) -> tuple[str, str, dict[str, Var]]:
        """``code_text`` of ``words`` joined by ``sep``."""
        g = self.ev.g
        name = f"{span.file}:{span.line} ({what})"
        out: list[str] = []
        pieces: list[tuple[int, Seg]] = []  # (offset in the text, the piece of a word it was)
        held: dict[str, Var] = {}
        at = 0
        for segs in words:
            for seg in segs:
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
            out.append(sep)
            at += len(sep)
        text = "".join(out[:-1])
        g.code[name] = Code(text.split("\n"), pieces)
        return name, text, held

    def written_at(self, field: Field, span: Span | None = None) -> Span:
        """Where a word rftc cannot know was written: in the text of `eval` / `bash -c`, where its unknown part was
        (the script's own line, not the generated text); else ``span``, or the word's own."""
        span = span or field.span
        if span.file in self.ev.g.code and field.unknowns:
            return field.unknowns[0].span
        return span

    def traced(self, field: Field) -> Field:
        """A word of a launch in the text of `eval` / `bash -c`, placed where its pieces were written (with the
        assignments they went through), as the same word written out in the script would be."""
        segs = []
        for seg in field.segs:
            code = self.ev.g.code.get(seg.file)
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
