"""rftc convert: compile veRL launch scripts (or Hydra overrides) into Trinity-RFT 0.6 configs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from rftc.commands.common import add_report_options, disabled_codes, exit_code, report
from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.model import Span
from rftc.diagnostics.render import apply_policy
from rftc.verl.trainers import CONVERTED

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
"""


def add_arguments(p) -> None:
    from rftc.verl.launches import add_launch_options

    p.add_argument("paths", nargs="*", metavar="SCRIPT", help="launch scripts or directories ('-' reads stdin)")
    add_launch_options(p)
    out = p.add_argument_group("output")
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


def run(args) -> int:
    from rftc.mapping.draft import CLUSTER_OPTIONS
    from rftc.verl.launches import collect

    if args.output and args.out_dir:
        return _usage("give -o or --out-dir, not both")
    for name in ("explorer_gpus", "dataset_size", "total_steps", *map(_dest, CLUSTER_OPTIONS.values())):
        v = getattr(args, name)
        if v is not None and v <= 0:
            return _usage(f"--{name.replace('_', '-')} must be positive")
    if args.sync_offset < 0:
        return _usage("--sync-offset must be >= 0")
    inputs = collect(args, args.paths)
    if inputs.usage_error:
        return _usage(inputs.usage_error)
    diags = inputs.diags
    if args.list:
        from rftc.shell.invocation import circumstances

        for inv in inputs.launches:
            print(f"{inv.script or '<overrides>'}\t{inv.index}\t{inv.span}\t{inv.kind}\t{inv.module or '(script)'}\t"
                  f"{circumstances(inv, inputs.launches)}".rstrip("\t"))
        return exit_code(report(diags, inputs.sources, args))
    todo = jobs(args, inputs, diags)
    if isinstance(todo, str):
        return _usage(todo)
    outputs: list[tuple[str | None, str]] = []
    reports = []
    read = len(diags)  # the diagnostics of reading the scripts; each launch's own follow
    for inv, target in todo:
        start = len(diags)
        result = convert_launch(inv, args, diags)
        if result is None:
            continue
        text, mapped = result
        reports.append(mapped)
        # an error anywhere in this launch's stages (e.g. an override veRL rejects, which the mapping never sees)
        # means its config is not written, also with --out-dir where other launches' configs are
        own = diags[start:] + [d for d in diags[:read] if d.span and d.span.file == inv.script]
        if not exit_code(apply_policy(own, inputs.sources, disable=disabled_codes(args), strict=args.strict)):
            outputs.append((target, text))
    kept = report(diags, inputs.sources, args)
    if args.report:
        for mapped in reports:
            print_ledger(mapped)
    code = exit_code(kept)
    if code == 0 or not any(d.severity.label == "error" for d in kept):
        _write(outputs)
    elif args.out_dir:
        _write(outputs)  # with many scripts, write the ones that converted
    return code


def jobs(args, inputs, diags: Diagnostics):
    """The launches to convert and where each goes (None = stdout), or a usage error."""
    from rftc.sources import STDIN, expand_paths
    from rftc.verl.launches import composable, first_launch

    by_script: dict[str, list] = {}
    for inv in inputs.launches:
        by_script.setdefault(inv.script or "<overrides>", []).append(inv)
    scripts = {s: [i for i in invs if i.module in CONVERTED and composable(i)] for s, invs in by_script.items()}
    for s, invs in by_script.items():
        if not scripts[s]:
            found = ", ".join(f"{i.module or '(script)'} at line {i.span.line}" for i in invs)
            diags.add("RFTC312", f"no launch of {' or '.join(CONVERTED[:2])} to convert (found {found}); other "
                      "trainers (asynchronous and SFT trainers, other recipes) have their own semantics",
                      invs[0].span)
    # a script with no launch at all has nothing to convert, whatever else it reported (e.g. RFTC112's warning);
    # one that could not be read has its RFTC001 already
    for p in expand_paths(args.paths, (".sh",)):
        name = "<stdin>" if p == STDIN else p  # the name read_text gives stdin
        if name in inputs.sources and name not in by_script:
            diags.add("RFTC312", "no training launch found in the script", Span(name, 1, 1))
    todo = []
    if not args.out_dir:  # one config: of one script, its first training launch
        given = [s for s, v in scripts.items() if v]
        if len(given) > 1:
            return f"{len(given)} scripts to convert into one config; give one, or use --out-dir DIR"
        scripts = {s: [first_launch(v, diags)] if v else v for s, v in scripts.items()}
    for s, invs in scripts.items():
        for inv in invs:
            if args.out_dir:
                stem = Path(s).stem if s not in ("<overrides>", "-", "<stdin>") else "overrides"
                name = f"{stem}.yaml" if len(invs) == 1 else f"{stem}.{inv.index}.yaml"
                todo.append((inv, os.path.join(args.out_dir, name)))
            else:
                todo.append((inv, args.output))
    return todo


