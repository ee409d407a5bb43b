"""The syntax tree of a launch script: frozen nodes, each with its span (from its first token to its last, as
written). rftc.shell.transformer builds them from the parse of grammar/launch.lark; nothing else reads lark's trees.

What bash reads only when it expands it and the grammar does not (the inside of a ``${...}`` or of arithmetic that
bash rejects at run time) is a :class:`Deferred` node, where the parser set it aside.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from rftc.diagnostics.model import Span


class Node:
    """A node of the tree. Nodes compare by identity (each is a place in the script); their classes are made with
    ``_node``, which leaves out the comparison and repr methods dataclass would write for each of them (that writing
    is most of the time a cold `rftc convert` spends importing the shell stage) and takes the repr from here."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{f.name}={getattr(self, f.name)!r}' for f in fields(self))})"


_node = dataclass(frozen=True, eq=False, repr=False)


# ------------------------------------------------------------------ word parts written as one token
@_node
class Text(Node):
    """A part of a word written as one token; ``text`` is as written (quotes and escapes included). Its kinds below
    are its subclasses."""

    text: str
    span: Span


class Lit(Text):
    """Unquoted text."""



class Cont(Text):
    """A backslash-newline inside a word: it joins the word's halves."""



class Single(Text):
    """'...'"""



class Ansi(Text):
    """$'...'"""



class Dollar(Text):
    """A lone `$`: literal."""



class Var(Text):
    """$NAME, $1, $@ ..."""


    @property
    def name(self) -> str:
        return self.text[1:]


class Backtick(Text):
    """`...`: a command substitution whose body is parsed when it runs."""



class DqText(Text):
    """Text inside double quotes."""


class HereText(Text):
    """Text of a heredoc body whose delimiter is unquoted."""



class OperandText(Text):
    """Text of the operand of ``${V:-operand}`` (blanks are literal there)."""



class PatternText(Text):
    """Text of the pattern of ``${V/pattern/replacement}``."""



class RegexText(Text):
    """Text of the regular expression right of `=~` in ``[[ ]]`` (its escapes are the expression's)."""



# ------------------------------------------------------------------ word parts with structure
@_node
class Deferred(Node):
    """What bash reads only when it runs it and rejects there: a ``${...}`` ("subst", bad substitution) or an
    arithmetic expression ("arith"); ``text`` is what is inside the brackets."""

    kind: str
    text: str
    span: Span


@_node
class DoubleQuoted(Node):
    """Double quotes: "..." """

    parts: tuple[Part, ...]
    span: Span


@_node
class Param(Node):
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
class CommandSub(Node):
    """$( ... )"""

    body: CommandList | None
    span: Span


@_node
class ArithSub(Node):
    """$(( ... ))"""

    expr: Arith | Deferred | None  # None when empty
    span: Span


@_node
class ProcessSub(Node):
    """<( ... ) >( ... )"""

    body: CommandList | None
    span: Span


Part = Text | Deferred | DoubleQuoted | Param | CommandSub | ArithSub | ProcessSub


@_node
class Word(Node):
    """Parts written without blanks between them (also the operand and pattern of ``${...}``)."""

    parts: tuple[Part, ...]
    span: Span


# ------------------------------------------------------------------ arithmetic
@_node
class Number(Node):
    """An integer as written: 42, 0x1f, 8#17."""

    text: str  # as written, blanks after it included
    span: Span


@_node
class ArithName(Node):
    """A variable read or set by name."""

    name: str
    span: Span  # the name and the blanks after it


@_node
class ArithIndex(Node):
    """a[i]"""

    array: ArithName
    index: Arith
    span: Span


@_node
class ArithAssign(Node):
    """a = b, a += b ..."""

    target: ArithName
    op: str
    value: Arith
    span: Span


@_node
class ArithIncrement(Node):
    """a++ a-- ++a --a"""

    target: ArithName
    op: str  # "++" or "--"
    prefix: bool
    span: Span


@_node
class ArithUnary(Node):
    """-a +a !a ~a"""

    op: str  # - + ! ~
    operand: Arith
    span: Span


@_node
class ArithBinary(Node):
    """a + b, a && b, a < b ..., and a, b (both evaluated, the value is b's)"""

    op: str
    left: Arith
    right: Arith
    span: Span


@_node
class ArithCond(Node):
    """a ? b : c"""

    test: Arith
    then: Arith
    otherwise: Arith
    span: Span


@_node
class ArithGroup(Node):
    """( a )"""

    expr: Arith
    span: Span


# $v, ${...}, $(...) and $((...)) are operands too (Var, Param, CommandSub, ArithSub, or Deferred where bash rejects
# a ${...})
Arith = (Number | ArithName | ArithIndex | ArithAssign | ArithIncrement | ArithUnary | ArithBinary | ArithCond
         | ArithGroup | Var | Param | CommandSub | ArithSub | Deferred)


# ------------------------------------------------------------------ [[ ]]
@_node
class CondTest(Node):
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
class CondNot(Node):
    """! expr"""

    operand: Cond
    span: Span


