"""Parse a launch script with grammar/launch.lark into its syntax tree (rftc.shell.syntax, built while lark parses
by rftc.shell.transformer; a node's span is that of its first and last token).

Heredoc bodies are not context-free, so a small scanner (rftc.shell.scan) runs before lark: it finds each heredoc
operator outside quotes and comments and blanks the body lines out (line numbers stay; bodies are data, not
script). The same scanner finds an unterminated quote, which lark would only report as an unexpected end of file.
What bash reads only when it expands it (the inside of ``${...}`` and of arithmetic) is parsed by the grammar when
it can be, and otherwise set aside (a Deferred node in the tree) for the evaluator, so that rftc parses exactly the
scripts `bash -n` accepts.

Tokens lark filters out of the tree (newlines, blanks) are watched with lexer callbacks, to report the
places where a backslash continuation silently ends a command (RFTC102-RFTC104).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Diagnostic, Span
from rftc.shell import transformer
from rftc.shell.scan import matched_pairs, strip_heredocs
from rftc.shell.syntax import Script


@dataclass
class Parsed:
    tree: Script | None  # None when the script does not parse
    breaks: list[tuple[str, Span]] = field(default_factory=list)  # ("comment"|"blank"|"space", span)
    # parse(..., partial=True) on a script with a syntax error: the error (not yet reported) and the number of
    # lines before it that bash runs, `tree` being those lines
    stop: tuple[Diagnostic, int] | None = None


@lru_cache(maxsize=1)
def _lark():
    from lark import Lark

    text = resources.files("rftc.grammar").joinpath("launch.lark").read_text()
    return Lark(text, parser="lalr", lexer="contextual", maybe_placeholders=False, cache=True,
                start=["start", "heredoc"],
                transformer=transformer.ToSyntax(),
                lexer_callbacks={"_NL": _on_newline, "LIT": _on_literal, "CLOSER": _on_closer})


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


class Misplaced(Exception):
    """A word that closes a compound command (`fi`, `done`, `}` ...) where a command starts and nothing is open."""

    def __init__(self, token):
        super().__init__(token.value)
        self.token = token


def _on_closer(tok):
    """The grammar's CLOSER is only lexed where a command starts and the compound the word closes is not open
    (there the reserved word itself, of higher priority, is): bash stops on it."""
    raise Misplaced(tok)


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




SUBSHELL = "\x01"  # stands for the first `(` of a `$((` / `((` that bash reads as subshells, `$((a) && (b))`
_MAX_RETRIES = 32  # ${...} / $((...)) regions bash would only read at run time, per file


def parse(text: str, filename: str, diags: Diagnostics, *, partial: bool = False) -> Parsed:
    """Parse ``text``; syntax errors become diagnostics (RFTC100, RFTC101) on the line bash reports, and the tree
    is None. bash reads the inside of ``${...}`` and of arithmetic only when it expands them, so one that the
    grammar does not read is set aside (a Deferred node) for the evaluator to report, as bash would at run time,
    and parsing goes on.

    With ``partial``, a syntax error is not reported but returned (``Parsed.stop``) with the tree of the commands
    bash runs before it: bash reads and runs a script one top-level command at a time (see _runs_before)."""
    from lark.exceptions import LarkError, UnexpectedInput

    if "\r\n" in text:  # bash reads the \r as part of each line's last word: the script cannot run as is
        at = text.index("\r\n")
        line = text.count("\n", 0, at) + 1
        col = at - text.rfind("\n", 0, at)
        diags.add("RFTC100", "the file has Windows line endings (CRLF): bash reads each \\r as part of the line's "
                  "last word", Span(filename, line, col, line, col + 1), hint="convert the file to LF line endings")
        return Parsed(None)
    # the scanner is only needed for heredocs; an open quote is looked for once lark fails (bash may stop earlier)
    stripped, bodies = strip_heredocs(text) if "<<" in text else (text, [])
    heredocs = {_line_col(text, b.at): (b, text.count("\n", 0, b.start) + 1) for b in bodies}  # with the body's line
    parser = _lark()
    src = stripped + "\n\n"  # a final newline, and one more for a trailing backslash
    runtime: dict[tuple[int, int], tuple[str, str]] = {}  # (line, col) of what is set aside -> (kind, its text)
    error = Diagnostics()  # the syntax error, and the offset in src where bash meets it
    at = 0
    try:
        for _ in range(_MAX_RETRIES):
            breaks: list = []
            _watch.breaks, _watch.lines, _watch.length = breaks, src.split("\n"), len(src)
            transformer.begin(filename, runtime, heredocs)
            try:
                tree = parser.parse(src, start="start")
                break
            except UnexpectedInput as exc:
                region = _runtime_region(src, exc, runtime)
                if region is None:
                    _syntax_error(exc, src, text, filename, error)
                    at = _offset(src, exc)
                    break
                src = _set_aside(src, region, runtime)
        else:
            diags.add("RFTC100", f"cannot parse this script: more than {_MAX_RETRIES} expansions bash reads only "
                      "when it runs", Span(filename, 1, 1))
            return Parsed(None)
    except Misplaced as exc:
        tok = exc.token
        error.add("RFTC100", f"syntax error: unexpected `{tok.value}`", Span(filename, tok.line, tok.column, tok.line,
                  tok.end_column), hint=f"`{tok.value}` closes a compound command that is not open here")
        at = tok.start_pos
    except (LarkError, RecursionError) as exc:
        diags.add("RFTC100", f"cannot parse this script: {type(exc).__name__}", Span(filename, 1, 1))
        return Parsed(None)
    finally:
        _watch.breaks = None
    if error:
        return _stopped(text, src, at, filename, error[0], diags) if partial else _failed(error, diags)
    return Parsed(tree, [(k, Span(filename, s.line, s.col, s.end_line, s.end_col)) for k, s in breaks])


def heredoc_parts(body: str, line: int, filename: str) -> tuple | None:
    """The word parts of a heredoc body that bash expands (its delimiter unquoted), written from ``line`` of
    ``filename`` on; None when the grammar cannot read it. The body is parsed after ``line - 1`` newlines, so that
    its parts have their places in the file: the parts' first ``line - 1`` characters are those newlines."""
    from lark.exceptions import LarkError

    transformer.begin(filename, {})
    try:
        return _lark().parse("\n" * (line - 1) + body, start="heredoc")
    except (LarkError, Misplaced, RecursionError):
        return None


