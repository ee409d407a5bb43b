"""Launch recognition (launchers, entry modules, kinds, Hydra flags), spans and provenance of arguments, and
the values rftc cannot know (environment, command substitution, conditions)."""

import shutil
from pathlib import Path

import pytest

from rftc.diagnostics.model import Span
from rftc.shell import COMMAND_LINE, analyze


def launch(script, **kw):
    r = analyze(script, "run.sh", **kw)
    assert len(r.invocations) == 1, (r.invocations, r.diagnostics)
    return r.invocations[0]


def codes(script, **kw):
    return [d.code for d in analyze(script, "run.sh", **kw).diagnostics]


@pytest.mark.parametrize("script, launcher, module", [
    ("python3 -m verl.trainer.main_ppo a=1", "python", "verl.trainer.main_ppo"),
    ("python -u -m verl.trainer.main_ppo a=1", "python", "verl.trainer.main_ppo"),
    ("/usr/bin/python3.10 -m verl.trainer.main_ppo a=1", "python", "verl.trainer.main_ppo"),
    ("ray job submit --no-wait --runtime-env=r.yaml --working-dir . -- python3 -m recipe.dapo.main_dapo a=1",
     "ray job submit", "recipe.dapo.main_dapo"),
    ("torchrun --standalone --nnodes=1 --nproc_per_node 8 -m verl.trainer.fsdp_sft_trainer a=1", "torchrun",
     "verl.trainer.fsdp_sft_trainer"),
    ('srun --overlap --nodes=2 --ntasks=1 -w "node1" python -m verl.trainer.main_ppo a=1', "srun",
     "verl.trainer.main_ppo"),
    ("uv run --frozen --extra gpu python3 -m verl.trainer.main_ppo a=1", "uv run", "verl.trainer.main_ppo"),
    ("conda run --no-capture-output -n verl python3 -m verl.trainer.main_ppo a=1", "conda run",
     "verl.trainer.main_ppo"),
    ("pixi run python -m verl.trainer.main_ppo a=1", "pixi run", "verl.trainer.main_ppo"),
    ("singularity exec --nv --bind /data:/data verl.sif python3 -m verl.trainer.main_ppo a=1", "singularity exec",
     "verl.trainer.main_ppo"),
    ("docker exec -it trainer python3 -m verl.trainer.main_ppo a=1", "docker exec", "verl.trainer.main_ppo"),
    ("nohup python3 -m verl.trainer.main_ppo a=1 > log 2>&1 &", "python", "verl.trainer.main_ppo"),
    ("env HYDRA_FULL_ERROR=1 python3 -m verl.trainer.main_ppo a=1", "python", "verl.trainer.main_ppo"),
    ("exec python3 -m verl.trainer.main_ppo a=1", "python", "verl.trainer.main_ppo"),
    ("LAUNCH=(uv run --frozen python3)\n\"${LAUNCH[@]}\" -m verl.trainer.main_ppo a=1", "array:LAUNCH",
     "verl.trainer.main_ppo"),
    ('ENTRYPOINT=${ENTRYPOINT:-"-m verl.trainer.sft_trainer"}\ntorchrun --nnodes=1 ${ENTRYPOINT} a=1', "torchrun",
     "verl.trainer.sft_trainer"),
    ('COMMAND="python3 -m verl.trainer.main_ppo"\n$COMMAND a=1', "var:COMMAND", "verl.trainer.main_ppo"),
    ('target_module=verl.trainer.main_ppo\npython3 -m "${target_module}" a=1', "python", "verl.trainer.main_ppo"),
    ("time python3 -m verl.trainer.main_ppo a=1 | tee log", "python", "verl.trainer.main_ppo"),
    # wrappers, with their options and the words they read before the command
    ("taskset -c 0-31 python3 -m verl.trainer.main_ppo a=1", "python", "verl.trainer.main_ppo"),
    ("taskset 0xff python3 -m verl.trainer.main_ppo a=1", "python", "verl.trainer.main_ppo"),
    ("timeout -k 10 -s INT 24h python3 -m verl.trainer.main_ppo a=1", "python", "verl.trainer.main_ppo"),
    ("sudo -E -u ml python3 -m verl.trainer.main_ppo a=1", "python", "verl.trainer.main_ppo"),
    ("env -u CUDA_VISIBLE_DEVICES python3 -m verl.trainer.main_ppo a=1", "python", "verl.trainer.main_ppo"),
    ("setsid nohup python3 -m verl.trainer.main_ppo a=1", "python", "verl.trainer.main_ppo"),
    ("numactl -N 0 -m 0 stdbuf -o L python3 -m verl.trainer.main_ppo a=1", "python", "verl.trainer.main_ppo"),
    ("xvfb-run -a -s '-screen 0 640x480x24' python3 -m verl.trainer.main_ppo a=1", "python",
     "verl.trainer.main_ppo"),
    # torchrun as the module it is
    ("python3 -m torch.distributed.run --nproc_per_node 8 -m verl.trainer.fsdp_sft_trainer a=1", "torchrun",
     "verl.trainer.fsdp_sft_trainer"),
])
def test_launchers(script, launcher, module):
    inv = launch(script)
    assert (inv.launcher, inv.module) == (launcher, module)
    assert [a.text for a in inv.overrides] == ["a=1"]


