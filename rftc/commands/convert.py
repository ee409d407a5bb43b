"""rftc convert: compile veRL launch scripts (or Hydra overrides) into Trinity-RFT 0.6 configs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from rftc.commands.common import add_report_options, disabled_codes, exit_code, report
from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.render import apply_policy

DESCRIPTION = """Compile a veRL launch script into a Trinity-RFT 0.6.0 config. The script is evaluated statically
(never run); the effective veRL config is mapped rule by rule, checked as Trinity would check it, and written
as YAML with a comment on every value naming the veRL key and script line it came from. Settings Trinity
cannot express are reported, never dropped silently (--report prints what became of every key)."""
EPILOG = """examples:
  rftc convert run_qwen2-7b_rm.sh > ppo.yaml
  rftc convert run.sh -o ppo.yaml -- trainer.nnodes=2     the script's arguments after --: $1.., "$@"
  rftc convert --cwd ~/repo scripts/train.sh              the directory the launch starts in
  rftc convert --overrides 'algorithm.adv_estimator=grpo data.train_batch_size=512'
  rftc convert examples/*.sh --out-dir configs/           many scripts, one process
  rftc convert run.sh --report                            the ledger: what became of every key
  rftc convert --to verl ppo.yaml > run.sh                the way back: a veRL launch for the newest bundled verl
"""


def add_arguments(p) -> None:
    from rftc.commands.common import add_launch_options

    p.add_argument("paths", nargs="*", metavar="SCRIPT", help="launch scripts or directories ('-' reads stdin)")
    add_launch_options(p)
    out = p.add_argument_group("output")
    out.add_argument("--to", choices=("trinity", "verl"), default="trinity",
                     help="trinity (default): a launch script to a Trinity-RFT config; verl: a Trinity-RFT config to "
                     "a veRL launch script for --verl-version (default the newest bundled): main_ppo, or for an SFT "
                     "config the release's SFT trainer under torchrun; a comment per override naming the Trinity "
                     "keys and formula it came from")
    out.add_argument("-o", "--output", metavar="FILE", help="write the config here (default: stdout)")
    out.add_argument("--out-dir", metavar="DIR", help="write one <script>.yaml per launch into DIR")
    out.add_argument("--list", action="store_true", help="list the launches found, one per line, and stop")
    out.add_argument("--report", action="store_true", help="print the ledger of every key the script sets (stderr)")
    m = p.add_argument_group("mapping")
    m.add_argument("--sync-offset", type=int, default=0, metavar="N",
                   help="synchronizer.sync_offset (default 0, on-policy as veRL; the Trinity guide's examples use 1)")
    m.add_argument("--explorer-gpus", type=int, metavar="N", help="GPUs for the rollout engines (default: solved)")
    m.add_argument("--dataset-size", type=int, metavar="ROWS",
                   help="training rows, for the LR-schedule horizon when the data files are not readable here")
    m.add_argument("--total-steps", type=int, metavar="N", help="the LR-schedule horizon in veRL steps")
    m.add_argument("--nodes", type=int, metavar="N",
                   help="trainer.nnodes, when the script reads it from the environment (e.g. $SLURM_JOB_NUM_NODES)")
    m.add_argument("--gpus-per-node", type=int, metavar="N", help="trainer.n_gpus_per_node, likewise")
    m.add_argument("--rollout-tp", type=int, metavar="N",
                   help="actor_rollout_ref.rollout.tensor_model_parallel_size, likewise (e.g. $ROLLOUT_TP_SIZE)")
    add_report_options(p)


def _usage(msg: str) -> int:
    print(f"rftc convert: {msg}", file=sys.stderr)
    return 2


def options(args):
    """The mapping's options from the command line, over the launch options."""
    from rftc.commands.common import launch_options
    from rftc.mapping.draft import CLUSTER_OPTIONS

    given = {key: getattr(args, option[2:].replace("-", "_")) for key, option in CLUSTER_OPTIONS.items()}
    return launch_options(args, sync_offset=args.sync_offset, explorer_gpus=args.explorer_gpus,
                          dataset_size=args.dataset_size, total_steps=args.total_steps,
                          cluster={key: v for key, v in given.items() if v is not None})


def run(args) -> int:
    from rftc import api

    if args.output and args.out_dir:
        return _usage("give -o or --out-dir, not both")
    if args.to == "verl":
        return _to_verl(args)
    try:
        opts = options(args)
        found = api.read(args.paths, opts, overrides=args.overrides, every_launch=args.list)
    except api.UsageError as exc:
        return _usage(str(exc))
    if args.list:
        from rftc.shell.invocation import circumstances

        stages = api.stage_of(found)  # several scripts: the stage of the config each launch becomes
        for inv in found.launches:
            print(f"{inv.script or '<overrides>'}\t{inv.index}\t{inv.span}\t{inv.kind}\t{inv.module or '(script)'}\t"
                  f"{circumstances(inv, found.launches)}\t{stages.get(id(inv), '')}".rstrip("\t"))
        return exit_code(report(found.diagnostics, found.sources, args))
    per_script = api.trainings(found, args.paths)
    given = [s for s, invs in per_script.items() if invs]
    if not args.out_dir and len(per_script) > 1:  # one config of several scripts: a pipeline of stages
        if len(given) < len(per_script):  # RFTC312 says which script has nothing to convert
            return exit_code(report(found.diagnostics, found.sources, args))
        return _pipeline(args, opts, found, [api.first_launch(per_script[s], found.diagnostics) for s in given])
    if not args.out_dir:  # one config: of one script, its first training launch
        per_script = {s: [api.first_launch(invs, found.diagnostics)] if invs else invs for s, invs in per_script.items()}
    diags = Diagnostics(found.diagnostics)
    outputs: list[tuple[str | None, str]] = []
    results = []
    for script, invs in per_script.items():
        for inv in invs:
            result = api.compile_launch(inv, opts)
            diags.extend(result.diagnostics)
            if result.config is None:
                continue
            results.append(result)
            # an error anywhere in this launch's stages (e.g. an override veRL rejects, which the mapping never
            # sees) means its config is not written, also with --out-dir where other launches' configs are
            own = result.diagnostics + [d for d in found.diagnostics
                                        if d.span and d.span.file in (inv.script, inv.span.file)]
            if not exit_code(apply_policy(own, found.sources, disable=disabled_codes(args), strict=args.strict)):
                outputs.append((_target(args, script, inv, len(invs)), result.yaml()))
    kept = report(diags, found.sources, args)
    if args.report:
        for result in results:
            print_ledger(result)
    code = exit_code(kept)
    if code == 0 or not any(d.severity.label == "error" for d in kept) or args.out_dir:
        _write(outputs)  # with many scripts, write the ones that converted
    return code


def _pipeline(args, opts, found, launches) -> int:
    """Several scripts, one config: their launches as Trinity stages, in the order given."""
    from rftc import api

    result = api.compile_pipeline(launches, opts)
    diags = Diagnostics(found.diagnostics + result.diagnostics)
    kept = report(diags, found.sources, args)
    if result.config is not None and not any(d.severity.label == "error" for d in kept):
        _write([(args.output, result.yaml())])
    return exit_code(kept)


def _to_verl(args) -> int:
    """One Trinity config to a veRL launch script; what veRL cannot express is reported (RFTC601)."""
    from rftc import api, compare

    if len(args.paths) != 1 or args.overrides or args.out_dir:
        return _usage("--to verl takes one Trinity config file (and -o FILE)")
    try:
        launch = compare.to_verl(args.paths[0], args.verl_version, dataset_size=args.dataset_size)
    except api.UsageError as exc:
        return _usage(str(exc))
    kept = report(launch.diagnostics, launch.sources, args)
    code = exit_code(kept)
    if launch.text is not None and code == 0:
        _write([(args.output, launch.text)])
    return code


def _target(args, script: str, inv, launches: int) -> str | None:
    """Where a launch's config goes: stdout (None), -o FILE, or <script>[.<index>].yaml in --out-dir."""
    if not args.out_dir:
        return args.output
    stem = Path(script).stem if script not in ("<overrides>", "-", "<stdin>") else "overrides"
    return os.path.join(args.out_dir, f"{stem}.yaml" if launches == 1 else f"{stem}.{inv.index}.yaml")


def _write(outputs) -> None:
    for target, text in outputs:
        if target is None:
            sys.stdout.write(text)
        else:
            os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)


def print_ledger(result) -> None:
    """The ledger as a table on stderr: every key the script sets, and every default stated explicitly."""
    from rich.console import Console
    from rich.table import Table

    from rftc.emit.yaml import location

    cfg = result.verl
    table = Table(title=f"veRL -> Trinity ledger ({cfg.invocation.script if cfg.invocation else 'overrides'})")
    for col in ("veRL key", "value", "where", "outcome", "Trinity key / note"):
        table.add_column(col, overflow="fold")
    keys = list(dict.fromkeys([*cfg.user_keys(), *result.ledger]))
    for key in keys:
        e = result.ledger.get(key)
        if e is None:
            continue
        if not cfg.user_set(key) and e.status != "mapped":
            continue
        value = cfg.get(key, None)
        table.add_row(key, str(value), location(cfg.prov(key).span) if cfg.user_set(key) else "default",
                      e.status, ", ".join(e.targets) or e.note)
    Console(stderr=True, width=int(os.environ.get("COLUMNS", 160))).print(table)
