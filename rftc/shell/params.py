"""Parameter expansion, ``${...}`` in all its forms: defaults and alternatives, lengths, indirection, arrays and
their slices, the names with a prefix, case and quoting transformations, and the operators that cut or replace
text by a glob pattern."""

from __future__ import annotations

import re
from dataclasses import replace

from rftc.diagnostics.model import Span
from rftc.shell.patterns import glob_regex
from rftc.shell.syntax import Param
from rftc.shell.values import BREAK, Seg, Unknown, defaulted, marked, notes_of, text_of, unknowns_of

_NAME = re.compile(r"[A-Za-z_]\w*")
_TESTS = (":-", "-", ":=", "=", ":+", "+", ":?", "?")  # the operators that test whether the parameter is set


class Params:
    """${...} for the word expander ``exp`` (rftc.shell.expand.Expander), whose pieces it adds to ``out``."""

    def __init__(self, exp):
        self.exp = exp

    def expand(self, node: Param, out: list, *, in_dq: bool, anchor: bool) -> None:
        exp = self.exp
        ev = exp.ev
        span, name, prefix, idx, op, words = node.span, node.name, node.prefix, node.index, node.op, node.words
        if node.names is not None:  # ${!prefix*}: the names of the variables that start with it
            names = ev.vars.names_with_prefix(name)
            joined = node.names == "*" and in_dq
            exp.elements([[Seg.at(" ".join(names), span, quoted=in_dq)]] if joined else
                         [[Seg.at(n, span, quoted=in_dq)] for n in names], (), span, out, in_dq)
            return
        if node.transform is not None:  # ${V@Q} and the other transformations: U u L (case), Q (quoted), others as is
            val = self.lookup(name, idx, span)
            if val is None:
                if not ev.unset_mode:
                    out.append(exp.unknown(name, span, in_dq))
                return
            text = text_of(val[1])
            text = {"U": text.upper(), "u": text[:1].upper() + text[1:], "L": text.lower(),
                    "Q": "'" + text.replace("'", "'\\''") + "'"}.get(node.transform, text)
            out.append(Seg.at(text, span, quoted=in_dq, via=val[0], notes=notes_of(val[1])))
            return

        if name in ("@", "*") and idx is None and prefix is None:
            if op is None:
                exp.positional_all(name, span, out, in_dq)
                return
            if op == ":":  # ${@:offset:length}: offset 0 is $0
                bounds = self.slice_bounds(words, in_dq)
                if bounds is None:
                    return
                off, ln = bounds
                script = [Seg.at(ev.g.script_path, span, quoted=in_dq)]
                items = [script] + [a.segs for a in ev.st.positional]
                items = items[off if off >= 0 else max(0, len(items) + off):]
                items = items if ln is None else items[:ln] if ln >= 0 else items[:ln]
                exp.elements(items, (), span, out, in_dq)
                return
        if idx in ("@", "*") and prefix is None and op in (None, ":") + _TESTS:
            self.array(node, out, in_dq=in_dq, anchor=anchor)
            return

        if prefix == "#":  # length
            self.length(node, out, in_dq)
            return
        if prefix == "!":  # indirection
            val = self.lookup(name, idx, span)
            target = text_of(val[1]) if val else ""
            if val and _NAME.fullmatch(target):
                exp.var(target, span, out, in_dq=in_dq, anchor=anchor)
            elif not ev.unset_mode:
                out.append(exp.unknown(name, span, in_dq))
            return

        val = self.lookup(name, idx, span)
        if op is None:
            if val is None:
                if not ev.unset_mode:
                    out.append(exp.unknown(name, span, in_dq))
                return
            out += marked(val[1], val[0], span, in_dq, anchor)
            return
        if op in _TESTS:
            self.default(node, val, out, in_dq=in_dq, anchor=anchor)
            return

        # operators that transform the text
        if val is None:
            if not ev.unset_mode:
                out.append(exp.unknown(name, span, in_dq))
            return
        via, segs = val
        if any(s.unknowns for s in segs):
            out += marked(segs, via, span, in_dq, anchor)  # cannot transform unknown text; keep it symbolic
            return
        text = text_of(segs)
        result = self.transform(text, op, words, in_dq)
        if result is None or result == text:
            out += marked(segs, via, span, in_dq, anchor)
            return
        out.append(Seg.at(result, span, quoted=in_dq, via=via, notes=notes_of(segs)))

    def array(self, node: Param, out: list, *, in_dq: bool, anchor: bool) -> None:
        """${a[@]}, ${a[*]}, their slices ${a[@]:offset:length} and ${a[@]+word} and the other tests."""
        exp = self.exp
        ev = exp.ev
        name, span, idx = node.name, node.span, node.index
        elems = ev.vars.lookup_array(name, span)
        if node.op in _TESTS:  # set: one element at least; null: that and "${a[*]}" is empty
            joined = None if not elems or not elems[1] else (elems[0], self.joined(elems[1], span))
            self.default(node, joined, out, in_dq=in_dq, anchor=anchor,
                         whole=lambda: self.elements(span, idx, elems or ((), []), out, in_dq, anchor))
            return
        if elems is not None and node.op == ":":  # ${a[@]:offset:length}
            bounds = self.slice_bounds(node.words, in_dq)
            if bounds is None:
                out.append(exp.unknown(name, span, in_dq))
                return
            off, ln = bounds
            items = elems[1][off if off >= 0 else max(0, len(elems[1]) + off):]
            elems = (elems[0], items if ln is None else (items[:ln] if ln >= 0 else items[:ln]))
        if elems is None:
            if not ev.unset_mode:
                out.append(exp.unknown(name, span, in_dq))
            return
        self.elements(span, idx, elems, out, in_dq, anchor)

    def elements(self, span: Span, idx: str, elems: tuple, out: list, in_dq: bool, anchor: bool) -> None:
        """The words of ${a[@]} / ${a[*]} at ``span`` from (via, items): "${a[*]}", and ${a[*]} in an assignment's
        value (``anchor``), where bash does not split, join them into one."""
        via, items = elems
        if idx == "*" and (in_dq or anchor):
            out += marked(self.joined(items, span), via, span, in_dq, anchor)
            return
        self.exp.elements(items, via, span, out, in_dq, anchor)

    def joined(self, items: list[list[Seg]], span: Span) -> list[Seg]:
        """The elements of an array joined as "${a[*]}" joins them: by the first character of IFS."""
        sep = self.exp.ev.vars.separator()
        out: list[Seg] = []
        for i, e in enumerate(items):
            if i and sep:
                out.append(Seg.at(sep, span, quoted=True))
            out += e
        return out

    def length(self, node: Param, out: list, in_dq: bool) -> None:
        """${#NAME}, ${#a[@]}."""
        exp = self.exp
        ev = exp.ev
        name, span, idx = node.name, node.span, node.index
        if idx in ("@", "*"):
            elems = ev.vars.lookup_array(name, span)
            split = [s for e in (elems[1] if elems else []) for s in e if s.unknowns and not s.quoted]
            if split:  # an element bash splits into words only the run knows
                out.append(exp.unknown_length(name, idx, span, in_dq, unknowns_of(split)))
                return
            n = len(elems[1]) if elems else 0
            out.append(Seg.at(str(n), span, quoted=in_dq, via=elems[0] if elems else ()))
            return
        val = self.lookup(name, idx, span)
        if val is None:
            out.append(Seg.at("0", span, quoted=in_dq) if ev.unset_mode else
                       exp.unknown_length(name, idx, span, in_dq, exp.unknown(name, span, in_dq).unknowns))
            return
        via, segs = val
        if any(s.unknowns for s in segs):
            out.append(exp.unknown_length(name, idx, span, in_dq, unknowns_of(segs)))
            return
        out.append(Seg.at(str(len(text_of(segs))), span, quoted=in_dq, via=via, notes=notes_of(segs)))

    def default(self, node: Param, val, out: list, *, in_dq: bool, anchor: bool, whole=None) -> None:
        """${V:-word} ${V-word} ${V:=word} ${V=word} ${V:+word} ${V+word} ${V:?word} ${V?word}. ``whole`` puts
        the value itself into ``out`` where it is not a scalar's (${a[@]+word}: the elements, and where the test
        fails, no word at all when there is none)."""
        exp = self.exp
        ev = exp.ev
        name, span, op = node.name, node.span, node.op
        operand = node.words[0] if node.words else None

        def word():
            return exp.parts(operand.parts, in_dq=in_dq, anchor=anchor, first=not in_dq) if operand else []

        is_set = val is not None
        empty = is_set and not any(s.text for s in val[1]) and not any(s.unknowns for s in val[1])
        use_default = (not is_set) or (op.startswith(":") and empty)
        if op in (":+", "+"):
            if not is_set and not ev.unset_mode and name in exp.plain:
                # a variable from the environment that the same word also uses plainly: there it stays
                # ${oc.env:NAME}, which only loads with NAME set, so the alternative is taken as if NAME were
                # set (and not empty), as in `${S:+"-"}${S}`; bash drops it otherwise, which the Unknown
                # carried to the launch reports (RFTC116). Elsewhere an unknown variable is unset, as for
                # ${NAME:-default} and conditions.
                alt = Unknown("alt", name, span, ev.source_text(span))
                out += [s if s is BREAK else replace(s, unknowns=s.unknowns + (alt,)) for s in word()]
                return
            if not use_default:
                out += word()
            elif whole is not None:
                whole()
            return
        if not use_default:
            if whole is not None:
                whole()
            else:
                out += marked(val[1], val[0], span, in_dq, anchor)
            return
        segs = word()
        if not is_set and ev.vars.from_environment(name):
            if whole is None and op in (":-", "-", ":=", "=") and \
                    not any(s is not BREAK and (s.text or s.unknowns) for s in segs):
                # an empty default gives what $NAME gives: the environment's value, or nothing (as unset);
                # `:=` assigns that same value, so NAME stays the environment's
                out.append(exp.unknown(name, span, in_dq))
                return
            segs = defaulted(name, segs, span, in_dq)
        if op in (":?", "?"):
            if not ev.unset_mode:
                out.append(exp.unknown(name, span, in_dq))
            return
        if op in (":=", "="):
            ev.vars.assign_segs(name, [s for s in segs if s is not BREAK], span)
        out += segs

    def lookup(self, name: str, idx: str | None, span: Span):
        """The value of NAME or NAME[idx], as Variables.lookup gives it."""
        variables = self.exp.ev.vars
        if idx is None or not variables.is_array(name):
            if idx not in (None, "0", "@", "*"):
                return None
            return variables.lookup(name, span)
        v = variables.get(name)
        items = v.items if v is not None else []
        i = variables.index_value(idx)
        if i is None or not -len(items) <= i < len(items) or items[i] is None:
            return None
        return (), items[i]

    def _text(self, word, in_dq: bool) -> str:
        return text_of(s for s in self.exp.parts(word.parts, in_dq=in_dq) if s is not BREAK)

    def transform(self, text: str, op: str, words: tuple, in_dq: bool) -> str | None:
        operand = self._text(words[0], in_dq) if words else ""
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
            repl = self._text(words[1], in_dq) if len(words) > 1 else ""
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
            greedy = glob_regex(pat, greedy=True)  # bash replaces the longest match
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

    def slice_bounds(self, words: tuple, in_dq: bool) -> tuple[int, int | None] | None:
        """offset and length of ${V:offset:length} (arithmetic, evaluated), None when not static."""
        variables = self.exp.ev.vars
        m = re.fullmatch(r"\s*([^:]*?)\s*(?::\s*(.*?)\s*)?", self._text(words[0], in_dq) if words else "")
        off = variables.int_text(m.group(1)) if m else None
        if off is None:
            return None
        if m.group(2) is None:
            return off, None
        ln = variables.int_text(m.group(2))
        return None if ln is None else (off, ln)

