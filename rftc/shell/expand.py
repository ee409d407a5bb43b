"""Word expansion as bash does it (parameters, arithmetic, command substitution, quote removal, field
splitting), on values that remember where their text was written (rftc.shell.values). Field splitting cuts
pieces, so each override written inside a multi-line string keeps its own line and column. ``${...}`` with an
operator is in rftc.shell.params.
"""

from __future__ import annotations

import re
from dataclasses import replace

from rftc.diagnostics.model import Span
from rftc.shell.notes import Arguments, Split
from rftc.shell.params import Params
from rftc.shell.parser import heredoc_parts
from rftc.shell.syntax import (
    Ansi, ArithSub, Backtick, CommandSub, Cont, Deferred, Dollar, DoubleQuoted, DqText, HereDoc, HereText, Lit,
    OperandText, Param, Part, PatternText, ProcessSub, RegexText, Single, Text, Var, Word,
)
from rftc.shell.values import BREAK, Field, Seg, Unknown, advance, cut, env_knob, marked, text_of, unknowns_of

# assignment context of a word, for tilde expansion: none, an assignment's value, an argument `name=...`
NONE, VALUE, ARG = 0, 1, 2
_ASSIGN_LIKE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_TILDE = re.compile(r"~(/|$)")


class Expander:
    """Expands words for one evaluator ``ev``."""

    def __init__(self, ev):
        self.ev = ev
        self.params = Params(self)
        self.empty_array = False  # set when "$@" / "${a[@]}" expanded to no element at all
        self.plain: frozenset = frozenset()  # variables the word being expanded uses as a plain $NAME / ${NAME}

    # ------------------------------------------------------------------ entry points
    def fields(self, word: Word, vanished: list | None = None) -> list[Field]:
        """A command word: expanded, split and quote-removed into zero or more fields. An expansion to nothing
        that carries notes (a value chosen in a branch, rftc.shell.notes) is no word; with ``vanished`` it is kept
        there as a field of its own, for the notes. A word that is only an unquoted value the caller gives is
        noted as bash splitting it (Split)."""
        first = word.parts[0] if word.parts else None
        # bash (outside POSIX mode) expands a tilde after the `=` and `:` of an argument shaped like an assignment
        assign = ARG if isinstance(first, Lit) and _ASSIGN_LIKE.match(first.text) else NONE
        items = self.parts(word.parts, in_dq=False, first=True, assign=assign)
        fields = split(items)
        if len(fields) == 1:
            fields[0].word_span = word.span
        if any(not f.has_word for f in fields):
            if vanished is not None:
                vanished += [f for f in fields if not f.has_word]
            fields = [f for f in fields if f.has_word]
        origin = _origin(word)
        for f in fields:
            if origin:
                f.origin = origin
            if _caller_split(f):
                note = Split(f.span)
                f.segs = [replace(s, notes=s.notes + (note,)) for s in f.segs]
        return fields

    def value(self, word: Word | None) -> list[Seg]:
        """The right side of an assignment: expanded without splitting, pieces anchored for storage; the words of
        "$@" and "${a[@]}" are joined by blanks (`S="${a[@]}"`), as bash joins them where it does not split."""
        if word is None:
            return []
        items = self.parts(word.parts, in_dq=False, first=True, anchor=True, assign=VALUE)
        return [Seg.at(" ", word.span, quoted=True) if s is BREAK else s for s in items]

    def segs(self, word: Word, *, unset: bool = False) -> list[Seg]:
        """A word expanded without splitting (patterns, conditions); with ``unset`` unknown variables expand to ''."""
        prev = self.ev.unset_mode
        self.ev.unset_mode = unset or prev
        try:
            return [s for s in self.parts(word.parts, in_dq=False, first=True) if s is not BREAK]
        finally:
            self.ev.unset_mode = prev

    def text(self, word: Word, *, unset: bool = False) -> tuple[str, list[Unknown]]:
        """Plain text of a word and what it depends on; with ``unset`` unknown variables expand to ''."""
        segs = self.segs(word, unset=unset)
        return text_of(segs), list(unknowns_of(segs))

    # ------------------------------------------------------------------ parts
    def parts(self, parts: tuple[Part, ...], *, in_dq: bool, first: bool = False, anchor: bool = False,
              assign: int = 0) -> list:
        out: list = []
        outer, self.plain = self.plain, self.plain | _plain_refs(parts)
        try:
            for i, part in enumerate(parts):
                self.part(part, out, in_dq=in_dq, first=first and i == 0, anchor=anchor, assign=assign)
        finally:
            self.plain = outer
        return out

    def part(self, part: Part, out: list, *, in_dq: bool, first: bool = False, anchor: bool = False,
             assign: int = 0) -> None:
        match part:
            case Lit():
                if assign and not in_dq and self.tildes(part, out, first, assign):
                    return
                if first and not in_dq and _TILDE.match(part.text):
                    self.tilde(part, out)
                    return
                out += _runs(part, part.text, 0, _unquoted_escape)
            case DqText():
                out += _runs(part, part.text, 0, _dq_escape)
            case HereText():
                out += _runs(part, part.text, 0, _heredoc_escape)
            case Var():
                start = len(out)
                self.var(part.name, part.span, out, in_dq=in_dq, anchor=anchor)
                self.taint(part.name, out, start, part.span)
            case DoubleQuoted():
                self.empty_array = False
                inner = self.parts(part.parts, in_dq=True, anchor=anchor)
                had_array, self.empty_array = self.empty_array, False
                out += inner
                if not inner and not had_array:
                    out.append(Seg.at("", part.span, quoted=True))
            case Param():
                start = len(out)
                self.params.expand(part, out, in_dq=in_dq, anchor=anchor)
                self.taint(part.name, out, start, part.span)
            case Single():
                if in_dq:  # inside "${x:-'a'}" single quotes are literal characters
                    out += _literal(part)
                else:
                    out += _runs(part, part.text[1:-1], 1, lambda s, i: (0, "")) or _literal(part, "")
            case OperandText():
                if first and not in_dq and _TILDE.match(part.text):  # ${V:-~/default}
                    self.tilde(part, out)
                    return
                out += _runs(part, part.text, 0, _dq_escape if in_dq else _unquoted_escape)
            case PatternText():
                out += _runs(part, part.text, 0, _dq_escape if in_dq else _unquoted_escape)
            case CommandSub():
                self.command_output(None, part.body, part.span, out, in_dq)
            case ArithSub():
                self.arith(part, out, in_dq)
            case Cont():
                pass
            case Dollar():
                out += _literal(part)
            case Ansi():
                out += _literal(part, ansi_decode(part.text[2:-1]))
            case RegexText():  # the right side of =~: escapes stay, the regular expression reads them
                out += _literal(part)
            case Backtick():
                body = re.sub(r"\\([\\`$])", r"\1", part.text[1:-1])
                self.command_output(body, None, part.span, out, in_dq)
            case ProcessSub():  # <(cmd) >(cmd): bash passes a pipe's path; the command is not read
                out.append(Seg.at("/dev/fd/63", part.span, quoted=True))
            case Deferred():
                self.bad_substitution(part, out, in_dq)

    def bad_substitution(self, part: Deferred, out: list, in_dq: bool) -> None:
        """A ${...} bash rejects when it expands it ("bad substitution"): the command fails there; rftc keeps
        nothing of it."""
        self.ev.g.add("RFTC114", f"`${{{part.text}}}` is not an expansion bash can make (bash stops this command "
                      "with \"bad substitution\" when it runs it); not evaluated", part.span,
                      hint="write the parameter expansion bash expects, e.g. ${NAME:-default}")
        if in_dq:
            out.append(Seg.at("", part.span, quoted=True))

    def heredoc(self, doc: HereDoc) -> list[Seg] | None:
        """The text a heredoc gives its command's input, expanded as bash expands it when its delimiter is unquoted,
        each piece at its place in the file; None where the parse did not see the body (or cannot read it)."""
        if doc.body is None:
            return None
        file, line = doc.span.file, doc.line
        if not doc.expand:
            segs = [Seg(doc.body, file, line, 1, *advance(line, 1, doc.body), exact=True, quoted=True)]
        else:
            parts = heredoc_parts(doc.body, line, file)
            if parts is None:
                return None
            segs, pad = [], line - 1  # the newlines the body was parsed after
            for s in self.parts(parts, in_dq=True):
                if s is not BREAK:
                    skip = min(pad, len(s.text))
                    pad -= skip
                    segs += [cut(s, skip, len(s.text))] if skip < len(s.text) else []
        if doc.strip_tabs:  # <<-: bash removes the tabs that start each line before it expands the body
            lead = {line + k: len(t) - len(t.lstrip("\t")) for k, t in enumerate(doc.body.split("\n"))}
            segs = [piece for s in segs for piece in _without_leading_tabs(s, lead)]
        return segs

    # ------------------------------------------------------------------ tilde
    def home(self, part: Text, offset: int = 0) -> list[Seg]:
        out: list = []
        line, col = advance(part.span.line, part.span.col, part.text[:offset])
        self.var("HOME", Span(part.span.file, line, col, line, col + 1), out, in_dq=True, anchor=True)
        return out

    def tilde(self, part: Text, out: list) -> None:
        """`~` or `~/...` at the start of a word or of ${V:-~/default}."""
        out += self.home(part)
        if part.text[1:]:
            out += _runs(part, part.text[1:], 1, _unquoted_escape)

    def tildes(self, part: Lit, out: list, first: bool, assign: int) -> bool:
        """Tilde expansion in an assignment value or assignment-shaped argument: at the start of the value (after
        the first `=`) and after each unquoted `:`, where `~` is followed by `/`, `:` or the end. False when the
        text has none."""
        value = part.text
        starts = {0} if first and assign == VALUE else set()
        if first and assign == ARG:
            starts.add(value.index("=") + 1)
        starts.update(m.end() for m in re.finditer(r"(?<!\\):", value))
        at = [p for p in sorted(starts) if value[p:p + 1] == "~" and value[p + 1:p + 2] in ("", "/", ":")]
        if not at:
            return False
        pos = 0
        for p in at:
            if p > pos:
                out += _runs(part, value[pos:p], pos, _unquoted_escape)
            out += self.home(part, p)
            pos = p + 1
        if pos < len(value):
            out += _runs(part, value[pos:], pos, _unquoted_escape)
        return True

    # ------------------------------------------------------------------ variables
    def var(self, name: str, span: Span, out: list, *, in_dq: bool, anchor: bool = False) -> None:
        ev = self.ev
        if name in ("@", "*"):
            self.positional_all(name, span, out, in_dq)
            return
        val = ev.vars.lookup(name, span)
        if val is None:
            if not ev.unset_mode:
                out.append(self.unknown(name, span, in_dq))
            return
        via, segs = val
        out += marked(segs, via, span, in_dq, anchor)

    def positional_all(self, name: str, span: Span, out: list, in_dq: bool) -> None:
        args = self.ev.st.positional
        if name == "*" and in_dq:  # "$*": one field, joined by the first character of IFS
            out += [replace(s, quoted=True) for s in self.params.joined([a.segs for a in args], span)]
            return
        if self.ev.st.args_unknown is not None or self.ev.st.args_more:  # the caller's, not given: no word, noted
            out.append(Seg.at("", span, notes=(Arguments(span),)))
        self.elements([a.segs for a in args], (), span, out, in_dq)

    def elements(self, items: list[list[Seg]], via: tuple, span: Span, out: list, in_dq: bool,
                 anchor: bool = False) -> None:
        """"$@" / "${a[@]}": one field per element (split further when unquoted)."""
        if not items:
            self.empty_array = True
        for i, e in enumerate(items):
            if i:
                out.append(BREAK)
            segs = marked(e, via, span, in_dq, anchor)
            out += segs or ([Seg.at("", span, quoted=True)] if in_dq else [])

    def unknown(self, name: str, span: Span, in_dq: bool) -> Seg:
        """What an unset variable the script does not know expands to: a placeholder for its value."""
        name = self.ev.vars.unknown_name(name)
        if name in _SPECIAL:
            text = f"${{oc.env:{_SPECIAL[name]}}}"
            unknown = Unknown("dyn", text, span, f"${name}")
        else:
            text = "${oc.env:RFTC_NUM_ARGS}" if name == "#" else f"${{oc.env:{name}}}"  # $#: the arguments not given
            unknown = Unknown("var", name, span)
        return Seg.at(text, span, quoted=in_dq, unknowns=(unknown,))

    def unknown_length(self, name: str, idx: str | None, span: Span, in_dq: bool, needs: tuple) -> Seg:
        """`${#NAME}` of a value only the run knows: a placeholder of its own (--env RFTC_LENGTH_NAME gives it),
        never the value's."""
        knob = env_knob("RFTC_LENGTH", name)
        value = self.ev.g.env.get(knob)
        if value is not None:
            return Seg.at(value, span, quoted=in_dq)
        written = f"${{#{name}" + (f"[{idx}]" if idx else "") + "}"
        return Seg.at(f"${{oc.env:{knob}}}", span, quoted=in_dq, unknowns=(Unknown("length", knob, span, written),)
                      + needs)

    def taint(self, name: str, out: list, start: int, span: Span) -> None:
        """A variable whose value depends on an undecidable branch: what it expands to carries that (Taint notes);
        an expansion to nothing still carries it, in an empty piece that field splitting drops with it."""
        taints = self.ev.st.taints.get(name)
        if not taints:
            return
        for i in range(start, len(out)):
            if out[i] is not BREAK:
                out[i] = replace(out[i], notes=out[i].notes + tuple(t for t in taints if t not in out[i].notes))
        if len(out) == start:
            out.append(Seg.at("", span, notes=taints))

    # ------------------------------------------------------------------ substitutions
    def arith(self, part: ArithSub, out: list, in_dq: bool) -> None:
        ev, span = self.ev, part.span
        value, unknowns = ev.arith.evaluate(part.expr)
        if value is None:
            # an integer in bash: never split, whatever the placeholder text holds
            text, unknowns = self.arith_placeholder(unknowns, ev.source_text(span), span)
            out.append(Seg.at(text, span, quoted=True, unknowns=tuple(unknowns)))
        else:
            out.append(Seg.at(str(value), span, quoted=in_dq, via=tuple(ev.arith.via), notes=tuple(ev.arith.notes)))

    def arith_placeholder(self, unknowns: list, source: str, span: Span) -> tuple[str, list]:
        """What stands for $((expr)) that needs unknown values: ${oc.env:NAME} for a bare variable, else one
        blank-free environment placeholder for the whole result (bash yields one integer word, and Hydra cannot
        parse the expression text)."""
        names = [u.name for u in unknowns if u.kind == "var"]
        inner = re.sub(r"^\$\(\(\s*|\s*\)\)$", "", source or "").strip().lstrip("$").strip("{}")
        if len(unknowns) == 1 and names and inner == names[0]:
            return f"${{oc.env:{names[0]}}}", unknowns
        env_name = env_knob("RFTC_ARITH", *names)
        value = self.ev.g.env.get(env_name)
        if value is not None:
            return value, []
        why = self.ev.arith.error or ("needs " + ", ".join(f"${n}" for n in names) if names
                                      else "needs a value known only at run time")
        return f"${{oc.env:{env_name}}}", unknowns + [Unknown("arith", env_name, span, f"`{source}` ({why})")]

    def command_output(self, source: str | None, body, span: Span, out: list, in_dq: bool) -> None:
        printed = self.ev.builtins.command_output(source, body, span)  # split when unquoted, however printed
        out += [replace(s, quoted=in_dq) for s in printed] or [Seg.at("", span, quoted=in_dq)]


