"""A Slurm batch script's #SBATCH directives give the SLURM_* variables sbatch sets in the job's environment:
read as sbatch reads them (only before the first command, trailing comments, short and long forms, the last one
wins), only the variables a directive decides, below --env and the process environment."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rftc.shell import analyze
from rftc.shell.slurm import environment


def values(text):
    return {name: s.value for name, s in environment(text, "run.sh").items()}


def overrides(script, **kw):
    inv = analyze(script, "run.sh", **kw).invocations[0]
    return {a.text.split("=", 1)[0]: a.text.split("=", 1)[1] for a in inv.overrides}


LAUNCH = "python3 -m verl.trainer.main_ppo trainer.nnodes=$SLURM_JOB_NUM_NODES " \
         "trainer.n_gpus_per_node=${SLURM_GPUS_ON_NODE:-1}\n"


@pytest.mark.parametrize("directives, expected", [
    ("#SBATCH --nodes=2\n#SBATCH --gres=gpu:8\n", {"SLURM_JOB_NUM_NODES": "2", "SLURM_NNODES": "2",
                                                   "SLURM_GPUS_ON_NODE": "8"}),
    ("#SBATCH -N 4 -n 4 -c 32 --gres=gpu:a100:8,shard:2   # four nodes\n",
     {"SLURM_JOB_NUM_NODES": "4", "SLURM_NNODES": "4", "SLURM_NTASKS": "4", "SLURM_NPROCS": "4",
      "SLURM_CPUS_PER_TASK": "32", "SLURM_GPUS_ON_NODE": "8"}),
    ("#SBATCH -N1\n#SBATCH --gpus-per-node=h100:4 --ntasks-per-node 1\n",
     {"SLURM_JOB_NUM_NODES": "1", "SLURM_NNODES": "1", "SLURM_GPUS_PER_NODE": "4", "SLURM_GPUS_ON_NODE": "4",
      "SLURM_NTASKS_PER_NODE": "1"}),
    ("#SBATCH --nodes=1\n#SBATCH --gpus=2\n", {"SLURM_JOB_NUM_NODES": "1", "SLURM_NNODES": "1", "SLURM_GPUS": "2",
                                               "SLURM_GPUS_ON_NODE": "2"}),
    # --gpus over several nodes is not split evenly by rule; a node range leaves the count to the scheduler
    ("#SBATCH --nodes=2 --gpus=16\n", {"SLURM_JOB_NUM_NODES": "2", "SLURM_NNODES": "2", "SLURM_GPUS": "16"}),
    ("#SBATCH --nodes=2-4 --gres=gpu\n", {"SLURM_GPUS_ON_NODE": "1"}),
    ("#SBATCH --ntasks-per-node=2 --gpus-per-task=4\n", {"SLURM_NTASKS_PER_NODE": "2", "SLURM_GPUS_PER_TASK": "4",
                                                          "SLURM_GPUS_ON_NODE": "8"}),
    ('#SBATCH -J "grpo run" -p main\n', {"SLURM_JOB_NAME": "grpo run", "SLURM_JOB_PARTITION": "main"}),
    ("#SBATCH --nodes=1\n#SBATCH --nodes=3\n", {"SLURM_JOB_NUM_NODES": "3", "SLURM_NNODES": "3"}),  # the last wins
    ("##SBATCH --nodes=2\n# SBATCH --nodes=2\n  #SBATCH --nodes=2\n", {}),  # not at the line start: not directives
])
def test_directives_give_what_sbatch_sets(directives, expected):
    assert values("#!/bin/bash\n" + directives + "\n" + LAUNCH) == expected


def test_directives_after_the_first_command_are_not_read():
    assert values("#!/bin/bash\n#SBATCH --nodes=2\nset -x\n#SBATCH --gres=gpu:8\n") == \
        {"SLURM_JOB_NUM_NODES": "2", "SLURM_NNODES": "2"}


def test_the_launch_reads_them_and_the_directive_is_reported():
    script = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:4\n" + LAUNCH
    r = analyze(script, "run.sh")
    assert overrides(script) == {"trainer.nnodes": "2", "trainer.n_gpus_per_node": "4"}
    notes = sorted((d.code, d.span.line, d.span.col) for d in r.diagnostics if d.code == "RFTC122")
    assert notes == [("RFTC122", 2, 9), ("RFTC122", 3, 9)]
    nnodes = r.invocations[0].overrides[0]
    assert [v.line for v in nnodes.via] == [2]  # provenance: the directive the value comes from


def test_env_and_the_process_environment_come_first(monkeypatch):
    script = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:4\n" + LAUNCH
    assert overrides(script, env={"SLURM_JOB_NUM_NODES": "8"})["trainer.nnodes"] == "8"
    monkeypatch.setenv("SLURM_GPUS_ON_NODE", "2")  # inside a job: the real allocation
    assert overrides(script, use_env=True)["trainer.n_gpus_per_node"] == "2"


def test_without_directives_the_variables_stay_unknown():
    assert overrides(LAUNCH) == {"trainer.nnodes": "${oc.env:SLURM_JOB_NUM_NODES}", "trainer.n_gpus_per_node": "1"}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["#SBATCH", " ", "\n", "--nodes", "=", "-N", "2", "-", "4", "--gres", "gpu", ":",
                                 "a100", ",", "(S:0)", "--gpus", "--gpus-per-node", "-J", "'", '"', "#", "x", "\\",
                                 "--ntasks-per-node", "-c", "set -x"]), max_size=40))
def test_any_directive_text_reads_without_error(parts):
    for name, setting in environment("".join(parts), "run.sh").items():
        assert name.startswith("SLURM_") and setting.span.line >= 1
        assert setting.value.isdigit() or name in ("SLURM_JOB_NAME", "SLURM_JOB_PARTITION")
