"""Word expansion as bash does it (parameters, arithmetic, command substitution, quote removal, field
splitting), on values that remember where their text was written (rftc.shell.values). Field splitting cuts
pieces, so each override written inside a multi-line string keeps its own line and column.

The evaluator supplies lookups and command substitution through the small protocol used here
(``ev.lookup``, ``ev.positional``, ``ev.command_output`` ...); this module never runs anything.
"""

from __future__ import annotations

import re
from dataclasses import replace

from rftc.diagnostics.model import Span
from rftc.shell.values import BREAK, Field, Seg, Unknown, advance, anchored, cut, defaulted, env_knob, notes_of


def tok_span(file: str, tok) -> Span:
    return Span(file, tok.line, tok.column, tok.end_line, tok.end_column)


def arith_expr(node):
    """The expression of `$(( ))` / `(( ))`, None when it is empty."""
    expr = node.children[1]
    return None if getattr(expr, "type", None) == "RPAREN" else expr


def node_span(file: str, node) -> Span:
    """From the first to the last token under ``node`` (cheaper than lark's propagate_positions)."""
    first = last = node
    while not hasattr(first, "type"):
        first = first.children[0]
    while not hasattr(last, "type"):
        last = last.children[-1]
    return Span(file, first.line, first.column, last.end_line, last.end_column)


def literal(file: str, tok, text: str | None = None) -> list[Seg]:
    """One quoted piece for a token: its own text (exact), or ``text`` it stands for."""
    return [Seg(text if text is not None else tok.value, file, tok.line, tok.column, tok.end_line, tok.end_column,
                exact=text is None, quoted=True)]


# ------------------------------------------------------------------ escapes
def _runs(file: str, tok, value: str, offset: int, drop) -> list[Seg]:
    """Split ``value`` (which starts ``offset`` characters into ``tok``) into exact runs, applying ``drop``:
    a function (text, i) -> (skip, keep) that says how many source characters at a backslash i are an escape
    and what they stand for."""
    out: list[Seg] = []
    line, col = advance(tok.line, tok.column, tok.value[:offset])
    i, start = 0, 0
    buf_line, buf_col = line, col

    def flush(end):
        nonlocal buf_line, buf_col
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


def _dq_escape(text, i):
    if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in '$`"\\\n':
        return 2, ("" if text[i + 1] == "\n" else text[i + 1])
    return 0, ""


_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "v": "\v",
         "\\": "\\", "'": "'", '"': '"', "?": "?"}


def ansi_decode(body: str) -> str:
    return re.sub(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)",
                  lambda m: (chr(int(m.group(1)[1:], 16)) if m.group(1)[0] == "x" and len(m.group(1)) > 1
                             else chr(int(m.group(1), 8)) if m.group(1)[0].isdigit()
                             else _ANSI.get(m.group(1), "\\" + m.group(1))), body)


# assignment context of a word, for tilde expansion: none, an assignment's value, an argument `name=...`
NONE, VALUE, ARG = 0, 1, 2
_ASSIGN_LIKE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


