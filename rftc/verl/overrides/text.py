"""Override text (`rftc lint --overrides '...'`, tests, tools): split into words as a shell would, each with its
columns, and read as a launch whose Hydra flags (--config-path, --config-name) are read as Hydra reads them."""

from __future__ import annotations

import re

from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.model import Span
from rftc.shell.invocation import Arg, Invocation
from rftc.verl.trainers import MAIN_PPO

OVERRIDES_FILE = "<overrides>"  # Span.file for overrides given as text (rftc lint --overrides '...')
OVERRIDES_LAUNCHER = "overrides"  # Invocation.launcher of override text: no script, its paths are from here
_FLAGS = {"--config-path": "config_path", "-cp": "config_path", "--config-dir": "config_path",
          "--config-name": "config_name", "-cn": "config_name"}


def invocation_from_text(text: str, *, diags: Diagnostics, module: str = MAIN_PPO, file: str = OVERRIDES_FILE,
                         extra: list[Arg] | tuple[Arg, ...] = ()) -> Invocation | None:
    """Split ``text`` like a shell (spans in the pseudo-file ``file``, real columns); ``--config-path`` /
    ``--config-name`` are read as Hydra flags; ``extra`` arguments follow (they win, as "$@" would)."""
    try:
        args = split_text(text, file)
    except ValueError as exc:
        diags.add("RFTC200", f"cannot split the overrides: {exc}", Span(file, 1, 1))
        return None
    args += list(extra)
    end = max((a.span.end_col or a.span.col for a in args if a.span.file == file), default=1)
    inv = Invocation(0, module, "main_ppo" if module == MAIN_PPO else "experimental", OVERRIDES_LAUNCHER,
                     Span(file, 1, 1, 1, end), list(args))
    i = 0
    while i < len(args):
        a = args[i]
        flag, eq, value = a.text.partition("=")
        if flag in _FLAGS:
            if not eq:
                if i + 1 >= len(args):
                    diags.add("RFTC200", f"{flag} needs a value", a.span)
                    return None
                i += 1
                a = args[i]
            else:
                a = Arg(value, a.span, a.via, a.symbolic)
            setattr(inv, _FLAGS[flag], a)
        else:
            inv.overrides.append(a)
        i += 1
    return inv


def split_text(text: str, file: str = OVERRIDES_FILE, line: int = 1) -> list[Arg]:
    """Split override text like a shell would (quotes, backslashes), keeping each word's columns."""
    args: list[Arg] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        start, word = i, []
        while i < n and not text[i].isspace():
            c = text[i]
            if c in "'\"":
                close = text.find(c, i + 1)
                if c == '"':
                    j = i + 1
                    while j < n and text[j] != '"':
                        j += 2 if text[j] == "\\" else 1
                    close = j if j < n else -1
                if close < 0:
                    raise ValueError(f"unterminated {c} quote at column {i + 1}")
                body = text[i + 1:close]
                word.append(re.sub(r'\\([\\"$`])', r"\1", body) if c == '"' else body)
                i = close + 1
            elif c == "\\" and i + 1 < n:
                word.append(text[i + 1])
                i += 2
            else:
                word.append(c)
                i += 1
        args.append(Arg("".join(word), Span(file, line, start + 1, line, i + 1)))
    return args