def split(items: list) -> list[Field]:
    """Field splitting on blanks for unquoted expansion results; quoted text and literals stay whole."""
    fields: list[Field] = []
    cur: list[Seg] = []
    has = False
    for it in items:
        if it is BREAK:
            if cur or has:
                fields.append(Field(cur))
            cur, has = [], False
            continue
        if it.quoted:
            cur.append(it)
            has = True
            continue
        if not it.text:
            if it.notes:
                cur.append(it)  # an expansion to nothing: it makes no field, but the notes join the field it is in
            continue
        pos = 0
        for m in re.finditer(r"[ \t\n]+", it.text):
            if m.start() > pos:
                cur.append(cut(it, pos, m.start()))
                has = True
            if cur or has:
                fields.append(Field(cur))
            cur, has = [], False
            pos = m.end()
        if pos < len(it.text):
            cur.append(cut(it, pos, len(it.text)))
            has = True
    if cur or has:
        fields.append(Field(cur))
    return fields


def _caller_split(field: Field) -> bool:
    """Whether a field is nothing but unquoted values the caller gives (`$EXTRA`, `$1`, `$A$B`), which bash splits."""
    texts = [s for s in field.segs if s.text]
    return bool(texts) and all(not s.quoted and s.unknowns and all(_from_caller(u) for u in s.unknowns)
                               for s in texts)