@pytest.mark.parametrize("module, kind", [
    ("verl.trainer.main_ppo", "main_ppo"), ("recipe.dapo.main_dapo", "recipe"), ("recipe.entropy.main_entropy", "recipe"),
    ("verl.experimental.fully_async_policy.fully_async_main", "experimental"),
    ("verl.experimental.one_step_off_policy.main_ppo", "experimental"),
    ("verl.experimental.transfer_queue.main_ppo", "experimental"), ("verl.trainer.fsdp_sft_trainer", "sft"),
    ("verl.trainer.sft_trainer", "sft"), ("verl.trainer.main_generation", "generation"),
    ("verl.trainer.main_generation_server", "generation"), ("verl.trainer.main_eval", "eval"),
    ("recipe.r1.main_eval", "eval"), ("verl.model_merger", "model_merger"), ("examples.data_preprocess.gsm8k", "other"),
])
def test_kinds(module, kind):
    assert launch(f"python3 -m {module} a=1").kind == kind


def test_recipe_module_run_from_the_recipe_directory():
    inv = launch("cd recipe/gkd\npython3 -m main_gkd --config-name on_policy_distill_trainer a=1")
    assert (inv.kind, inv.cwd, inv.config_name.text) == ("recipe", "${oc.env:PWD}/recipe/gkd",
                                                         "on_policy_distill_trainer")
    assert launch("cd recipe/gkd\npython3 -m main_gkd", cwd="/repo").cwd == "/repo/recipe/gkd"


def test_python_script_and_code_launches_keep_the_program():
    inv = launch("python3 examples/data_preprocess/gsm8k.py --local_dir x")
    assert (inv.module, inv.kind, [a.text for a in inv.args]) == ("", "other", ["examples/data_preprocess/gsm8k.py",
                                                                                 "--local_dir", "x"])
    assert [a.text for a in launch("python -c 'import ray'").args] == ["-c", "import ray"]


@pytest.mark.parametrize("flags, path, name", [
    ("--config-path=config --config-name='ppo_megatron_trainer.yaml'", "config", "ppo_megatron_trainer.yaml"),
    ("--config-path config --config-name ppo_trainer", "config", "ppo_trainer"),
    ("-cp ./cfg -cn my", "./cfg", "my"),
    ("--config-dir=/abs/cfg", "/abs/cfg", None),
    ("--config-name=$NAME", None, "x"),
])
def test_hydra_flags(flags, path, name):
    inv = launch(f"NAME=x\npython3 -m verl.trainer.main_ppo {flags} a=1 +b.c=2 ++d=3 ~e f")
    assert (inv.config_path and inv.config_path.text, inv.config_name and inv.config_name.text) == (path, name)
    # Hydra parses every positional argument as an override: the stray `f` too (and rejects it, RFTC200)
    assert [a.text for a in inv.overrides] == ["a=1", "+b.c=2", "++d=3", "~e", "f"]


@pytest.mark.parametrize("args, overrides, name, refusal, prints", [
    # argparse's allow_abbrev: a unique prefix of one of Hydra's options is that option
    ("--config-nam=x a=1", ["a=1"], "x", None, None),
    ("--config-nam x a=1", ["a=1"], "x", None, None),
    # an option Hydra does not have is its parser's error, and nothing runs
    ("--config_path=cfg/sft.yaml a=1", [], None, "error: unrecognized arguments: --config_path=cfg/sft.yaml", None),
    ("--config a=1", [], None, "error: ambiguous option: --config could match --config-path, --config-name, "
     "--config-dir", None),
    # the positional overrides are one run of words: one after an option's value is left over
    ("a=1 --config-name x b=2", [], None, "error: unrecognized arguments: b=2", None),
    ("--cfg job a=1", ["a=1"], None, None, "prints the job's config composed with the overrides and exits"),
    ("a=1 --help", ["a=1"], None, None, "prints the application's help (its composed config) and exits"),
    ("a=1 --info", ["a=1"], None, None, "prints Hydra's information (all) and exits"),
    ("--info a=1", [], None, "error: argument --info/-i: invalid choice: 'a=1' (choose from 'all', 'config', "
     "'defaults', 'defaults-tree', 'plugins', 'searchpath')", None),
    ("--cfg jobs a=1", [], None, "error: argument --cfg/-c: invalid choice: 'jobs' (choose from 'job', 'hydra', "
     "'all')", None),
])
def test_hydra_reads_its_command_line_with_its_own_parser(args, overrides, name, refusal, prints):
    inv = launch(f"python3 -m verl.trainer.main_ppo {args}")
    assert [a.text for a in inv.overrides] == overrides
    assert (inv.config_name and inv.config_name.text) == name
    assert (inv.hydra_refusal and inv.hydra_refusal[0]) == refusal
    assert (inv.hydra_prints and inv.hydra_prints[0]) == prints
    if name:  # the word that holds the value, where it is written
        assert inv.config_name.span.col == len("python3 -m verl.trainer.main_ppo ") + 1 + (
            0 if "=" in args.split()[0] else len("--config-nam "))


def test_env_exports_and_inline_prefixes():
    inv = launch("export A=1\nB=2\nexport B\nC=3\nD=4 E=$C python3 -m verl.trainer.main_ppo")
    assert inv.env == {"A": "1", "B": "2", "D": "4", "E": "3"}


def test_alternative_launches_follow_the_branch_taken():
    script = ('S=${S:-fsdp2}\nif [ "$S" == fsdp2 ]; then\n python3 -m verl.trainer.main_ppo a=1\n'
              'elif [ "$S" == megatron ]; then\n python3 -m recipe.x.main_x b=2\nfi\n')
    assert launch(script).module == "verl.trainer.main_ppo"
    assert launch(script, env={"S": "megatron"}).module == "recipe.x.main_x"