@_node
class CondBinary(Node):
    """expr && expr, expr || expr"""

    op: str
    left: Cond
    right: Cond
    span: Span


@_node
class CondGroup(Node):
    """( expr )"""

    expr: Cond
    span: Span


Cond = CondTest | CondNot | CondBinary | CondGroup


# ------------------------------------------------------------------ assignments and redirections
@_node
class Assignment(Node):
    """NAME=value, NAME+=value, NAME[index]=value"""

    name: str
    index: str | None  # inside the brackets
    append: bool
    value: Word | None
    span: Span


@_node
class ArrayAssignment(Node):
    """NAME=( items ), NAME+=( items )"""

    name: str
    append: bool
    items: tuple[Word, ...]
    span: Span


@_node
class Redirect(Node):
    """> < >> 2>&1 &> ... and its target."""

    op: str  # as written, with the blanks around it
    target: Word
    span: Span


@_node
class HereDoc(Node):
    """<<EOF (the body is data, blanked out before parsing, and kept here as written)."""

    span: Span
    body: str | None  # the lines before the delimiter line; None where the parse did not see them
    expand: bool  # the delimiter is unquoted: bash expands $ and backslash escapes in the body
    strip_tabs: bool  # <<-
    line: int  # the body's first line (the line after the operator's, unless the command goes on below)


@_node
class HereString(Node):
    """<<< word"""

    word: Word
    span: Span


Redirection = Redirect | HereDoc | HereString


# ------------------------------------------------------------------ commands
@_node
class SimpleCommand(Node):
    """Assignments, words and redirections: `A=1 cmd arg >log`."""

    assignments: tuple[Assignment | ArrayAssignment, ...]
    words: tuple[Word, ...]
    redirects: tuple[Redirection, ...]
    span: Span


@_node
class DeclCommand(Node):
    """export / local / readonly / declare / typeset"""

    keyword: str
    args: tuple[Word | Assignment | ArrayAssignment, ...]  # in order
    redirects: tuple[Redirection, ...]
    span: Span


@_node
class FunctionDef(Node):
    """name() compound, function name compound"""

    name: str
    body: Compound
    span: Span


@_node
class Compound(Node):
    """A compound command with the redirections after it."""

    command: CompoundCommand
    redirects: tuple[Redirection, ...]
    span: Span


@_node
class BraceGroup(Node):
    """{ list; }"""

    body: CommandList
    span: Span


@_node
class Subshell(Node):
    """( list )"""

    body: CommandList
    span: Span


@_node
class Elif(Node):
    """elif list; then list"""

    condition: CommandList
    body: CommandList
    span: Span


@_node
class If(Node):
    """if list; then list; elif ...; else list; fi"""

    condition: CommandList
    then: CommandList
    elifs: tuple[Elif, ...]
    otherwise: CommandList | None  # the `else` body
    span: Span


@_node
class For(Node):
    """for name in words; do list; done"""

    name: str
    words: tuple[Word, ...] | None  # None without `in` (the positional parameters)
    body: CommandList
    span: Span


@_node
class Select(Node):
    """select name in words; do list; done"""

    name: str
    words: tuple[Word, ...] | None
    body: CommandList
    span: Span


@_node
class ArithFor(Node):
    """for (( init; test; step ))"""

    init: Arith | None
    test: Arith | None
    step: Arith | None
    body: CommandList
    deferred: Deferred | None  # the header, where bash rejects it when the loop starts
    span: Span


@_node
class While(Node):
    """while list; do list; done (until: `until`)"""

    until: bool
    condition: CommandList
    body: CommandList
    span: Span


@_node
class CaseItem(Node):
    """pattern | pattern) list ;;"""

    patterns: tuple[Word, ...]
    body: CommandList | None
    span: Span


@_node
class Case(Node):
    """case word in items esac"""

    word: Word
    items: tuple[CaseItem, ...]
    span: Span


@_node
class DBracket(Node):
    """[[ ... ]]"""

    expr: Cond | None
    span: Span


@_node
class ArithCommand(Node):
    """(( ... ))"""

    expr: Arith | Deferred | None
    span: Span


CompoundCommand = BraceGroup | Subshell | If | For | Select | ArithFor | While | Case | DBracket | ArithCommand
Command = SimpleCommand | DeclCommand | FunctionDef | Compound


@_node
class Pipeline(Node):
    """cmd | cmd, ! cmd"""

    commands: tuple[Command, ...]
    negated: bool  # `! cmd`
    span: Span


@_node
class AndOr(Node):
    """p1 && p2 || p3: ``operators[k]`` ("&&" or "||") stands between ``pipelines[k]`` and ``pipelines[k + 1]``."""

    pipelines: tuple[Pipeline, ...]
    operators: tuple[str, ...]
    span: Span


@_node
class CommandList(Node):
    """Commands separated by ; & or newlines (a background job runs like any other)."""

    items: tuple[Pipeline | AndOr, ...]
    span: Span


@_node
class Script(Node):
    """A file's commands."""

    body: CommandList | None
    assigned: frozenset[str]  # every name an assignment or a for loop in it sets
