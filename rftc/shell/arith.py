"""Integer arithmetic of ``$(( ))``, ``(( ))`` and ``for (( ; ; ))``, as bash computes it (64-bit, division
truncating toward zero), and of `expr`. Names read variables; a variable that is unset counts as 0, as in bash,
but one whose value is not known statically makes the whole result unknown."""

from __future__ import annotations

import re

from rftc.diagnostics.model import Span
from rftc.shell.syntax import (
    Arith, ArithAssign, ArithBinary, ArithCond, ArithGroup, ArithIncrement, ArithIndex, ArithName, ArithSub, ArithUnary,
    Deferred, Number, Var,
)
from rftc.shell.values import Seg, Unknown, text_of

_NAME = re.compile(r"[A-Za-z_]\w*")


class ArithUnknown(Exception):
    def __init__(self, unknowns: list[Unknown]):
        super().__init__(", ".join(u.name for u in unknowns))
        self.unknowns = unknowns


class ArithError(Exception):
    """Division by zero and the like: bash stops the command with an error."""


_MASK = (1 << 64) - 1


def _wrap(v: int) -> int:
    v &= _MASK
    return v - (1 << 64) if v >> 63 else v


def _div(a: int, b: int) -> int:
    if b == 0:
        raise ArithError("division by 0")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _mod(a: int, b: int) -> int:
    if b == 0:
        raise ArithError("division by 0")
    return a - b * _div(a, b)


_BIN = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": _div, "%": _mod,
    "**": lambda a, b: pow(a, b, 1 << 64) if b >= 0 else 0,  # bash's 64-bit power, at the cost of log2(b) steps
    "<<": lambda a, b: a << (b & 63), ">>": lambda a, b: a >> (b & 63), "&": lambda a, b: a & b,
    "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
}


def parse_int(text: str) -> int | None:
    """A bash integer literal (decimal, 0x hex, leading-0 octal, base#digits), or None."""
    t = text.strip()
    neg = t.startswith("-")
    t = t.lstrip("+-")
    try:
        if "#" in t:
            base, digits = t.split("#", 1)
            v = int(digits, int(base))
        elif t.lower().startswith("0x"):
            v = int(t, 16)
        elif len(t) > 1 and t.startswith("0"):
            v = int(t, 8)
        else:
            v = int(t)
    except ValueError:
        return None
    return -v if neg else v


class Arithmetic:
    """Arithmetic for one evaluator ``ev``: expressions evaluated on its variables. After ``evaluate``, ``via`` holds
    the assignments the expression read, ``notes`` the notes of the values it read, ``error`` why it failed (as
    bash would), if it did."""

    def __init__(self, ev):
        self.ev = ev
        self.via: list = []
        self.notes: list = []
        self.error = ""

    def evaluate(self, expr: Arith | Deferred | None):
        """(value, []) or (None, unknowns); an empty expression is 0."""
        self.via = []
        self.notes = []
        self.error = ""
        if isinstance(expr, Deferred):  # bash reads the expression only when it evaluates it, and rejects it there
            self.error = f"bash rejects `{expr.text.strip()}` as an arithmetic expression"
            return None, []
        if expr is None:
            return 0, []  # $(( )) is 0
        try:
            return self.value(expr), []
        except ArithUnknown as e:
            return None, e.unknowns
        except (ArithError, RecursionError, ValueError, OverflowError) as e:
            self.error = str(e) or type(e).__name__
            return None, []

    def value(self, node: Arith) -> int:
        match node:
            case Number():
                return _wrap(parse_int(node.text) or 0)  # bash keeps a literal's low 64 bits
            case ArithName():
                return self.int_var(node.name, node.span)
            case ArithBinary():
                if node.op == ",":  # both evaluated, the value is the second's
                    self.value(node.left)
                    return self.value(node.right)
                if node.op == "&&":
                    return int(bool(self.value(node.left)) and bool(self.value(node.right)))
                if node.op == "||":
                    return int(bool(self.value(node.left)) or bool(self.value(node.right)))
                return _wrap(_BIN[node.op](self.value(node.left), self.value(node.right)))
            case ArithIndex():  # a[i]
                return self.int_element(node.array.name, self.value(node.index), node.array.span)
            case ArithUnary():
                v = self.value(node.operand)
                return -v if node.op == "-" else v if node.op == "+" else int(not v) if node.op == "!" else ~v
            case ArithCond():
                return self.value(node.then) if self.value(node.test) else self.value(node.otherwise)
            case ArithAssign():
                name, span = node.target.name, node.target.span
                v = self.value(node.value)
                if node.op != "=":
                    v = _wrap(_BIN[node.op[:-1]](self.int_var(name, span), v))
                self.set_int(name, v, span)
                return v
            case ArithIncrement():
                name, span = node.target.name, node.target.span
                old = self.int_var(name, span)
                new = old + (1 if node.op == "++" else -1)
                self.set_int(name, new, span)
                return new if node.prefix else old
            case ArithGroup():
                return self.value(node.expr)
            case ArithSub():  # $(( $((a * b)) * c )): the inner expression, in the same evaluation
                if isinstance(node.expr, Deferred):
                    raise ArithError(f"bash rejects `{node.expr.text.strip()}` as an arithmetic expression")
                return 0 if node.expr is None else self.value(node.expr)
        return self.atom(node)  # $v, ${...}, $(...)

    # ------------------------------------------------------------------ operands
    def int_var(self, name: str, span: Span | None, _depth: int = 0) -> int:
        ev = self.ev
        span = span or Span(ev.file, 1, 1)
        val = ev.vars.lookup(name, span)
        if name in ev.st.taints:
            self.notes += [t for t in ev.st.taints[name] if t not in self.notes]
        if val is None:
            if ev.unset_mode or ev.vars.get(name) is not None:
                return 0
            raise ArithUnknown([Unknown("var", ev.vars.unknown_name(name), span)])
        segs = val[1]
        for v in val[0] + tuple(x for s in segs for x in s.via):
            if v not in self.via:
                self.via.append(v)
        self.notes += [n for s in segs for n in s.notes if n not in self.notes]
        unknowns = [u for s in segs for u in s.unknowns]
        if unknowns:
            if ev.unset_mode:
                return 0
            raise ArithUnknown(unknowns)
        text = text_of(segs).strip()
        if not text:
            return 0
        n = parse_int(text)
        if n is not None:
            return n
        if _NAME.fullmatch(text) and _depth < 8:
            return self.int_var(text, span, _depth + 1)
        raise ArithError(f"{text}: not an integer")

    def int_element(self, name: str, index: int, span: Span) -> int:
        v = self.ev.vars.get(name)
        if v is None or v.items is None:
            return self.int_var(name, span) if index == 0 else 0
        item = v.items[index] if -len(v.items) <= index < len(v.items) else None
        if item is None:
            return 0
        text = text_of(item).strip()
        if any(s.unknowns for s in item):
            raise ArithUnknown([u for s in item for u in s.unknowns])
        n = parse_int(text) if text else 0
        if n is None:
            raise ArithError(f"{text}: not an integer")
        return n

    def set_int(self, name: str, value: int, span: Span) -> None:
        self.ev.vars.assign_segs(name, [Seg.at(str(value), span)], span)

    def atom(self, part) -> int:
        """$v, ${...} or $(...) inside an expression: its expansion, read as an integer."""
        ev = self.ev
        out: list = []
        ev.words.part(part, out, in_dq=True)
        segs = [s for s in out if isinstance(s, Seg)]
        unknowns = [u for s in segs for u in s.unknowns]
        if unknowns and not ev.unset_mode:
            raise ArithUnknown(unknowns)
        text = text_of(segs).strip()
        if not text or unknowns:
            return 0
        n = parse_int(text)
        if n is None:
            if _NAME.fullmatch(text):
                return self.int_var(text, part.span if isinstance(part, Var) else None)
            raise ArithError(f"{text}: not an integer")
        return n


