"""Integer arithmetic of ``$(( ))``, ``(( ))`` and ``for (( ; ; ))``, as bash computes it (64-bit, division
truncating toward zero). Names read variables; a variable that is unset counts as 0, as in bash, but one
whose value is not known statically makes the whole result unknown."""

from __future__ import annotations

from rftc.shell.values import Unknown


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
    "**": lambda a, b: a ** b if b >= 0 else 0,
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


def evaluate(node, ev) -> int:
    """Evaluate an arithmetic tree. ``ev`` gives ``int_var(name, tok)``, ``int_element(name, index, tok)``,
    ``set_int(name, value, tok)`` and ``atom_int(node)`` (for $v, ${..} and $(..) inside the expression)."""
    if hasattr(node, "type"):  # VAR token
        return ev.atom_int(node)
    kind = node.data
    ch = node.children
    if kind == "a_num":
        return parse_int(ch[0].value) or 0
    if kind == "a_name":
        return ev.int_var(ch[0].value.strip(), ch[0])
    if kind == "a_index":  # a[i]
        return ev.int_element(ch[0].value.strip(), evaluate(ch[2], ev), ch[0])
    if kind == "a_seq":  # a, b: both evaluated, the value is b's
        evaluate(ch[0], ev)
        return evaluate(ch[2], ev)
    if kind in ("param", "cmdsub"):
        return ev.atom_int(node)
    if kind == "a_bin":
        op = ch[1].value.strip()
        if op == "&&":
            return int(bool(evaluate(ch[0], ev)) and bool(evaluate(ch[2], ev)))
        if op == "||":
            return int(bool(evaluate(ch[0], ev)) or bool(evaluate(ch[2], ev)))
        return _wrap(_BIN[op](evaluate(ch[0], ev), evaluate(ch[2], ev)))
    if kind == "a_neg":
        v = evaluate(ch[1], ev)
        return -v if ch[0].value.strip() == "-" else v
    if kind == "a_not":
        return int(not evaluate(ch[1], ev))
    if kind == "a_bnot":
        return ~evaluate(ch[1], ev)
    if kind == "a_cond":
        return evaluate(ch[2], ev) if evaluate(ch[0], ev) else evaluate(ch[4], ev)
    if kind == "a_set":
        name, op = ch[0].value.strip(), ch[1].value.strip()
        v = evaluate(ch[2], ev)
        if op != "=":
            v = _wrap(_BIN[op[:-1]](ev.int_var(name, ch[0]), v))
        ev.set_int(name, v, ch[0])
        return v
    if kind in ("a_postinc", "a_preinc"):
        name_tok, op_tok = (ch[0], ch[1]) if kind == "a_postinc" else (ch[1], ch[0])
        name = name_tok.value.strip()
        old = ev.int_var(name, name_tok)
        new = old + (1 if op_tok.value.strip() == "++" else -1)
        ev.set_int(name, new, name_tok)
        return old if kind == "a_postinc" else new
    # a parenthesised group: A_LPAR expr RPAREN
    inner = [c for c in ch if not hasattr(c, "type") or c.type == "VAR"]
    return evaluate(inner[0], ev)


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