def test_several_launches_are_listed_in_order():
    r = analyze("python3 -m verl.trainer.main_ppo a=1\npython3 -m verl.model_merger merge\n", "run.sh")
    assert [(i.index, i.kind) for i in r.invocations] == [(0, "main_ppo"), (1, "model_merger")]
    assert [d.code for d in r.diagnostics] == ["RFTC113"]


# ------------------------------------------------------------------ spans and provenance
def test_argument_spans_and_via():
    script = 'lr=1e-6\nmodel=$HOME/m\npython3 -m verl.trainer.main_ppo \\\n    optim.lr=$lr \\\n    m.path="$model" "$@"\n'
    r = analyze(script, "run.sh", extra_args=("x=1", "y=2"))
    inv = r.invocations[0]
    lr, path, x, y = inv.args
    assert (lr.text, lr.span, lr.via) == ("optim.lr=1e-6", Span("run.sh", 4, 5, 4, 17), (Span("run.sh", 1, 1, 1, 8),))
    assert path.text == "m.path=${oc.env:HOME}/m" and path.symbolic and path.span == Span("run.sh", 5, 5, 5, 20)
    assert (x.span, y.span) == (Span(COMMAND_LINE, 1, 1), Span(COMMAND_LINE, 1, 2))
    assert [d.code for d in r.diagnostics] == ["RFTC106"]



def test_a_missing_script_argument_says_how_to_give_it():
    script = 'NAME="$2"\npython3 -m verl.trainer.main_ppo trainer.project_name=$NAME\n'
    (d,) = analyze(script, "run.sh").diagnostics
    assert d.code == "RFTC106" and d.message.startswith("$2 is the script's 2nd argument, which rftc is not given")
    assert "after `--`" in d.hint and "--env" not in d.hint
    r = analyze(script, "run.sh", extra_args=("o", "p"))
    assert not r.diagnostics and r.invocations[0].args[0].text == "trainer.project_name=p"


def test_script_arguments_given_after_the_double_dash_are_exact():
    script = ('echo "$#" >/dev/null\nA="$1"; shift; B="$*"; shift 2; C=$#; set -- x "y z"\n'
              'python3 -m m a=$A "b=$B" c=$C "$@" d=${9:-none}\n')
    args = [a.text for a in launch(script, extra_args=("1", "2 3", "4", "5")).args]
    assert args == ["a=1", "b=2 3 4 5", "c=1", "x", "y z", "d=none"]
    # not given: each is named as the script's argument, counted after shift; "$@" adds nothing
    inv = launch('shift 2\npython3 -m m a=$1 "$@" b=${2:-dflt}\n')
    assert [a.text for a in inv.args] == ["a=${oc.env:3}", "b=dflt"]

def test_overrides_split_from_a_string_point_where_they_are_written():
    script = ('n=2\nCFG="\n    a.b=$n \\\n    c.d=x"\nCFG2="${CFG//a.b/e.f}"\n'
              'python3 -m verl.trainer.main_ppo $CFG $CFG2\n')
    inv = launch(script)
    assert [(a.text, a.span.line, a.span.col) for a in inv.args] == [
        ("a.b=2", 3, 5), ("c.d=x", 4, 5), ("e.f=2", 5, 7), ("c.d=x", 5, 7)]
    assert inv.args[0].via[0] == Span("run.sh", 2, 1, 4, 11)  # the CFG assignment first


def test_array_elements_point_where_they_are_written():
    inv = launch('ARGS=(\n  a=1   # first\n  "b=2 3"\n)\npython3 -m verl.trainer.main_ppo "${ARGS[@]}"\n')
    assert [(a.text, a.span.line, a.span.col, a.span.end_col) for a in inv.args] == [("a=1", 2, 3, 6),
                                                                                     ("b=2 3", 3, 3, 10)]


def test_sourced_file_spans_point_into_that_file(tmp_path: Path):
    (tmp_path / "env.sh").write_text("LR=0.5\n")
    script = tmp_path / "run.sh"
    script.write_text('source "$(dirname "$0")/env.sh"\npython3 -m verl.trainer.main_ppo lr=$LR\n')
    r = analyze(script.read_text(), str(script))
    arg = r.invocations[0].args[0]
    assert arg.text == "lr=0.5" and arg.via[0].file == str(tmp_path / "env.sh")
    assert set(r.sources) == {str(script), str(tmp_path / "env.sh")}


def test_script_directory_is_known_when_the_file_exists(tmp_path: Path):
    script = tmp_path / "run.sh"
    script.write_text('D="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\npython3 -m m d=$D p=$(pwd)\n')
    inv = analyze(script.read_text(), str(script)).invocations[0]
    assert [a.text for a in inv.args] == [f"d={tmp_path}", "p=${oc.env:PWD}"]


# ------------------------------------------------------------------ what is not known statically
def test_unknown_variables_stay_symbolic_and_defaults_apply():
    inv = launch("python3 -m m a=${N:-8} b=$N c=${N:+set} d=$((N * 2))")
    assert [a.text for a in inv.args] == ["a=8", "b=${oc.env:N}", "c=", "d=${oc.env:RFTC_ARITH_N}"]
    assert [a.symbolic for a in inv.args] == [False, True, False, True]
    inv = launch("python3 -m m a=${N:-8} b=$N d=$((N * 2))", env={"N": "3"})
    assert [a.text for a in inv.args] == ["a=3", "b=3", "d=6"]