# ------------------------------------------------------------------ expansion
class Expander:
    """Expands words for one evaluator ``ev`` (see module docstring)."""

    def __init__(self, ev):
        self.ev = ev
        self._empty_array = False  # set when "$@" / "${a[@]}" expanded to no element at all
        self._plain: frozenset = frozenset()  # variables the word being expanded uses as a plain $NAME / ${NAME}

    @property
    def file(self) -> str:
        return self.ev.file

    # --- public entry points
    def fields(self, word) -> list[Field]:
        """A command word: expanded, split and quote-removed into zero or more fields."""
        first = word.children[0] if word.children else None
        # bash (outside POSIX mode) expands a tilde after the `=` and `:` of an argument shaped like an assignment
        assign = ARG if getattr(first, "type", None) == "LIT" and _ASSIGN_LIKE.match(first.value) else NONE
        items = self.parts(word.children, in_dq=False, first=True, assign=assign)
        fields = split(items)
        if len(fields) == 1:
            fields[0].word_span = node_span(self.file, word)
        origin = _origin(word)
        if origin:
            for f in fields:
                f.origin = origin
        return fields

    def value(self, word) -> list[Seg]:
        """The right side of an assignment: expanded without splitting, pieces anchored for storage."""
        if word is None:
            return []
        items = self.parts(word.children, in_dq=False, first=True, anchor=True, assign=VALUE)
        return [s for s in items if s is not BREAK]

    def segs(self, word, *, unset: bool = False) -> list[Seg]:
        """A word expanded without splitting (patterns, conditions); with ``unset`` unknown variables expand to ''."""
        prev = self.ev.unset_mode
        self.ev.unset_mode = unset or prev
        try:
            return [s for s in self.parts(word.children, in_dq=False, first=True) if s is not BREAK]
        finally:
            self.ev.unset_mode = prev

    def text(self, word, *, unset: bool = False) -> tuple[str, list[Unknown]]:
        """Plain text of a word and what it depends on; with ``unset`` unknown variables expand to ''."""
        segs = self.segs(word, unset=unset)
        unknowns: list[Unknown] = []
        for s in segs:
            unknowns += [u for u in s.unknowns if u not in unknowns]
        return "".join(s.text for s in segs), unknowns

    # --- parts
    def parts(self, children, *, in_dq: bool, first: bool = False, anchor: bool = False, assign: int = 0) -> list:
        out: list = []
        outer, self._plain = self._plain, self._plain | _plain_refs(children)
        try:
            for i, part in enumerate(children):
                self.part(part, out, in_dq=in_dq, first=first and i == 0, anchor=anchor, assign=assign)
        finally:
            self._plain = outer
        return out

    def part(self, part, out: list, *, in_dq: bool, first: bool = False, anchor: bool = False,
             assign: int = 0) -> None:
        ev, f = self.ev, self.file
        if hasattr(part, "type"):  # a token
            t = part.type
            if t == "LIT" and assign and not in_dq and self.tildes(part, out, first, assign):
                return
            if t in ("LIT", "BRACE_TEXT") and first and not in_dq and re.match(r"~(/|$)", part.value):
                out += self.home(part)  # tilde expansion at the start of a word or ${V:-~/default}
                if part.value[1:]:
                    out += _runs(f, part, part.value[1:], 1, _unquoted_escape)
                return
            if t == "LIT":
                out += _runs(f, part, part.value, 0, _unquoted_escape)
            elif t == "REGEX_TEXT":  # the right side of =~: escapes stay, the regular expression reads them
                out += literal(f, part)
            elif t == "SQ":
                if self.ev.g.runtime and (f, part.line, part.column) in self.ev.g.runtime:
                    self.bad_substitution(tok_span(f, part), out, in_dq)
                elif in_dq:  # inside "${x:-'a'}" single quotes are literal characters
                    out += literal(f, part)
                else:
                    out += _runs(f, part, part.value[1:-1], 1, lambda s, i: (0, "")) or literal(f, part, "")
            elif t == "ANSI":
                out += literal(f, part, ansi_decode(part.value[2:-1]))
            elif t == "DQ_TEXT":
                out += _runs(f, part, part.value, 0, _dq_escape)
            elif t in ("BRACE_TEXT", "PAT_TEXT"):
                out += _runs(f, part, part.value, 0, _dq_escape if in_dq else _unquoted_escape)
            elif t == "DOLLAR":
                out += literal(f, part)
            elif t == "CONT":
                pass
            elif t == "VAR" and self.ev.g.runtime and (f, part.line, part.column) in self.ev.g.runtime:
                self.bad_substitution(tok_span(f, part), out, in_dq)
            elif t == "VAR":
                start = len(out)
                self.var(part.value[1:], tok_span(f, part), out, in_dq=in_dq, anchor=anchor)
                self._taint(part.value[1:], out, start, tok_span(f, part))
            elif t == "BACKTICK":
                body = re.sub(r"\\([\\`$])", r"\1", part.value[1:-1])
                self.command_output(body, None, tok_span(f, part), out, in_dq)
            return
        kind = part.data
        if kind == "dq":
            self._empty_array = False
            inner = self.parts(part.children[1:-1], in_dq=True, anchor=anchor)
            had_array, self._empty_array = self._empty_array, False
            out += inner
            if not inner and not had_array:
                out.append(_synth("", node_span(f, part), True))
        elif kind == "param":
            start = len(out)
            self.param(part, out, in_dq=in_dq, anchor=anchor)
            name = next(c.value for c in part.children if getattr(c, "type", None) == "PARAM_NAME")
            self._taint(name, out, start, node_span(f, part))
        elif kind == "cmdsub":
            body = [c for c in part.children if not hasattr(c, "type")]
            self.command_output(None, body[0] if body else None, node_span(f, part), out, in_dq)
        elif kind == "arith":
            span = node_span(f, part)
            value, unknowns = ev.arith(arith_expr(part), part.children[0])
            if value is None:
                # an integer in bash: never split, whatever the placeholder text holds
                text, unknowns = self._arith_placeholder(unknowns, ev.source_text(span), span)
                out.append(Seg(text, f, span.line, span.col, span.last_line, span.end_col or span.col, quoted=True,
                               unknowns=tuple(unknowns)))
            else:
                out.append(Seg(str(value), f, span.line, span.col, span.last_line, span.end_col or span.col,
                               quoted=in_dq, via=tuple(ev.arith_via), notes=tuple(ev.arith_notes)))
        elif kind == "procsub":  # <(cmd) >(cmd): bash passes a pipe's path; the command is not read
            out.append(_synth("/dev/fd/63", node_span(f, part), True))
        elif kind in ("bword", "pword", "word"):
            out += self.parts(part.children, in_dq=in_dq, anchor=anchor)

    def _unknown(self, name: str, span: Span, in_dq: bool, detail: str = "", extra: tuple = ()) -> Seg:
        return _unknown_var(self.ev.unknown_name(name), span, in_dq, detail, extra)

    def _unknown_length(self, name: str, idx: str | None, span: Span, in_dq: bool, needs: tuple) -> Seg:
        """`${#NAME}` of a value only the run knows: a placeholder of its own (--env RFTC_LENGTH_NAME gives it),
        never the value's."""
        knob = env_knob("RFTC_LENGTH", name)
        value = self.ev.g.env.get(knob)
        if value is not None:
            return _synth(value, span, in_dq)
        written = f"${{#{name}" + (f"[{idx}]" if idx else "") + "}"
        return Seg(f"${{oc.env:{knob}}}", span.file, span.line, span.col, span.last_line, span.end_col or span.col,
                   quoted=in_dq, unknowns=(Unknown("length", knob, span, written),) + needs)

    def _taint(self, name: str, out: list, start: int, span: Span) -> None:
        """A variable whose value depends on an undecidable branch: what it expands to carries that (Taint notes);
        an expansion to nothing still carries it, in an empty piece that field splitting drops with it."""
        taints = self.ev.st.taints.get(name)
        if not taints:
            return
        for i in range(start, len(out)):
            if out[i] is not BREAK:
                out[i] = replace(out[i], notes=out[i].notes + tuple(t for t in taints if t not in out[i].notes))
        if len(out) == start:
            out.append(replace(_synth("", span, False), notes=taints))

    def _arith_placeholder(self, unknowns: list, source: str, span: Span) -> tuple[str, list]:
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
        why = self.ev.arith_error or ("needs " + ", ".join(f"${n}" for n in names) if names
                                      else "needs a value known only at run time")
        return f"${{oc.env:{env_name}}}", unknowns + [Unknown("arith", env_name, span, f"`{source}` ({why})")]

    def home(self, tok, offset: int = 0) -> list[Seg]:
        out: list = []
        line, col = advance(tok.line, tok.column, tok.value[:offset])
        self.var("HOME", Span(self.file, line, col, line, col + 1), out, in_dq=True, anchor=True)
        return out

    def tildes(self, tok, out: list, first: bool, assign: int) -> bool:
        """Tilde expansion in an assignment value or assignment-shaped argument: at the start of the value (after
        the first `=`) and after each unquoted `:`, where `~` is followed by `/`, `:` or the end. False when the
        token has none."""
        value = tok.value
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
                out += _runs(self.file, tok, value[pos:p], pos, _unquoted_escape)
            out += self.home(tok, p)
            pos = p + 1
        if pos < len(value):
            out += _runs(self.file, tok, value[pos:], pos, _unquoted_escape)
        return True

    # --- variables
    def var(self, name: str, span: Span, out: list, *, in_dq: bool, anchor: bool = False) -> None:
        ev = self.ev
        if name in ("@", "*"):
            self.positional_all(name, span, out, in_dq)
            return
        val = ev.lookup(name, span)
        if val is None:
            if not ev.unset_mode:
                out.append(self._unknown(name, span, in_dq))
            return
        via, segs = val
        out += _mark(segs, via, span, in_dq, anchor)

    def positional_all(self, name: str, span: Span, out: list, in_dq: bool) -> None:
        args = self.ev.positional
        if name == "*" and in_dq:  # "$*": one field, joined by blanks
            joined: list = []
            for i, a in enumerate(args):
                if i:
                    joined.append(_synth(" ", span, True))
                joined += a.segs
            out += [replace(s, quoted=True) for s in joined]
            return
        self.elements([a.segs for a in args], (), span, out, in_dq)

    def elements(self, items: list[list[Seg]], via: tuple, span: Span, out: list, in_dq: bool,
                 anchor: bool = False) -> None:
        """"$@" / "${a[@]}": one field per element (split further when unquoted)."""
        if not items:
            self._empty_array = True
        for i, e in enumerate(items):
            if i:
                out.append(BREAK)
            segs = _mark(e, via, span, in_dq, anchor)
            out += segs or ([_synth("", span, True)] if in_dq else [])

    def param(self, node, out: list, *, in_dq: bool, anchor: bool) -> None:
        ev, f = self.ev, self.file
        span = node_span(f, node)
        toks = {c.type: c for c in node.children if hasattr(c, "type")}
        words = [c for c in node.children if not hasattr(c, "type")]
        name = toks["PARAM_NAME"].value
        prefix = toks.get("PARAM_PREFIX")
        index = toks.get("PARAM_INDEX")
        idx = index.value[1:-1] if index else None
        op = toks.get("PARAM_OP") or toks.get("PARAM_SLASH")
        op = op.value if op else None
        if self.ev.g.runtime and (f, span.line, span.col) in self.ev.g.runtime:
            self.bad_substitution(span, out, in_dq)
            return
        if "PARAM_NAMES" in toks:  # ${!prefix*}: the names of the variables that start with it
            names = self.ev.names_with_prefix(name)
            joined = toks["PARAM_NAMES"].value == "*" and in_dq
            self.elements([[_synth(" ".join(names), span, in_dq)]] if joined else
                          [[_synth(n, span, in_dq)] for n in names], (), span, out, in_dq)
            return
        if "PARAM_AT" in toks:  # ${V@Q} and the other transformations: U u L (case), Q (quoted), others as is
            val = self.lookup_value(name, idx, span)
            if val is None:
                if not ev.unset_mode:
                    out.append(self._unknown(name, span, in_dq))
                return
            text = "".join(s.text for s in val[1])
            how = toks["PARAM_AT"].value[1]
            text = {"U": text.upper(), "u": text[:1].upper() + text[1:], "L": text.lower(),
                    "Q": "'" + text.replace("'", "'\\''") + "'"}.get(how, text)
            out.append(_synth(text, span, in_dq, val[0], notes_of(val[1])))
            return

        if name in ("@", "*") and idx is None and prefix is None:
            if op is None:
                self.positional_all(name, span, out, in_dq)
                return
            if op == ":":  # ${@:offset:length}: offset 0 is $0
                bounds = self.slice_bounds(words, in_dq)
                if bounds is None:
                    return
                off, ln = bounds
                script = [_synth(self.ev.g.script_path, span, in_dq)]
                items = [script] + [a.segs for a in ev.positional]
                items = items[off if off >= 0 else max(0, len(items) + off):]
                items = items if ln is None else items[:ln] if ln >= 0 else items[:ln]
                self.elements(items, (), span, out, in_dq)
                return
        if idx in ("@", "*") and prefix is None and op in (None, ":"):
            elems = ev.lookup_array(name, span)
            if elems is not None and op == ":":  # ${a[@]:offset:length}
                bounds = self.slice_bounds(words, in_dq)
                if bounds is None:
                    out.append(self._unknown(name, span, in_dq))
                    return
                off, ln = bounds
                items = elems[1][off if off >= 0 else max(0, len(elems[1]) + off):]
                elems = (elems[0], items if ln is None else (items[:ln] if ln >= 0 else items[:ln]))
            if elems is None:
                if not ev.unset_mode:
                    out.append(self._unknown(name, span, in_dq))
                return
            via, items = elems
            if idx == "*" and in_dq:
                joined = []
                for i, e in enumerate(items):
                    if i:
                        joined.append(Seg(" ", f, span.line, span.col, span.last_line, span.end_col, quoted=True))
                    joined += e
                out += _mark(joined, via, span, True, anchor)
                return
            self.elements(items, via, span, out, in_dq, anchor)
            return

        if prefix is not None and prefix.value == "#":  # length
            if idx in ("@", "*"):
                elems = ev.lookup_array(name, span)
                split = [s for e in (elems[1] if elems else []) for s in e if s.unknowns and not s.quoted]
                if split:  # an element bash splits into words only the run knows
                    out.append(self._unknown_length(name, idx, span, in_dq, _unk(split)))
                    return
                n = len(elems[1]) if elems else 0
                out.append(_synth(str(n), span, in_dq, elems[0] if elems else ()))
                return
            val = self.lookup_value(name, idx, span)
            if val is None:
                out.append(_synth("0", span, in_dq) if ev.unset_mode else
                           self._unknown_length(name, idx, span, in_dq, self._unknown(name, span, in_dq).unknowns))
                return
            via, segs = val
            if any(s.unknowns for s in segs):
                out.append(self._unknown_length(name, idx, span, in_dq, _unk(segs)))
                return
            out.append(_synth(str(len("".join(s.text for s in segs))), span, in_dq, via, notes_of(segs)))
            return
        if prefix is not None and prefix.value == "!":  # indirection
            val = self.lookup_value(name, idx, span)
            target = "".join(s.text for s in val[1]) if val else ""
            if val and re.fullmatch(r"[A-Za-z_]\w*", target):
                self.var(target, span, out, in_dq=in_dq, anchor=anchor)
            elif not ev.unset_mode:
                out.append(self._unknown(name, span, in_dq))
            return

        val = self.lookup_value(name, idx, span)
        if op is None:
            if val is None:
                if not ev.unset_mode:
                    out.append(self._unknown(name, span, in_dq))
                return
            out += _mark(val[1], val[0], span, in_dq, anchor)
            return

        operand = words[0] if words and words[0].data in ("bword", "pword") else None
        if op in (":-", "-", ":=", "=", ":+", "+", ":?", "?"):
            is_set = val is not None
            empty = is_set and not any(s.text for s in val[1]) and not any(s.unknowns for s in val[1])
            use_default = (not is_set) or (op.startswith(":") and empty)
            if op in (":+", "+"):
                if not is_set and not ev.unset_mode and name in self._plain:
                    # a variable from the environment that the same word also uses plainly: there it stays
                    # ${oc.env:NAME}, which only loads with NAME set, so the alternative is taken as if NAME were
                    # set (and not empty), as in `${S:+"-"}${S}`; bash drops it otherwise, which the Unknown
                    # carried to the launch reports (RFTC116). Elsewhere an unknown variable is unset, as for
                    # ${NAME:-default} and conditions.
                    alt = Unknown("alt", name, span, ev.source_text(span))
                    word = self.parts(operand.children, in_dq=in_dq, anchor=anchor, first=not in_dq) if operand else []
                    out += [s if s is BREAK else replace(s, unknowns=s.unknowns + (alt,)) for s in word]
                    return
                if use_default:
                    return
                out += self.parts(operand.children, in_dq=in_dq, anchor=anchor, first=not in_dq) if operand else []
                return
            if use_default:
                segs = self.parts(operand.children, in_dq=in_dq, anchor=anchor, first=not in_dq) if operand else []
                if not is_set and ev.from_environment(name):
                    segs = defaulted(name, segs, span, in_dq)
                if op in (":?", "?"):
                    if not ev.unset_mode:
                        out.append(self._unknown(name, span, in_dq))
                    return
                if op in (":=", "="):
                    ev.assign_segs(name, [s for s in segs if s is not BREAK], span)
                out += segs
                return
            out += _mark(val[1], val[0], span, in_dq, anchor)
            return

        # operators that transform the text
        if val is None:
            if not ev.unset_mode:
                out.append(self._unknown(name, span, in_dq))
            return
        via, segs = val
        if any(s.unknowns for s in segs):
            out += _mark(segs, via, span, in_dq, anchor)  # cannot transform unknown text; keep it symbolic
            return
        text = "".join(s.text for s in segs)
        result = self.transform(text, op, node, words, in_dq)
        if result is None:
            out += _mark(segs, via, span, in_dq, anchor)
            return
        if result == text:
            out += _mark(segs, via, span, in_dq, anchor)
            return
        out.append(_synth(result, span, in_dq, via, notes_of(segs)))

    def bad_substitution(self, span: Span, out: list, in_dq: bool) -> None:
        """A ${...} bash rejects when it expands it ("bad substitution"): the command fails there; rftc keeps
        nothing of it."""
        kind, text = self.ev.g.runtime[(span.file, span.line, span.col)]
        self.ev.g.add("RFTC114", f"`${{{text}}}` is not an expansion bash can make (bash stops this command with "
                      "\"bad substitution\" when it runs it); not evaluated", span,
                      hint="write the parameter expansion bash expects, e.g. ${NAME:-default}")
        if in_dq:
            out.append(_synth("", span, True))

    def lookup_value(self, name: str, idx: str | None, span: Span):
        ev = self.ev
        if idx is None or not ev.is_array(name):
            if idx not in (None, "0", "@", "*"):
                return None
            return ev.lookup(name, span)
        v = ev._var(name)
        items = v.items if v is not None else []
        i = ev.index_value(idx)
        if i is None or not -len(items) <= i < len(items) or items[i] is None:
            return None
        return (), items[i]

    def transform(self, text: str, op: str, node, words, in_dq: bool) -> str | None:
        def wtext(w):
            segs = [s for s in self.parts(w.children, in_dq=in_dq) if s is not BREAK]
            return "".join(s.text for s in segs)

        operand = wtext(words[0]) if words else ""
        if op == ",,":
            return text.lower()
        if op == "^^":
            return text.upper()
        if op == ",":
            return text[:1].lower() + text[1:]
        if op == "^":
            return text[:1].upper() + text[1:]
        if op in ("#", "##", "%", "%%"):
            rx = glob_regex(operand)
            cands = range(len(text) + 1)
            if op in ("#", "##"):
                order = cands if op == "#" else reversed(cands)
                for k in order:
                    if rx.fullmatch(text[:k]):
                        return text[k:]
                return text
            order = reversed(cands) if op == "%" else cands
            for k in order:
                if rx.fullmatch(text[k:]):
                    return text[:k]
            return text
        if op in ("/", "//", "/#", "/%"):
            pat = operand
            repl = wtext(words[1]) if len(words) > 1 else ""
            if not pat:
                return text
            rx = glob_regex(pat)
            if op == "/#":
                for k in range(len(text), -1, -1):
                    if rx.fullmatch(text[:k]):
                        return repl + text[k:]
                return text
            if op == "/%":
                for k in range(len(text) + 1):
                    if rx.fullmatch(text[k:]):
                        return text[:k] + repl
                return text
            greedy = re.compile(rx.pattern.replace(".*?", ".*"), re.S)  # bash replaces the longest match
            return greedy.sub(lambda m: repl, text, count=0 if op == "//" else 1) if rx.pattern else text
        if op == ":":
            bounds = self.slice_bounds(words, in_dq)
            if bounds is None:
                return None
            off, ln = bounds
            if off < 0:
                off = max(0, len(text) + off)
            if ln is None:
                return text[off:]
            return text[off:off + ln] if ln >= 0 else text[off:len(text) + ln]
        return None

    def slice_bounds(self, words, in_dq: bool) -> tuple[int, int | None] | None:
        """offset and length of ${V:offset:length} (arithmetic, evaluated), None when not static."""
        segs = [s for s in self.parts(words[0].children, in_dq=in_dq) if s is not BREAK] if words else []
        m = re.fullmatch(r"\s*([^:]*?)\s*(?::\s*(.*?)\s*)?", "".join(s.text for s in segs))
        off = self.ev.int_text(m.group(1)) if m else None
        if off is None:
            return None
        if m.group(2) is None:
            return off, None
        ln = self.ev.int_text(m.group(2))
        return None if ln is None else (off, ln)

    # --- command substitution
    def command_output(self, source: str | None, body, span: Span, out: list, in_dq: bool) -> None:
        text, unknowns, via, notes = self.ev.command_output(source, body, span)
        seg = Seg(text, span.file, span.line, span.col, span.last_line, span.end_col or span.col, quoted=in_dq,
                  unknowns=tuple(unknowns), via=tuple(via), notes=tuple(notes))
        out.append(seg)