def _from_caller(u: Unknown) -> bool:
    """A variable or argument the caller may set to anything (the working directory and $# are one word each)."""
    return u.kind == "var" and u.name not in ("PWD", "#")


# special parameters only known to the running shell, as the environment names rftc reads them from
_SPECIAL = {"$": "RFTC_PID", "!": "RFTC_LAST_PID", "-": "RFTC_SHELL_FLAGS"}


# ------------------------------------------------------------------ text and escapes
def _literal(part: Text, text: str | None = None) -> list[Seg]:
    """One quoted piece for a part: its own text (exact), or ``text`` it stands for."""
    s = part.span
    return [Seg(text if text is not None else part.text, s.file, s.line, s.col, s.end_line, s.end_col,
                exact=text is None, quoted=True)]


def _runs(part: Text, value: str, offset: int, drop) -> list[Seg]:
    """Split ``value`` (which starts ``offset`` characters into ``part``) into exact runs, applying ``drop``:
    a function (text, i) -> (skip, keep) that says how many source characters at a backslash i are an escape
    and what they stand for."""
    out: list[Seg] = []
    file = part.span.file
    line, col = advance(part.span.line, part.span.col, part.text[:offset])
    i, start = 0, 0
    buf_line, buf_col = line, col

    def flush(end):
        if end > start:
            text = value[start:end]
            el, ec = advance(buf_line, buf_col, text)
            out.append(Seg(text, file, buf_line, buf_col, el, ec, exact=True, quoted=True))

    while True:
        i = value.find("\\", i)  # every escape starts with a backslash: skip the plain text between them
        if i < 0:
            break
        skip, keep = drop(value, i)
        if skip:
            flush(i)
            sl, sc = advance(buf_line, buf_col, value[start:i])
            if keep:
                el, ec = advance(sl, sc, value[i:i + skip])
                out.append(Seg(keep, file, sl, sc, el, ec, quoted=True))
            buf_line, buf_col = advance(sl, sc, value[i:i + skip])
            i += skip
            start = i
        else:
            i += 1
    flush(len(value))
    return out


