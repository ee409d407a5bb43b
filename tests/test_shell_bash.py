"""The shell stage against bash itself: each script below is run by bash with `python3` replaced by a function
that prints its arguments, and analysed by rftc; the arguments of every launch must be the same.
(The scripts are this file's own; rftc never runs anything.)"""

import subprocess

import pytest

from rftc.shell import analyze
from support.bash import BASH, FAKE, launches, run

CASES = {
    "read": """X=0,1,2,3
IFS=',' read -ra GPUS <<< "$X"
read -ra k <<< "a,b c"
read -r w1 w2 <<< "  one two   three  "
IFS=: read -r p q <<< "x:y:z:"
IFS=: read -r u v <<< "x:y:"
read -a arr <<< 'a\\ b c'
read -r line <<< '  keep  spaces  '
read <<< "  reply text "
IFS=', ' read -ra m <<< "a , b,,c"
read -d , first <<< "u,v"
read -r none <<< ""
read -r x1 x2 x3 <<< "only"
IFS=, read -ra t <<< "a,,"
read bs <<< 'back\\slash\\'
python3 -m m "$x1" "$x2" "$x3" "${t[@]}" "$bs"
python3 -m m ${#GPUS[@]} "${GPUS[@]}" "${k[@]}" "$w1" "$w2" "$p" "$q" "$u" "$v" "${arr[@]}" "$line" "$REPLY" \\
  "${m[@]}" "$first" "[$none]"
""",
    "filters": r"""export CUDA_VISIBLE_DEVICES=0,1,2,3
model=Qwen/Qwen2.5-Math-7B.v1
python3 -m m "$(echo $CUDA_VISIBLE_DEVICES | tr ',' '\n' | wc -l)" \
  "$(echo "$CUDA_VISIBLE_DEVICES" | awk -F',' '{print NF}')" \
  "$(( $(echo $CUDA_VISIBLE_DEVICES | tr -cd ',' | wc -c) + 1 ))" \
  "$(echo "${model#*/}" | sed 's/[.-]/_/g' | tr '[:upper:]' '[:lower:]')" \
  "$(echo $model | cut -d/ -f2)" "$(echo $model | cut -d / -f1,2)" "$(echo abc | cut -c2-)" \
  "$(printf 'a\nb\nc\n' | head -n 2 | tail -1)" "$(printf 'a b c\n' | awk '{print $2, $NF}')" \
  "$(echo a-b-c | sed -E 's/(a)-(b)/\2+\1/')" "$(echo aaa | sed 's/a/x/')" "$(echo 'x.y' | sed 's/\./-/g')" \
  "$(echo hello | tr a-y b-z)" "$(echo 'a  b' | tr -s ' ')" "$(printf '1\n2\n3\n' | tail -n +2 | wc -l)" \
  "$(echo 'a:b' | sed 's/\(a\):\(b\)/\2\1/')" "$(echo one two | wc -w)" "$(echo a,b | cut -d, -f3)" \
  "$(echo 'a+b' | sed 's/a+/X/')" "$(echo 'x&y' | sed 's/&/and/; s/x/[&]/')" "$(echo abc | head -c 2)"
""",
    "expr": r"""A=512; B=1024
python3 -m m "$(expr $A + $B + 1000)" "$(expr $A \* 2)" "$(expr \( $A + 1 \) / 3)" "$(expr $B % 7)" \
  "$(expr abc = abc)" "$(expr 10 \< 9)" "$(expr 0 \| 4)" "$(expr -7 / 2)" `expr $A - 12` "$(expr b \> a)" \
  "$(expr 3 \& 0)" "$(expr 2 + 3 \* 4)"
if expr $A \> 100 >/dev/null; then python3 -m m big; fi
""",
    "prefix_assignments": """f() { G="set in f with X=$X"; X=changed; }
X=1 f
X=outer; Y=1 X=2 f
python3 -m m "$G" "${X-unset}" "${Y-unset}"
""",
    "quoting": """a=1
python3 -m m x"$a"'$a'y \\$a "a b" '' "" $'t\\tu' "q\\"uote" 'it'\\''s' a\\ b
""",
    "parameter_ops": """B="two words"; E=; P=/a/b/c.tar.gz; T=${T:-~/x}; U="${U:-~/x}"; V=~/v
python3 -m m ${B:-d} ${Z:-dflt} ${Z-dd} ${E-set} "${E:-empty}" ${B:+alt} "${Z:+alt}" ${B^^} ${B,,} ${B^} \\
  ${B/o/0} ${B//o/0} ${P%.*} ${P%%.*} ${P#*/} ${P##*/} ${B:4} ${B:0:3} ${B: -3} ${#B} ${Y:=made} $Y \\
  "${B/#two/2}" "${B/%words/w}" "${P/a*b/X}" "${P//[a-c]/_}" "${P#*[!/]}" $T $U $V ~ ~/a "~/q" x~
""",
    "arithmetic": """A=7; B=3
python3 -m m $((A + B * 2)) $(( (A + B) * 2 )) $((A / B)) $((-A / B)) $((A % B)) $((2 ** 10)) \\
  $((A > B ? 1 : 0)) $((A == 7 && B != 3)) $((1024 * 2)) $(( (1024*8 + 1024*2) * 3 )) $((0x10 + 010)) \\
  $((B++)) $B $((++B)) $((x = 5)) $x $((A<B)) $(($A*2)) $((${B}+1))
""",
    "arithmetic_64_bit": """N=99999999999999999999999
python3 -m m $((3**1000000000000)) $((7**(2**62))) $((-3**5)) $((99999999999999999999999)) $((2**63)) \\
  $((2**64 + 5)) $((1 << 62 << 2)) $((N * 2))
""",
    "tilde_in_assignments": """X=~/p:~/q; Y=a:~/b; Z=~
python3 -m m a=~/x b.c=~/x a=x:~/y ~/z a=~ "a=~/q" x~/y a=b=~/c --opt=~/d $X $Y $Z k=\\~/e k=a\\:~/f a=~/x:~
""",
    "arrays": """arr=(a "b c"   # comment inside
   d)
arr+=(e "")
python3 -m m "${arr[@]}" ${arr[@]} "${arr[*]}" ${#arr[@]} ${arr[1]} "${arr[-2]}" x"${arr[@]}"y
""",
    "multiline_string": """CFG="
    k.a=1 \\
    k.b=$((2 * 3)) \\
    k.c='q'"
MORE="$CFG k.d=4"
CRITIC="${CFG//k./c.}"
python3 -m m $MORE $CRITIC "$CFG"
""",
    "conditions": """X=megatron; N=4; E=
if [ "$X" = "fsdp" ]; then a=1; elif [[ $X == meg* && $N -gt 2 ]]; then a=2; else a=3; fi
if [ -z "$E" ] && [ -n "$X" ]; then b=yes; else b=no; fi
[[ "$N" -ge 4 || -z $X ]] && c=both || c=none
if ! [ "$N" -eq 4 ]; then d=neg; else d=pos; fi
test "$X" != fsdp -a "$N" -lt 5 && e=t
python3 -m m $a $b $c $d $e
""",
    "case": """for v in vllm sglang hf other; do
  case "$v" in
    vllm|sglang) r="${r}R" ;;
    hf) r="${r}H"
       ;;
    *) r="${r}_" ;;
  esac
done
python3 -m m "$r"
""",
    "loops": """for i in 1 2 3; do s="${s}$i"; done
for ((j = 0; j < 4; j += 2)); do t="${t}$j"; done
k=0; while [ $k -lt 3 ]; do k=$((k + 1)); done
until [ "${#u}" -ge 2 ]; do u="${u}u"; done
for w in a b c; do [ $w = b ] && continue; [ $w = c ] && break; x="$x$w"; done
for n in $(seq 3); do v="$v$n"; done
for n in $(seq 10 -4 1); do y="$y.$n"; done
python3 -m m $s $t $k $u $x $v $y
""",
    "functions": """greet() { local who=$1; shift; echo "hi $who $#"; R="$who:$*"; return 3; }
function twice { python3 -m m "$@" "$@"; }
greet one two three
status=$?
twice "a b" c
python3 -m m "$R" $status ${who:-nolocal}
""",
    "passthrough": """set -- x=1 "y=2 3"
python3 -m m "$@" $@ "$*" $# "${@}"
""",
    "env_prefix_and_export": """X=1 true
export Y=2
Z=3 python3 -m m x=${X:-unset} y=$Y
python3 -m m z=${Z:-unset}
""",
    "command_substitution": """p=/data/models/qwen.tar
name=$(basename $p .tar)
dir=$(dirname "$p")
e=$(echo "a   b")
f="$(echo "in $(echo nested)")"
g=`echo back`
python3 -m m $name $dir "$e" $e "$f" $g
""",
    "subshell_and_groups": """(X=inner; Y=1)
{ Z=group; }
python3 -m m ${X:-outer} ${Y:-none} $Z
""",
    "continuations": """python3 -m m \\
    a=1 \\
    b="2 \\
3" \\
    c=3
python3 -m m \\
    d=4 \\
    # a comment ends the command here
    e=5
python3 -m m f=6 \\  
    g=7
""",
    "heredoc": """cat <<EOF >/dev/null
python3 -m m not=a_launch "unbalanced
EOF
cat <<-'END' >/dev/null
	$(nothing) '
	END
python3 -m m after=heredoc
""",
    "assign_forms": """declare -a L=(1 2)
readonly R=ro
local_test() { local a=1 b; b=2; G="$a$b"; }
local_test
i=1; arr[2]=two; arr[0]=zero
typeset T=t
python3 -m m ${L[1]} $R $G ${arr[2]} ${arr[0]} ${#arr[@]} $T ${a:-unset}
""",
    "array_tests": """A=(a "b c"); E=(); F=(""); G=("" ""); unset U; declare -a D
python3 -m m "${A[@]+"${A[@]}"}" "${U[@]+"${U[@]}"}" "${E[@]+"${E[@]}"}" "${F[@]+"${F[@]}"}" "${E[@]+x}" "${F[@]+x}" \
  ${A[@]+"${A[@]}"} "${A[@]:+"${A[@]}"}" "${A[*]+"${A[@]}"}" "${U[@]+"$U"}" ${E[@]+"${E[@]}"} ${U[@]+x} \
  "x${A[@]+"${A[@]}"}y" "${A[@]+"${A[@]}" z}" "${D[@]}" "${D[@]-unset}" "${D[*]}"
python3 -m m "${U[@]-d}" "${E[@]-d}" "${E[@]:-d}" "${A[@]:-d}" ${A[@]:-d} "${A[@]-d}" ${A[@]-"d e"} ${U[@]-"d e"} \
  "${F[@]:-d}" "${G[@]:-d}" "${G[*]:-d}" "${F[@]:+x}" "${G[@]:+x}" "${F[@]-d}" "${U[@]-}" "${E[@]:-}" "${U[*]+x}" \
  "${E[@]:+x}" "${A[*]:-d}" "${E[*]:-d}" ${A[*]+"${A[*]}"} "${E[*]-d}"
""",
    "nested_arithmetic": """G=8; M=8; A=2
B=$(($(($G * $M)) * $A))
python3 -m m $B $(( $((1 + 2)) * 3 )) "$(( $((2 ** 3)) ** 2 ))" $(( 1 - $((-2)) )) $(( $(( $((1)) )) ))
""",
    "expansions_to_nothing": """if [ -z "$U" ]; then X=; E=(); else X=b; E=(e); fi
python3 -m m a $X ${Y:-} "${E[@]}" ${E[@]} $X$X ${E[@]:+"${E[@]}"} c
""",
    "unquoted_caller_values": """A="$EXTRA"; ARGS=(x $EXTRA y)
f() { python3 -m m "$@"; }
python3 -m m a $EXTRA ${EXTRA} $A $EXTRA$MORE "${ARGS[@]}" b
f c $EXTRA d
""",
    "newer_style": """: "${NNODES:=2}"
LAUNCH=(python3)
ACTOR_TURBO="actor.turbo"
ARGS=(
  "${ACTOR_TURBO}.sp=2"   # a key built from a variable
  +x='{a: 1, b: [1,2]}' hydra.searchpath=[pkg://m.config] actor@actor_rollout_ref.actor=mlite
)
if (( NNODES > 1 )); then ARGS+=(trainer.nnodes=$NNODES); fi
[[ "abc123" =~ ^[a-z]+[0-9]+$ ]] && ARGS+=(re=ok)
((count = 3 * 2))
case "${ENGINE:-sglang}" in
  vllm) ARGS+=(rollout=vllm) ;;
  sglang)
    ARGS+=(
      rollout=sglang
    )
    ;;
esac
"${LAUNCH[@]}" -m verl.trainer.main_ppo "${ARGS[@]}" c=$count "${ARGS[@]:1:2}" "${ARGS[@]: -1}" 2>&1 | cat
set -- a b c d
python3 -m m "${@:2}" "${@:2:2}" $(( (5 << 2) | 1 )) $(( 6 & 3 ^ 1 )) $(( ~0 )) > >(cat)
""",
    "eval": """N=4; Q="a b"
CMD="python3 -m m n=$N files='[x, y]' name=\\"$Q\\" \\$N h=$HOME/d"
eval "$CMD"
eval $CMD extra=1
eval 'python3 -m m2 "$Q"' ';' P=1
f() { eval "python3 -m m3 $1=\\$2 p=\\$P"; }
f k v
""",
    "posix_classes": """trim() { local s=$1; s="${s#"${s%%[![:space:]]*}"}"; s="${s%"${s##*[![:space:]]}"}"; echo "$s"; }
P="  data/train.parquet "; V=ab12cd
python3 -m m "[$(trim "$P")]" "${V//[[:digit:]]/_}" "${V%%[^[:alpha:]]*}" "${V#[[:lower:]]}" "${V//[![:alnum:]]/}" \
  "${P//[[:blank:]]/}" "${V/[[:xdigit:]]*[[:xdigit:]]/X}" "${V##*[[:digit:]]}" "${V//[]a]/-}"
case $V in [[:upper:]]*) python3 -m m upper ;; [[:lower:]][[:lower:]][[:digit:]]*) python3 -m m lower ;; esac
[[ $V == *[[:digit:]]* ]] && python3 -m m digit
[[ $V == [![:lower:]]* ]] || python3 -m m not_upper
""",
    "process_substitution": """python3 -m m a=1 2>&1 | tee >(grep -v DEBUG >/dev/null)
python3 -m m b=2 > >(cat)
""",
    "array_join": """A=(x=1 "y=2 3" z=4)
S="${A[@]}"; T="${A[*]}"; U=${A[@]}
set -- p q
P="$@"
IFS=,
V="${A[*]}"; W=${A[*]}; X="$*"
IFS=
E="${A[*]}"
unset IFS
python3 -m m $S "$S" "$T" "$U" "$P" "$V" "$W" "$X" "$E" "${A[*]}"
""",
    "bash_reads_at_run_time": """x=ab; pre_a=1; pre_b=2; arr=(5 6 7)
python3 -m m ${x@U} ${x@Q} "${!pre_*}" $(( 1, 2 + 3 )) $((16#ff)) $((2#101)) $((arr[1] * 2)) $(( ))
[[ a < b && ( -n $x || -z $x ) ]] && python3 -m m lt
[[ $x =~ ^(a|b)b$ ]] && python3 -m m regex
X=1 2>/dev/null python3 -m m prefix_redirect=ok
""",
}


