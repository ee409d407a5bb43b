"""The expressions of ``test``, ``[ ]`` and ``[[ ]]`` (the connectives of ``[[ ]]`` are in its syntax tree).

A file test is decided by the file system here only when the file exists here (the script's own repository):
a path that does not exist here may exist where the script runs, so the test is one rftc cannot decide."""

from __future__ import annotations

import os
import re

from rftc.shell.arith import parse_int
from rftc.shell.patterns import matches
from rftc.shell.syntax import Cond, CondBinary, CondGroup, CondNot, CondTest
from rftc.shell.values import Unknown

_UNARY = {"-n", "-z", "-f", "-d", "-e", "-r", "-w", "-x", "-s", "-L", "-h", "-v"}
_BINARY = {"=", "==", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "=~", "<", ">", "-nt", "-ot"}


def test_words(args: list[str], ev, extended: bool = False, span=None) -> bool:
    """Evaluate the arguments of test / [ ] / [[ ]] (the connectives of [[ ]] are handled by ``cond_value``) in the
    evaluator ``ev``; ``span`` is where the test is written (a file test notes there that it cannot be decided)."""
    pos = [0]

    def peek(k=0):
        i = pos[0] + k
        return args[i] if i < len(args) else None

    def take():
        pos[0] += 1
        return args[pos[0] - 1]

    def prim() -> bool:
        t = peek()
        if t is None:
            return False
        if t == "!" and len(args) - pos[0] > 1:
            take()
            return not prim()
        if t == "(" and not extended:
            take()
            v = or_()
            if peek() == ")":
                take()
            return v
        if peek(1) in _BINARY and peek(2) is not None:
            a, op, b = take(), take(), take()
            return _binary(a, op, b, extended)
        if t in _UNARY and peek(1) is not None:
            op, a = take(), take()
            return _unary(op, a, ev, span)
        take()
        return t != ""

    def and_():
        v = prim()
        while peek() == "-a" and not extended:
            take()
            v = prim() and v
        return v

    def or_():
        v = and_()
        while peek() == "-o" and not extended:
            take()
            v = and_() or v
        return v

    try:
        return or_()
    except (ValueError, re.error, RecursionError):
        return False


def _binary(a: str, op: str, b: str, extended: bool) -> bool:
    if op in ("=", "=="):
        return matches(a, b) if extended else a == b
    if op == "!=":
        return not matches(a, b) if extended else a != b
    if op == "=~":
        return re.search(b, a) is not None
    if op in ("<", ">"):
        return a < b if op == "<" else a > b
    if op in ("-nt", "-ot"):
        return False
    x, y = parse_int(a), parse_int(b)
    if x is None or y is None:
        return False
    return {"-eq": x == y, "-ne": x != y, "-lt": x < y, "-le": x <= y, "-gt": x > y, "-ge": x >= y}[op]


def _unary(op: str, a: str, ev, span) -> bool:
    if op == "-n":
        return a != ""
    if op == "-z":
        return a == ""
    if op == "-v":
        return ev.vars.get(a) is not None
    if not a:
        return False
    path = ev.files.resolve_path(a)
    if path is None:
        return False
    if not os.path.lexists(path):  # it may exist where the script runs
        ev.branches.note_uncertain([Unknown("file", a, span, a)], span)
        return False
    if op == "-f":
        return os.path.isfile(path)
    if op == "-d":
        return os.path.isdir(path)
    if op in ("-L", "-h"):
        return os.path.islink(path)
    if op == "-s":
        return os.path.isfile(path) and os.path.getsize(path) > 0
    return os.path.exists(path)


def cond_words(node: Cond):
    """The words of a [[ ]] expression, in order."""
    match node:
        case CondTest():
            yield from node.words
        case CondNot():
            yield from cond_words(node.operand)
        case CondBinary():
            yield from cond_words(node.left)
            yield from cond_words(node.right)
        case CondGroup():
            yield from cond_words(node.expr)


def cond_value(node: Cond, texts, ev, span) -> bool:
    """A [[ ]] expression on the words' texts (taken in order from the iterator ``texts``)."""
    match node:
        case CondTest():
            return test_words(node.args(texts), ev, extended=True, span=span)
        case CondNot():
            return not cond_value(node.operand, texts, ev, span)
        case CondBinary():
            left = cond_value(node.left, texts, ev, span)
            right = cond_value(node.right, texts, ev, span)  # both read: the texts are consumed in order
            return (left and right) if node.op == "&&" else (left or right)
    return cond_value(node.expr, texts, ev, span)  # ( ... )