def _unquoted_escape(text, i):
    if text[i] == "\\" and i + 1 < len(text):
        return 2, ("" if text[i + 1] == "\n" else text[i + 1])
    return 0, ""


def _without_leading_tabs(seg: Seg, lead: dict[int, int]) -> list[Seg]:
    """The pieces of a heredoc's piece without the tabs that start its lines (``lead``: line -> how many)."""
    if not seg.exact or "\t" not in seg.text:
        return [seg]
    out, start, line, col = [], 0, seg.line, seg.col
    for i, c in enumerate(seg.text):
        if c == "\t" and col <= lead.get(line, 0):
            out += [cut(seg, start, i)] if i > start else []
            start = i + 1
        line, col = (line + 1, 1) if c == "\n" else (line, col + 1)
    return out + ([cut(seg, start, len(seg.text))] if start < len(seg.text) else [])


def _escapes(chars: str):
    """What a backslash escapes where only ``chars`` can be escaped (a backslash-newline is nothing)."""
    def drop(text, i):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in chars:
            return 2, ("" if text[i + 1] == "\n" else text[i + 1])
        return 0, ""
    return drop


_dq_escape = _escapes('$`"\\\n')  # in double quotes
_heredoc_escape = _escapes('$`\\\n')  # in a heredoc body: `"` is a character