def names(node) -> list[str]:
    """The variables an expression sets or reads, in the order written."""
    match node:
        case ArithName():
            return [node.name]
        case ArithIndex():
            return [node.array.name] + names(node.index)
        case ArithAssign():
            return [node.target.name] + names(node.value)
        case ArithIncrement():
            return [node.target.name]
        case ArithUnary():
            return names(node.operand)
        case ArithBinary():
            return names(node.left) + names(node.right)
        case ArithCond():
            return names(node.test) + names(node.then) + names(node.otherwise)
        case ArithGroup():
            return names(node.expr)
    return []


_EXPR_LEVELS = (("|",), ("&",), ("<", "<=", "=", "==", "!=", ">=", ">"), ("+", "-"), ("*", "/", "%"))


def expr(args: list[str]) -> str | None:
    """What `expr ARGS` prints (without the newline), as GNU expr computes it: `|`, `&`, comparisons (as integers
    when both sides are, else as strings), + - * / % on decimal integers, parentheses. None for its string
    operators (`:`, match, substr, index, length), a non-integer operand of arithmetic, a division by zero, or
    a malformed expression: left to run time."""
    pos = 0

    def integer(v: str) -> int | None:
        return int(v) if v.lstrip("+-").isdigit() and v[:1] != "+" else None

    def level(n: int) -> str | None:
        nonlocal pos
        if n == len(_EXPR_LEVELS):
            if pos < len(args) and args[pos] == "(":
                pos += 1
                value = level(0)
                if pos >= len(args) or args[pos] != ")":
                    return None
                pos += 1
                return value
            if pos >= len(args) or args[pos] in (":", "match", "substr", "index", "length", "+", ")"):
                return None
            pos += 1
            return args[pos - 1]
        left = level(n + 1)
        while left is not None and pos < len(args) and args[pos] in _EXPR_LEVELS[n]:
            op = args[pos]
            pos += 1
            right = level(n + 1)
            if right is None:
                return None
            a, b = integer(left), integer(right)
            if op == "|":
                left = left if left not in ("", "0") else right if right not in ("", "0") else "0"
            elif op == "&":
                left = left if left not in ("", "0") and right not in ("", "0") else "0"
            elif n == 2:
                op = "==" if op == "=" else op
                left = str(_BIN[op](a, b) if a is not None and b is not None else _BIN[op](left, right))
            elif a is None or b is None or (op in "/%" and b == 0):
                return None
            else:
                left = str(_BIN[op](a, b))
        return left

    value = level(0) if args else None
    return value if pos == len(args) else None
