"""rftc lint: the diagnostics of veRL launch scripts (shell, Hydra overrides, verl config), nothing else."""

from __future__ import annotations

import sys

from rftc.commands.common import add_report_options, exit_code, report

DESCRIPTION = """Report the diagnostics of veRL launch scripts without converting them: the shell evaluation,
every Hydra override checked against the verl config (unknown keys, '+' on existing keys, sweeps,
placeholders, legacy keys), and the verl version used. Exit 0 when clean, 1 on errors, 2 on usage errors."""
EPILOG = """examples:
  rftc lint run_qwen2-7b_math.sh                     one script
  rftc lint examples/                                every *.sh under a folder, in one process
  rftc lint --overrides 'trainer.nnodes=2 +x.y=1'    overrides without a script
  rftc lint run.sh -- trainer.nnodes=2               extra overrides in place of "$@"
"""


def add_arguments(p) -> None:
    from rftc.commands.common import add_launch_options

    p.add_argument("paths", nargs="*", metavar="SCRIPT", help="launch scripts or folders ('-' reads stdin)")
    add_launch_options(p)
    add_report_options(p)


def run(args) -> int:
    from rftc import api
    from rftc.commands.common import launch_options

    try:
        opts = launch_options(args)
        found = api.read(args.paths, opts, overrides=args.overrides)
    except api.UsageError as exc:
        print(f"rftc lint: {exc}", file=sys.stderr)
        return 2
    diags = found.diagnostics
    for inv in found.launches:
        diags.extend(api.verl_config(inv, opts, startup=False).diagnostics)
    kept = report(sorted(diags, key=lambda d: d.sort_key()), found.sources, args)
    return exit_code(kept)