def test_alternative_of_an_unknown_variable_follows_its_plain_use_in_the_same_value():
    r = analyze('S=tp2${SUFFIX:+"-"}${SUFFIX}\npython3 -m m a=$S b=x${SUFFIX:+-y} c=${N:+$N}\n', "run.sh")
    assert [a.text for a in r.invocations[0].args] == ["a=tp2-${oc.env:SUFFIX}", "b=x", "c="]
    assert [(d.code, d.span.line, d.span.col) for d in r.diagnostics if d.code == "RFTC116"] == [("RFTC116", 1, 6)]
    inv = launch('python3 -m m a=tp2${SUFFIX:+"-"}${SUFFIX}', env={"SUFFIX": ""})
    assert inv.args[0].text == "a=tp2"


def test_use_env_reads_the_process_environment(monkeypatch):
    monkeypatch.setenv("RFTC_TEST_VALUE", "42")
    assert launch("python3 -m m v=$RFTC_TEST_VALUE").args[0].text == "v=${oc.env:RFTC_TEST_VALUE}"
    assert launch("python3 -m m v=$RFTC_TEST_VALUE", use_env=True).args[0].text == "v=42"


def test_command_substitutions():
    inv = launch("python3 -m m a=$(date +%Y%m%d) b=$(nvidia-smi -L | wc -l) c=$(git rev-parse HEAD) d=$(nproc)")
    assert [a.text for a in inv.args] == ["a=${now:%Y%m%d}", "b=${oc.env:RFTC_NUM_GPUS}",
                                          "c=${oc.env:RFTC_SUBST_GIT}", "d=${oc.env:RFTC_NPROC}"]
    assert codes("python3 -m m a=$(date +%Y) c=$(git rev-parse HEAD)") == ["RFTC107", "RFTC108"]
    assert launch("python3 -m m b=$(nvidia-smi -L | wc -l)", env={"RFTC_NUM_GPUS": "8"}).args[0].text == "b=8"


def test_a_pipeline_of_filters_rftc_does_not_compute_stays_unknown():
    # known text through a program or form outside rftc.shell.filters, or unknown text through a filter: the
    # output is the run-time placeholder, never a guess (tests/test_shell_bash.py checks the computed ones)
    inv = launch("python3 -m m a=$(echo 3 1 | sort) b=$(echo 1 2 | awk '{s+=$1} END {print s}') "
                 "c=$(echo $GPUS | tr , '\\n' | wc -l) d=$(echo a | wc -l -c) e=$(echo a | sed -n 1p)")
    assert [a.text for a in inv.args] == ["a=${oc.env:RFTC_SUBST_SORT}", "b=${oc.env:RFTC_SUBST_AWK}",
                                          "c=${oc.env:RFTC_SUBST_TR}", "d=${oc.env:RFTC_SUBST_WC}",
                                          "e=${oc.env:RFTC_SUBST_SED}"]
    assert launch("python3 -m m c=$(echo $GPUS | tr , '\\n' | wc -l)", env={"GPUS": "0,1"}).args[0].text == "c=2"
    inv = launch("python3 -m m f=$(expr length abc) g=$(expr $N + 1) h=$(expr 1 / 0)")
    assert [a.text for a in inv.args] == [f"{k}=${{oc.env:RFTC_SUBST_EXPR}}" for k in "fgh"]


def test_date_placeholder_splits_where_the_date_would():
    script = ("now() {\n  date '+%d-%H-%M'\n}\nA=run_$(now)\nB=$(date)\n"
              "python3 -m m a=$A b=$B \"c=$B\" d=$(date -u +\"%Y-%m-%d %H:%M\")")
    assert [a.text for a in launch(script).args] == [
        "a=run_${now:%d-%H-%M}", "b=${now:%a}", "${now:%b}", "${now:%d}", "${now:%H:%M:%S}", "${now:%Z}", "${now:%Y}",
        "c=${now:%a} ${now:%b} ${now:%d} ${now:%H:%M:%S} ${now:%Z} ${now:%Y}", "d=${now:%Y-%m-%d}", "${now:%H:%M}"]


def test_arithmetic_not_known_statically_is_one_word():
    script = "a=$(((x + y) * 2))\nb=$(((1 + 2) / z))\nz=4\npython3 -m m a=$a b=$b c=$((x))"
    inv = launch(script)
    # evaluation stops at the first unknown variable
    assert [a.text for a in inv.args] == ["a=${oc.env:RFTC_ARITH_X}", "b=${oc.env:RFTC_ARITH}", "c=${oc.env:x}"]
    msgs = [d.message for d in analyze(script, "run.sh").diagnostics if d.code == "RFTC108"]
    assert msgs == ["arithmetic `$(((x + y) * 2))` (needs $x) is not evaluated; kept as ${oc.env:RFTC_ARITH_X}",
                    "arithmetic `$(((1 + 2) / z))` (division by 0) is not evaluated; kept as ${oc.env:RFTC_ARITH}"]
    assert launch(script, env={"x": "1", "y": "2"}).args[0].text == "a=6"
    assert launch(script, env={"RFTC_ARITH": "3"}).args[1].text == "b=3"


def test_an_undecidable_condition_takes_the_first_viable_branch_and_names_the_env_that_picks_another():
    script = 'if [ -n "$MEGATRON" ]; then N=ppo_megatron_trainer; else N=ppo_trainer; fi\npython3 -m m n=$N\n'
    r = analyze(script, "run.sh")
    assert r.invocations[0].args[0].text == "n=ppo_megatron_trainer"
    [d] = r.diagnostics
    assert (d.code, d.span.line) == ("RFTC109", 2)
    assert "$N depends on `[ -n \"$MEGATRON\" ]` (line 1)" in d.message and "--env MEGATRON='' takes the `else`" in d.message
    assert launch(script, env={"MEGATRON": ""}).args[0].text == "n=ppo_trainer"