def glob_regex(pattern: str) -> re.Pattern:
    """A bash glob (*, ?, [..]) as a regex; * matches lazily, so callers pick the shortest or longest match."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append(".*?")
        elif c == "?":
            out.append(".")
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        elif c == "[":
            j = pattern.find("]", i + 2)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:j]
                body = "^" + body[1:] if body[:1] in "!^" and body else body
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    try:
        return re.compile("".join(out), re.S)
    except re.error:
        return re.compile(re.escape(pattern), re.S)


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


def _mark(segs: list[Seg], via: tuple, span: Span, in_dq: bool, anchor: bool) -> list[Seg]:
    """Pieces of a variable's value as they appear at an expansion. When storing (``anchor``) a value
    without blanks, anchor it at this expansion: its text reads as written here."""
    if anchor and not any(c in s.text for s in segs for c in " \t\n"):
        return [replace(s, quoted=in_dq) for s in anchored(segs, span, via)]
    return [replace(s, quoted=in_dq, via=via + s.via) for s in segs]


def _synth(text: str, span: Span, in_dq: bool, via: tuple = (), notes: tuple = ()) -> Seg:
    return Seg(text, span.file, span.line, span.col, span.last_line, span.end_col or span.col, quoted=in_dq,
               via=tuple(via), notes=notes)


def _plain_refs(children) -> frozenset:
    """Names used as a plain $NAME / ${NAME} among a word's parts (inside double quotes too)."""
    out = set()
    for part in children:
        if hasattr(part, "type"):
            if part.type == "VAR":
                out.add(part.value[1:])
        elif part.data == "dq":
            out |= _plain_refs(part.children)
        elif part.data == "param":
            toks = [c for c in part.children if hasattr(c, "type")]
            if not [c for c in part.children if not hasattr(c, "type")] and {t.type for t in toks} <= {
                    "PARAM_OPEN", "PARAM_NAME", "PARAM_CLOSE"}:
                out.update(t.value for t in toks if t.type == "PARAM_NAME")
    return frozenset(out)


