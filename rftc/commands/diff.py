"""``rftc diff A B``: what two training configs train differently."""

from __future__ import annotations

DESCRIPTION = """\
Compare what two configs train: A and B are each a veRL launch script (.sh) or a Trinity-RFT config (.yaml; other
files are told apart by their content); with --overrides TEXT, A is that Hydra override text launched as veRL's
main_ppo (as `rftc convert --overrides` reads it, its lines named <overrides>) and the one file given is B. Each becomes the semantic model of its run (docs/diff.md): responses per
optimizer step, optimizer steps per rollout batch, epochs and steps, the learning rate and its schedule, KL, clip
ranges, entropy, loss aggregation, sampling, lengths, staleness, where the old log-probs come from, the reward; for
two SFT runs (veRL's SFT trainers, Trinity's algorithm_type sft) the examples per step, micro-batch, epochs and
steps, the schedule, max length, LoRA, the data and which tokens get loss.
A config with stages is never trained as written: --stage NAME (or its 1-based position) compares that stage as
Trinity runs it, the config with the stage's sections laid over it (a stage after the first starts from the
checkpoint the stage before it saves, known only when it has run).
The quantities whose values differ are printed under their group's heading, each with both values, where each came
from (file:line and key) and what the difference does to training, wrapped to the terminal's width (100 columns in
a file or a pipe). Nothing is printed when they train the same. Every key of every bundled veRL release and every
Trinity-RFT field feeds one of the quantities, or trains nothing (docs/diff.md, docs/mapping.md).

exit codes: 0 same training, 1 something training-relevant differs (or a side has no run, or an SFT run meets an
RL one: RFTC600, or a config with stages is given no --stage: RFTC604),
2 usage error (an unknown --stage among them)"""

EPILOG = """examples:
  rftc diff run.sh ppo.yaml            does the converted config still train what the script trained?
  rftc diff a.yaml b.yaml --format json
  rftc diff sft.sh pipeline.yaml --stage sft
  rftc diff --overrides 'algorithm.adv_estimator=grpo data.train_batch_size=512' ppo.yaml"""


def add_arguments(p) -> None:
    from rftc.commands.common import add_launch_options, add_report_options

    p.add_argument("a", help="a veRL launch script or a Trinity-RFT config (B, with --overrides)")
    p.add_argument("b", nargs="?", help="a veRL launch script or a Trinity-RFT config")
    add_launch_options(p)
    p.add_argument("--stage", metavar="NAME", help="of a Trinity config with stages, the stage to compare (its "
                   "stage_name or 1-based position)")
    g = p.add_argument_group("the LR horizon of a veRL side")
    g.add_argument("--dataset-size", type=int, metavar="ROWS", help="training rows, where the data is not readable")
    g.add_argument("--total-steps", type=int, metavar="N", help="veRL training steps")
    add_report_options(p, default_format="full")


def run(args) -> int:
    import sys

    from rftc import api, compare
    from rftc.commands.common import colored, exit_code, launch_options, report
    from rftc.diagnostics.model import Severity

    try:
        options = launch_options(args, dataset_size=args.dataset_size, total_steps=args.total_steps)
    except api.UsageError as e:
        print(f"rftc diff: {e}", file=sys.stderr)
        return 2
    if (args.overrides is not None) == (args.b is not None):
        print("rftc diff: give two files (a launch script or a Trinity config each), or --overrides TEXT and one",
              file=sys.stderr)
        return 2
    try:
        result = compare.diff(None if args.overrides is not None else args.a, args.b or args.a, options,
                          overrides=args.overrides, stage=args.stage)
    except api.UsageError as e:
        print(f"rftc diff: {e}", file=sys.stderr)
        return 2
    # each side's warnings are rftc lint's and rftc check's to report; the errors say why a side has no run
    kept = report([d for d in result.diagnostics if d.severity is Severity.ERROR], result.sources, args)
    if args.format == "json":
        sys.stdout.write(_json(result) + "\n")
    elif result.differences:
        sys.stdout.write(_table(result, _width(sys.stdout), colored(args, sys.stdout)))
    return 1 if result.differences or exit_code(kept) else 0