def test_an_empty_default_of_an_environment_variable_is_as_unknown_as_the_variable():
    # bash gives ${NODE_RANK:-} and $NODE_RANK the same value: the test is undecided and the launch followed
    for value in ("${NODE_RANK:-}", "${NODE_RANK-}", '${NODE_RANK:-""}', "${NODE_RANK:-$EMPTY}", "$NODE_RANK"):
        script = (f'EMPTY=\nif [ "{value}" = "0" ]; then\n  python3 -m verl.trainer.main_ppo a=1\n  exit 0\nelse\n'
                  '  ray start --block\n  exit 0\nfi\n')
        r = analyze(script, "run.sh")
        assert [a.text for a in r.invocations[0].args] == ["a=1"], value
        [d] = [d for d in r.diagnostics if d.code == "RFTC118"]
        assert "depends on $NODE_RANK (not set in the script)" in d.message, value
        assert not analyze(script, "run.sh", env={"NODE_RANK": "1"}).invocations
    inv = launch('python3 -m m a=${X:-} "b=${X-}" c=${X:=} d=$X e=${X:-0} f=${y:-}\ny=1\n')
    assert [a.text for a in inv.args] == ["a=${oc.env:X}", "b=${oc.env:X}", "c=${oc.env:X}", "d=${oc.env:X}", "e=0",
                                          "f="]  # y is the script's: empty before it is set
    assert not analyze('if [ "${R:-0}" = 0 ]; then exit 0; fi\npython3 -m m\n', "run.sh").invocations  # a default


def test_the_output_of_an_and_or_list_is_what_its_commands_print():
    # $(cmd || true): cmd's output (true only supplies the status when cmd fails), unknown where cmd is
    script = ('CONDA=$(command -v conda || true)\nif [[ -z "$CONDA" ]]; then\n  exit 127\nfi\n'
              'python3 -m verl.trainer.main_ppo c=$CONDA\n')
    r = analyze(script, "run.sh")
    assert [a.text for a in r.invocations[0].args] == ["c=${oc.env:RFTC_SUBST_COMMAND}"]
    [d] = [d for d in r.diagnostics if d.code == "RFTC117"]
    assert "the output of `command -v conda || true`" in d.message and "exit 127" in d.message
    inv = launch("python3 -m m a=$(git rev-parse HEAD || echo none) b=$(true || echo no) c=$(false || echo yes) "
                 "d=$(echo x && echo y) e=$(git log >/dev/null && echo ok) f=$(git log >log.txt && echo ok)")
    assert [a.text for a in inv.args] == ["a=${oc.env:RFTC_SUBST_GIT}", "b=", "c=yes", "d=x", "y", "e=ok", "f=ok"]
    # a program that prints nothing (Python's imports) leaves the literals the list prints: one of them
    r = analyze("D=$(python3 -c 'import torch_npu' 2>/dev/null && echo npu || echo gpu)\npython3 -m m d=$D\n",
                "run.sh")
    assert r.invocations[0].args[0].text == "d=npu" and [d.code for d in r.diagnostics] == ["RFTC109"]


def test_a_negated_command_is_undecided_as_its_if_else_twin():
    launch_line = "python3 -m verl.trainer.main_ppo r=$READY\n"
    guard = 'if [ "$READY" != 1 ]; then\n  exit 1\nfi\n'
    for test in ("if ! curl -sf http://h/health >/dev/null; then READY=0; fi\n",
                 "if curl -sf http://h/health >/dev/null; then :; else READY=0; fi\n",
                 "curl -sf http://h/health >/dev/null || READY=0\n",
                 "! curl -sf http://h/health >/dev/null && READY=0\n"):
        r = analyze("READY=1\n" + test + guard + launch_line, "run.sh")
        assert [a.text for a in r.invocations[0].args] == ["r=1"], test
        assert [d.code for d in r.diagnostics] == ["RFTC109"], test  # READY depends on curl's result


def test_an_environment_runner_without_python_runs_no_launch():
    for script in ("conda run -n verl echo python3 -m verl.trainer.main_ppo",  # echo prints it
                   "singularity exec verl.sif echo python3 -m verl.trainer.main_ppo",
                   "conda run -n verl pip install verl",
                   "taskset -c 0-7 echo python3 -m verl.trainer.main_ppo",  # the CPU list, then the program
                   "timeout 1h echo python3 -m verl.trainer.main_ppo"):
        assert codes(script) == ["RFTC112"], script


def test_loops_not_evaluable_are_skipped_with_a_warning():
    assert codes("while ! nvidia-smi; do sleep 1; done\npython3 -m m") == ["RFTC110"]
    assert codes("for ((i=0; i<N; i++)); do python3 -m m; done") == ["RFTC110", "RFTC112"]


def test_a_usage_check_on_the_arguments_is_a_guard_assumed_passed():
    r = analyze('if [ "$#" -lt 2 ]; then\n  echo usage\n  exit 1\nfi\npython3 -m m "$@"\n', "run.sh")
    [d] = r.diagnostics
    assert (d.code, d.span.line) == ("RFTC117", 1) and "after `--`" in d.hint
    r = analyze('if [ "$#" -lt 2 ]; then exit 1; fi\npython3 -m m "$@"\n', "run.sh", extra_args=("a=1", "b=2"))
    assert [a.text for a in r.invocations[0].args] == ["a=1", "b=2"] and not r.diagnostics
    r = analyze('[ "$#" -lt 2 ] && exit 1\npython3 -m m "$@"\n', "run.sh", extra_args=("a=1",))
    assert not r.invocations and [(d.code, d.span.line) for d in r.diagnostics] == [("RFTC112", 1)]


