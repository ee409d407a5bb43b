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
    "expr", "\\*", "#SBATCH ", "--nodes=", "-N", "--gres=gpu:", "--gpus", "2-4", "$SLURM_JOB_NUM_NODES", "${SLURM_GPUS_ON_NODE:-8}",
]

SEEDS = list(CASES.values()) + [
    "#!/bin/bash\nset -xeuo pipefail\nN=${N:-8}\nARGS=(\n  a=1 # c\n  \"b=$((N*2))\"\n)\n"
    "python3 -m verl.trainer.main_ppo \"${ARGS[@]}\" \\\n    trainer.nnodes=$N \"$@\"\n",
    "#!/bin/bash\n#SBATCH -N 2 --gres=gpu:a100:8 # two nodes\n#SBATCH --gpus=4 -J 'a b'\n"
    "python3 -m verl.trainer.main_ppo trainer.nnodes=$SLURM_NNODES trainer.n_gpus_per_node=$SLURM_GPUS_ON_NODE\n",
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


# ------------------------------------------------------------------ conditions rftc cannot decide
_COND = st.sampled_from([
    '[ -z "$MODEL" ]', '[ -n "$X" ]', '[ -f "/ckpt/$i/done" ]', '[ -d "$DATA" ]', 'grep -q ok log',
    '[ "$RANK" = 0 ]', '[ "$#" -lt 2 ]', '[[ $DEVICE == npu ]]', '(( N > 2 ))', 'command -v npu-smi >/dev/null',
    '[ "$(hostname)" = head ]', 'true', 'false', '[ "$i" -eq 2 ]',
])
_LEAF = st.sampled_from([
    "exit 1", "exit 0", "return 1", "break", "continue", "X=1", "X=$((X + 1))", "N=${N:-4}", "DATA=/d/$i",
    "DEVICE=$(python3 -c 'import torch_npu' 2>/dev/null && echo npu || echo gpu)", "shift", "MODEL=${MODEL:-}",
    "python3 -m verl.trainer.main_ppo trainer.nnodes=${N:-1} data.path=$DATA x=$X",
    'python3 -m verl.trainer.main_ppo "$@"', "f", "cd /tmp/$i", "[ -z \"$X\" ] && exit 1", "cmd || exit 2",
])


def _block(inner):
    return st.one_of(
        st.tuples(_COND, inner, inner).map(lambda t: f"if {t[0]}; then\n{t[1]}\nelse\n{t[2]}\nfi"),
        st.tuples(_COND, inner).map(lambda t: f"if {t[0]}; then {t[1]}; fi"),
        st.tuples(_COND, inner).map(lambda t: f"{t[0]} && {{ {t[1]}; }}"),
        st.tuples(_COND, inner).map(lambda t: f"{t[0]} || {{ {t[1]}; }}"),
        st.tuples(inner, inner).map(lambda t: f'case "$DEVICE" in\n gpu) {t[0]} ;;\n npu) {t[1]} ;;\n *) exit 1 ;;\nesac'),
        inner.map(lambda b: f"for i in 1 2 3; do\n{b}\ndone"),
        inner.map(lambda b: f"for ((i = 0; i < 3; i++)); do {b}; done"),
        st.tuples(_COND, inner).map(lambda t: f"while {t[0]}; do {t[1]}; done"),
        inner.map(lambda b: f"while true; do {b}; break; done"),
        inner.map(lambda b: f"f() {{\n{b}\n}}\nf"),
        inner.map(lambda b: f"( {b} )"),
    )


_BODY = st.recursive(_LEAF, lambda inner: st.one_of(_block(inner), st.lists(inner, min_size=1, max_size=3).map(
    "\n".join)), max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_BODY, min_size=1, max_size=4), st.one_of(st.none(), st.lists(st.sampled_from(["a=1", "2"]),
                                                                                max_size=3)))
def test_nested_undecidable_conditions_guards_and_loops_are_explored_within_bounds(parts, args):
    import time

    text = "\n".join(parts) + "\n"
    start = time.perf_counter()
    r = analyze(text, "explore.sh", extra_args=args)
    assert time.perf_counter() - start < 20, "exploration must stay bounded"
    assert not [d for d in r.diagnostics if d.code in ("RFTC002", "RFTC100")], [str(d) for d in r.diagnostics]
    for inv in r.invocations:
        assert inv.kind == "main_ppo" and all(isinstance(c, str) for c in inv.conditions)
    # every launch of a branch rftc does not take is reported with its condition
    assert all(inv.conditions for inv in r.invocations if not inv.primary)


def test_found_by_fuzzing():
    check("local python3 -m verl.trainer.main_ppo")  # `local` outside a function: bash refuses, sets nothing


@FUZZ
@given(st.sampled_from(["tr", "wc", "cut", "head", "tail", "awk", "sed"]),
       st.lists(st.sampled_from(["-d", "-c", "-s", "-f", "-n", "-l", "-w", "-F", "-E", "-e", ",", "/", "1", "2-",
                                 "-3", "+2", "[:upper:]", "a-z", "\\n", "{print NF}", "{print $2, $NF}",
                                 "s/a/b/g", "s/\\(a\\)/\\1/", "s/[/x/", "s|a|b|", "x"]), max_size=4),
       st.text(max_size=30))
def test_text_filters_never_fail(program, args, text):
    from rftc.shell.filters import run

    out = run([program, *args], text)
    assert out is None or isinstance(out, str)