def _failed(error: Diagnostics, diags: Diagnostics) -> Parsed:
    diags.extend(error)
    return Parsed(None)


def _stopped(text: str, src: str, at: int, filename: str, error: Diagnostic, diags: Diagnostics) -> Parsed:
    """The commands of ``text`` that bash runs before the syntax error at ``at`` (an offset in ``src``, the text as
    lark read it), parsed, with the error as ``stop``; or the error reported, when bash runs none."""
    pairs = matched_pairs(src)
    lines = src.count("\n", 0, _runs_before(src, min([at] + [start for _, start in pairs.open])))
    if lines:
        head = "".join(text.splitlines(keepends=True)[:lines])
        parsed = parse(head, filename, Diagnostics())
        if parsed.tree is not None:
            return replace(parsed, stop=(error, lines))
    return _failed(Diagnostics([error]), diags)


def _runs_before(src: str, at: int) -> int:
    """The offset in ``src`` where the commands that bash runs before a syntax error at ``at`` end. bash parses one
    top-level command line at a time (a compound command with all its lines, up to the newline after it) and runs
    it before it reads the next, so everything up to the last newline before ``at`` at which the script read so far
    is complete runs; the line with the error, or the compound command around it, does not."""
    from lark.exceptions import LarkError

    ip = _lark().parse_interactive(src, start="start")
    end = 0
    try:
        for tok in ip.iter_parse():
            if tok.start_pos is None or tok.start_pos >= at:
                break
            if tok.type == "_NL":
                try:
                    ip.copy(deepcopy_values=False).feed_eof()
                    end = tok.end_pos
                except LarkError:
                    pass  # inside a command: the newline does not end it
    except (LarkError, Misplaced):
        pass
    return end