_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "v": "\v",
         "\\": "\\", "'": "'", '"': '"', "?": "?"}


def ansi_decode(body: str) -> str:
    return re.sub(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)",
                  lambda m: (chr(int(m.group(1)[1:], 16)) if m.group(1)[0] == "x" and len(m.group(1)) > 1
                             else chr(int(m.group(1), 8)) if m.group(1)[0].isdigit()
                             else _ANSI.get(m.group(1), "\\" + m.group(1))), body)


def _plain_refs(parts) -> frozenset:
    """Names used as a plain $NAME / ${NAME} among a word's parts (inside double quotes too)."""
    out = set()
    for part in parts:
        if isinstance(part, Var):
            out.add(part.name)
        elif isinstance(part, DoubleQuoted):
            out |= _plain_refs(part.parts)
        elif isinstance(part, Param) and part.plain:
            out.add(part.name)
    return frozenset(out)


def _origin(word: Word) -> str:
    """'array:NAME' / 'var:NAME' when the whole word is one expansion of a variable."""
    parts = word.parts
    if len(parts) == 1 and isinstance(parts[0], DoubleQuoted):
        parts = parts[0].parts
    if len(parts) != 1:
        return ""
    p = parts[0]
    if isinstance(p, Var):
        return f"var:{p.name}"
    if isinstance(p, Param):
        if p.index in ("@", "*"):
            return f"array:{p.name}"
        if p.plain:
            return f"var:{p.name}"
    return ""