def _unk(segs) -> tuple:
    out: list = []
    for s in segs:
        out += [u for u in s.unknowns if u not in out]
    return tuple(out)


# special parameters only known to the running shell, as the environment names rftc reads them from
_SPECIAL = {"$": "RFTC_PID", "!": "RFTC_LAST_PID", "-": "RFTC_SHELL_FLAGS"}


def _unknown_var(name: str, span: Span, in_dq: bool, detail: str = "", extra: tuple = ()) -> Seg:
    if name in _SPECIAL:
        text = f"${{oc.env:{_SPECIAL[name]}}}"
        unknown = Unknown("dyn", text, span, f"${name}")
    else:
        text = "${oc.env:RFTC_NUM_ARGS}" if name == "#" else f"${{oc.env:{name}}}"  # $#: the arguments not given
        unknown = Unknown("var", name, span, detail)
    return Seg(text, span.file, span.line, span.col, span.last_line, span.end_col or span.col, quoted=in_dq,
               unknowns=(unknown,) + extra)


def _origin(word) -> str:
    """'array:NAME' / 'var:NAME' when the whole word is one expansion of a variable."""
    parts = word.children
    if len(parts) == 1 and not hasattr(parts[0], "type") and parts[0].data == "dq":
        parts = parts[0].children[1:-1]
    if len(parts) != 1:
        return ""
    p = parts[0]
    if hasattr(p, "type"):
        return f"var:{p.value[1:]}" if p.type == "VAR" else ""
    if p.data == "param":
        toks = {c.type: c.value for c in p.children if hasattr(c, "type")}
        if toks.get("PARAM_INDEX") in ("[@]", "[*]"):
            return f"array:{toks['PARAM_NAME']}"
        if len(p.children) <= 3:
            return f"var:{toks['PARAM_NAME']}"
    return ""
