"""What bash accepts, rftc parses: `bash -n` and rftc's parser agree on every script of the three corpora (the veRL
corpus, the wild corpus, golden/**/*.sh) and on generated scripts that combine bash's constructs; where bash
rejects a script, rftc's syntax error (RFTC100/RFTC101) is on the line bash reports."""

import re
import shutil
import subprocess
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rftc.diagnostics.collector import Diagnostics
from rftc.shell.parser import parse
from support.paths import CORPUS, GOLDEN, WILD, needs_corpus, needs_wild

BASH = shutil.which("bash")
CORPORA = [pytest.param(GOLDEN, id="golden"), pytest.param(CORPUS, id="verl", marks=needs_corpus),
           pytest.param(WILD, id="wild", marks=needs_wild)]

pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")


def bash_verdict(text: str) -> int | None:
    """None when `bash -n` accepts the text, else the line of bash's first error. (Read from a file: bash names the
    line of every error then; a `[[` error is printed with exit status 0, so the messages decide.)"""
    with tempfile.NamedTemporaryFile("wb", suffix=".sh") as f:
        f.write(text.encode())
        f.flush()
        proc = subprocess.run([BASH, "-n", f.name], capture_output=True, timeout=20)
    errors = [m for m in re.finditer(rb"line (\d+): (?!warning:)", proc.stderr)]
    if proc.returncode == 0 and not errors:
        return None
    assert errors, proc.stderr
    return int(errors[0].group(1))


def rftc_verdict(text: str) -> int | None:
    diags = Diagnostics()
    parsed = parse(text, "t.sh", diags)
    if parsed.tree is not None:
        return None
    [d] = [d for d in diags if d.code in ("RFTC100", "RFTC101")]
    return d.span.line


def agree(text: str) -> None:
    assert rftc_verdict(text) == bash_verdict(text), text


@pytest.mark.parametrize("root", CORPORA)
def test_corpus_scripts_parse_exactly_when_bash_accepts_them(root):
    scripts = sorted(root.rglob("*.sh"))
    assert scripts
    mismatches = []
    for path in scripts:
        text = path.read_bytes().decode("utf-8", errors="replace")
        b, r = bash_verdict(text), rftc_verdict(text)
        if b != r:
            mismatches.append((str(path.relative_to(root)), b, r))
    assert not mismatches


# ------------------------------------------------------------------ generated scripts
_NAMES = st.sampled_from(["X", "NNODES", "a", "lr", "ARGS", "i"])
_LIT = st.sampled_from(["a", "x.y=1", "trainer.nnodes=2", "-m", "verl.trainer.main_ppo", "/p/q", "1e-6", "*.sh",
                        "~/d", "a\\ b", "k=[1,2]", "+x.y=3", "{a,b}", "@", "%", "x:y", "--flag=v"])


def _word(inner):
    return st.one_of(
        _LIT,
        _NAMES.map(lambda n: f"${n}"),
        st.tuples(_NAMES, st.sampled_from([":-", "-", ":=", ":+", "#", "##", "%", "%%", "/", "//", ",,", "^^", ":"]),
                  _LIT).map(lambda t: f"${{{t[0]}{t[1]}{t[2]}}}"),
        _NAMES.map(lambda n: f"${{#{n}}}"),
        _NAMES.map(lambda n: f'"${{{n}[@]}}"'),
        st.sampled_from(["${x@Q}", "${!pre*}", "${!a[@]}", "${x:1:2}", "${@:2}", "$#", "$@", '"$@"', "$*", "$?", "$$",
                         "$0", "$1", "${10}", "$'t\\tu'", "'it'\\''s'", '"q\\"x"', "$((1 + 2 * 3))", "$((x, y))",
                         "$((16#ff + 2#10))", "$((a[1] + 1))", "$(( (1 + 2) ))", "$[1+2]", "`echo b`", "<(ls)"]),
        inner.map(lambda c: f"$( {c} )"),  # (bash's own manual asks for the blank before a subshell)
        inner.map(lambda c: f'"a $( {c} ) b"'),
        st.lists(st.one_of(_LIT, _NAMES.map(lambda n: f"${n}")), min_size=1, max_size=3).map(
            lambda p: '"' + " ".join(p) + '"'),
    )


def _commands():
    return st.deferred(lambda: _command)


_words = st.lists(_word(_commands()), min_size=1, max_size=4).map(" ".join)
_redirect = st.sampled_from([">log", "2>&1", ">/dev/null", "<in", ">>out", "&>all", "2>/dev/null", "<<<w", "<x>y"])
_simple = st.one_of(
    st.tuples(st.sampled_from(["echo", "python3 -m verl.trainer.main_ppo", "ray job submit --", "cd", "source",
                               "export", "local", "shift", "set --", "true", ":", "test", "[", "exit 1", "return"]),
              _words).map(" ".join),
    st.tuples(_NAMES, _word(_commands())).map(lambda t: f"{t[0]}={t[1]}"),
    st.tuples(_NAMES, _words).map(lambda t: f"{t[0]}=({t[1]})"),
    st.tuples(_NAMES, _word(_commands()), _words).map(lambda t: f"{t[0]}={t[1]} {t[2]}"),
    st.tuples(_words, _redirect).map(" ".join),
    st.tuples(_NAMES, _redirect).map(lambda t: f"{t[0]}=1{t[1]}"),
    st.sampled_from(["export P=<your_path>/x", "[[ -n $X && ( a < b || $x =~ ^(a|b)+$ ) ]]", "(( i += 2, j = i ))",
                     "(( x >\n 1 ))", "let i=1+2", "declare -A m=([k]=v)", "a[i+1]=v", "python3 \\\n  a=1 \\\n  # c\n  b=2",
                     "cat <<EOF\n$(x\nEOF\n:", "select x in a b; do break; done", "coproc cat", "time -p ls", "! true"]),
)


