"""The one visitor of lark's parse of grammar/launch.lark: it builds the syntax tree (rftc.shell.syntax) while lark
parses (lark calls it for each rule it reduces, so no lark tree is built), and is the only code that reads lark's
trees and tokens. A node's span runs from its first token to its last.

What the parser set aside for bash to read at run time (rftc.shell.parser) comes in at the place it was: the
token or node that stands there becomes a Deferred node.
"""

from __future__ import annotations

import re
import threading

from lark import Token

from rftc.diagnostics.model import Span
from rftc.shell.syntax import (
    Ansi, AndOr, ArithAssign, ArithBinary, ArithCommand, ArithCond, ArithFor, ArithGroup, ArithIncrement, ArithIndex,
    ArithName, ArithSub, ArithUnary, ArrayAssignment, Assignment, Backtick, BraceGroup, Case, CaseItem,
    CommandList, CommandSub, Compound, CondBinary, CondGroup, CondNot, CondTest, Cont, DBracket, DeclCommand,
    Deferred, Dollar, DoubleQuoted, DqText, Elif, For, FunctionDef, HereDoc, HereString, HereText, If, Lit, Number,
    OperandText, Param, PatternText, Pipeline, ProcessSub, Redirect, RegexText, Script, Select, SimpleCommand, Single,
    Subshell, Var, While, Word,
)

_TEXT = {"LIT": Lit, "CONT": Cont, "SQ": Single, "ANSI": Ansi, "DOLLAR": Dollar, "VAR": Var, "BACKTICK": Backtick,
         "DQ_TEXT": DqText, "HD_TEXT": HereText, "BRACE_TEXT": OperandText, "PAT_TEXT": PatternText,
         "REGEX_TEXT": RegexText}
_ASSIGN = re.compile(r"([A-Za-z_]\w*)(?:\[([^\]]*)\])?(\+?)=")


class _Parse(threading.local):
    """The parse running in this thread: its file, what was set aside ((line, col) -> (kind, text)), the heredoc
    bodies by the (line, col) of their `<<` ((rftc.shell.scan.HereBody, its first line)), and the names assigned so
    far."""

    file = ""
    deferred: dict = {}
    heredocs: dict = {}
    assigned: set = set()


_parse = _Parse()


def begin(file: str, deferred: dict, heredocs: dict | None = None) -> None:
    """Set up for a parse of ``file`` (called before each attempt: only the last one's names count)."""
    _parse.file, _parse.deferred, _parse.heredocs, _parse.assigned = file, deferred, heredocs or {}, set()


def _span(children) -> Span:
    first, last = children[0], children[-1]
    if first is last and not isinstance(first, Token):
        return first.span  # the same text: one Span for both
    line, col = (first.line, first.column) if isinstance(first, Token) else (first.span.line, first.span.col)
    if isinstance(last, Token):
        return Span(_parse.file, line, col, last.end_line, last.end_column)
    return Span(_parse.file, line, col, last.span.end_line, last.span.end_col)


def _tok_span(tok: Token) -> Span:
    return Span(_parse.file, tok.line, tok.column, tok.end_line, tok.end_column)


def _deferred(kind: str, at: Token, span: Span) -> Deferred | None:
    """The Deferred node for what the parser set aside at the token ``at``, if it did."""
    found = _parse.deferred.get((at.line, at.column)) if _parse.deferred else None
    return Deferred(kind, found[1], span) if found is not None and found[0] == kind else None


def _part(c):
    """A word part, or an arithmetic operand (where $v is a bare token): a token becomes its Text node (a Deferred
    where the parser set a ${...} aside)."""
    if not isinstance(c, Token):
        return c
    span = _tok_span(c)
    if c.type in ("SQ", "VAR"):
        deferred = _deferred("subst", c, span)
        if deferred is not None:
            return deferred
    return _TEXT[c.type](c.value, span)


def _trees(children) -> list:
    return [c for c in children if not isinstance(c, Token)]


