"""Character-level scans of a script that lark's grammar cannot do: heredoc bodies (not context-free), and the
matched pairs bash reads as opaque text when it parses (``${...}``, ``$((...))``, ``((...))``) or reports by
the line they open on when they never close (quotes, ``${``, ``((``, ``a=(``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([A-Za-z0-9_.\-]+))")


def strip_heredocs(text: str) -> str:
    """Return the text with heredoc bodies blanked (their content is data for the command, not script)."""
    out: list[str] = []
    pending: list[tuple[str, bool]] = []  # heredocs opened on the current line: (delimiter, <<-)
    stack: list[tuple[str, int, int]] = []  # open quotes / $( ): (kind, line, col)
    depth = [0]
    lines = text.split("\n")
    n = 0
    while n < len(lines):
        line = lines[n]
        out.append(line)
        i = 0
        while i < len(line):
            c = line[i]
            top = stack[-1][0] if stack else ""
            if top == "'":
                j = line.find("'", i)
                if j < 0:
                    break
                stack.pop()
                i = j + 1
                continue
            if c == "\\":
                i += 2
                continue
            if top == '"':
                if c == '"':
                    stack.pop()
                elif line.startswith("$(", i):
                    stack.append(("(", n + 1, i + 1))
                    depth.append(0)
                    i += 1
                i += 1
                continue
            # outside quotes (top level or inside $( ))
            if c == "#" and (i == 0 or line[i - 1] in " \t;&|()"):
                break
            if line.startswith("$'", i):  # $'..' may hold \' escapes
                m = re.match(r"\$'(?:[^'\\]|\\.)*'", line[i:])
                if m:
                    i += m.end()
                    continue
            if c == "'":
                stack.append(("'", n + 1, i + 1))
            elif c == '"':
                stack.append(('"', n + 1, i + 1))
            elif line.startswith("$(", i):
                stack.append(("(", n + 1, i + 1))
                depth.append(0)
                i += 1
            elif c == "(" and top == "(":
                depth[-1] += 1
            elif c == ")" and top == "(":
                if depth[-1] == 0:
                    stack.pop()
                    depth.pop()
                else:
                    depth[-1] -= 1
            elif line.startswith("<<<", i):
                i += 3
                continue
            elif line.startswith("<<", i):
                m = _HEREDOC.match(line, i)
                if m:
                    delim = next(g for g in m.groups()[1:] if g is not None)
                    pending.append((delim, m.group(1) == "-"))
                    i = m.end()
                    continue
            i += 1
        n += 1
        for delim, strip_tabs in pending:
            while n < len(lines):
                cur = lines[n]
                out.append("")
                n += 1
                if (cur.lstrip("\t") if strip_tabs else cur) == delim:
                    break
        pending = []
    return "\n".join(out)


@dataclass
class Pairs:
    """What a matched-pair scan of a (heredoc-free) text finds."""

    regions: list[tuple[int, int, str]]  # closed ${..} ("subst"), $((..)) / ((..)) ("arith"), $(..) ("comsub")
    open: list[tuple[str, int]]  # constructs left open at the end of the text, outermost first: kind, offset
    subshells: list[int]  # `$((` / `((` that do not close with `))`: the offset of the `(` that opens a subshell

    @property
    def open_kind(self) -> str | None:
        return self.open[-1][0] if self.open else None

    @property
    def open_at(self) -> int:
        return self.open[-1][1] if self.open else 0


_OPENERS = ("$((", "$(", "${", "((")
_CASE = re.compile(r"(?:case|esac)(?=[ \t\n;&|)])")


def matched_pairs(text: str) -> Pairs:
    """Scan ``text`` as bash reads matched pairs: quotes, escapes, comments, ``$(``/``(``, ``${``, ``$((``/``((``.
    ``((`` counts as arithmetic where a command starts; ``a=(`` is an array."""
    regions: list[tuple[int, int, str]] = []
    subshells: list[int] = []
    stack: list[list] = []  # [kind, start, paren depth (arithmetic) or open `case`s (command substitution)]
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
            subshells.append(i + len(opener) - 2)  # `$((a) && (b))`: a command substitution of subshells
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
                regions.append((stack.pop()[1], i + 1, "subst"))
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
            i = n if j < 0 else j
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
                    regions.append((stack.pop()[1], i + 2, "arith"))
                    i += 1
            elif top in ("(", "$(") and stack[-1][2]:
                pass  # the `)` after a case pattern
            elif top in ("(", "=(", "$("):
                kind, start, _ = stack.pop()
                if kind == "$(":
                    regions.append((start, i + 1, "comsub"))
        elif top in ("(", "$(") and _CASE.match(text, i) and (i == 0 or text[i - 1] in " \t\n;&|("):
            stack[-1][2] += 1 if text[i] == "c" else -1  # open `case`s: their pattern `)`s close nothing
            i += 4
            continue
        i += 1
    return Pairs(regions, [(kind, start) for kind, start, _ in stack], subshells)


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
