"""Recognising a python launch in an expanded command: the launcher chain in front of it (env, nohup, exec, timeout,
taskset, sudo ..., ray job submit, srun, uv/conda/pixi/poetry run, singularity/apptainer/docker exec, torchrun, a
launcher array or variable), the entry module, its kind, and the Hydra flags and overrides among its arguments.

The entry is a module (`-m verl.trainer.main_ppo`), a fork's copy of it under another package
(`-m mypkg.verl.trainer.main_ppo`) or its file (`python3 verl/trainer/main_ppo.py`, `python3 $entry_file`): the
last two are the same entry (module "verl.trainer.main_ppo") with ``Invocation.entry_file`` naming the file, whose
folder holds the config that launch composes."""

from __future__ import annotations

import re

from rftc.diagnostics.model import Span
from rftc.shell import hydra_cli
from rftc.shell.invocation import Arg, Invocation
from rftc.shell.values import Field

_PYTHON = re.compile(r"python(\d+(\.\d+)?)?")
# wrappers that run the rest of the line as a command: name -> (the options that take a value as the next word,
# the words the wrapper reads after its options before the command: timeout's duration, taskset's CPU mask,
# whether `K=V` words may come before the command: env, sudo)
_WRAPPERS = {"nohup": ((), 0, False), "exec": (("-a",), 0, False), "time": (("-f", "-o"), 0, False),
             "command": ((), 0, False), "nice": (("-n",), 0, False), "stdbuf": (("-i", "-o", "-e"), 0, False),
             "numactl": (("-N", "-m", "-C", "-i", "-p"), 0, False), "timeout": (("-s", "-k"), 1, False),
             "taskset": ((), 1, False), "setsid": ((), 0, False), "unbuffer": ((), 0, False),
             "ionice": (("-c", "-n", "-p"), 0, False), "xvfb-run": (("-n", "-s", "-e", "-f", "-p", "-w"), 0, False),
             "env": (("-u", "-C"), 0, True),
             "sudo": (("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"), 0, True)}
_PY_OPTS_WITH_VALUE = ("-W", "-X", "-Q")
TORCHRUN_SIZES = {"--nnodes": "nnodes", "--nproc_per_node": "nproc_per_node", "--nproc-per-node": "nproc_per_node"}
_TORCHRUN_MODULES = ("torch.distributed.run", "torch.distributed.launch")  # what `torchrun` runs
# commands that run a program, given after their own options, in an environment or a container
_RUNNERS = {("uv", "run"), ("conda", "run"), ("mamba", "run"), ("micromamba", "run"), ("pixi", "run"),
            ("poetry", "run"), ("pipenv", "run"), ("hatch", "run"), ("singularity", "exec"), ("apptainer", "exec"),
            ("docker", "exec"), ("docker", "run"), ("podman", "exec"), ("podman", "run")}
_CONTAINERS = ("singularity", "apptainer", "docker", "podman")  # the image or container comes before the program
_LAUNCHERS = ("srun", "mpirun", "deepspeed")  # run their program on the nodes, after their own options

# a command line that is really a stray override: a key with dots (or +/~ prefix) and a value
ORPHAN = re.compile(r"(?:\+\+?|~)?[A-Za-z_][\w\-]*(?:\.[\w@\-]+)+=|(?:\+\+?|~)[A-Za-z_][\w.\-]*=", re.S)


# veRL's recipes rftc composes: module -> (its folder in the repository, its @hydra.main config name). A `recipe`
# part below another package is one of these only where the rest names one (else it is the project's own package)
RECIPES = {"recipe.dapo.main_dapo": ("recipe/dapo", "dapo_trainer"),
           "recipe.dapo.src.main_dapo": ("recipe/dapo/src", "dapo_trainer")}

