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
The quantities whose values differ are printed with both values, where each came from (file:line and key) and what
the difference does to training. Nothing is printed when they train the same.

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
    from rftc.commands.common import exit_code, launch_options, report
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
        sys.stdout.write(_table(result, sys.stdout.isatty() and args.color != "never" or args.color == "always"))
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


def _table(result, color: bool) -> str:
    """One row per difference: the quantity, A's value and origin, B's value and origin, what it does."""
    a, b = (s.path + (f" (stage {s.stage})" if s.stage else "") for s in (result.a, result.b))
    head = ("quantity", f"A: {a}", "from", f"B: {b}", "from", "what it does to training")
    rows = [(q.label, str(a), a.source, str(b), b.source, q.effect) for q, a, b in result.differences]
    if color:
        import io

        from rich.console import Console
        from rich.table import Table

        table = Table(show_lines=True)
        for column in head:
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*row)
        out = io.StringIO()
        Console(file=out, force_terminal=True).print(table)
        return out.getvalue()
    widths = [max(len(r[i]) for r in [head[:5], *[r[:5] for r in rows]]) for i in range(5)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(head[:5], widths)) + "  " + head[5]]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5] for r in rows]
    return "\n".join(lines) + "\n"
