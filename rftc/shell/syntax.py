"""The syntax tree of a launch script: frozen nodes, each with its span (from its first token to its last, as
written). rftc.shell.transformer builds them from the parse of grammar/launch.lark; nothing else reads lark's trees.

What bash reads only when it expands it and the grammar does not (the inside of a ``${...}`` or of arithmetic that
bash rejects at run time) is a :class:`Deferred` node, where the parser set it aside.
"""

from __future__ import annotations

from dataclasses import dataclass

from rftc.diagnostics.model import Span

_node = dataclass(frozen=True, slots=True)


# ------------------------------------------------------------------ word parts written as one token
@_node
class Text:
    """A part of a word written as one token; ``text`` is as written (quotes and escapes included)."""

    text: str
    span: Span


@_node
class Lit(Text):
    """Unquoted text."""


@_node
class Cont(Text):
    """A backslash-newline inside a word: it joins the word's halves."""


@_node
class Single(Text):
    """'...'"""


@_node
class Ansi(Text):
    """$'...'"""


@_node
class Dollar(Text):
    """A lone `$`: literal."""


@_node
class Var(Text):
    """$NAME, $1, $@ ..."""

    @property
    def name(self) -> str:
        return self.text[1:]


@_node
class Backtick(Text):
    """`...`: a command substitution whose body is parsed when it runs."""


@_node
class DqText(Text):
    """Text inside double quotes."""


@_node
class OperandText(Text):
    """Text of the operand of ``${V:-operand}`` (blanks are literal there)."""


@_node
class PatternText(Text):
    """Text of the pattern of ``${V/pattern/replacement}``."""


@_node
class RegexText(Text):
    """Text of the regular expression right of `=~` in ``[[ ]]`` (its escapes are the expression's)."""


# ------------------------------------------------------------------ word parts with structure
@_node
class Deferred:
    """What bash reads only when it runs it and rejects there: a ``${...}`` ("subst", bad substitution) or an
    arithmetic expression ("arith"); ``text`` is what is inside the brackets."""

    kind: str
    text: str
    span: Span


@_node
class DoubleQuoted:
    parts: tuple[Part, ...]
    span: Span


@_node
class Param:
    """``${#?NAME[index]? op operand}`` and its forms (see grammar/launch.lark)."""

    name: str
    prefix: str | None  # "#" (length) or "!" (indirection)
    index: str | None  # inside the brackets of NAME[index]
    op: str | None  # :- - := = :+ + :? ? # ## % %% ^ ^^ , ,, : / // /# /%
    words: tuple[Word, ...]  # the operand; for the `/` operators the pattern and the replacement
    transform: str | None  # ${V@Q}: "Q"
    names: str | None  # ${!prefix*} / ${!prefix@}: "*" or "@"
    span: Span

    @property
    def plain(self) -> bool:
        """${NAME} alone."""
        return (self.prefix is None and self.index is None and self.op is None and self.transform is None
                and self.names is None)


@_node
class CommandSub:
    """$( ... )"""

    body: CommandList | None
    span: Span


@_node
class ArithSub:
    """$(( ... ))"""

    expr: Arith | Deferred | None  # None when empty
    span: Span


@_node
class ProcessSub:
    """<( ... ) >( ... )"""

    body: CommandList | None
    span: Span


Part = Text | Deferred | DoubleQuoted | Param | CommandSub | ArithSub | ProcessSub


@_node
class Word:
    """Parts written without blanks between them (also the operand and pattern of ``${...}``)."""

    parts: tuple[Part, ...]
    span: Span


# ------------------------------------------------------------------ arithmetic
@_node
class Number:
    text: str  # as written, blanks after it included
    span: Span


@_node
class ArithName:
    name: str
    span: Span  # the name and the blanks after it


@_node
class ArithIndex:
    """a[i]"""

    array: ArithName
    index: Arith
    span: Span


@_node
class ArithAssign:
    """a = b, a += b ..."""

    target: ArithName
    op: str
    value: Arith
    span: Span


@_node
class ArithIncrement:
    """a++ a-- ++a --a"""

    target: ArithName
    op: str  # "++" or "--"
    prefix: bool
    span: Span


@_node
class ArithUnary:
    op: str  # - + ! ~
    operand: Arith
    span: Span


@_node
class ArithBinary:
    op: str
    left: Arith
    right: Arith
    span: Span


@_node
class ArithCond:
    """a ? b : c"""

    test: Arith
    then: Arith
    otherwise: Arith
    span: Span


@_node
class ArithSeq:
    """a, b"""

    first: Arith
    second: Arith
    span: Span


@_node
class ArithGroup:
    """( a )"""

    expr: Arith
    span: Span


# $v, ${...} and $(...) are operands too (Var, Param, CommandSub, or Deferred where bash rejects a ${...})
Arith = (Number | ArithName | ArithIndex | ArithAssign | ArithIncrement | ArithUnary | ArithBinary | ArithCond
         | ArithSeq | ArithGroup | Var | Param | CommandSub | Deferred)