def entry(name: str, by_path: bool) -> tuple[str, str | None] | None:
    """The entry module a launch names and the file it names it by: ``verl/trainer/main_ppo.py`` or
    ``mypkg.verl.trainer.main_ppo`` -> ("verl.trainer.main_ppo", that file); a module Python finds by its own name
    -> (module, None); None for a script that is no known entry. Below another package, a `recipe` part is veRL's
    recipe package only for a recipe rftc composes (`mypkg.recipe.dapo.main_dapo`): `agents.recipe.x.main_ppo` is
    the project's own module, resolved from its file as any other."""
    if by_path:
        if not name.endswith(".py"):
            return None
        parts = [p for p in name[:-3].split("/") if p not in ("", ".")]
    else:
        parts = name.split(".")
    for k in range(len(parts)):
        module = ".".join(parts[k:])
        if k and parts[k] == "recipe" and module not in RECIPES:
            continue  # a package of the project's own named recipe (`agents.recipe.x.main`): Python runs its file
        if (k == 0 or parts[k] in ("verl", "recipe")) and kind_of(module) != "other":
            if k == 0 and not by_path:
                return module, None
            return module, name if by_path else "/".join(parts) + ".py"
    return None if by_path else (name, None)


def kind_of(module: str, cwd: str | None = None) -> str:
    last = module.rsplit(".", 1)[-1]
    if module == "verl.trainer.main_ppo":
        return "main_ppo"
    if module in ("verl.trainer.fsdp_sft_trainer", "verl.trainer.sft_trainer", "verl.trainer.sft_trainer_ray"):
        return "sft"
    if last in ("main_generation", "main_generation_server"):
        return "generation"
    if last == "main_eval":
        return "eval"
    if module.startswith("verl.model_merger"):
        return "model_merger"
    if module.startswith("verl.experimental.") and last.startswith("main") or last == "fully_async_main":
        return "experimental"
    if module.startswith("recipe.") and last.startswith("main"):
        return "recipe"
    if "." not in module and last.startswith("main_") and cwd and "recipe" in cwd:
        return "recipe"  # `cd recipe/gkd && python3 -m main_gkd`
    return "other"


def _base(text: str) -> str:
    return text.rstrip("/").rsplit("/", 1)[-1]


def _find_program(fields: list[Field], start: int, positional: int = 0) -> int | None:
    """The program a launcher runs: the first word among its arguments that runs a program of its own (python,
    torchrun, a shell or a .sh file, a wrapper or another launcher: `srun -- micromamba run -n rl bash -c ...`), or
    the word after `--`, which ends the launcher's options, unless another program comes first: a word that is not
    an option, not after one (the option's value, maybe) and not one of the ``positional`` words the launcher takes
    before the program (a container's image)."""
    for j in range(start, len(fields)):
        t = fields[j].text
        if t == "--":
            return j + 1 + positional if j + 1 + positional < len(fields) else None
        if runs_program(fields, j):
            return j
        if t.startswith("-") or (j > start and fields[j - 1].text.startswith("-") and "=" not in fields[j - 1].text):
            continue
        if not positional:
            return None
        positional -= 1
    return None


def is_python(program: str) -> bool:
    """python, python3, python3.10, by name or by path."""
    return bool(_PYTHON.fullmatch(_base(program)))


def is_shell(program: str) -> bool:
    """bash, sh, or a .sh file: a program rftc reads as a script of its own."""
    b = _base(program)
    return b in ("bash", "sh") or b.endswith(".sh")


def runs_program(fields: list[Field], i: int) -> bool:
    """Whether ``fields[i]`` is a program that runs another (or python, or a shell script): what rftc follows."""
    b = _base(fields[i].text)
    return is_python(fields[i].text) or b in ("torchrun", "uv") or is_shell(fields[i].text) or b in _WRAPPERS \
        or b in _LAUNCHERS or _runner(fields, i) is not None or _ray_submit(fields, i)


def _ray_submit(fields: list[Field], i: int) -> bool:
    return _base(fields[i].text) == "ray" and [x.text for x in fields[i + 1:i + 3]] == ["job", "submit"]


def _runner(fields: list[Field], i: int) -> str | None:
    """`uv run`, `conda run`, `docker exec` ... at ``fields[i]``: its name, else None."""
    if i + 1 < len(fields) and (_base(fields[i].text), fields[i + 1].text) in _RUNNERS:
        return f"{_base(fields[i].text)} {fields[i + 1].text}"
    return None