def _offset(src: str, exc) -> int:
    tok = getattr(exc, "token", None)
    if tok is not None and tok.type != "$END" and tok.start_pos is not None:
        return tok.start_pos
    pos = getattr(exc, "pos_in_stream", None)
    return pos if pos is not None else len(src)


def _runtime_region(src: str, exc, done: dict) -> tuple[int, int, str] | None:
    """The innermost ${...} or arithmetic region around the parse error, when bash would read it only at run time;
    or the first `$((` / `((` that bash reads as subshells (kind "subshell")."""
    at = _offset(src, exc)
    pairs = matched_pairs(src)
    if pairs.subshells:
        return pairs.subshells[0], pairs.subshells[0] + 1, "subshell"
    inside = [r for r in pairs.regions if r[0] < at < r[1] and r[2] != "comsub" and _line_col(src, r[0]) not in done]
    if not inside:
        return None
    return min(inside, key=lambda r: r[1] - r[0])


def _line_col(src: str, at: int) -> tuple[int, int]:
    return src.count("\n", 0, at) + 1, at - src.rfind("\n", 0, at)


def _set_aside(src: str, region: tuple[int, int, str], runtime: dict) -> str:
    """Replace a region by one the grammar reads, of the same length and line breaks: ``${...}`` by a variable
    reference (or a quoted word, when it spans lines), the expression of ``$((...))`` / ``((...))`` by 0; record
    what was there."""
    start, end, kind = region
    body = src[start:end]
    if kind == "subshell":
        return src[:start] + SUBSHELL + src[end:]  # the grammar reads it as the `(` of a subshell
    if kind == "subst":
        inner = body[2:-1]
        if "\n" not in body[:5] and len(body) >= 6:
            fill = "${_:-" + re.sub(r"[^\n]", "_", body[5:-1]) + "}"
        elif "\n" not in body:
            fill = "$" + "_" * (len(body) - 1) if len(body) <= 3 else "${" + "_" * (len(body) - 3) + "}"
        elif not _in_double_quotes(src, start):
            fill = "'" + re.sub(r"[^\n]", "_", body[1:-1]) + "'"
        else:
            return src  # cannot be laid out: the parse error stands
    else:
        open_len = 3 if body.startswith("$((") else 2
        inner = body[open_len:-2]
        parts = _arith_parts(src, start, inner)
        fill = body[:open_len] + ";".join(_zero(p) for p in parts) + "))"
    runtime[_line_col(src, start)] = (kind, inner)
    return src[:start] + fill + src[end:]


def _in_double_quotes(src: str, at: int) -> bool:
    return any(kind == '"' for kind, _ in matched_pairs(src[:at]).open)


def _arith_parts(src: str, start: int, inner: str) -> list[str]:
    """The expression, or the three expressions of `for ((a; b; c))`, each kept at its place."""
    if re.search(r"(?:^|[\s;&|(])for[ \t]*$", src[:start]) and inner.count(";") == 2:
        return inner.split(";")
    return [inner.replace(";", " ")]


def _zero(part: str) -> str:
    """``0`` followed by blanks (line breaks kept) in place of an expression; empty when it is."""
    if not part.strip():
        return part
    return "0" + re.sub(r"[^\n]", " ", part[1:])


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