# ------------------------------------------------------------------ [[ ]]
@_node
class CondTest:
    """A test: a word, a unary operator and its word, or two words around a binary operator."""

    op: str | None
    words: tuple[Word, ...]
    span: Span

    def args(self, texts) -> list[str]:
        """The test's arguments as `test` takes them, the words' texts taken in order from the iterator."""
        if self.op is None:
            return [next(texts)]
        if len(self.words) == 1:
            return [self.op, next(texts)]
        return [next(texts), self.op, next(texts)]


@_node
class CondNot:
    operand: Cond
    span: Span


@_node
class CondAnd:
    left: Cond
    right: Cond
    span: Span


@_node
class CondOr:
    left: Cond
    right: Cond
    span: Span


@_node
class CondGroup:
    expr: Cond
    span: Span


Cond = CondTest | CondNot | CondAnd | CondOr | CondGroup


# ------------------------------------------------------------------ assignments and redirections
@_node
class Assignment:
    """NAME=value, NAME+=value, NAME[index]=value"""

    name: str
    index: str | None  # inside the brackets
    append: bool
    value: Word | None
    span: Span


@_node
class ArrayAssignment:
    """NAME=( items ), NAME+=( items )"""

    name: str
    append: bool
    items: tuple[Word, ...]
    span: Span


@_node
class Redirect:
    """> < >> 2>&1 &> ... and its target."""

    op: str  # as written, with the blanks around it
    target: Word
    span: Span


@_node
class HereDoc:
    """<<EOF (the body is data, blanked out before parsing)."""

    span: Span


@_node
class HereString:
    """<<< word"""

    word: Word
    span: Span


Redirection = Redirect | HereDoc | HereString


# ------------------------------------------------------------------ commands
@_node
class SimpleCommand:
    assignments: tuple[Assignment | ArrayAssignment, ...]
    words: tuple[Word, ...]
    redirects: tuple[Redirection, ...]
    span: Span


@_node
class DeclCommand:
    """export / local / readonly / declare / typeset"""

    keyword: str
    args: tuple[Word | Assignment | ArrayAssignment, ...]  # in order
    redirects: tuple[Redirection, ...]
    span: Span


@_node
class FunctionDef:
    name: str
    body: Compound
    span: Span


@_node
class Compound:
    """A compound command with the redirections after it."""

    command: CompoundCommand
    redirects: tuple[Redirection, ...]
    span: Span


@_node
class BraceGroup:
    body: CommandList
    span: Span


@_node
class Subshell:
    body: CommandList
    span: Span


@_node
class Elif:
    condition: CommandList
    body: CommandList
    span: Span


@_node
class If:
    condition: CommandList
    then: CommandList
    elifs: tuple[Elif, ...]
    otherwise: CommandList | None  # the `else` body
    span: Span


@_node
class For:
    name: str
    words: tuple[Word, ...] | None  # None without `in` (the positional parameters)
    body: CommandList
    span: Span


@_node
class Select:
    name: str
    words: tuple[Word, ...] | None
    body: CommandList
    span: Span


@_node
class ArithFor:
    """for (( init; test; step ))"""

    init: Arith | None
    test: Arith | None
    step: Arith | None
    body: CommandList
    deferred: Deferred | None  # the header, where bash rejects it when the loop starts
    span: Span


@_node
class While:
    until: bool
    condition: CommandList
    body: CommandList
    span: Span


@_node
class CaseItem:
    patterns: tuple[Word, ...]
    body: CommandList | None
    span: Span


@_node
class Case:
    word: Word
    items: tuple[CaseItem, ...]
    span: Span


@_node
class DBracket:
    """[[ ... ]]"""

    expr: Cond | None
    span: Span


@_node
class ArithCommand:
    """(( ... ))"""

    expr: Arith | Deferred | None
    span: Span


CompoundCommand = BraceGroup | Subshell | If | For | Select | ArithFor | While | Case | DBracket | ArithCommand
Command = SimpleCommand | DeclCommand | FunctionDef | Compound


@_node
class Pipeline:
    commands: tuple[Command, ...]
    negated: bool  # `! cmd`
    span: Span


@_node
class AndOr:
    """p1 && p2 || p3: ``operators[k]`` ("&&" or "||") stands between ``pipelines[k]`` and ``pipelines[k + 1]``."""

    pipelines: tuple[Pipeline, ...]
    operators: tuple[str, ...]
    span: Span


@_node
class CommandList:
    """Commands separated by ; & or newlines (a background job runs like any other)."""

    items: tuple[Pipeline | AndOr, ...]
    span: Span


@_node
class Script:
    body: CommandList | None
    assigned: frozenset[str]  # every name an assignment or a for loop in it sets
