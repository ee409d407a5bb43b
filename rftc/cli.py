"""The ``rftc`` command line. Each subcommand lives in ``rftc.commands.<name>`` and is imported only when
used, so ``rftc check`` never pays for the compiler's or the runtime's imports.

Exit codes: 0 clean, 1 errors found, 2 usage error, 3 internal error.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys

from rftc import __version__

# name -> (module, one-line help). Modules expose add_arguments(parser) and run(args) -> int.
COMMANDS = {
    "convert": ("rftc.commands.convert", "compile a veRL launch script (or Hydra overrides) into a Trinity-RFT config"),
    "check": ("rftc.commands.check", "validate Trinity-RFT config files statically"),
    "run": ("rftc.commands.run", "compile if needed, then train with Ray-hosted vLLM rollout and veRL training"),
    "verl-config": ("rftc.commands.verl_config", "print the effective veRL config a launch script runs, with provenance"),
    "diff": ("rftc.commands.diff", "compare what two configs train (veRL launch scripts or Trinity configs)"),
    "lint": ("rftc.commands.lint", "report the diagnostics of veRL launch scripts without converting them"),
    "schema": ("rftc.commands.schema", "print the JSON Schema of the Trinity-RFT config (for editors)"),
    "explain": ("rftc.commands.explain", "print the documentation of a diagnostic code"),
}

EPILOG = """examples:
  rftc convert run_qwen2-7b_rm.sh > ppo.yaml     compile a launch script
  rftc convert run.sh -- trainer.nnodes=2        extra overrides take the place of "$@"
  rftc check configs/                            check every *.yaml under configs/
  rftc verl-config run.sh                        the effective veRL config, with where each value came from
  rftc diff run.sh ppo.yaml                      what the two train differently (exit 1 if anything)
  rftc run examples/arith_grpo.sh                compile and train (CPU when there is no GPU)

exit codes: 0 clean, 1 errors found, 2 usage error, 3 internal error
"""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rftc", description="Config compiler, checker and thin runtime for moving RL fine-tuning jobs "
        "between veRL and Trinity-RFT.", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"rftc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text, add_help=False)
            continue
        mod = importlib.import_module(module)
        p = sub.add_parser(name, help=help_text, description=getattr(mod, "DESCRIPTION", help_text),
                           epilog=getattr(mod, "EPILOG", None), formatter_class=argparse.RawDescriptionHelpFormatter)
        mod.add_arguments(p)
        p.set_defaults(_module=mod)
    return parser


def _command_name(argv: list[str]) -> str | None:
    for a in argv:
        if a == "--":
            return None
        if a in COMMANDS:
            return a
        if not a.startswith("-"):
            return None
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv``; without it, this process's: main is then the program itself (`rftc`,
    `python -m rftc`), which exits when it returns."""
    program = argv is None
    argv = sys.argv[1:] if program else argv
    # A command other than `rftc run` runs once and keeps what it builds (the IR's validators, the parser's tables)
    # to its end: the cyclic garbage collector would scan those objects hundreds of times, and all of them once
    # more as the program exits, to find next to no garbage. It is off while the command runs, and in the program
    # until it exits (the collections of its modules' teardown still run). `rftc run` trains for hours and keeps it.
    paused = _command_name(argv) != "run" and gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _main(argv)
    finally:
        if paused and not program:
            gc.enable()


def _main(argv: list[str]) -> int:
    # Build only the subcommand being run: importing every command module would cost each command
    # the imports of all the others.
    parser = build_parser(only=_command_name(argv))
    # Arguments after "--" are passed through verbatim (the script's arguments: $1.. and "$@"); argparse would
    # mix them into the positionals. None when there is no "--": the script's arguments are not known.
    extra: list[str] | None = None
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    args = parser.parse_args(argv)
    args.extra_args = extra
    if not getattr(args, "_module", None):
        parser.print_help()
        return 2
    try:
        return int(args._module.run(args) or 0)
    except KeyboardInterrupt:
        print("rftc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the last line of defence: never show a traceback to a user
        if os.environ.get("RFTC_DEBUG"):
            raise
        print(f"error[RFTC002]: internal error: {type(exc).__name__}: {exc}\n"
              "  = help: this is a bug in rftc; rerun with RFTC_DEBUG=1 for the traceback and report it",
              file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
