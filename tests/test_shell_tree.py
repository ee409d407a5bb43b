"""The syntax tree (rftc.shell.syntax) that lark's transformer (rftc.shell.transformer) builds: every rule of the grammar
that makes a node has its method, and the tree of every script of the corpora holds nodes only (no lark tree or
token reaches the evaluator), each spanning the nodes inside it."""

import dataclasses

import pytest
from lark import Token, Tree

from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.model import Span
from rftc.shell import syntax
from rftc.shell.parser import _lark, parse
from rftc.shell.transformer import ToSyntax
from support.paths import CORPUS, GOLDEN, WILD, needs_corpus, needs_wild

CORPORA = [pytest.param(GOLDEN, id="golden"), pytest.param(CORPUS, id="verl", marks=needs_corpus),
           pytest.param(WILD, id="wild", marks=needs_wild)]
EVERY_CONSTRUCT = """\
for ((i = 0; $n; i++)); do :; done; echo $(( (a + b) * ${c} - $(echo 1), d[2] + i++, e ? 1 : ~f )) ${!p*}
[[ ! ( -f x || $a =~ ^(a|b)$ ) && a < b ]]; case $x in a|b) echo;; *) ;; esac; f() { local a=1 b; }; a=(1 2)
echo ${a b} $((1 +* )) $'x' `echo b` <(cat) <<< "w" 2>/dev/null; if a; then b; elif c; then d; else e; fi
select q in a; do break; done; (( i += 2 )); until ! x | y; do ( z ) & done; export P=<your_path>/x; cat <<EOF
body
EOF
"""


def test_every_rule_that_makes_a_node_has_a_method():
    needed = set()
    for rule in _lark().rules:
        name = str(rule.alias or rule.options.template_source or rule.origin.name)
        inlined = rule.options.expand1 and not rule.alias and len(rule.expansion) == 1  # `?rule: one_symbol`
        if not name.startswith("_") and not inlined:
            needed.add(name)
    assert needed == {n for n in dir(ToSyntax) if not n.startswith("_")}


def _check(node, outer: Span | None = None) -> None:
    assert not isinstance(node, (Tree, Token)), node
    if isinstance(node, tuple):
        for child in node:
            _check(child, outer)
        return
    if not isinstance(node, syntax.Node):
        assert node is None or isinstance(node, (str, bool, int, frozenset)), node  # int: a heredoc body's line
        return
    span = getattr(node, "span", None)
    if span is not None and outer is not None:
        assert (outer.line, outer.col) <= (span.line, span.col) and \
            (span.end_line, span.end_col) <= (outer.end_line, outer.end_col), (node, outer)
    for f in dataclasses.fields(node):
        if f.name != "span":
            _check(getattr(node, f.name), span or outer)


def test_every_construct_makes_nodes():
    parsed = parse(EVERY_CONSTRUCT, "t.sh", Diagnostics())
    assert parsed.tree is not None
    _check(parsed.tree)
    kinds = set()

    def collect(node):
        if isinstance(node, tuple):
            for child in node:
                collect(child)
        elif isinstance(node, syntax.Node):
            kinds.add(type(node).__name__)
            for f in dataclasses.fields(node):
                collect(getattr(node, f.name))

    collect(parsed.tree)
    assert {"Deferred", "ArithFor", "ArithGroup", "CondGroup", "Select", "HereDoc", "HereString", "Backtick",
            "ProcessSub", "Ansi", "DeclCommand"} <= kinds


@pytest.mark.parametrize("root", CORPORA)
def test_corpus_trees_hold_nodes_only(root):
    scripts = sorted(root.rglob("*.sh"))
    assert scripts
    for path in scripts:
        parsed = parse(path.read_bytes().decode("utf-8", errors="replace"), str(path), Diagnostics(), partial=True)
        if parsed.tree is not None:
            _check(parsed.tree)
