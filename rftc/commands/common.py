"""Options and output shared by the commands: the launch options of the commands that read launch scripts, and
the diagnostics options of every command that reports them."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Mapping

from rftc.diagnostics.model import Diagnostic, Severity
from rftc.diagnostics.render import FORMATS, apply_policy, render


def add_launch_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("launch")
    g.add_argument("--overrides", metavar="TEXT",
                   help="Hydra overrides of a main_ppo launch as one string ('k=v k2=v2'), instead of a script")
    g.add_argument("--env", action="append", default=[], metavar="K=V",
                   help="a value for an environment variable the script reads (repeatable)")
    g.add_argument("--use-env", action="store_true",
                   help="take environment variables the script reads from rftc's own environment")
    g.add_argument("--cwd", metavar="DIR",
                   help="the directory the launch starts in; the script's own cd's move from there, and a veRL "
                   "checkout there is the one `python3 -m verl...` imports (default: not known to the script, whose "
                   "$PWD stays ${oc.env:PWD}; a checkout is looked for where rftc runs)")
    g.add_argument("--verl-version", metavar="V",
                   help="check against this bundled verl release (default: the config of the verl the launch "
                   "imports, else the newest bundled release that has every key)")
    g.add_argument("--verl-source", metavar="DIR",
                   help="compose the config of this veRL checkout, fork or installed package (DIR holds verl/, "
                   "src/verl/, or is the verl package); 'bundled' uses the bundled releases even where the launch "
                   "imports a checkout (default: the verl the launch imports, found as Python would)")
    g.add_argument("--invocation", type=int, metavar="N",
                   help="only the N-th launch of each script (0-based; see rftc verl-config --list)")


def launch_options(args, **mapping):
    """rftc.api.Options from the launch options (and ``mapping``'s); UsageError for a malformed --env."""
    from rftc.api import Options, UsageError

    env = {}
    for item in args.env:
        k, eq, v = item.partition("=")
        if not eq or not k:
            raise UsageError("--env takes NAME=VALUE")
        env[k] = v
    return Options(env=env, use_env=args.use_env, cwd=args.cwd, args=args.extra_args,
                   verl_version=args.verl_version, verl_source=args.verl_source, invocation=args.invocation,
                   **mapping)


def add_report_options(p: argparse.ArgumentParser, *, default_format: str = "full") -> None:
    g = p.add_argument_group("diagnostics")
    g.add_argument("--format", choices=FORMATS, default=default_format,
                   help=f"how diagnostics are printed (default: {default_format})")
    g.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the full format (default: auto, on a terminal)")
    g.add_argument("--disable", action="append", default=[], metavar="CODE",
                   help="silence a diagnostic code (repeatable; comma-separated lists allowed)")
    g.add_argument("--strict", "--werror", dest="strict", action="store_true",
                   help="treat warnings as errors")


def disabled_codes(args) -> list[str]:
    return [c.strip() for item in args.disable for c in item.split(",") if c.strip()]


def colored(args, stream) -> bool:
    """Whether output to ``stream`` is coloured: --color always, or auto on a terminal without NO_COLOR."""
    return args.color == "always" or (args.color == "auto" and stream.isatty() and not os.environ.get("NO_COLOR"))


def report(diags: Iterable[Diagnostic], sources: Mapping[str, str], args, stream=None) -> list[Diagnostic]:
    """Apply suppression and severity policy, print, and return what remains."""
    stream = stream or sys.stderr
    kept = apply_policy(diags, sources, disable=disabled_codes(args), strict=args.strict)
    text = render(args.format, kept, sources, color=colored(args, stream))
    if text or args.format in ("json", "sarif"):
        stream.write(text)
        stream.flush()
    return kept


def exit_code(kept: Iterable[Diagnostic]) -> int:
    return 1 if any(d.severity is Severity.ERROR for d in kept) else 0
