"""A Slurm batch script's own allocation: the `#SBATCH` directives at its top and the SLURM_* variables sbatch
sets from them in the job's environment (`trainer.nnodes=$SLURM_JOB_NUM_NODES`,
`GPUS_PER_NODE=${SLURM_GPUS_ON_NODE:-8}`).

sbatch reads directives from the lines before the first command (blank lines and comments, the `#!` line
included, may come between them), splits each as the shell would, and stops at an unquoted `#` (a trailing
comment). Only variables a directive decides are given: SLURM_JOB_ID, the node list and the like stay unknown,
and so does a node count given as a range. The values are those of a job submitted as `sbatch run.sh`; options
on sbatch's command line override directives, which `--env NAME=value` expresses.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, replace

from rftc.diagnostics.model import Span

_DIRECTIVE = re.compile(r"#SBATCH\s+(.*)")
# option -> its long name; the short forms sbatch has for the options read here
_SHORT = {"-N": "--nodes", "-n": "--ntasks", "-c": "--cpus-per-task", "-G": "--gpus", "-J": "--job-name",
          "-p": "--partition"}
_LONG = {"--nodes", "--ntasks", "--ntasks-per-node", "--cpus-per-task", "--gpus", "--gpus-per-node",
         "--gpus-per-task", "--gres", "--job-name", "--partition"}


@dataclass(frozen=True, slots=True)
class Setting:
    value: str
    span: Span  # the directive it comes from
    directive: str  # the option as written, e.g. "#SBATCH --gres=gpu:4"


def directives(text: str, filename: str) -> dict[str, Setting]:
    """The options the directives give, by long name; a later one wins, as sbatch has it."""
    found: dict[str, Setting] = {}
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break  # the first command: sbatch reads no directive after it
        match = _DIRECTIVE.match(line)  # at the line's start, as sbatch looks for it
        if match is None:
            continue
        try:
            words = shlex.split(match.group(1), comments=True)
        except ValueError:  # an unclosed quote: sbatch rejects the line
            continue
        i = 0
        while i < len(words):
            start = i
            word, i = words[i], i + 1
            name, value = word, None
            if word.startswith("--") and "=" in word:
                name, value = word.split("=", 1)
            elif word[:2] in _SHORT and len(word) > 2:
                name, value = word[:2], word[2:]
            name = _SHORT.get(name, name)
            if name not in _LONG:
                continue
            if value is None and i < len(words):
                value, i = words[i], i + 1
            if value is not None:
                shown = shlex.join(words[start:i])
                col = line.find(words[start], line.index("#SBATCH")) + 1
                found[name] = Setting(value, Span(filename, number, col, number, col + len(shown)), "#SBATCH " + shown)
    return found


def _count(value: str) -> int | None:
    """`4`, `a100:4` -> 4; a range or anything else -> None."""
    last = value.rsplit(":", 1)[-1]
    return int(last) if last.isdigit() else None


def _gres_gpus(value: str) -> int | None:
    """GPUs per node in a --gres list: `gpu:4`, `gpu:a100:4`, `gpu` (1), with other resources beside them."""
    for item in value.split(","):
        parts = re.sub(r"\(.*\)$", "", item).split(":")
        if parts[0] == "gpu":
            return 1 if len(parts) == 1 else _count(item)
    return None


def environment(text: str, filename: str) -> dict[str, Setting]:
    """The SLURM_* variables sbatch sets from the script's directives (empty without directives)."""
    given = directives(text, filename)
    env: dict[str, Setting] = {}

    def put(name: str, option: str, value: int | str | None) -> None:
        if value is not None:
            env[name] = replace(given[option], value=str(value))

    if "--nodes" in given:
        nodes = given["--nodes"].value
        low, _, high = nodes.partition("-")
        if low.isdigit() and (not high or high == low):  # a range leaves the count to the scheduler
            put("SLURM_JOB_NUM_NODES", "--nodes", int(low))
            put("SLURM_NNODES", "--nodes", int(low))
    for name, option in (("SLURM_NTASKS", "--ntasks"), ("SLURM_NPROCS", "--ntasks"),
                         ("SLURM_NTASKS_PER_NODE", "--ntasks-per-node"), ("SLURM_CPUS_PER_TASK", "--cpus-per-task"),
                         ("SLURM_GPUS_PER_NODE", "--gpus-per-node"), ("SLURM_GPUS_PER_TASK", "--gpus-per-task"),
                         ("SLURM_GPUS", "--gpus")):
        if option in given:
            put(name, option, _count(given[option].value))
    for name, option in (("SLURM_JOB_NAME", "--job-name"), ("SLURM_JOB_PARTITION", "--partition")):
        if option in given:
            put(name, option, given[option].value)
    # the GPUs of this node: per node (--gres, --gpus-per-node), the job's --gpus on a single node, or per task
    # times the tasks of a node
    if "--gpus-per-node" in given:
        put("SLURM_GPUS_ON_NODE", "--gpus-per-node", _count(given["--gpus-per-node"].value))
    elif "--gres" in given:
        put("SLURM_GPUS_ON_NODE", "--gres", _gres_gpus(given["--gres"].value))
    elif "--gpus" in given and "SLURM_JOB_NUM_NODES" in env and env["SLURM_JOB_NUM_NODES"].value == "1":
        put("SLURM_GPUS_ON_NODE", "--gpus", _count(given["--gpus"].value))
    elif "--gpus-per-task" in given and "--ntasks-per-node" in given:
        per_task, tasks = _count(given["--gpus-per-task"].value), _count(given["--ntasks-per-node"].value)
        put("SLURM_GPUS_ON_NODE", "--gpus-per-task", per_task * tasks if per_task and tasks else None)
    return env