def unwrap(fields: list[Field], i: int, env: dict[str, str]) -> int:
    """Skip the wrappers at ``fields[i]`` (env K=V, nohup, exec, time, ...); inline K=V go into ``env``."""
    while i < len(fields):
        b = _base(fields[i].text)
        if b not in _WRAPPERS:
            return i
        with_value, positional, assigns = _WRAPPERS[b]
        i = min(_options(fields, i + 1, with_value) + positional, len(fields))
        if assigns:
            i = _assignments(fields, i, env)
    return i


def _options(fields: list[Field], i: int, with_value: tuple[str, ...]) -> int:
    """The index after the options at ``fields[i]`` (and the value of each in ``with_value``)."""
    while i < len(fields) and fields[i].text.startswith("-"):
        if fields[i].text == "--":
            return i + 1
        i += 2 if fields[i].text in with_value else 1
    return i


def _assignments(fields: list[Field], i: int, env: dict[str, str]) -> int:
    """`K=V` words before a command (env, sudo): into ``env``; the index after them."""
    while i < len(fields) and re.match(r"[A-Za-z_]\w*=", fields[i].text):
        k, v = fields[i].text.split("=", 1)
        env[k] = v
        i += 1
    return i


def recognize(fields: list[Field], env: dict[str, str]) -> dict | None:
    """Find a python launch in ``fields``; return its parts, or None when the command is not one.

    The result holds: launcher, module, script, args (fields after the module; for a script run, the script
    path or -c and what follows), env (inline
    assignments given through ``env``), target_unknown (the program comes from an unset variable), span_start (the
    command's first word: python3, torchrun, ray) and entry (the module's or the script's word, when one is named)."""
    env = dict(env)
    launchers: list[str] = []
    first = fields[0] if fields else None
    i = program(fields, env, launchers)
    if i is None:
        return None
    f = fields[i]
    b = _base(f.text)
    if b == "torchrun":
        launchers.append("torchrun")
        return _module_args(fields, i + 1, launchers, env, first, torchrun=True)
    if _PYTHON.fullmatch(b) or _runs_entry(fields, i):
        if not launchers:
            launchers.append("python")
        parts = _module_args(fields, i + 1, launchers, env, first)
        if parts is not None and parts["module"] in _TORCHRUN_MODULES:  # torchrun's own module
            launchers[-1] = "torchrun"
            return _module_args(fields, len(fields) - len(parts["args"]), launchers, env, first, torchrun=True)
        return parts
    if f.symbolic and i == 0 and f.origin:
        return {"launcher": f.written, "module": "", "script": "", "args": fields[1:], "env": env,
                "target_unknown": f, "span_start": first, "entry": None}
    return None


def command_span(parts: dict, span: Span) -> Span:
    """Where a diagnostic about the launch as a whole points, in the command at ``span``: its first word through
    the module or script it runs (`python3 -m verl.trainer.main_ppo`), the first word alone where the two are not
    on one line; ``span`` itself where that word was not written in it (an argument given to rftc)."""
    if parts.get("span_start") is None:
        return span
    start = parts["span_start"].span
    entry = parts["entry"].span if parts["entry"] is not None else None
    if entry is not None and entry.file == start.file and start.line == entry.line == entry.last_line \
            and start.col < entry.col and entry.end_col:
        start = Span(start.file, start.line, start.col, start.line, entry.end_col)
    inside = start.file == span.file and (span.line, span.col) <= (start.line, start.col) \
        and (start.last_line, start.end_col or start.col) <= (span.last_line, span.end_col or 10**9)
    return start if inside else span


def program(fields: list[Field], env: dict[str, str], launchers: list[str] | None = None) -> int | None:
    """The index of the program a command line runs, past wrappers (env K=V, nohup, ...; inline K=V go into
    ``env``) and launchers (ray job submit -- ..., srun, uv run, a container's exec; each named into
    ``launchers``); None when a launcher's program cannot be told or there is none."""
    launchers = [] if launchers is None else launchers
    i = 0
    while i < len(fields):
        j = unwrap(fields, i, env)
        if j != i:
            i = j
            continue
        b = _base(fields[i].text)
        if _ray_submit(fields, i):
            launchers.append("ray job submit")
            sep = next((j for j in range(i + 3, len(fields)) if fields[j].text == "--"), None)
            if sep is None:
                return None
            i = _assignments(fields, sep + 1, env)  # the entrypoint runs in a shell: `-- PYTHONUNBUFFERED=1 python3`
            continue
        if b in _LAUNCHERS:
            launchers.append(b)
            i = _find_program(fields, i + 1)
        elif (runner := _runner(fields, i)) is not None:
            launchers.append(runner)
            i = _find_program(fields, i + 2, positional=1 if b in _CONTAINERS else 0)
        else:
            return i
        if i is None:
            return None
    return None