def test_bash_scripts_called_with_arguments_are_followed(tmp_path: Path):
    (tmp_path / "inner.sh").write_text('python3 -m verl.trainer.main_ppo base=1 "$@"\n')
    outer = tmp_path / "outer.sh"
    outer.write_text('params=(x=1 "y=2")\nbash "$(dirname "$0")/inner.sh" "${params[@]}" "$@"\n')
    r = analyze(outer.read_text(), str(outer), extra_args=("z=3",))
    inv = r.invocations[0]
    assert [a.text for a in inv.args] == ["base=1", "x=1", "y=2", "z=3"]
    assert inv.args[0].span.file == str(tmp_path / "inner.sh") and inv.args[1].span.file == str(outer)


# ------------------------------------------------------------------ syntax errors
@pytest.mark.parametrize("script, code, line, col, words", [
    ("if [ -n x ]; then\n  python3 -m m\n", "RFTC100", 3, 1, "`fi`"),  # end of file: the line after, as bash
    ("for x in a b\n  echo $x\ndone\n", "RFTC100", 2, 3, "`; do`"),
    ('python3 -m m a="b\n', "RFTC101", 1, 16, "double quote"),
    ("python3 -m m a=${X:-d\n", "RFTC100", 1, 16, "`}`"),  # an open ${: where it opens, as bash
    ("python3 -m m a=1\r\n", "RFTC100", 1, 17, "Windows line endings"),
])
def test_syntax_errors_point_at_the_problem_and_say_what_to_write(script, code, line, col, words):
    r = analyze(script, "run.sh")
    assert r.invocations == []
    [d] = r.diagnostics
    assert (d.code, d.span.line, d.span.col) == (code, line, col)
    assert words in d.message + (d.hint or "")


def test_working_directory_from_the_callers_environment():
    def args(**kw):
        return [a.text for a in launch("cd sub\npython3 -m m a=$PWD b=$(pwd)", **kw).args]

    assert args(env={"PWD": "/repo"}) == ["a=/repo/sub", "b=/repo/sub"]
    assert args(cwd="/r") == ["a=/r/sub", "b=/r/sub"]
    assert args() == ["a=${oc.env:PWD}/sub", "b=${oc.env:PWD}/sub"]


def test_cwd_option_is_where_the_launch_starts(tmp_path: Path):
    from rftc import api

    script = tmp_path / "run.sh"
    script.write_text("cd recipe\npython3 -m verl.trainer.main_ppo a=1\npython3 -m verl.trainer.main_ppo b=$1\n")
    options = api.Options(cwd=str(tmp_path / "repo"))
    assert [i.cwd for i in api.read([str(script)], options).launches] == [str(tmp_path / "repo" / "recipe")] * 2
    options = api.Options(cwd=str(tmp_path / "repo"), args=["x"])  # after --: the script's arguments
    assert api.read([str(script)], options).launches[1].args[0].text == "b=x"


def test_called_scripts_through_wrappers(tmp_path: Path):
    (tmp_path / "inner.sh").write_text('python3 -m verl.trainer.main_ppo x=$X "$@"\n')
    outer = tmp_path / "outer.sh"
    outer.write_text('cd "$(dirname "$0")"\nX=1 nohup bash -x inner.sh a=1 &\nexec env X=2 ./inner.sh b=2\n'
                     'python3 -m never.reached\n')
    r = analyze(outer.read_text(), str(outer))
    assert [[a.text for a in i.args] for i in r.invocations] == [["x=1", "a=1"], ["x=2", "b=2"]]


def test_launchers_that_run_a_shell_script_are_followed(tmp_path: Path):
    (tmp_path / "inner.sh").write_text('python3 -m verl.trainer.main_ppo x=$X "$@"\n')
    outer = tmp_path / "outer.sh"
    outer.write_text('cd "$(dirname "$0")"\n'
                     'srun -N 2 --gres=gpu:8 -o log.txt bash inner.sh a=1\n'  # srun's options, then the program
                     'ray job submit --address=http://h:8265 -- X=2 bash -c "bash inner.sh b=2"\n'
                     'uv run --with ray ./inner.sh c=3\n'
                     'srun -N 2 launch.sh python3 -m verl.trainer.main_ppo d=4\n')  # a missing file gets the launch
    r = analyze(outer.read_text(), str(outer))
    assert [[a.text for a in i.args] for i in r.invocations] == [["x=${oc.env:X}", "a=1"], ["x=2", "b=2"],
                                                                 ["x=${oc.env:X}", "c=3"]]
    [missing] = [d for d in r.diagnostics if d.code == "RFTC111"]
    assert missing.span.line == 5 and "launch.sh" in missing.message


def test_a_program_only_the_running_shell_knows_is_named_as_the_script_wrote_it():
    # `eval "$(conda shell.bash hook)"` runs whatever conda prints: the warning and the launch listing name the
    # command substitution at the script's own line, not the text rftc evaluates in its place
    r = analyze('eval "$(conda shell.bash hook)"\npython3 -m verl.trainer.main_ppo a=1\n', "run.sh")
    unknown = next(d for d in r.diagnostics if d.code == "RFTC115")
    assert "$(conda shell.bash hook)" in unknown.message and "only known when the script runs" in unknown.message
    assert (unknown.span.file, unknown.span.line, unknown.span.col) == ("run.sh", 1, 7)
    assert "--env RFTC_SUBST_CONDA=" in unknown.hint
    listing = next(d for d in r.diagnostics if d.code == "RFTC113")
    assert "#0 $(conda shell.bash hook) (line 1)" in listing.message and "RFTC_HELD" not in listing.message
    unset = next(d for d in analyze("$RUNNER a=1\n", "run.sh").diagnostics if d.code == "RFTC115")
    assert "$RUNNER, which is not set" in unset.message and "--env RUNNER=" in unset.hint