class ToSyntax:
    """lark's transformer for the grammar (given to lark, which calls it as it parses): each method builds the node
    of the rule it is named after from the rule's children (the tokens the grammar keeps, and the nodes already
    built). Rules named with a leading `_` have no method: lark splices their children into the rule around them."""

    # ---------------------------------------------------------------- lists and pipelines
    def start(self, ch):
        return Script(ch[0] if ch else None, frozenset(_parse.assigned))

    def list(self, ch):
        return CommandList(tuple(_trees(ch)), _span(ch))

    def and_or(self, ch):
        return AndOr(tuple(ch[0::2]), tuple("&&" if t.type == "AND_IF" else "||" for t in ch[1::2]), _span(ch))

    def pipeline(self, ch):
        negated = isinstance(ch[0], Token)  # BANG
        return Pipeline(tuple(ch[1:] if negated else ch), negated, _span(ch))

    # ---------------------------------------------------------------- simple commands
    def simple_command(self, ch):
        assigns = tuple(c for c in ch if isinstance(c, (Assignment, ArrayAssignment)))
        words = tuple(c for c in ch if isinstance(c, Word))
        redirects = tuple(c for c in ch if isinstance(c, (Redirect, HereDoc, HereString)))
        return SimpleCommand(assigns, words, redirects, _span(ch))

    def decl_command(self, ch):
        args = tuple(c for c in ch[1:] if isinstance(c, (Word, Assignment, ArrayAssignment)))
        redirects = tuple(c for c in ch[1:] if isinstance(c, (Redirect, HereDoc, HereString)))
        return DeclCommand(ch[0].value, args, redirects, _span(ch))

    def assignment(self, ch):
        name, index, plus = _ASSIGN.match(ch[0].value).groups()
        _parse.assigned.add(name)
        words = _trees(ch)
        if ch[0].type == "ARRAY_ASSIGN":
            return ArrayAssignment(name, bool(plus), tuple(words), _span(ch))
        return Assignment(name, index, bool(plus), words[0] if words else None, _span(ch))

    def redirect(self, ch):
        head = ch[0]
        if head.type == "HEREDOC":
            k = head.value.index("<<")
            before = head.value[:k]
            at = (head.line + before.count("\n"),
                  k - before.rfind("\n") if "\n" in before else head.column + k)
            body, line = _parse.heredocs.get(at, (None, 0))
            if body is None:
                return HereDoc(_span(ch), None, False, False, 0)
            return HereDoc(_span(ch), body.text, body.expand, body.strip_tabs, line)
        if head.type == "HERESTR":
            return HereString(ch[1], _span(ch))
        return Redirect(head.value, ch[1], _span(ch))

    # ---------------------------------------------------------------- compound commands
    def compound(self, ch):
        return Compound(ch[0], tuple(ch[1:]), _span(ch))

    def function_def(self, ch):
        name = next(c for c in ch if isinstance(c, Token) and c.type in ("FUNC_DEF", "FUNC_NAME"))
        return FunctionDef(re.match(r"[^\s(]+", name.value).group(0), ch[-1], _span(ch))

    def brace_group(self, ch):
        return BraceGroup(ch[1], _span(ch))

    def subshell(self, ch):
        return Subshell(ch[1], _span(ch))

    def if_cmd(self, ch):
        trees = _trees(ch)
        rest = trees[2:]
        otherwise = rest.pop() if rest and isinstance(rest[-1], CommandList) else None
        return If(trees[0], trees[1], tuple(rest), otherwise, _span(ch))

    def elif_part(self, ch):
        return Elif(ch[1], ch[3], _span(ch))

    def else_part(self, ch):
        return ch[1]  # its body: the `else` of the if_cmd around it

    def for_cmd(self, ch):
        return For(*self._loop(ch), _span(ch))

    def select_cmd(self, ch):
        return Select(*self._loop(ch), _span(ch))

    @staticmethod
    def _loop(ch):
        """(name, words or None without `in`, body) of `for` / `select`."""
        _parse.assigned.add(ch[1].value)
        trees = _trees(ch)
        has_in = any(isinstance(c, Token) and c.type == "IN" for c in ch)
        return ch[1].value, tuple(trees[:-1]) if has_in else None, trees[-1]

    def arith_for(self, ch):
        slots: list = [None, None, None]  # FOR (( init ; test ; step )) ... DO list DONE
        k, at = 0, 2
        while not (isinstance(ch[at], Token) and ch[at].type == "RPAREN"):
            if isinstance(ch[at], Token) and ch[at].type == "A_SEMI":
                k += 1
            else:
                slots[k] = _part(ch[at])
            at += 1
        header = _span(ch[1:at + 2])  # (( ... ))
        return ArithFor(*slots, ch[-2], _deferred("arith", ch[1], header), _span(ch))

    def while_cmd(self, ch):
        return While(ch[0].type == "UNTIL", ch[1], ch[3], _span(ch))

    def case_cmd(self, ch):
        return Case(ch[1], tuple(c for c in ch[3:] if isinstance(c, CaseItem)), _span(ch))

    def case_item(self, ch):
        trees = _trees(ch)
        return CaseItem(tuple(t for t in trees if isinstance(t, Word)),
                        next((t for t in trees if isinstance(t, CommandList)), None), _span(ch))

    def arith_cmd(self, ch):
        span = _span(ch)
        return ArithCommand(_deferred("arith", ch[0], span) or (_part(ch[1]) if len(ch) == 4 else None), span)

    # ---------------------------------------------------------------- [[ ]]
    def dbracket(self, ch):
        return DBracket(ch[1] if len(ch) == 3 else None, _span(ch))

    def cond_or(self, ch):
        return CondBinary(ch[1].value.strip(), ch[0], ch[2], _span(ch))

    cond_and = cond_or

    def cond_negate(self, ch):
        return CondNot(ch[1], _span(ch))

    def cond_not(self, ch):  # ( expr )
        return CondGroup(ch[1], _span(ch))

    def cond_words(self, ch):
        op = next((c.value.strip() for c in ch if isinstance(c, Token)), None)
        return CondTest(op, tuple(_trees(ch)), _span(ch))

    # ---------------------------------------------------------------- words
    def word(self, ch):
        parts = [_part(c) for c in ch]
        return Word(tuple(parts), _span(parts))

    bword = pword = word

    def dq(self, ch):
        return DoubleQuoted(tuple([_part(c) for c in ch[1:-1]]), _span(ch))

    def heredoc(self, ch):
        return tuple(_part(c) for c in ch)

    def param(self, ch):
        span = _span(ch)
        deferred = _deferred("subst", ch[0], span)
        if deferred is not None:
            return deferred
        toks = {c.type: c.value for c in ch if isinstance(c, Token)}
        index = toks.get("PARAM_INDEX")
        at = toks.get("PARAM_AT")
        return Param(toks["PARAM_NAME"], toks.get("PARAM_PREFIX"), index[1:-1] if index is not None else None,
                     toks.get("PARAM_OP") or toks.get("PARAM_SLASH"), tuple(_trees(ch)), at[1] if at else None,
                     toks.get("PARAM_NAMES"), span)

    def cmdsub(self, ch):
        return CommandSub(ch[1] if len(ch) == 3 else None, _span(ch))

    def procsub(self, ch):
        return ProcessSub(ch[1] if len(ch) == 3 else None, _span(ch))

    def arith(self, ch):
        span = _span(ch)
        return ArithSub(_deferred("arith", ch[0], span) or (_part(ch[1]) if len(ch) == 4 else None), span)

    # ---------------------------------------------------------------- arithmetic
    def a_num(self, ch):
        return Number(ch[0].value, _span(ch))

    def a_name(self, ch):
        return ArithName(ch[0].value.strip(), _tok_span(ch[0]))

    def a_index(self, ch):
        return ArithIndex(self.a_name(ch[:1]), _part(ch[2]), _span(ch))

    def a_bin(self, ch):
        return ArithBinary(ch[1].value.strip(), _part(ch[0]), _part(ch[2]), _span(ch))

    a_seq = a_bin

    def a_neg(self, ch):
        return ArithUnary(ch[0].value.strip(), _part(ch[1]), _span(ch))

    a_not = a_bnot = a_neg

    def a_cond(self, ch):
        return ArithCond(_part(ch[0]), _part(ch[2]), _part(ch[4]), _span(ch))

    def a_set(self, ch):
        return ArithAssign(self.a_name(ch[:1]), ch[1].value.strip(), _part(ch[2]), _span(ch))

    def a_postinc(self, ch):
        return ArithIncrement(self.a_name(ch[:1]), ch[1].value.strip(), False, _span(ch))

    def a_preinc(self, ch):
        return ArithIncrement(self.a_name(ch[1:]), ch[0].value.strip(), True, _span(ch))

    def a_atom(self, ch):  # ( expr )
        return ArithGroup(_part(ch[1]), _span(ch))