def _compound(body):
    return st.one_of(
        st.tuples(body, body).map(lambda t: f"if {t[0]}; then\n{t[1]}\nfi"),
        st.tuples(body, body, body).map(lambda t: f"if {t[0]}; then {t[1]}; elif true; then :; else\n{t[2]}\nfi"),
        st.tuples(_NAMES, _words, body).map(lambda t: f"for {t[0]} in {t[1]}; do\n{t[2]}\ndone"),
        body.map(lambda b: f"for ((i = 0; i < 3; i++)); do {b}; done"),
        st.tuples(body, body).map(lambda t: f"while {t[0]}; do {t[1]}; done"),
        st.tuples(_word(body), body, body).map(lambda t: f"case {t[0]} in\n  a|b) {t[1]} ;;\n  *)\n    {t[2]}\n    ;;\nesac"),
        body.map(lambda b: f"{{ {b}; }}"),
        body.map(lambda b: f"( {b} )"),
        body.map(lambda b: f"f() {{\n  {b}\n}}"),
        body.map(lambda b: f"function g {{ {b}; }}"),
        st.tuples(body, body).map(lambda t: f"{t[0]} && {t[1]} || true"),
        st.tuples(body, body).map(lambda t: f"{t[0]} | {t[1]}"),
        body.map(lambda b: f"{b} &\n:"),
        body.map(lambda b: f"{b}  # a comment\n:"),
    )


_command = st.one_of(_simple, _compound(st.deferred(lambda: _command)))
_script = st.lists(_command, min_size=1, max_size=5).map("\n".join)

# what a slip of the pen adds at the end of a line or on a line of its own
_BREAKERS = ["fi", "done", "esac", "then", "do", ";;", ")", "(", "}", "{", '"', "'", "`", "$(", "${",
             "|", "&&", ";", "\\", "if true", "case x in", "for x in a; do", "while :", "<", ">"]

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow,
                                                                          HealthCheck.filter_too_much])


@SETTINGS
@given(_script)
def test_generated_scripts_parse_exactly_when_bash_accepts_them(text):
    agree(text + "\n")


@SETTINGS
@given(_script, st.data())
def test_broken_scripts_fail_where_bash_fails(text, data):
    """A line-level slip: a line lost, or a stray word at the end of a line or on a line of its own."""
    lines = text.split("\n")
    i = data.draw(st.integers(0, len(lines) - 1))
    op = data.draw(st.sampled_from(["delete", "append", "insert"]))
    if op == "delete" and len(lines) > 1:
        del lines[i]
    elif op == "append":
        lines[i] += " " + data.draw(st.sampled_from(_BREAKERS))
    else:
        lines.insert(i, data.draw(st.sampled_from(_BREAKERS)))
    agree("\n".join(lines) + "\n")


@SETTINGS
@given(_script, st.data())
def test_what_bash_runs_before_a_syntax_error_is_whole_commands(text, data):
    """parse(partial=True) stops where the plain parse reports the error, and the lines it keeps (what bash runs
    before it) are a script `bash -n` accepts."""
    lines = text.split("\n")
    lines.insert(data.draw(st.integers(1, len(lines))), data.draw(st.sampled_from(_BREAKERS)))
    broken = "\n".join(lines) + "\n"
    diags = Diagnostics()
    parsed = parse(broken, "t.sh", diags, partial=True)
    if parsed.stop is None:
        return
    error, kept = parsed.stop
    assert error.span.line == rftc_verdict(broken) and kept < error.span.line
    head = "".join(broken.splitlines(keepends=True)[:kept])
    assert bash_verdict(head) is None, head


@pytest.mark.parametrize("text", [
    "python3 -m m \\\n  a=1 \\\n  # a comment ends the command\n  b=2\n",   # the rest runs as its own command
    "(( a = 1 +\n  2 ))\n",                                                     # arithmetic over lines
    "export PYTHONPATH=<your_path>/verl:$PYTHONPATH\n",                         # redirections: valid syntax
    "X=1 >log cmd\nx=1>log\nlocal a=1 >/dev/null\n",
    "[[ a < b && ( -f x || $v =~ ^(a|b)$ ) ]]\n",
    "echo $(( 1, 2 )) $((16#ff)) $((a[1] + 1)) $(( 1 +* ))\n",                 # bash reads arithmetic when it runs
    "echo ${x@Q} ${!pre*} ${a b} ${x!}\n",                                      # and parameter operators likewise
    "select x in a b; do break; done\n",
    "python3 -m m 2>&1 | tee >(grep -v DEBUG > train.log) x>(cat) 2>(cat) > >(cat)\n",  # output process substitution
])
def test_constructs_bash_accepts(text):
    assert bash_verdict(text) is None
    agree(text)


@pytest.mark.parametrize("text", [
    "if true; then\n  echo\n",        # end of file: the line after the last one
    "x\necho $(\n\n\n",               # an open $( is read as commands to the end
    "x\necho ${a\n\n",                # an open ${, $((, (( or quote: the line it opens on
    "x\n(( a\n\n",
    "x\necho \"a\nb\n",
    "x\na=(\n1\n",
    "echo a\n)\n",
    "case a in\n a) echo\n;; b\nesac\n",
    "[[ a -eq ]]\n",
    "{ echo }",
    "echo a >>(cat)\n",              # `>>` then `(`: not a process substitution
])
def test_syntax_errors_on_bash_line(text):
    assert bash_verdict(text) is not None
    agree(text)