def test_the_length_of_a_value_only_the_run_knows_is_a_placeholder_of_its_own():
    # ${#HOME} is not $HOME; an array with an unquoted unknown element has as many elements as that value has words
    inv = launch('read -ra GPUS < gpus.txt\narr=($X "$Y")\nb=("$X" "$Y")\n'
                 'python3 -m m h=${#HOME} n=${#GPUS[@]} a=${#arr[@]} b=${#b[@]} s=${#SET}', env={"SET": "abc"})
    assert [a.text for a in inv.args] == ["h=${oc.env:RFTC_LENGTH_HOME}", "n=${oc.env:RFTC_LENGTH_GPUS}",
                                          "a=${oc.env:RFTC_LENGTH_ARR}", "b=2", "s=3"]
    assert "`${#HOME}` is a length only known at run time" in " ".join(
        d.message for d in analyze("python3 -m m h=${#HOME}", "run.sh").diagnostics)
    assert launch("python3 -m m h=${#HOME}", env={"RFTC_LENGTH_HOME": "9"}).args[0].text == "h=9"


# ------------------------------------------------------------------ what the script runs, at any depth
def _bash_launches(script: Path, *args: str, **programs: str) -> list[list[str]]:
    """The words each launch gets when bash runs ``script`` with ``args`` from its folder, the launched programs
    printing them (tests/support/bash.py) and ``programs`` (name=sh body) on PATH beside them."""
    from support.bash import fake_path, launches, run

    fake_path(script.parent)
    for name, body in programs.items():
        (script.parent / "bin" / name).write_text(f"#!/bin/sh\n{body}\n")
        (script.parent / "bin" / name).chmod(0o755)
    return launches(run([str(script), *args], script.parent, cwd=script.parent).stdout)


def _found(script: Path, *args: str) -> list[list[str]]:
    r = analyze(script.read_text(), str(script), extra_args=args, cwd=str(script.parent))
    return [["-m", i.module] + [a.text for a in i.args] for i in r.invocations]


@pytest.mark.parametrize("call", ['exec bash "$(dirname "$0")/train.sh" M "$@"',
                                  'bash "$(dirname "$0")/train.sh" M "$@"',
                                  'source "$(dirname "$0")/train.sh" M "$@"', '. "$(dirname "$0")/train.sh" M "$@"'])
def test_a_launch_in_a_script_the_script_runs_or_sources_is_its_own(call, tmp_path: Path):
    # bash runs train.sh with the caller's words as its arguments and the caller's exported variables
    train = tmp_path / "train.sh"
    train.write_text('MODEL=$1\npython3 -m verl.trainer.main_ppo model.path="$MODEL" x=$X "${@:2}"\n')
    caller = tmp_path / "run.sh"
    caller.write_text(f"export X=1\n{call}\n")
    r = analyze(caller.read_text(), str(caller), extra_args=("a=1",))
    [inv] = r.invocations
    assert inv.script == str(caller) and (inv.span.file, inv.span.line) == (str(train), 2)
    assert [a.text for a in inv.args] == ["model.path=M", "x=1", "a=1"]
    assert [a.span.file for a in inv.args] == [str(train), str(train), COMMAND_LINE]
    if shutil.which("bash"):
        assert _bash_launches(caller, "a=1") == [["-m", "verl.trainer.main_ppo", "model.path=M", "x=1", "a=1"]]


def test_convert_converts_the_launch_of_a_script_the_script_runs_as_list_lists_it(tmp_path: Path):
    from support.cli import convert, rftc

    (tmp_path / "train.sh").write_text(
        "MODEL=$1\npython3 -m verl.trainer.main_ppo data.train_files=data/train.parquet "
        'actor_rollout_ref.model.path="$MODEL" actor_rollout_ref.rollout.name=vllm '
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 "
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 "
        'actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 critic.ppo_micro_batch_size_per_gpu=2 "${@:2}"\n')
    (tmp_path / "run.sh").write_text('exec bash "$(dirname "$0")/train.sh" Qwen/Qwen2.5-0.5B-Instruct "$@"\n')
    listed = rftc("convert", "--list", "run.sh", cwd=tmp_path)
    assert [row.split("\t")[:2] for row in listed.stdout.splitlines()] == [["run.sh", "0"]]
    done = convert("run.sh", out=tmp_path / "out", cwd=tmp_path)
    assert done.config["model"]["model_path"] == "Qwen/Qwen2.5-0.5B-Instruct"
    text = done.configs[0].read_text()
    assert "from run.sh (launch at train.sh:2, run from line 1)" in text and "actor_rollout_ref.model.path (train.sh:2)" in text


def test_launches_of_one_file_run_twice_are_told_apart_by_the_line_that_runs_it(tmp_path: Path):
    from rftc.shell.invocation import circumstances

    (tmp_path / "train.sh").write_text("python3 -m verl.trainer.main_ppo x=$X\n")
    caller = tmp_path / "run.sh"
    caller.write_text('cd "$(dirname "$0")"\nX=1 bash train.sh\nX=2 bash train.sh\n')
    r = analyze(caller.read_text(), str(caller))
    assert [(i.run_from.line, [a.text for a in i.args]) for i in r.invocations] == [(2, ["x=1"]), (3, ["x=2"])]
    [listing] = [d for d in r.diagnostics if d.code == "RFTC113"]
    assert ("#0 verl.trainer.main_ppo (train.sh:1, run from line 2); #1 verl.trainer.main_ppo (train.sh:1, run from "
            "line 3)") in listing.message
    assert [circumstances(i, r.invocations) for i in r.invocations] == ["run from line 2", "run from line 3"]


