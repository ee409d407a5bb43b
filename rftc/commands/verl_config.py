"""rftc verl-config: the effective veRL config a launch runs, with where every value the launch sets came from."""

from __future__ import annotations

import argparse
import json
import math
import re
import sys

from rftc.commands.common import exit_code, report
from rftc.diagnostics.render import FORMATS

DESCRIPTION = """Print the effective veRL config of a launch script, composed as Hydra would on the bundled verl
schema: YAML with a comment on every value the launch sets (the override and its position) or that follows
one through an interpolation. --format json prints values and provenance; --list lists the launches."""
EPILOG = """examples:
  rftc verl-config run_qwen2-7b_math.sh
  rftc verl-config run.sh --invocation 1 -- trainer.nnodes=2
  rftc verl-config --overrides 'model_engine=megatron trainer.nnodes=2' --format json
  rftc verl-config run.sh --list
"""


def add_arguments(p) -> None:
    from rftc.commands.common import add_launch_options

    p.add_argument("paths", nargs="*", metavar="SCRIPT", help="a launch script ('-' reads stdin)")
    add_launch_options(p)
    p.add_argument("--format", choices=("yaml", "json"), default="yaml", help="output format (default: yaml)")
    p.add_argument("--list", action="store_true", help="list the launches found, one per line")
    p.add_argument("--user-only", action="store_true", help="print only the keys the launch sets")
    g = p.add_argument_group("diagnostics")
    g.add_argument("--diagnostics-format", choices=FORMATS, default="full", help="how diagnostics are printed")
    g.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    g.add_argument("--disable", action="append", default=[], metavar="CODE", help="silence a diagnostic code")
    g.add_argument("--strict", action="store_true", help="treat warnings as errors")


def run(args) -> int:
    from rftc import api
    from rftc.commands.common import launch_options

    if len(args.paths) > 1:
        print("rftc verl-config: give one script", file=sys.stderr)
        return 2
    try:
        opts = launch_options(args)
        inputs = api.read(args.paths, opts, overrides=args.overrides, every_launch=args.list)
    except api.UsageError as exc:
        print(f"rftc verl-config: {exc}", file=sys.stderr)
        return 2
    diags = inputs.diagnostics
    if args.list:
        from rftc.shell.invocation import circumstances

        for inv in inputs.launches:
            print(f"{inv.index}\t{inv.span}\t{inv.kind}\t{inv.module or '(script)'}\t{len(inv.overrides)} overrides\t"
                  f"{circumstances(inv, inputs.launches)}".rstrip("\t"))
        return _report(diags, inputs.sources, args)
    launches = [inv for inv in inputs.launches if api.composable(inv)]
    if not launches:
        for inv in inputs.launches:
            diags.extend(api.verl_config(inv, opts).diagnostics)
        code = _report(diags, inputs.sources, args)
        which = f"no launch #{args.invocation} (see --list)" if args.invocation is not None else \
            "no training launch found"
        print(f"rftc verl-config: {which}", file=sys.stderr)
        return max(code, 1)
    result = api.verl_config(api.first_launch(launches, diags), opts)
    diags.extend(result.diagnostics)
    eff = result.verl
    code = _report(diags, inputs.sources, args)
    if eff is None:
        return max(code, 1)
    sys.stdout.write(to_json(eff, args.user_only) if args.format == "json" else to_yaml(eff, args.user_only))
    return code


def _report(diags, sources, args) -> int:
    view = argparse.Namespace(**{**vars(args), "format": args.diagnostics_format})
    return exit_code(report(sorted(diags, key=lambda d: d.sort_key()), sources, view))


def _prov_dict(p) -> dict:
    out = {"kind": p.kind}
    if p.span is not None:
        out["span"] = {"file": p.span.file, "line": p.span.line, "col": p.span.col,
                       "end_line": p.span.end_line, "end_col": p.span.end_col}
    if p.text is not None:
        out["text"] = p.text
    if p.source_key:
        out["source_key"] = p.source_key
    if p.via:
        out["via"] = [str(s) for s in p.via]
    return out


def _user_tree(eff) -> dict:
    from rftc.verl.overrides.apply import leaves

    keys = set(eff.provenance)
    out: dict = {}
    for key, value in leaves(eff.values, ""):
        if key in keys:
            node = out
            *parents, last = key.split(".")
            for part in parents:
                node = node.setdefault(part, {})
            node[last] = value
    return out


def to_json(eff, user_only: bool = False) -> str:
    values = _user_tree(eff) if user_only else eff.values
    doc = {"verl_version": eff.verl_version, "release": eff.release, "source": eff.source or None,
           "fork_keys": sorted(eff.fork_keys), "config_name": eff.config_name, "version_note": eff.version_note,
           "values": values, "provenance": {k: _prov_dict(p) for k, p in eff.provenance.items()}}
    return json.dumps(doc, indent=2, default=str) + "\n"


_PLAIN = re.compile(r"[A-Za-z_/~][\w./~+-]*( [\w./~+-]+)*")
_RESERVED = {"null", "true", "false", "yes", "no", "on", "off", "y", "n", "~"}


def _scalar(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return ".nan" if math.isnan(v) else (".inf" if v > 0 else "-.inf") if math.isinf(v) else repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str) and _PLAIN.fullmatch(v) and v.lower() not in _RESERVED:
        return v
    return json.dumps(v, ensure_ascii=False)


def _flow(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_scalar(str(k))}: {_flow(x)}" for k, x in v.items()) + "}"
    return _scalar(v)


def _comment(p) -> str:
    where = f" ({p.span})" if p.span is not None else ""
    if p.kind == "derived":
        return f"  # follows {p.source_key}: {p.text}{where}"
    return f"  # {p.text}{where}" if p.kind == "override" else f"  # {p.kind} {p.text}{where}"


def to_yaml(eff, user_only: bool = False) -> str:
    which = f"{eff.config_name} of {eff.source}" if eff.source else f"verl {eff.verl_version}, {eff.config_name}"
    lines = [f"# effective veRL config: {which}", f"# {eff.version_note}"]
    prov = eff.provenance

    def emit(node: dict, prefix: str, indent: int) -> None:
        pad = "  " * indent
        for k, v in node.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, dict) and v:
                lines.append(f"{pad}{_scalar(str(k))}:")
                emit(v, key, indent + 1)
                continue
            p = prov.get(key)
            lines.append(f"{pad}{_scalar(str(k))}: {_flow(v)}" + (_comment(p) if p else ""))

    emit(_user_tree(eff) if user_only else eff.values, "", 0)
    return "\n".join(lines) + "\n"