def _launch_named(inv) -> str:
    """"launch at line 30", with the loop values of this iteration when a loop launches it."""
    loop = " ".join(f"{k}={v}" for k, v in inv.loop.items())
    return f"launch at line {inv.span.line}" + (f", {loop}" if loop else "")


def _dest(option: str) -> str:
    return option[2:].replace("-", "_")  # --gpus-per-node -> args.gpus_per_node


def options_for(inv, args):
    from rftc.mapping.draft import CLUSTER_OPTIONS, Options

    env = dict(os.environ) if args.use_env else {}
    for item in args.env:
        k, _, v = item.partition("=")
        env[k] = v
    cwd = inv.cwd or (os.path.dirname(os.path.abspath(inv.script)) if inv.script and os.path.isfile(inv.script)
                      else None)
    given = {key: getattr(args, _dest(option)) for key, option in CLUSTER_OPTIONS.items()}
    fixed = {key: v for key, v in given.items() if v is not None}
    return Options(sync_offset=args.sync_offset, explorer_gpus=args.explorer_gpus, dataset_size=args.dataset_size,
                   total_steps=args.total_steps, env=env, cwd=cwd, fixed=fixed)


def convert_launch(inv, args, diags: Diagnostics):
    """One launch -> (YAML text, Mapped), or None when it does not convert (diagnostics say why)."""
    from rftc.emit.yaml import emit
    from rftc.mapping.convert import map_config
    from rftc.verl import effective_config
    from rftc.verl.launches import source_of
    from rftc.verl.startup import check_startup

    eff = effective_config(inv, verl_version=args.verl_version, source=source_of(args), diags=diags)
    if eff is None:
        return None
    check_startup(eff, diags)  # its errors keep the config from being written, like any error of the launch
    mapped = map_config(eff, options_for(inv, args))
    diags.extend(mapped.diagnostics)
    if not mapped.ok:
        return None
    ok = validate(mapped, diags)
    source = inv.script or "<overrides>"
    text = emit(mapped.config, mapped.origins, eff, source=os.path.basename(source) if source else "<overrides>",
                launch=_launch_named(inv) if inv.script else None)
    return (text, mapped) if ok else None


def locator(mapped):
    """Trinity key path -> the script span of the veRL key it came from (the nearest key that has one)."""
    def locate(path: tuple):
        parts = list(path)
        while parts:
            origin = mapped.origins.get(".".join(str(p) for p in parts))
            if origin is not None:
                for key in origin.keys:
                    span = mapped.cfg.prov(key).span
                    if span is not None:
                        return span
            parts.pop()
        prefix = ".".join(str(p) for p in path) + "."
        for tkey, origin in mapped.origins.items():  # a section Trinity names: where its first key came from
            if tkey.startswith(prefix):
                for key in origin.keys:
                    if mapped.cfg.prov(key).span is not None:
                        return mapped.cfg.prov(key).span
        return None
    return locate


# Trinity-check warnings that repeat what a mapping diagnostic already says about the same value (and how to fix it)
SAID_BY_MAPPING = {"RFTC479": "RFTC303"}


def validate(mapped, diags: Diagnostics) -> bool:
    """Check the draft with the same checks `rftc check` runs, reporting at the script's spans."""
    from rftc.trinity.validate import CheckOptions, check_config

    ir, found = check_config(mapped.config, locator(mapped), CheckOptions(path_checks=False))
    said = {d.code for d in mapped.diagnostics}
    diags.extend(d for d in found if SAID_BY_MAPPING.get(d.code) not in said)
    return ir is not None and not found.has_errors


def _write(outputs) -> None:
    for target, text in outputs:
        if target is None:
            sys.stdout.write(text)
        else:
            os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)


def print_ledger(mapped) -> None:
    """The ledger as a table on stderr: every key the script sets, and every default stated explicitly."""
    from rich.console import Console
    from rich.table import Table

    from rftc.emit.yaml import location

    cfg = mapped.cfg
    table = Table(title=f"veRL -> Trinity ledger ({cfg.invocation.script if cfg.invocation else 'overrides'})")
    for col in ("veRL key", "value", "where", "outcome", "Trinity key / note"):
        table.add_column(col, overflow="fold")
    keys = list(dict.fromkeys([*cfg.user_keys(), *mapped.ledger]))
    for key in keys:
        e = mapped.ledger.get(key)
        if e is None:
            continue
        if not cfg.user_set(key) and e.status != "mapped":
            continue
        value = cfg.get(key, None)
        table.add_row(key, str(value), location(cfg.prov(key).span) if cfg.user_set(key) else "default",
                      e.status, ", ".join(e.targets) or e.note)
    Console(stderr=True, width=int(os.environ.get("COLUMNS", 160))).print(table)
