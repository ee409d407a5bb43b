"""The launches the veRL-stage commands work on: the training invocations the shell stage finds in scripts,
or override text given with --overrides; plus the command-line options that choose them."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Span
from rftc.shell.invocation import COMMAND_LINE, Arg, Invocation
from rftc.verl.configdir import entry_of
from rftc.verl.overrides import OVERRIDES_FILE


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


@dataclass
class Inputs:
    launches: list[Invocation] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    diags: Diagnostics = field(default_factory=Diagnostics)
    usage_error: str | None = None


def _env(items: list[str], diags: Diagnostics) -> dict[str, str] | None:
    env = {}
    for item in items:
        k, eq, v = item.partition("=")
        if not eq or not k:
            return None
        env[k] = v
    return env


def source_of(args):
    """What --verl-source names: None (find the verl each launch imports), "bundled", or a VerlSource; a
    directory without a veRL config, or one given beside --verl-version, raises ValueError (a usage error)."""
    from rftc.verl.source import BUNDLED, from_dir

    given = getattr(args, "verl_source", None)
    if given is None or given == BUNDLED:
        return given
    if getattr(args, "verl_version", None):
        raise ValueError("give --verl-version (a bundled release) or --verl-source (a checkout's config), not both")
    found = from_dir(given)
    if found is None:
        raise ValueError(f"--verl-source {given}: no veRL config there (looked for verl/trainer/config in it, "
                         "in its verl/ and in its src/verl/)")
    return found


def collect(args, paths: list[str]) -> Inputs:
    """Read every input and find its launches; problems become diagnostics (or a usage error)."""
    from rftc.sources import expand_paths, read_text
    from rftc.verl.invocations import invocation_from_text

    out = Inputs()
    try:
        source_of(args)
    except ValueError as exc:
        out.usage_error = str(exc)
        return out
    given = getattr(args, "extra_args", None)  # the script's arguments, after --; None when -- is not given
    extra = list(given or [])
    env = _env(args.env, out.diags)
    if env is None:
        out.usage_error = "--env takes NAME=VALUE"
        return out
    if args.overrides is not None:
        if paths:
            out.usage_error = "give either scripts or --overrides, not both"
            return out
        cl = [Arg(t, Span(COMMAND_LINE, 1, i + 1)) for i, t in enumerate(extra)]
        inv = invocation_from_text(args.overrides, diags=out.diags, extra=cl)
        out.sources[OVERRIDES_FILE] = args.overrides
        if extra:
            out.sources[COMMAND_LINE] = " ".join(extra)
        if inv is not None:
            inv.cwd = os.getcwd()  # a relative --config-path in the overrides is looked up from here
            out.launches.append(inv)
        return out
    if not paths:
        out.usage_error = "give one or more scripts ('-' for stdin), or --overrides '...'"
        return out
    try:
        from rftc.shell import analyze
    except ImportError:
        out.usage_error = "reading scripts needs the shell stage (rftc.shell.analyze), which is not available"
        return out
    for path in expand_paths(paths, (".sh",)):
        read = read_text(path, out.diags)
        if read is None:
            continue
        name, text = read
        cwd = os.path.abspath(args.cwd) if getattr(args, "cwd", None) else None
        result = analyze(text, name, env=env, use_env=args.use_env, extra_args=given, cwd=cwd)
        out.diags.extend(result.diagnostics)
        out.sources.update(result.sources)
        out.sources.setdefault(name, text)
        for inv in _chosen(result.invocations, args):
            inv.script = inv.script or name
            out.launches.append(inv)
    return out


def _chosen(invocations: list[Invocation], args) -> list[Invocation]:
    """The launches a command works on: --invocation N's; with --list all of them; otherwise the script's
    launches in the branches rftc takes where it cannot decide a condition, when one of those trains (another
    branch's launch is an alternative: `--list` shows it, --invocation N picks it)."""
    if args.invocation is not None:
        return [inv for inv in invocations if inv.index == args.invocation]
    if getattr(args, "list", False) or not any(inv.primary and inv.is_training for inv in invocations):
        return invocations
    return [inv for inv in invocations if inv.primary]


def first_launch(launches: list[Invocation], diags: Diagnostics) -> Invocation:
    """The launch one config is made of when a script trains several times: the first it runs (RFTC232 names the
    others and how to pick one)."""
    from rftc.shell.invocation import circumstances

    first = launches[0]
    if len(launches) > 1:
        shown = [f"#{i.index} (line {i.span.line}" + (f", {c}" if (c := circumstances(i, launches)) else "") + ")"
                 for i in launches]
        listing = ", ".join(shown[:6]) + (f" and {len(shown) - 6} more" if len(shown) > 6 else "")
        diags.add("RFTC232", f"the script launches training {len(launches)} times: {listing}; this config is "
                  f"#{first.index}'s, the first it runs", first.span,
                  hint="--invocation N converts another; --out-dir DIR writes one config per launch")
    return first


def composable(inv: Invocation) -> bool:
    """Launches whose config the veRL stage composes: the verl trainers and recipes rftc knows, and any launch
    naming a config."""
    return entry_of(inv.module) is not None or (inv.is_training and inv.config_name is not None)


def report_no_schema(inv: Invocation, diags: Diagnostics) -> None:
    """RFTC218 for a training launch whose config rftc cannot compose (its overrides go unchecked)."""
    diags.add("RFTC218", f"no bundled veRL config for the entry point '{inv.module}'; its overrides are not "
              "checked", inv.span, hint="pass --config-path/--config-name if it uses a config of its own")
