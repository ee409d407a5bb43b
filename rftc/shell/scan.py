"""A character-level scan of a script for what lark's grammar cannot do: heredoc bodies (not context-free), and the
matched pairs bash reads as one piece of text when it parses (``${...}``, ``$((...))``, ``((...))``) or reports by
the line they open on when they never close (quotes, ``${``, ``((``, ``a=(``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([A-Za-z0-9_.\-]+))")
_OPENERS = ("$((", "$(", "${", "((")
_CASE = re.compile(r"(?:case|esac)(?=[ \t\n;&|)])")


@dataclass(frozen=True)
class HereBody:
    """The body of a heredoc: its lines before the delimiter line (``text``), and how bash reads them."""

    at: int  # offset of the `<<` operator
    start: int  # offset of the body's first line
    end: int  # offset after the delimiter line (or the end of the text)
    text: str
    expand: bool  # the delimiter is unquoted: $ expansions and backslash escapes apply
    strip_tabs: bool  # <<-: leading tabs are removed from each line


@dataclass
class Pairs:
    """What a scan finds."""

    regions: list[tuple[int, int, str]]  # closed ${..} ("subst"), $((..)) / ((..)) ("arith"), $(..) ("comsub")
    open: list[tuple[str, int]]  # constructs left open at the end of the text, outermost first: kind, offset
    subshells: list[int]  # `$((` / `((` that do not close with `))`: the offset of the `(` that opens a subshell
    heredocs: list[HereBody] = field(default_factory=list)  # heredoc bodies, in the order of their operators

    @property
    def open_kind(self) -> str | None:
        return self.open[-1][0] if self.open else None

    @property
    def open_at(self) -> int:
        return self.open[-1][1] if self.open else 0


def strip_heredocs(text: str) -> tuple[str, list[HereBody]]:
    """The text with heredoc bodies blanked, line numbers kept (their content is data for a command, not script),
    and the bodies."""
    bodies = scan(text, heredocs=True).heredocs
    out, last = [], 0
    for body in bodies:
        out += [text[last:body.start], "\n" * text.count("\n", body.start, body.end)]
        last = body.end
    return "".join(out) + text[last:], bodies


def matched_pairs(text: str) -> Pairs:
    """The matched pairs of a text whose heredoc bodies are blanked (see ``scan``)."""
    return scan(text, heredocs=False)


def scan(text: str, *, heredocs: bool) -> Pairs:
    """Scan ``text`` as bash reads matched pairs: quotes, escapes, comments, ``$(``/``(``, ``${``, ``$((``/``((``
    (arithmetic where a command starts, and only when it closes with `))`), ``a=(`` (an array); with ``heredocs``,
    the bodies of heredocs, which start on the line after their operator."""
    pairs = Pairs([], [], [])
    stack: list[list] = []  # [kind, start, paren depth (arithmetic) or open `case`s (command substitution)]
    pending: list[tuple[str, bool, int, bool]] = []  # heredocs opened on the current line: (delimiter, <<-,
    #                                                    the operator's offset, whether the delimiter is quoted)
    i, n = 0, len(text)
    while i < n:
        top = stack[-1][0] if stack else ""
        c = text[i]
        if top == "'":
            j = text.find("'", i)
            if j < 0:
                break
            stack.pop()
            i = j + 1
            continue
        if c == "\\":
            i += 2
            continue
        if c == "\n" and pending and top not in ('"', "`"):
            i = _skip_bodies(text, i + 1, pending, pairs.heredocs)
            pending = []
            continue
        if top == "`":
            if c == "`":
                stack.pop()
            i += 1
            continue
        if top == '"' and c not in '"$`':
            i += 1
            continue
        if c == '"':
            if top == '"':
                stack.pop()
            else:
                stack.append(['"', i, 0])
            i += 1
            continue
        if c == "`":
            stack.append(["`", i, 0])
            i += 1
            continue
        opener = next((o for o in _OPENERS if text.startswith(o, i)), None)
        if opener == "((" and (top in ('"', "${") or (i and text[i - 1] not in " \t\n;&|(\x01")):
            opener = None  # `((` only opens arithmetic where a command starts
        if opener in ("$((", "((") and not _closes_as_arithmetic(text, i + len(opener)):
            pairs.subshells.append(i + len(opener) - 2)  # `$((a) && (b))`: a command substitution of subshells
            opener = "$(" if opener == "$((" else None
        if opener is not None and (top != '"' or opener[0] == "$"):
            kind = {"$((": "arith", "((": "arith", "$(": "$(", "${": "${"}[opener]
            stack.append([kind, i, 0])
            i += len(opener)
            continue
        if top == '"':
            i += 1
            continue
        if top == "${":
            if c == "}":
                pairs.regions.append((stack.pop()[1], i + 1, "subst"))
            elif c == "'":
                stack.append(["'", i, 0])
            i += 1
            continue
        if c == "'" and not (i and text[i - 1] == "$"):
            stack.append(["'", i, 0])
        elif c == "'":  # $'..': backslash escapes inside
            m = re.match(r"'(?:[^'\\]|\\.)*'", text[i:], re.S)
            if m is None:
                stack.append(["'", i - 1, 0])
                break
            i += m.end()
            continue
        elif c == "#" and (i == 0 or text[i - 1] in " \t\n;&|()") and top != "arith":
            j = text.find("\n", i)
            i = n if j < 0 else j  # the line break itself still ends the line
            continue
        elif heredocs and c == "<" and top != "arith" and text.startswith("<<", i):
            if text.startswith("<<<", i):
                i += 3
                continue
            m = _HEREDOC.match(text, i)
            if m:
                quoted = m.group(4) is None or "\\" in m.group(0)  # 'EOF' "EOF" \EOF
                pending.append((next(g for g in m.groups()[1:] if g is not None), m.group(1) == "-", i, quoted))
                i = m.end()
                continue
        elif c == "(":
            if top == "arith":
                stack[-1][2] += 1
            else:
                stack.append(["=(" if i and text[i - 1] == "=" else "(", i, 0])
        elif c == ")":
            if top == "arith":
                if stack[-1][2]:
                    stack[-1][2] -= 1
                elif text.startswith("))", i):
                    pairs.regions.append((stack.pop()[1], i + 2, "arith"))
                    i += 1
            elif top in ("(", "$(") and stack[-1][2]:
                pass  # the `)` after a case pattern
            elif top in ("(", "=(", "$("):
                kind, start, _ = stack.pop()
                if kind == "$(":
                    pairs.regions.append((start, i + 1, "comsub"))
        elif top in ("(", "$(") and _CASE.match(text, i) and (i == 0 or text[i - 1] in " \t\n;&|("):
            stack[-1][2] += 1 if text[i] == "c" else -1  # open `case`s: their pattern `)`s close nothing
            i += 4
            continue
        i += 1
    pairs.open = [(kind, start) for kind, start, _ in stack]
    return pairs


def _skip_bodies(text: str, i: int, pending: list[tuple[str, bool, int, bool]], bodies: list) -> int:
    """Skip the bodies of the heredocs opened on the line that ended before ``i``; return where script resumes."""
    for delim, strip_tabs, at, quoted in pending:
        start = last = i
        while i < len(text):
            j = text.find("\n", i)
            end = len(text) if j < 0 else j + 1
            line = text[i:end].rstrip("\n")
            last, i = i, end
            if (line.lstrip("\t") if strip_tabs else line) == delim:
                break
            last = i
        bodies.append(HereBody(at, start, i, text[start:last], not quoted, strip_tabs))
    return i


def _closes_as_arithmetic(text: str, i: int) -> bool:
    """Whether the parentheses opened before ``i`` close with `))`, as bash requires of arithmetic."""
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c in "'\"":
            j = text.find(c, i + 1)
            if j < 0:
                return True
            i = j + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if not depth:
                return text.startswith("))", i)
            depth -= 1
        i += 1
    return True
