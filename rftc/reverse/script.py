"""The overrides as a bash launch of veRL's main_ppo: a bash array with a comment above each override naming the
Trinity keys and formula it came from (bash allows comments between an array's words), then the launch with the
script's own arguments after it."""

from __future__ import annotations

import json
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
        return value if plain else json.dumps(value)
    return repr(value) if isinstance(value, float) else str(value)


OC_ENV = re.compile(r"\$\{oc\.env:([A-Za-z_][A-Za-z0-9_]*)(?:,([^}]*))?\}")


def shell_word(text: str) -> str:
    """The override as one bash word: single-quoted, except where the config reads the environment
    (${oc.env:NAME}), which becomes ${NAME} in double quotes for bash to expand as Trinity's loader did."""
    text = OC_ENV.sub(lambda m: "${" + m.group(1) + (f":-{m.group(2)}" if m.group(2) is not None else "") + "}", text)
    if "${" in text and "'" not in text and '"' not in text and "`" not in text and "\\" not in text:
        return f'"{text}"'
    return "'" + text.replace("'", "'\\''") + "'"


def render(items: list[Override], *, source: str, release: str, config: str = "ppo_trainer") -> str:
    """``config``: the config main_ppo composes (veRL's own, so no --config-path)."""
    lines = ["#!/usr/bin/env bash",
             f"# veRL {release} main_ppo launch compiled by rftc from {source}. Each comment names the Trinity",
             "# key(s) an override came from (file:line where the config sets them) and the formula.",
             "set -euo pipefail", "", "overrides=("]
    for o in items:
        lines.append(f"    # {o.source}" + (f": {o.formula}" if o.formula else ""))
        lines.append(f"    {shell_word(f'{o.key}={hydra_value(o.value)}')}")
    name = f" --config-name={config}" if config != "ppo_trainer" else ""
    lines += [")", f'python3 -m verl.trainer.main_ppo{name} "${{overrides[@]}}" "$@"', ""]
    return "\n".join(lines)