def bash_launches(script: str, args=()) -> list[list[str]]:
    proc = subprocess.run([BASH, "-c", FAKE + script, "bash", *args], capture_output=True, text=True, timeout=20,
                          env={"PATH": "/usr/bin:/bin", "HOME": "/home/u"})
    return launches(proc.stdout)


def rftc_launches(script: str, args=()) -> list[list[str]]:
    r = analyze(script, "case.sh", env={"HOME": "/home/u"}, extra_args=args)
    assert not [d for d in r.diagnostics if d.code in ("RFTC100", "RFTC002")], r.diagnostics
    return [["-m", i.module] + [a.text for a in i.args] for i in r.invocations]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_same_arguments_as_bash(name):
    script = CASES[name]
    assert rftc_launches(script) == bash_launches(script)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_the_script_s_arguments():
    script = ('[ "$#" -ge 2 ] || exit 1\nn=$1; m=$2; shift 2\n'
              'python3 -m m n=$n m=$m c=$# "$@" "$*" ${5:-five}\nshift 9; python3 -m m $1 $#\n')
    args = ("4", "/models/q", "a=1", "b=2 3")
    assert rftc_launches(script, args) == bash_launches(script, args)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_extra_arguments_replace_dollar_at():
    script = 'python3 -m m a=1 "$@"\npython3 -m m $@ ${1:-none} $#\n'
    args = ("trainer.nnodes=2", "x=a b")
    assert rftc_launches(script, args) == bash_launches(script, args)


