"""The shell stage on the wild corpus (../shared/corpus/wild: launch scripts users wrote in their own repositories,
at their original paths; see its NOTICE.md). Each script is converted from its repository's root, as its author
runs it. No script stops for want of a launch (RFTC312) or on a syntax error (RFTC100/RFTC101), except those listed
here with the reason, which lies in the script: bash rejects it too, or it has no main_ppo launch. (Whether each
launch converts is the veRL and mapping stages' matter.)"""

import re
import shutil
import subprocess

import pytest

from support.cli import convert, rftc
from support.paths import WILD, needs_wild

pytestmark = needs_wild

# script -> why it has no launch to convert
EXPECTED: dict[str, str] = {}
# script -> the launches bash runs before it stops at a syntax error that `bash -n` reports (RFTC121)
STOPS_AFTER_LAUNCH = {
    # a `done` at line 322 closes no loop (a pasted fragment of the loop above): bash first runs the loop over
    # 3 rounds x 4 operator groups, each a launch, then the pasted fragment's loop over the 4 groups
    "aweakdog__ContinualCountdown/scripts/train_continual_countdown.sh": 16,
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("wild")
    rows = {}
    for script in sorted(WILD.glob("*/**/*.sh")):
        repo = WILD / script.relative_to(WILD).parts[0]
        run = convert(script.relative_to(repo), out=out / script.stem, cwd=repo, status=None)
        rows[str(script.relative_to(WILD))] = (run.returncode, run.diagnostics, out / script.stem)
    return rows


def test_every_script_is_read_and_its_launch_found(results):
    assert len(results) == 78
    stopped = {name: [d for d in diags if d["code"] in ("RFTC312", "RFTC100", "RFTC101", "RFTC002")]
               for name, (_, diags, _) in results.items()}
    stopped = {name: ds for name, ds in stopped.items() if ds}
    assert sorted(stopped) == sorted(EXPECTED), {k: [d["message"] for d in v] for k, v in stopped.items()}
    for name, (code, diags, _) in results.items():
        assert code in (0, 1), (name, diags)  # never a usage error or a crash


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_syntax_errors_after_the_launch_are_bash_s_own_and_the_launches_convert(results):
    for name, launches in STOPS_AFTER_LAUNCH.items():
        proc = subprocess.run(["bash", "-n", str(WILD / name)], capture_output=True, text=True)
        assert proc.returncode != 0
        bash_line = int(re.search(r"line (\d+)", proc.stderr).group(1))
        code, diags, out = results[name]
        stops = [d for d in diags if d["code"] == "RFTC121"]
        assert [d["line"] for d in stops] == [bash_line] and stops[0]["severity"] == "warning", stops
        assert code == 0 and not [d for d in diags if d["severity"] == "error"]
        assert len(list(out.glob("*.yaml"))) == launches


def _codes(results, name: str) -> list[str]:
    return [d["code"] for d in results[name][1]]


def test_guards_on_what_the_running_machine_knows_are_assumed_passed(results):
    # `MODEL_PATH=${MODEL_PATH:-}; if [ -z "$MODEL_PATH" ]; then ... exit 1`: the caller must set it
    name = "SkyworkAI__Skywork-OR1/or1_scripts/train/32b_16k.sh"
    guards = [d for d in results[name][1] if d["code"] == "RFTC117"]
    assert [d["line"] for d in guards] == [35, 39] and "MODEL_PATH" in guards[0]["message"]
    # `if [ ! -d "$BASE_MODEL" ]; then ...; exit 1`: a directory on the training machine
    name = "aweakdog__ContinualCountdown/scripts/train_continual_countdown_1.5b.sh"
    assert any(d["code"] == "RFTC117" and d["line"] == 29 for d in results[name][1])


def test_a_launch_in_one_branch_of_an_undecidable_condition_is_the_script_s_launch(results):
    # `if [ "$MASTER_IP" = "$CURR_IP" ]; then ray start --head ...; ray job submit -- python3 -m ...`
    name = "Agent-RL__ReCall/scripts/train/train_multi_node.sh"
    notes = [d for d in results[name][1] if d["code"] == "RFTC118"]
    assert len(notes) == 1 and "`[ \"$MASTER_IP\" = \"$CURR_IP\" ]` (line 95)" in notes[0]["message"]
    assert "RFTC312" not in _codes(results, name)


def test_a_curriculum_loop_makes_one_launch_per_stage():
    run = rftc("convert", "--list", "scripts/train_continual_countdown_1.5b.sh", cwd=WILD / "aweakdog__ContinualCountdown")
    rows = [line.split("\t") for line in run.stdout.splitlines()]
    stages = [row[5] for row in rows if row[4] == "verl.trainer.main_ppo"]
    assert len(stages) == 12 and stages[0] == "round=1 group=plus" and stages[-1] == "round=3 group=plus_minus_mul_div"