@pytest.mark.parametrize("run_it", ['bash "$JOB"', 'sh "$JOB"', 'source "$JOB"', 'chmod +x "$JOB"\n"$JOB"'])
@pytest.mark.parametrize("delimiter", ["EOF", "'EOF'"])
def test_a_job_file_the_script_writes_with_a_heredoc_and_runs_is_followed(run_it, delimiter, tmp_path: Path):
    # bash writes the body expanded (unquoted delimiter) or as it is (quoted), and the shell that runs the file
    # expands what is left with the variables it has: exported ones in a new shell, all of them when sourced
    caller = tmp_path / "run.sh"
    caller.write_text(f'EXP=grpo\nexport OUT=x\nJOB="$(dirname "$0")/job.sh"\ncat > "$JOB" <<{delimiter}\n'
                      "python3 -m verl.trainer.main_ppo name=${EXP} out=$OUT\nEOF\n" + run_it + "\n")
    [inv] = analyze(caller.read_text(), str(caller)).invocations
    unset = delimiter == "'EOF'" and "source" not in run_it  # EXP is not exported
    assert [a.text for a in inv.args] == ["name=${oc.env:EXP}" if unset else "name=grpo", "out=x"]
    assert inv.script == str(caller) and [(a.span.file, a.span.line) for a in inv.args] == [(str(caller), 5)] * 2
    if shutil.which("bash"):
        assert _bash_launches(caller) == [["-m", "verl.trainer.main_ppo", "name=" if unset else "name=grpo", "out=x"]]


@pytest.mark.parametrize("command", [
    'srun --ntasks=1 -- micromamba run -n rl bash -c "python3 -m verl.trainer.main_ppo a=1"',
    'RUN=(micromamba run -n rl)\nsrun --nodes=1 -- "${RUN[@]}" bash -c "python3 -m verl.trainer.main_ppo a=1"',
    'srun -- conda run -n rl srun --overlap -- bash -c "micromamba run -n x python3 -m verl.trainer.main_ppo a=1"',
    "micromamba run -n rl srun --overlap nohup python3 -m verl.trainer.main_ppo a=1",
])
def test_runners_nested_under_launchers_are_followed_at_any_depth(command, tmp_path: Path):
    script = tmp_path / "run.sh"
    script.write_text(command + "\n")
    assert _found(script) == [["-m", "verl.trainer.main_ppo", "a=1"]]
    if shutil.which("bash"):
        runner = 'shift 3\nexec "$@"'  # `run -n ENV`, then the command
        assert _bash_launches(script, micromamba=runner, conda=runner) == _found(script)


def test_a_launch_of_nothing_but_the_script_s_arguments_says_so():
    r = analyze('python3 -m verl.trainer.main_ppo "$@"\n', "train.sh")
    [said] = [d for d in r.diagnostics if d.code == "RFTC124"]
    assert (said.span.line, said.span.col) == (1, 35) and "`train.sh` is run with" in said.message
    assert "rftc convert train.sh -- key=value" in said.hint
    # given the arguments, or with overrides of its own, the launch is what the script writes
    assert "RFTC124" not in codes('python3 -m verl.trainer.main_ppo "$@"\n', extra_args=("a=1",))
    assert "RFTC124" not in codes('python3 -m verl.trainer.main_ppo a=1 "$@"\n')


@pytest.mark.parametrize("passes", ["f", "bash inner.sh", 'bash -c \'bash inner.sh "$@"\' bash'])
def test_the_script_s_arguments_passed_on_are_still_the_script_s(passes, tmp_path: Path):
    # a function or script that launches with nothing but "$@" gets the script's arguments, not given either
    (tmp_path / "inner.sh").write_text('python3 -m verl.trainer.main_ppo "$@"\n')
    script = tmp_path / "run.sh"
    script.write_text(f'cd "$(dirname "$0")"\nf() {{\n  python3 -m verl.trainer.main_ppo "$@"\n}}\n{passes} "$@"\n')
    r = analyze(script.read_text(), str(script))
    [said] = [d for d in r.diagnostics if d.code == "RFTC124"]
    assert "`run.sh` is run with" in said.message
    given = analyze(script.read_text(), str(script), extra_args=("a=1",))
    assert [[a.text for a in i.args] for i in given.invocations] == [["a=1"]] and not given.diagnostics
    set_args = analyze(script.read_text().replace(f"{passes} ", "set -- x=1\nf "), str(script))
    assert "RFTC124" not in [d.code for d in set_args.diagnostics]  # `set --` gives the arguments


def test_bash_s_own_options_come_before_its_script_or_its_code(tmp_path: Path):
    (tmp_path / "inner.sh").write_text('python3 -m verl.trainer.main_ppo "$@"\n')
    script = tmp_path / "run.sh"
    script.write_text('cd "$(dirname "$0")"\nbash -eo pipefail inner.sh a=1\n'
                      'bash -ec "python3 -m verl.trainer.main_ppo b=2"\n'
                      "bash -x -- inner.sh c=3\nbash -s inner.sh d=4 <<EOF\necho not a launch\nEOF\n")
    assert _found(script) == [["-m", "verl.trainer.main_ppo", x] for x in ("a=1", "b=2", "c=3")]
    if shutil.which("bash"):
        assert _bash_launches(script) == _found(script)
