"""``rftc check``: validate Trinity-RFT config files statically, with Trinity 0.6.0's verdicts and messages
at the YAML's line and column, plus the traps Trinity lets through. Imports no hydra, omegaconf, torch, ray,
vllm or verl."""

from __future__ import annotations

import argparse

DESCRIPTION = ("Validate Trinity-RFT 0.6.0 config files without Ray, GPUs or Trinity installed: what Trinity's "
               "loader and validator reject (errors, with Trinity's message, at the offending line), and what they "
               "let through but fails or trains differently later (warnings).")
EPILOG = """examples:
  rftc check config.yaml
  rftc check configs/ --format github          annotations in a GitHub pull request
  rftc check config.yaml --nodes 2 --gpus-per-node 8
  rftc check config.yaml --fix                 rewrite deprecated keys and aliases in place
  rftc check --explain RFTC478

exit codes: 0 no errors, 1 errors found, 2 usage error
"""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def add_arguments(p) -> None:
    from rftc.commands.common import add_report_options

    p.add_argument("paths", nargs="*", metavar="FILE|DIR|-",
                   help="config files, directories (every *.yaml / *.yml under them) or - for stdin")
    add_report_options(p)
    g = p.add_argument_group("checks")
    g.add_argument("--nodes", type=_positive, metavar="M", help="cluster nodes, where the config leaves it to Ray")
    g.add_argument("--gpus-per-node", type=_positive, metavar="N", help="GPUs per node, where the config leaves it "
                   "to Ray")
    g.add_argument("--env-strict", action="store_true",
                   help="an ${oc.env:VAR} without default naming an unset variable is an error (as for Trinity)")
    g.add_argument("--no-path-checks", dest="path_checks", action="store_false",
                   help="do not check that local model and data paths exist")
    g.add_argument("--fix", action="store_true", help="rewrite deprecated keys and aliases in place (comments kept)")
    g.add_argument("--fix-repeat-times", type=_positive, metavar="N",
                   help="with --fix: set algorithm.repeat_times N where a group algorithm is left at 1")
    p.add_argument("--explain", metavar="CODE", help="print a diagnostic code's documentation and exit")


def run(args) -> int:
    import sys

    if args.explain:
        from rftc.commands import explain

        return explain.run(argparse.Namespace(code=args.explain))
    if not args.paths:
        print("rftc check: give a config file, a directory or - (see rftc check --help)", file=sys.stderr)
        return 2
    if args.fix_repeat_times and not args.fix:
        print("rftc check: --fix-repeat-times needs --fix", file=sys.stderr)
        return 2
    if bool(args.nodes) != bool(args.gpus_per_node):
        print("rftc check: --nodes and --gpus-per-node go together", file=sys.stderr)
        return 2
    import os

    # pydantic otherwise scans every installed distribution's entry points for plugins when it builds the first
    # validator (~10 ms of a cold start; it imports importlib.metadata either way). Sound for this process: the IR
    # needs no plugin (plugins hook validation to trace it), and a check's verdict must not depend on what else is
    # installed beside rftc. setdefault: a value the user set stays.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    return _check_all(args)


def _check_all(args) -> int:
    import sys

    from rftc.commands.common import exit_code, report
    from rftc.diagnostics.collector import Diagnostics
    from rftc.sources import expand_paths
    from rftc.trinity.validate import CheckOptions

    options = CheckOptions(nodes=args.nodes, gpus_per_node=args.gpus_per_node, env_strict=args.env_strict,
                           path_checks=args.path_checks)
    files = expand_paths(args.paths, (".yaml", ".yml"))
    if not files:
        print("rftc check: no *.yaml or *.yml files under " + " ".join(args.paths), file=sys.stderr)
        return 2
    diags, sources = Diagnostics(), {}
    for path in files:
        result = _check_one(path, options, args)
        diags.extend(result.diagnostics)
        sources.update(result.sources)
    return exit_code(report(diags, sources, args))


def _check_one(path, options, args):
    """The file's check; with --fix, the safe rewrites written first and the rewritten text checked."""
    from rftc import api

    result = api.check(path, options)
    if not args.fix or result.document is None:
        return result
    (name, text), = result.sources.items()
    fixed = _fix(name, text, result.diagnostics, args)
    if fixed is None:
        return result
    return api.check(name, options, text=_write(path, fixed))


def _fix(name, text, diags, args):
    import sys

    from rftc.trinity.fix import apply_fixes, dump, load_roundtrip

    at_one = any(d.code == "RFTC478" for d in diags)
    root = load_roundtrip(text)
    changes = apply_fixes(root, repeat_times=args.fix_repeat_times, group_algorithm_at_one=at_one)
    if not changes:
        return None
    for c in changes:
        print(f"{name}: fixed {c}", file=sys.stderr)
    return dump(root, text)


def _write(path, text):
    import sys

    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return text
