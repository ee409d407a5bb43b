"""Building an Invocation from plain override text (`rftc lint --overrides '...'`, tests, tools)."""

from __future__ import annotations

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Span
from rftc.shell.invocation import Arg, Invocation
from rftc.verl.overrides import OVERRIDES_FILE, split_text
from rftc.verl.trainers import MAIN_PPO

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
    inv = Invocation(0, module, "main_ppo" if module == MAIN_PPO else "experimental", "overrides",
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