def _syntax_error(exc, src: str, original: str, filename: str, diags: Diagnostics) -> None:
    """RFTC100 (or RFTC101 for a quote) where bash reports the error: see _reads_to_end and _token_line."""
    tok = getattr(exc, "token", None)
    pairs = matched_pairs(src)
    at = _offset(src, exc)
    while src[at:at + 1] in (" ", "\t"):
        at += 1  # a blank lark stopped at: the word after it
    if _reads_to_end(tok, at, pairs):
        inner = _inner_error(src, pairs, at)
        if inner is not None:
            diags.add("RFTC100", inner.message, replace(inner.span, file=filename), hint=inner.hint)
            return
        if pairs.open_kind in ("'", '"'):
            _unterminated((*_line_col(src, pairs.open_at), pairs.open_kind), filename, diags)
            return
        line, col = _end_of_file(src, original, pairs)
        what = _EOF
    else:
        line, col = _token_line(src, exc, at, pairs)
        what = f"unexpected {_describe(tok)}" if tok is not None else f"unexpected character {src[at:at + 1]!r}"
    expected = getattr(exc, "expected", None) or getattr(exc, "allowed", None) or set()
    hint = next((h for k, h in _EXPECT_HINTS.items() if k in expected), None)
    lines = src.split("\n")
    where = (lines[line - 1] if 0 < line <= len(lines) else "").strip()
    near = f" in `{where[:60]}`" if where and (tok is None or where != str(tok.value).strip()) else ""
    diags.add("RFTC100", f"syntax error: {what}{near}" + (f"; {hint}" if hint else ""),
              Span(filename, line, col, line, col + 1),
              hint="rftc reads the bash subset described in grammar/launch.lark" if hint is None else None)


_EOF = "unexpected end of file"


def _reads_to_end(tok, at: int, pairs) -> bool:
    """Whether bash meets the end of the file before the error lark found: bash reads ${..} and arithmetic as one
    piece of text, and a whole word (with its quotes and command substitutions) before parsing it, so inside one of
    those that never closes, or at a word that opens one, the end of the file comes first."""
    if tok is None or tok.type == "$END":
        return True
    opaque = next((start for kind, start in pairs.open if kind in ("${", "arith")), None)
    if opaque is not None and at >= opaque:
        return True
    end = max(tok.end_pos or 0, at + 1)
    return any(at <= start < end for kind, start in pairs.open if kind not in ("(", "=("))


def _inner_error(src: str, pairs, at: int):
    """bash parses the command substitutions in a word (or in ${..} and arithmetic) as commands when it reads them:
    a syntax error there comes before the end of the file that the unclosed construct around them runs into."""
    opaque = next((start for kind, start in pairs.open if kind in ("${", "arith")), at)
    bodies = [(start, end - 1) for start, end, kind in pairs.regions if kind == "comsub" and start >= min(at, opaque)]
    bodies += [(start, len(src)) for kind, start in pairs.open if kind == "$(" and start >= min(at, opaque)]
    for start, end in sorted(bodies):
        body = re.sub(r"[^\n]", " ", src[:start + 2]) + src[start + 2:end]  # same lines and columns
        diags = Diagnostics()
        parse(body, "", diags)
        found = next((d for d in diags if d.code == "RFTC100" and _EOF not in d.message), None)
        if found is not None:
            return found
    return None


def _token_line(src: str, exc, at: int, pairs) -> tuple[int, int]:
    """bash names the line it has read up to: the last line of a word that spans lines."""
    region = next((r for r in pairs.regions if r[0] == at), None)
    if region is not None:
        return _line_col(src, region[1] - 1)
    tok = getattr(exc, "token", None)
    if tok is not None and tok.start_pos is not None:  # operators carry the blanks (and continuations) before them
        return _line_col(src, tok.start_pos + re.match(r"(?:[ \t]|\\\n)*", tok.value).end())
    return getattr(exc, "line", 1) or 1, getattr(exc, "column", 1) or 1


def _end_of_file(src: str, original: str, pairs) -> tuple[int, int]:
    """Where bash reports an unexpected end of file: at the construct that never closes when bash reads it as one
    piece of text (``${``, ``((``, ``a=(``, a backquote), else on the line after the last one."""
    if pairs.open_kind not in (None, "(", "$("):
        return _line_col(src, pairs.open_at)
    return original.count("\n") + (1 if original.endswith("\n") else 2), 1


def _describe(tok) -> str:
    v = str(tok.value).strip()
    if not v:
        return "line break" if "\n" in str(tok.value) else "blank"
    return f"`{v[:30]}`"