def _runs_entry(fields: list[Field], i: int) -> bool:
    """`$PYTHON -m verl.trainer.main_ppo` with PYTHON a wrapper (Isaac Sim's python.sh): what runs a known entry
    module with -m is a Python interpreter."""
    if i + 2 >= len(fields) or fields[i + 1].text != "-m":
        return False
    return kind_of(entry(fields[i + 2].text, by_path=False)[0]) != "other"


def _module_args(fields, j, launchers, env, first, torchrun=False) -> dict | None:
    module = script = ""
    mod_field = script_field = None
    sizes: dict[str, Arg] = {}  # torchrun's --nnodes / --nproc_per_node: the world of a torchrun trainer
    while j < len(fields):
        t = fields[j].text
        if t == "-m" and j + 1 < len(fields):
            mod_field = fields[j + 1]
            module = mod_field.text
            j += 2
            break
        if t.startswith("-m") and len(t) > 2 and not torchrun:
            module = t[2:]
            mod_field = fields[j]
            j += 1
            break
        if t == "-c":
            script = "-c"
            break  # args keep "-c CODE ...": the program is the code
        if t.startswith("-"):
            name, _, value = t.partition("=")
            size = TORCHRUN_SIZES.get(name) if torchrun else None
            if size and (value or j + 1 < len(fields)):
                a = to_arg(fields[j] if value else fields[j + 1])
                sizes[size] = Arg(value, a.span, a.via, a.symbolic) if value else a
            if torchrun and "=" not in t and j + 1 < len(fields) and not fields[j + 1].text.startswith("-") \
                    and t not in ("--standalone", "--no-python", "--no_python", "--run-path", "--run_path"):
                j += 2  # `--nnodes 2`
            else:
                j += 2 if (not torchrun and t in _PY_OPTS_WITH_VALUE) else 1
            continue
        script, script_field = t, fields[j]
        break  # args start with the script path: the program, then its arguments
    if not module and not script:
        return None
    launcher = launchers[0] if launchers else "python"
    if first is not None and first.origin:
        launcher = first.origin
    entry_file = None
    named = entry(script, by_path=True) if script and script != "-c" else entry(module, by_path=False) if module \
        else None
    if named is not None:
        module, entry_file = named
        if script:
            j, script = j + 1, ""  # the args are the entry's own
    return {"launcher": launcher, "module": module, "script": script, "args": fields[j:], "env": env,
            "target_unknown": mod_field if (mod_field is not None and mod_field.symbolic) else None,
            "span_start": first, "entry_file": entry_file, "sizes": sizes, "entry": mod_field or script_field}


def to_arg(f: Field) -> Arg:
    return Arg(f.text, f.span, f.via, f.symbolic)


def hydra_split(inv: Invocation) -> None:
    """Set ``inv``'s overrides, --config-path / --config-dir and --config-name from its arguments, as the Hydra app's
    own parser reads them (rftc.shell.hydra_cli), and what Hydra does instead of the job where it does not run it."""
    parsed = hydra_cli.split(inv.args)
    inv.overrides, inv.config_path, inv.config_name = parsed.overrides, parsed.config_path, parsed.config_name
    inv.config_dir, inv.hydra_refusal, inv.hydra_prints = parsed.config_dir, parsed.refusal, parsed.prints


def build(parts: dict, *, index: int, span, cwd: str | None, script: str, exported: dict[str, str]) -> Invocation:
    args = [to_arg(f) for f in parts["args"]]
    module = parts["module"]
    kind = kind_of(module, cwd) if module else "other"
    inv = Invocation(index=index, module=module, kind=kind, launcher=parts["launcher"], span=span, args=args,
                     env={**exported, **parts["env"]}, cwd=cwd, script=script, entry_file=parts.get("entry_file"),
                     launcher_sizes=parts.get("sizes", {}))
    if module and kind != "other":
        hydra_split(inv)
    return inv
