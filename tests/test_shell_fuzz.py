"""Property tests: the shell stage never fails on any input. Generated scripts (fragments of the launch
language glued at random) and mutated real-looking scripts must give diagnostics, never an exception or
an internal error (RFTC002)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rftc.shell import analyze
from test_shell_bash import CASES

FRAGMENTS = [
    "python3 -m verl.trainer.main_ppo", " ", "  ", "\n", " \\\n", "\\", "\\ ", "#", "# c\n", ";", ";;", "&", "&&",
    "||", "|", "(", ")", "((", "))", "{", "}", "[", "]", "[[", "]]", "'", '"', "`", "$", "$@", "\"$@\"", "$#",
    "${", "${X:-d}", "${#a[@]}", "${X//a/b}", "${X%.*}", "$(", "$((", "1 + 2", "*", "=", "+=", "X=", "a=(", "a+=(",
    "if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while", "until", "case", "esac", "function",
    "f()", "export", "local", "source", ".", "cd", "echo", "eval", "exit", "return", "break", "<<EOF\n", "EOF\n",
    "<<-'E'\n", "<<<", ">", ">>", "2>&1", "/dev/null", "x.y=1", "+a.b=2", "~k", "--config-name=c", "-m", "torchrun",
    "ray job submit --", "srun", "uv run", "nohup", "env A=1", "\"${LAUNCH[@]}\"", "$HOME", "$(pwd)", "$(date +%s)",
    "`echo x`", "$'a\\tb'", "true", "false", "test", "-n", "-z", "-eq", "!", "0", "-1", "A", "a_b", "f",
]

SEEDS = list(CASES.values()) + [
    "#!/bin/bash\nset -xeuo pipefail\nN=${N:-8}\nARGS=(\n  a=1 # c\n  \"b=$((N*2))\"\n)\n"
    "python3 -m verl.trainer.main_ppo \"${ARGS[@]}\" \\\n    trainer.nnodes=$N \"$@\"\n",
]

FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(text: str, **kw) -> None:
    r = analyze(text, "fuzz.sh", **kw)
    assert not [d for d in r.diagnostics if d.code == "RFTC002"], [str(d) for d in r.diagnostics]
    for inv in r.invocations:
        for a in inv.args:
            assert isinstance(a.text, str) and a.span.line >= 1


@FUZZ
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=60), st.lists(st.text(max_size=3), max_size=3))
def test_generated_scripts_never_fail(parts, extra):
    check("".join(parts), extra_args=tuple(extra))


@FUZZ
@given(st.sampled_from(SEEDS), st.data())
def test_mutated_scripts_never_fail(seed, data):
    text = seed
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, min(len(text), i + 12)))
        op = data.draw(st.sampled_from(["delete", "insert", "duplicate"]))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + data.draw(st.sampled_from(FRAGMENTS)) + text[i:]
        else:
            text = text[:j] + text[i:j] + text[j:]
    check(text, env={"N": "2"})


@FUZZ
@given(st.text(max_size=200))
def test_arbitrary_text_never_fails(text):
    check(text)


def test_runaway_scripts_are_bounded():
    check("f() { f; f; }\nf\n")
    check("a=x\nfor i in $(seq 1 100); do a=$a$a; done\nwhile true; do a=$a$a; done\n")
    check("x=" + "$(" * 200 + ")" * 200 + "\n")
    check("echo " + "\"${a:-" * 300 + "}\"" * 300 + "\n")