# bash reads and runs a script one top-level command at a time: the commands before a syntax error run
STOPS = {
    "stray_closer": "python3 -m m a\nfor i in 1 2; do\n  python3 -m loop $i\ndone\npython3 -m same_line; done\n"
                    "python3 -m never\n",
    "inside_a_compound": "f() {\n  python3 -m in_f\n}\nf\nif true; then\n  python3 -m never\n  done\nfi\n",
    "after_continuations_and_heredoc": "python3 -m a \\\n  x=1\ncat <<EOT >/dev/null\ndone\nEOT\npython3 -m b\n"
                                       "python3 -m never x=\"open\n",
    "unclosed_at_the_end": "python3 -m a\nif true; then\n  python3 -m never\n",
    "sourced_file_stops_the_file_only": "python3 -m a\nsource ./inc.sh\npython3 -m b\n",
    "nothing_before": "if true; then\n  python3 -m never\n  done\nfi\n",
}
INCLUDED = "python3 -m inc\ndone\npython3 -m never\n"


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("name", sorted(STOPS))
def test_a_syntax_error_stops_bash_where_it_stands(name, tmp_path):
    (tmp_path / "inc.sh").write_text(INCLUDED)
    (tmp_path / "run.sh").write_text(STOPS[name])
    proc = run(["run.sh"], tmp_path, cwd=tmp_path)
    assert proc.returncode == 2 or "syntax error" in proc.stderr, proc.stderr
    ran = launches(proc.stdout)
    r = analyze((tmp_path / "run.sh").read_text(), str(tmp_path / "run.sh"), cwd=str(tmp_path))
    assert [["-m", i.module] + [a.text for a in i.args] for i in r.invocations] == ran
    codes = [d.code for d in r.diagnostics if d.code in ("RFTC100", "RFTC101", "RFTC121")]
    assert codes == (["RFTC121"] if ran else ["RFTC100"]), r.diagnostics  # a warning once the launch ran
    assert bool([d for d in r.diagnostics if d.severity.label == "error"]) == (not ran)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_bash_c_runs_its_code_in_a_new_shell(tmp_path):
    script = ("N=4; export E=e\nbash -c \"python3 -m m x=\\$1 y=$N e=\\$E\" name 7\n"
              "sh -c 'python3 -m m \"$0\" \"$@\"' a b 'c d'\nbash -x -c 'python3 -m m q=\"$HOME\"'\n")
    ran = launches(run(["-c", script], tmp_path).stdout)
    assert rftc_launches(script) == ran and len(ran) == 3
    inv = analyze(script, "run.sh").invocations[0]
    assert inv.script == "run.sh" and (inv.args[1].span.file, inv.args[1].span.line) == ("run.sh", 2)


