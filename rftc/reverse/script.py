"""The overrides as a bash launch of veRL's main_ppo (or of an SFT trainer under torchrun): a bash array with a
comment above each override naming the Trinity keys and formula it came from (bash allows comments between an
array's words), then the launch with the script's own arguments after it."""

from __future__ import annotations

import re

from rftc.reverse.overrides import Override


def hydra_value(value) -> str:
    """A value as Hydra's override grammar reads it back to the same value."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(hydra_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{hydra_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        plain = value and all(c.isalnum() or c in "_-./:${}@" for c in value)
        return value if plain else quoted(value)
    return repr(value) if isinstance(value, float) else str(value)


def quoted(text: str) -> str:
    """``text`` as a double-quoted value of Hydra's grammar, which keeps every character as it is (a newline, a
    backslash) but a quote, escaped with a backslash, and the backslashes just before a quote or the closing one,
    each doubled (Hydra's "escaped characters in quoted values")."""
    text = re.sub(r'(\\*)"', lambda m: m.group(1) * 2 + '\\"', text)
    return '"' + re.sub(r"(\\+)$", lambda m: m.group(1) * 2, text) + '"'


OC_ENV = re.compile(r"\$\{oc\.env:([A-Za-z_][A-Za-z0-9_]*)(?:,([^}]*))?\}")


def shell_word(text: str) -> str:
    """The override as one bash word: single-quoted, except where the config reads the environment
    (${oc.env:NAME}), which becomes ${NAME} in double quotes for bash to expand as Trinity's loader did."""
    text = OC_ENV.sub(lambda m: "${" + m.group(1) + (f":-{m.group(2)}" if m.group(2) is not None else "") + "}", text)
    if "${" in text and "'" not in text and '"' not in text and "`" not in text and "\\" not in text:
        return f'"{text}"'
    return "'" + text.replace("'", "'\\''") + "'"


MAIN_PPO = "python3 -m verl.trainer.main_ppo"


def render(items: list[Override], *, source: str, release: str, trainer: str = "main_ppo",
           command: str = MAIN_PPO) -> str:
    """The launch: ``command`` (the program and launcher up to the overrides) with the overrides and the script's
    own arguments."""
    lines = ["#!/usr/bin/env bash",
             f"# veRL {release} {trainer} launch compiled by rftc from {source}. Each comment names the Trinity",
             "# key(s) an override came from (file:line where the config sets them) and the formula.",
             "set -euo pipefail", "", "overrides=("]
    for o in items:
        lines.append(f"    # {o.source}" + (f": {o.formula}" if o.formula else ""))
        lines.append(f"    {shell_word(f'{o.key}={hydra_value(o.value)}')}")
    lines += [")", f'{command} "${{overrides[@]}}" "$@"', ""]
    return "\n".join(lines)


def torchrun(module: str, nodes: int, gpus: int) -> str:
    """torchrun's launch of an SFT trainer on nodes x gpus, as veRL's examples/sft scripts write it; on several
    nodes each node runs it with its own NODE_RANK and the first node's MASTER_ADDR."""
    world = f"--nnodes={nodes} --nproc_per_node={gpus}"
    if nodes == 1:
        return f"torchrun --standalone {world} -m {module}"
    return (f'torchrun {world} --node_rank="${{NODE_RANK:-0}}" --master_addr="${{MASTER_ADDR:-127.0.0.1}}" '
            f'--master_port="${{MASTER_PORT:-29500}}" -m {module}')
