"""Parse a launch script with grammar/launch.lark into a lark tree (tokens carry positions; a node's span is
that of its first and last token, see rftc.shell.expand.node_span).

Heredoc bodies are not context-free, so a small scanner runs before lark: it finds each heredoc operator
outside quotes and comments and blanks the body lines out (line numbers stay; bodies are data, not script).
The same scanner finds an unterminated quote, which lark would only report as an unexpected end of file.

Tokens lark filters out of the tree (newlines, blanks) are watched with lexer callbacks, to report the
places where a backslash continuation silently ends a command (RFTC102-RFTC104).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from rftc.diagnostics.model import Diagnostics, Span

_HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([A-Za-z0-9_.\-]+))")


@dataclass
class Parsed:
    tree: object | None  # lark Tree, None when the script does not parse
    breaks: list[tuple[str, Span]] = field(default_factory=list)  # ("comment"|"blank"|"space", span)


@lru_cache(maxsize=1)
def _lark():
    from lark import Lark

    text = resources.files("rftc.grammar").joinpath("launch.lark").read_text()
    return Lark(text, parser="lalr", lexer="contextual", maybe_placeholders=False,
                cache=True, lexer_callbacks={"_NL": _on_newline, "LIT": _on_literal})


class _Watch(threading.local):
    """What the lexer callbacks of the parse running in this thread report into."""

    breaks: list | None = None
    lines: list[str] = []
    length = 0


_watch = _Watch()


def _on_newline(tok):
    """A newline token holding a backslash-newline: the continuation ran into a comment or blank line."""
    if _watch.breaks is None:
        return tok
    v = tok.value
    i = _continuation_at(v)
    if i < 0:
        return tok
    rest = v[i + 2:]
    start = i + 2 + len(rest) - len(rest.lstrip(" \t"))  # first char after the continuation's blanks
    if v[start:start + 1] == "#":
        kind = "comment"
    elif tok.end_pos is not None and tok.end_pos >= _watch.length and not v[start:].strip():
        return tok  # a trailing backslash on the last line is harmless
    else:
        kind = "blank"
        start = i + 2  # the empty line
    line = tok.line + v[:start].count("\n")
    col = start - v.rfind("\n", 0, start) if "\n" in v[:start] else tok.column + start
    end = v.find("\n", start)
    _watch.breaks.append((kind, Span("", line, col, line, col + max(1, end - start))))
    return tok


def _continuation_at(v: str) -> int:
    """Index of the first backslash-newline in a newline token that is not inside a comment, or -1."""
    i = 0
    while i < len(v):
        if v[i] == "#":
            i = v.find("\n", i)
            if i < 0:
                return -1
        elif v.startswith("\\\n", i):
            return i
        i += 1
    return -1


def _on_literal(tok):
    """A word ending in backslash-space at the end of a line: bash passes a ' ' argument and ends there."""
    if _watch.breaks is not None and re.search(r"\\[ \t]$", tok.value):
        lines = _watch.lines
        line = lines[tok.line - 1] if 0 < tok.line <= len(lines) else ""
        rest = line[tok.end_column - 1:]
        if not rest.strip() or rest.lstrip().startswith("#"):
            col = tok.end_column - 2
            _watch.breaks.append(("space", Span("", tok.end_line, col, tok.end_line, col + 2)))
    return tok




def strip_heredocs(text: str) -> tuple[str, tuple[int, int, str] | None]:
    """Return the text with heredoc bodies blanked (their content is data for the command, not script), and
    the position and kind of a quote left open at the end of the file (None when all quotes close)."""
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
    open_quote = None
    for kind, line_no, col in stack:
        if kind in ("'", '"'):
            open_quote = (line_no, col, kind)
            break
    return "\n".join(out), open_quote


def parse(text: str, filename: str, diags: Diagnostics) -> Parsed:
    """Parse ``text``; syntax errors become diagnostics (RFTC100, RFTC101) and the tree is None."""
    from lark.exceptions import LarkError, UnexpectedInput

    if "\r\n" in text:  # bash reads the \r as part of each line's last word: the script cannot run as is
        at = text.index("\r\n")
        line = text.count("\n", 0, at) + 1
        col = at - text.rfind("\n", 0, at)
        diags.add("RFTC100", "the file has Windows line endings (CRLF): bash reads each \\r as part of the line's "
                  "last word", Span(filename, line, col, line, col + 1), hint="convert the file to LF line endings")
        return Parsed(None)
    # the scanner is only needed for heredocs; an open quote is looked for once lark fails
    stripped, open_quote = strip_heredocs(text) if "<<" in text else (text, None)
    if open_quote:
        _unterminated(open_quote, filename, diags)
        return Parsed(None)
    parser = _lark()
    breaks: list = []
    src = stripped + "\n\n"  # a final newline, and one more for a trailing backslash
    _watch.breaks, _watch.lines, _watch.length = breaks, src.split("\n"), len(src)
    try:
        tree = parser.parse(src)
    except UnexpectedInput as exc:
        open_quote = strip_heredocs(text)[1]
        if open_quote:
            _unterminated(open_quote, filename, diags)
        else:
            _syntax_error(exc, src, filename, diags)
        return Parsed(None)
    except (LarkError, RecursionError) as exc:
        diags.add("RFTC100", f"cannot parse this script: {type(exc).__name__}", Span(filename, 1, 1))
        return Parsed(None)
    finally:
        _watch.breaks = None
    return Parsed(tree, [(k, Span(filename, s.line, s.col, s.end_line, s.end_col)) for k, s in breaks])


def _unterminated(open_quote, filename: str, diags: Diagnostics) -> None:
    line, col, kind = open_quote
    name = "single" if kind == "'" else "double"
    diags.add("RFTC101", f"unterminated {name} quote: the {kind} opened here is never closed",
              Span(filename, line, col, line, col + 1),
              hint=f"close it with a matching {kind}; bash would read the rest of the file as one word")


# What a reader should write instead, by the kind of token lark stopped at.
_EXPECT_HINTS = {
    "FI": "an `if` needs `then ...` and a closing `fi`, e.g. `if [ \"$X\" = y ]; then ...; fi`",
    "DONE": "a loop needs `do ...; done`, e.g. `for x in a b; do echo \"$x\"; done`",
    "ESAC": "a case needs `esac`, e.g. `case \"$x\" in a) ...;; *) ...;; esac`",
    "RBRACE": "a `{` group needs a closing `}` after a `;` or newline, e.g. `{ echo a; }`",
    "RPAREN": "a `(` or `$(` needs its closing `)`",
    "PARAM_CLOSE": "a `${` needs its closing `}`, e.g. `${VAR:-default}`",
    "THEN": "an `if` condition ends with `; then`, e.g. `if [ -n \"$X\" ]; then`",
    "DO": "a loop header ends with `; do`, e.g. `while [ \"$i\" -lt 3 ]; do`",
    "DBRACK_CLOSE": "a `[[` needs a closing ` ]]` separated by a blank",
}


def _syntax_error(exc, src: str, filename: str, diags: Diagnostics) -> None:
    line, col = getattr(exc, "line", 1) or 1, getattr(exc, "column", 1) or 1
    if line < 0 or col < 0:
        line, col = max(1, src.count("\n")), 1
    lines = src.split("\n")
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    tok = getattr(exc, "token", None)
    if tok is not None and tok.type == "$END":
        what = "unexpected end of file"
    elif tok is not None:
        what = f"unexpected {_describe(tok)}"
    else:
        ch = src[exc.pos_in_stream] if getattr(exc, "pos_in_stream", None) is not None and exc.pos_in_stream < len(src) else ""
        what = f"unexpected character {ch!r}" if ch else "unexpected input"
    expected = getattr(exc, "expected", None) or getattr(exc, "allowed", None) or set()
    hint = next((h for k, h in _EXPECT_HINTS.items() if k in expected), None)
    where = text.strip()
    near = f" in `{where[:60]}`" if tok is None or where != str(tok.value).strip() else ""
    diags.add("RFTC100", f"syntax error: {what}{near}" + (f"; {hint}" if hint else ""),
              Span(filename, line, col, line, col + 1),
              hint="rftc reads the bash subset described in grammar/launch.lark" if hint is None else None)


def _describe(tok) -> str:
    v = str(tok.value).strip()
    if not v:
        return "line break" if "\n" in str(tok.value) else "blank"
    return f"`{v[:30]}`"