def _json(result) -> str:
    import json

    def value(v):
        return {"value": v.value, "source": v.source, "formula": v.formula}

    return json.dumps({
        "a": {"path": result.a.path, "kind": result.a.kind, "stage": result.a.stage},
        "b": {"path": result.b.path, "kind": result.b.kind, "stage": result.b.stage},
        "compared": result.a.run is not None and result.b.run is not None,
        "differences": [{"quantity": q.name, "label": q.label, "a": value(a), "b": value(b), "effect": q.effect}
                        for q, a, b in result.differences],
    }, indent=2, default=str)


# the table's width where the output is no terminal (a file, a pipe), and the least a narrow terminal gets
WIDTH, MIN_WIDTH = 100, 60


def _width(stream) -> int:
    import shutil

    return max(MIN_WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns) if stream.isatty() else WIDTH


def _table(result, width: int, color: bool) -> str:
    """The differences under their group's heading (GROUPS' order; the model's field order within a group), each a
    block: the quantity, A's and B's value each with its origin, and what the difference does to training. Wrapped
    to ``width`` columns, every character kept; the colour form is the same text, styled."""
    from rftc.semantics.model import GROUPS

    lines = []  # each a list of (text, style)
    for side, s in (("A", result.a), ("B", result.b)):
        path = s.path + (f" (stage {s.stage})" if s.stage else "")
        lines += _hang([(f"{side}: ", "bold")], _wrap(path, width - 3), "bold")
    for group in GROUPS:
        rows = [(q, a, b) for q, a, b in result.differences if q.group == group]
        if not rows:
            continue
        lines += [[], [(f"--- {group} ".ljust(width, "-"), "bold magenta")]]
        for q, a, b in rows:
            lines += [[], [(q.label, "bold")]]
            values = [_lines(str(v), width - 5) for v in (a, b)]
            short = max(len(v) for vs in values for v in vs) if all(len(vs) == 1 for vs in values) else width
            for side, v, shown in (("A", a, values[0]), ("B", b, values[1])):
                if short <= (width - 12) // 3:  # value and origin side by side
                    head = [(f"  {side}  ", "bold"), (shown[0].ljust(short), "cyan"), ("  from ", "dim")]
                    lines += _hang(head, _origins(v.source, width - short - 12), "dim")
                else:
                    lines += _hang([(f"  {side}  ", "bold")], shown, "cyan")
                    lines += _hang([("       from ", "dim")], _origins(v.source, width - 12), "dim")
            lines += _hang([("  => ", "yellow")], _wrap(q.effect, width - 5), "yellow")
    if not color:
        return "".join("".join(text for text, _ in line).rstrip() + "\n" for line in lines)
    import io

    from rich.console import Console
    from rich.text import Text

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="standard", width=width, soft_wrap=True)
    for line in lines:
        console.print(Text.assemble(*line))
    return out.getvalue()


def _hang(head: list, rest: list[str], style: str) -> list[list]:
    """``rest``'s lines in ``style``, the first after ``head``, the others under it."""
    indent = sum(len(text) for text, _ in head)
    return [(head if i == 0 else [(" " * indent, "")]) + [(text, style)] for i, text in enumerate(rest or [""])]


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken at spaces (a longer word across lines)."""
    import textwrap

    return textwrap.wrap(text, width, break_on_hyphens=False, replace_whitespace=False,
                         expand_tabs=False) or [text]


def _lines(value: str, width: int) -> list[str]:
    """A value's lines (its own line breaks kept), each wrapped."""
    return [part for line in value.split("\n") for part in _wrap(line, width)]


def _origins(source: str, width: int) -> list[str]:
    """An origin list ("a.sh:7 key, a.sh:9 key") in lines broken between its entries where they fit."""
    if not source:
        return ["-"]
    items = source.split(", ")
    lines: list[str] = []
    for i, item in enumerate(items):
        item += "," if i < len(items) - 1 else ""
        if lines and len(lines[-1]) + 1 + len(item) <= width:
            lines[-1] += " " + item
        else:
            lines += _wrap(item, width)
    return lines