def test_an_unquoted_value_the_caller_gives_is_left_out_and_named():
    script = 'ARGS="$EXTRA"\npython3 -m verl.trainer.main_ppo a=1 $EXTRA $ARGS "$EXTRA" b=2 $1\n'
    r = analyze(script, "run.sh")  # the script's arguments not given: $1 is the caller's too
    assert [a.text for a in r.invocations[0].args] == ["a=1", "${oc.env:EXTRA}", "b=2"]  # quoted: one word
    found = [(d.span.line, d.span.col, d.message) for d in r.diagnostics if d.code == "RFTC123"]
    assert [(line, col) for line, col, _ in found] == [(2, 38), (2, 45), (2, 64)]
    assert "$EXTRA is not set in the script and reaches" in found[0][2]
    assert "$EXTRA is not set in the script (used at run.sh:1)" in found[1][2]
    assert "`$1` is the script's 1st argument (not given to rftc) and reaches" in found[2][2]
    given = analyze(script, "run.sh", env={"EXTRA": "c=3 d=4"}, extra_args=("e=5 f=6",)).invocations[0]
    assert [a.text for a in given.args] == ["a=1", "c=3", "d=4", "c=3", "d=4", "c=3 d=4", "b=2", "e=5", "f=6"]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_a_launch_held_in_a_heredoc_runs_as_bash_runs_it(tmp_path):
    script = ("N=2; export E=e\ncmd=$(cat <<EOF\npython3 -m m t=$N \"q r\" \\$E '$N' $((N * 4)) \\\\\n"
              "  x=\"a b\" $(echo s)\nEOF\n)\nbash -c \"$cmd\"\nsrun --nodes=1 bash -c \"$cmd\"\n"
              "read -r -d '' c2 <<-'END'\n\tpython3 -m m2 \"$N\" a\\ b\n\tEND\neval \"$c2\"\n"
              "c3=$(cat <<< \"python3 -m m3 k=$N\")\n$c3\n")
    ran = launches(run(["-c", script], tmp_path).stdout)
    assert rftc_launches(script) == ran and len(ran) == 4
    first = analyze(script, "run.sh").invocations[0]
    assert [(a.span.line, a.span.col) for a in first.args[:2]] == [(3, 14), (3, 20)]  # where the body has them


def test_a_launch_eval_runs_is_placed_where_its_words_were_written():
    script = 'N=2\nARGS="a.b=64 c.d=$N"\nCMD="python3 -m verl.trainer.main_ppo e.f=$N $ARGS"\n$CMD\neval $CMD\n'
    plain, evaluated = analyze(script, "run.sh").invocations
    assert evaluated.script == "run.sh" and [a.text for a in evaluated.args] == [a.text for a in plain.args]
    assert [(a.span, a.via) for a in evaluated.args] == [(a.span, a.via) for a in plain.args]
    assert (evaluated.span.line, plain.span.line) == (3, 4)  # where `python3` was written; the line that runs it
