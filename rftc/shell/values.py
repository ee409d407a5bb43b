"""Values that remember where their text was written: what word expansion produces and variables hold.

A value is a list of :class:`Seg` pieces. A piece written literally in the script knows the exact place of
each of its characters (``exact``); a piece that came from elsewhere is anchored at the expansion that
produced it. Pieces also carry the assignments they flowed through (``via``) and, when part of the text is
not known statically, what it depends on (``unknowns``). A word after expansion and splitting is a
:class:`Field` of pieces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from rftc.diagnostics.model import Span
from rftc.shell.notes import Choice, Default


@dataclass(frozen=True)
class Unknown:
    """Something a value depends on that is not known statically."""

    kind: str  # "var" (environment variable) | "cmd" / "dyn" (command substitution) | "arith" (arithmetic) |
    #            "length" (`${#NAME}` of an unknown value)
    name: str  # variable name, or the placeholder name of a command substitution
    span: Span  # where it is used
    detail: str = ""  # for "cmd": the command text

    @property
    def written(self) -> str:
        """How the script wrote it: `$NAME`, `$(command)`, `$((expression))`."""
        if self.kind in ("var", "alt"):
            return f"${self.name}"
        if self.kind == "arith":  # the detail is "`$((...))` (why)"
            return self.detail.split("` (", 1)[0].strip("`")
        return self.detail if self.detail.startswith("$") else f"$({self.detail})"


@dataclass(slots=True)
class Seg:
    text: str
    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    exact: bool = False  # text maps character for character onto the source from (line, col)
    quoted: bool = False  # not subject to field splitting
    via: tuple = ()  # assignment spans the text flowed through, outermost first
    unknowns: tuple = ()
    fixed: Span | None = None  # an argument given on rftc's command line ("$@")
    notes: tuple = ()  # choices made for what only the running machine decides (rftc.shell.notes)

    @classmethod
    def at(cls, text: str, span: Span, **kw) -> "Seg":
        """A piece that stands at ``span`` (not character for character)."""
        return cls(text, span.file, span.line, span.col, span.last_line, span.end_col or span.col, **kw)

    def span(self) -> Span:
        return self.fixed or Span(self.file, self.line, self.col, self.end_line, self.end_col)


BREAK = object()  # a forced field boundary ("${a[@]}", "$@")


def env_knob(prefix: str, *names: str) -> str:
    """The --env name that gives a value rftc cannot compute: RFTC_SUBST_GIT, RFTC_ARITH_N_GPUS, RFTC_LENGTH_X."""
    return "_".join([prefix] + [re.sub(r"\W", "_", n).upper() for n in names])


def advance(line: int, col: int, text: str) -> tuple[int, int]:
    n = text.count("\n")
    if n:
        return line + n, len(text) - text.rfind("\n")
    return line, col + len(text)


def cut(seg: Seg, start: int, end: int) -> Seg:
    """The piece of ``seg`` holding text[start:end], with its own position when the piece is exact."""
    if not seg.exact:
        return replace(seg, text=seg.text[start:end])
    line, col = advance(seg.line, seg.col, seg.text[:start])
    eline, ecol = advance(line, col, seg.text[start:end])
    return replace(seg, text=seg.text[start:end], line=line, col=col, end_line=eline, end_col=ecol)


def anchored(segs: list[Seg], span: Span, via: tuple = ()) -> list[Seg]:
    """Move pieces to ``span`` (the expansion that produced them), adding ``via`` in front."""
    return [replace(s, file=span.file, line=span.line, col=span.col, end_line=span.last_line,
                    end_col=span.end_col or span.col + 1, exact=False, via=via + s.via) for s in segs]


def marked(segs: list[Seg], via: tuple, span: Span, in_dq: bool, anchor: bool) -> list[Seg]:
    """Pieces of a variable's value as they appear at an expansion. When storing (``anchor``) a value
    without blanks, anchor it at this expansion: its text reads as written here."""
    if anchor and not any(c in s.text for s in segs for c in " \t\n"):
        return [replace(s, quoted=in_dq) for s in anchored(segs, span, via)]
    return [replace(s, quoted=in_dq, via=via + s.via) for s in segs]


def text_of(segs) -> str:
    return "".join(s.text for s in segs)


def unknowns_of(segs) -> tuple:
    out: list = []
    for s in segs:
        out += [u for u in s.unknowns if u not in out]
    return tuple(out)


def notes_of(segs) -> tuple:
    out: list = []
    for s in segs:
        if s is not BREAK:
            out += [n for n in s.notes if n not in out]
    return tuple(out)


@dataclass
class Field:
    """One word after expansion and splitting."""

    segs: list[Seg]
    word_span: Span | None = None  # the word it came from, when the word gave exactly this one field
    origin: str = ""  # the variable the whole word was (for launcher naming: "array:LAUNCH")

    @property
    def text(self) -> str:
        return text_of(self.segs)

    @property
    def has_word(self) -> bool:
        """False for an unquoted expansion to nothing that only carries notes: bash makes no word of it."""
        return any(s.quoted or s.text for s in self.segs)

    @property
    def symbolic(self) -> bool:
        return any(s.unknowns for s in self.segs)

    @property
    def unknowns(self) -> list[Unknown]:
        return list(unknowns_of(self.segs))

    @property
    def written(self) -> str:
        """The unknown parts of the word as the script wrote them, for messages: `$NAME`, `$(command)`."""
        return ", ".join(dict.fromkeys(u.written for u in self.unknowns))

    @property
    def via(self) -> tuple:
        out: list = []
        for s in self.segs:
            out += [v for v in s.via if v not in out]
        return tuple(out)

    @property
    def notes(self) -> tuple:
        return notes_of(self.segs)

    @property
    def span(self) -> Span:
        fixed = [s.fixed for s in self.segs if s.fixed]
        if fixed and len(fixed) == len(self.segs):
            return fixed[0]
        if self.word_span is not None:
            return self.word_span
        segs = [s for s in self.segs if not s.fixed] or self.segs
        first, last = segs[0], segs[-1]
        if first.file == last.file and (last.end_line, last.end_col) > (first.line, first.col):
            return Span(first.file, first.line, first.col, last.end_line, last.end_col)
        return first.span()


def defaulted(name: str, segs: list, span: Span, in_dq: bool) -> list:
    """The default of ${NAME:-word} for a NAME the environment may set: notes say so, and a choice in the default
    is set by --env NAME."""
    note = Default(name)
    out = []
    for s in segs:
        if s is BREAK:
            out.append(s)
            continue
        notes = tuple(replace(n, knob=name) if isinstance(n, Choice) else n for n in s.notes)
        out.append(replace(s, notes=notes + (note,)))
    return out or [Seg.at("", span, quoted=in_dq, notes=(note,))]
