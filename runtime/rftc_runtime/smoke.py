"""`rftc run --smoke`: the same config made small enough for a CPU, run for a few steps, with a report.

What the smoke config changes, and nothing else:
- models: the policy's, the critic's and the auxiliary models' paths become the bundled tiny model (or a model
  directory given with --smoke-model);
- data: each taskset (and an SFT dataset) becomes its first rows where its file is readable, else rows generated
  with the columns the config reads (the prompt, the answer, the reward's ground truth);
- sizes: tasks per explorer step and experiences per trainer step shrink by one factor, so responses per task,
  trainer steps per explorer step, the sync interval and offset stay as written; lengths are capped; a few
  explorer steps;
- checkpoints go to the smoke folder, and the run resumes from its own checkpoint: it stops halfway, then starts
  again from there.

The substitutions that change what is trained are exactly what `rftc diff ORIGINAL SMOKE` reports: `rftc run
--smoke` (rftc.commands.run.smoke_changes) lists them from rftc diff itself.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from rftc.plugins import WORKFLOW
from rftc.trinity.schema import TrinityConfig

TASKS = 2  # at least this many tasks per explorer step, where the ratios allow it
PROMPT_TOKENS, RESPONSE_TOKENS = 128, 16  # the length caps
SFT_SAMPLES = 4  # samples per SFT step, at most
SFT_STEPS = 4
QUESTION = "What is {a} + {b}? Reply with only the number."
# veRL's default_compute_score dispatches on the row's data source; generated rows name one it scores
# (verl.utils.reward_score: GSM8K's answer after "####", or the last number)
VERL_DATA_SOURCE = "openai/gsm8k"
UNCHECKED = (
    "the original model's weights, tokenizer and chat template (the smoke model's are used)",
    "learning: a few steps of a tiny model say nothing about the reward curve",
    "full lengths: prompts and responses are capped",
    "the rows after the first ones, and the real data where it was generated",
    "GPU memory, speed, CUDA kernels, NCCL and tensor/sequence parallelism (the run is on the CPU)",
    "the cluster's placement over several nodes and GPUs (one trainer rank and one explorer on this machine)",
)


@dataclass
class Smoke:
    config: TrinityConfig  # the smoke config, as written
    folder: Path
    original: Path  # the original config as YAML, for rftc diff
    written: Path  # the smoke config as YAML
    notes: list[tuple[str, str]] = field(default_factory=list)  # (what, how), the substitutions in words
    unchecked: list[str] = field(default_factory=lambda: list(UNCHECKED))  # what a smoke run cannot check
    first_run_steps: list[int] = field(default_factory=list)  # per stage: trainer steps before the restart

    def report_lines(self) -> list[str]:
        return [f"  {what:<12} {how}" for what, how in self.notes]


def prepare(given: TrinityConfig, original: Path, *, model: Path, folder: Path) -> Smoke:
    """The smoke config of ``given`` (read from the YAML file ``original``) in ``folder``: data files under
    folder/data, checkpoints under folder/checkpoints, the config as folder/smoke.yaml. Each stage of a config with
    stages is shrunk as the config Trinity runs for it (its own sections, else the global ones)."""
    import copy

    import yaml

    from rftc.trinity.expand import STAGE_SECTIONS, stage_data

    folder.mkdir(parents=True, exist_ok=True)
    data = given.model_dump(exclude_unset=True, mode="json")
    smoke = Smoke(given, folder, original, folder / "smoke.yaml")
    _models(data, str(model), smoke)
    _lengths(data.setdefault("model", {}), smoke, _window(model))
    stages = data.get("stages") or []
    for i, stage in enumerate(stages):
        merged = copy.deepcopy(stage_data(data, i)[0])
        _shrink(merged, smoke, folder / "data", f"stage {stage.get('stage_name') or i + 1}: ", f"{i}-")
        stage.update({k: merged[k] for k in STAGE_SECTIONS if k in merged and k != "mode"})
    if not stages:
        _shrink(data, smoke, folder / "data", "", "")
    data["checkpoint_root_dir"] = str(folder / "checkpoints")
    data["continue_from_checkpoint"] = True
    smoke.notes.append(("checkpoints", f"under {folder / 'checkpoints'}; the run stops halfway and resumes from "
                                       "its own checkpoint"))
    smoke.config = TrinityConfig.model_validate(data)
    smoke.written.write_text(f"# the smoke config of {original} (rftc run --smoke): `rftc diff {original} "
                             f"{smoke.written}` says what it trains differently\n"
                             + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return smoke


def _models(data: dict, model: str, smoke: Smoke) -> None:
    m = data.setdefault("model", {})
    was = m.get("model_path") or "(unset)"
    m["model_path"] = model
    changed = ["policy"]
    if m.get("critic_model_path"):
        m["critic_model_path"] = model
        changed.append("critic")
    for aux in (data.get("explorer") or {}).get("auxiliary_models", []):
        aux["model_path"] = model
        changed.append("auxiliary")
    for key in ("tokenizer_path", "chat_template_path", "custom_chat_template"):
        if m.pop(key, None) is not None:
            changed.append(f"{key} dropped")
    smoke.notes.append(("model", f"{was} (unchanged)" if was == model and len(changed) == 1 else
                         f"{was} -> {model} ({', '.join(changed)})"))


def _window(model: Path) -> int:
    """The smoke model's context window (its config's max_position_embeddings), else the caps' sum."""
    try:
        return int(json.loads((model / "config.json").read_text(encoding="utf-8"))["max_position_embeddings"])
    except (OSError, ValueError, KeyError, TypeError):
        return PROMPT_TOKENS + RESPONSE_TOKENS


def _lengths(m: dict, smoke: Smoke, window: int) -> None:
    """Prompts of at most PROMPT_TOKENS and responses of at most RESPONSE_TOKENS, within the smoke model's
    window."""
    caps = []
    prompt = max(1, min(PROMPT_TOKENS, window - RESPONSE_TOKENS))
    for key, cap in (("max_prompt_tokens", prompt), ("max_response_tokens", RESPONSE_TOKENS)):
        if m.get(key) is None or m[key] > cap:
            caps.append(f"{key.split('_')[1]} {m.get(key) or 'unset'} -> {cap}")
            m[key] = cap
    if m.get("max_model_len") is not None and m["max_model_len"] > prompt + RESPONSE_TOKENS:
        caps.append(f"context {m['max_model_len']} -> {prompt + RESPONSE_TOKENS}")
        m["max_model_len"] = prompt + RESPONSE_TOKENS
    if caps:
        smoke.notes.append(("lengths", ", ".join(caps) + " tokens"))


def _shrink(cfg: dict, smoke: Smoke, data_dir: Path, prefix: str, files: str) -> None:
    """One config as Trinity runs it (a stage's: its sections merged over the global ones) made small: sizes
    (``_sizes``), the taskset's response caps, its data (``_data``)."""
    buffer = cfg.setdefault("buffer", {})
    algorithm = (cfg.get("algorithm") or {}).get("algorithm_type", "ppo")
    trainer = cfg.setdefault("trainer", {})
    trainer.pop("total_steps", None)
    if str(trainer.get("trainer_strategy", "")).startswith("megatron"):
        trainer["trainer_strategy"] = "fsdp2"
        smoke.notes.append(("engine", f"{prefix}megatron -> fsdp2: Megatron does not run on a CPU; its parallel "
                                      "sizes only place the model, and what its optimizer trains differently is "
                                      "in the list below"))
        smoke.unchecked.append("the Megatron engine (the smoke run trains with veRL's FSDP engine)")
    if algorithm == "sft":
        t = buffer.get("train_batch_size") or SFT_SAMPLES
        buffer["train_batch_size"], buffer["total_steps"] = min(t, SFT_SAMPLES), SFT_STEPS
        smoke.notes.append(("sizes", f"{prefix}{t} -> {buffer['train_batch_size']} samples a step, {SFT_STEPS} "
                                     "steps"))
        smoke.first_run_steps.append(SFT_STEPS // 2)
        _micro_batches(trainer, buffer["train_batch_size"])
        eb = (buffer.get("trainer_input") or {}).get("experience_buffer")
        if eb is not None:
            _one(eb, buffer["train_batch_size"] * SFT_STEPS, data_dir / f"{files}sft", smoke,
                 f"{prefix}SFT dataset", sft=True)
        return
    b, n = buffer.get("batch_size", 1), (cfg.get("algorithm") or {}).get("repeat_times", 1)
    t = buffer.get("train_batch_size") or b * n
    sync = cfg.get("synchronizer") or {}
    si, offset = sync.get("sync_interval", 1), sync.get("sync_offset", 0)
    b2, t2 = _shrunk(b, t)
    explore_steps = si + offset + 1  # a weight sync, and a step generated with the synced weights
    buffer.update(batch_size=b2, total_steps=explore_steps)
    if t2 != b2 * n:
        buffer["train_batch_size"] = t2
    else:
        buffer.pop("train_batch_size", None)
    train_steps = explore_steps * b2 * n // t2
    smoke.first_run_steps.append(max(1, train_steps // 2))
    _micro_batches(trainer, t2)
    g = math.gcd(b * n, t)
    smoke.notes.append(("sizes", f"{prefix}{b} -> {b2} tasks an explorer step, {t} -> {t2} experiences a trainer "
                                 f"step (kept: {n} responses a task, {b * n // g}/{t // g} trainer step(s) an "
                                 f"explorer step, sync interval {si}, offset {offset}); {explore_steps} explorer "
                                 f"steps, {train_steps} trainer steps"))
    ei = buffer.get("explorer_input") or {}
    train = [*ei.get("tasksets", []), *([ei["taskset"]] if ei.get("taskset") else [])]
    for ts in train + ei.get("eval_tasksets", []):
        args = ts.get("rollout_args") or {}
        if args.get("max_tokens") is not None and args["max_tokens"] > RESPONSE_TOKENS:
            args["max_tokens"] = RESPONSE_TOKENS
    for i, ts in enumerate(train):
        _one(ts, b2 * explore_steps, data_dir / f"{files}train-{i}", smoke,
             f"{prefix}taskset {ts.get('name') or i}")
    for i, ts in enumerate(ei.get("eval_tasksets", [])):
        _one(ts, b2, data_dir / f"{files}eval-{i}", smoke, f"{prefix}eval taskset {ts.get('name') or i}")


def _shrunk(b: int, t: int) -> tuple[int, int]:
    """Tasks per explorer step ``b`` and experiences per trainer step ``t`` divided by one factor: b*n/t (the
    trainer steps of an explorer step) stays. The smallest such pair with at least TASKS tasks (or b)."""
    g = math.gcd(b, t)
    step = b // g
    b2 = min(b, step * max(1, math.ceil(TASKS / step)))
    return b2, t * b2 // b


def _micro_batches(trainer: dict, experiences: int) -> None:
    """Micro-batch sizes larger than the step, or that do not divide it, become the largest divisor below them
    (numerically the same training: micro-batches only split the gradient's sum)."""
    tc = trainer.get("trainer_config") or {}
    for section in ((tc.get("actor_rollout_ref") or {}).get("actor") or {}, tc.get("critic") or {},
                    (tc.get("actor_rollout_ref") or {}).get("rollout") or {}, (tc.get("actor_rollout_ref") or {}).get(
                        "ref") or {}):
        for key in [k for k in section if k.endswith("micro_batch_size_per_gpu") or k.endswith("micro_batch_size")]:
            size = section[key]
            if isinstance(size, int) and size > 0 and experiences % size:
                section[key] = max(d for d in range(1, min(size, experiences) + 1) if experiences % d == 0)


def _one(ts: dict, n: int, folder: Path, smoke: Smoke, what: str, sft: bool = False) -> None:
    """``ts`` (a taskset or an experience buffer) reads ``n`` rows from ``folder``/SPLIT.jsonl: the first rows of
    its own data where readable, else generated ones."""
    from rftc_runtime import tasksets

    source, split = ts.get("path"), ts.get("split", "train")
    try:
        rows = tasksets.first_rows(source, split, ts.get("subset_name"), n) if source else []
        why = f"{source} has no rows"
    except (OSError, ValueError):
        rows, why = [], f"{source} is not here"
    if rows:
        how = f"the first {len(rows)} row(s) of {source}"
    else:
        rows, columns = _generated(ts, n, sft)
        how = f"{len(rows)} row(s) generated, columns {', '.join(columns)} ({why if source else 'no path'})"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{split}.jsonl").write_text("".join(json.dumps(r, default=str) + "\n" for r in rows),
                                          encoding="utf-8")
    ts["path"] = str(folder)
    ts.pop("subset_name", None)
    if ts.get("storage_type", "file") != "file":
        ts["storage_type"] = "file"
    smoke.notes.append(("data", f"{what}: {how}"))


def _generated(ts: dict, n: int, sft: bool) -> tuple[list[dict], list[str]]:
    """Single-digit additions under the columns the config reads: the prompt (chat messages where rftc's veRL
    reward workflow reads veRL's layout, else a string), the answer (format.response_key), and for that workflow
    the reward's ground truth (reward_model.ground_truth), its data source column and extra_info (else the data
    source veRL's dispatch reads where the taskset names no reward function); an SFT dataset's messages or prompt
    and response."""
    fmt = ts.get("format") or {}
    pairs = [(i % 10, (i * 7 + 3) % 10) for i in range(n)]
    if sft:
        if fmt.get("prompt_type", "messages") == "messages":
            key = fmt.get("messages_key", "message")
            return [{key: [{"role": "user", "content": QUESTION.format(a=a, b=b)},
                           {"role": "assistant", "content": str(a + b)}]} for a, b in pairs], [key]
        p, r = fmt.get("prompt_key", "prompt"), fmt.get("response_key", "response")
        return [{p: QUESTION.format(a=a, b=b), r: str(a + b)} for a, b in pairs], [p, r]
    prompt, answer = fmt.get("prompt_key", "prompt"), fmt.get("response_key", "response")
    verl = ts.get("default_workflow_type") == WORKFLOW
    rows = []
    args = ts.get("workflow_args") or {}
    source_key = args.get("reward_fn_key") or "data_source"
    custom = bool((args.get("custom_reward_function") or {}).get("path"))
    for i, (a, b) in enumerate(pairs):
        q = QUESTION.format(a=a, b=b)
        row = {answer: str(a + b)}
        if verl:
            row.update({prompt: [{"role": "user", "content": q}], source_key: "smoke" if custom else VERL_DATA_SOURCE,
                        "reward_model": {"style": "rule", "ground_truth": str(a + b)}, "extra_info": {"index": i}})
        else:  # a reward function by name, or veRL's data-source dispatch where the taskset names none
            row.update({prompt: q, "data_source": VERL_DATA_SOURCE})
        rows.append(_nested(row))
    columns = [prompt, answer] + ([source_key, "reward_model.ground_truth", "extra_info"] if verl else
                                  ["data_source"])
    return rows, columns


def _nested(row: dict) -> dict:
    """A dotted column name (format keys may reach into nested columns) as the nested record it names."""
    out: dict = {}
    for key, value in row.items():
        *parents, last = key.split(".")
        node = out
        for p in parents:
            node = node.setdefault(p, {})
        node[last] = value
    return out


@dataclass
class Ran:
    """What a smoke run did, from its metrics (``<job>/monitor/metrics.jsonl``) and checkpoints."""

    lines: list[str]
    problems: list[str]  # what makes the smoke run fail: a non-finite loss, a reward function that never ran...


def reward_of(settings) -> str:
    """The training taskset's reward function, in words."""
    ts = settings.taskset
    crf = (ts.workflow_args or {}).get("custom_reward_function") or {}
    if crf.get("path"):  # pinned to an absolute path when the config loaded (rftc_runtime.settings)
        path = os.path.relpath(crf["path"]) if crf["path"].startswith(os.getcwd() + os.sep) else crf["path"]
        return f"{path}:{crf.get('name') or 'compute_score'}"
    return ts.default_reward_fn_type or f"the default of workflow {ts.default_workflow_type}"


def what_ran(job: Path, first_run_steps: int, sft: bool, resumes: bool = True, reward: str = "") -> Ran:
    """The steps of both runs (the first stopped at ``first_run_steps`` and checkpointed, the second resumed from
    it; a stage before the last runs once, to ``first_run_steps``), the reward function's calls and values, the
    losses and gradient norms, the weight syncs."""
    from rftc_runtime import checkpoints

    path = job / "monitor" / "metrics.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()] \
        if path.is_file() else []
    steps = sorted({r["step"] for r in records if r.get("step")})
    lines, problems = [], []
    if not steps:
        return Ran([], [f"no trainer step was logged in {path}"])
    resumed = [s for s in steps if s > first_run_steps]
    saved = checkpoints.latest(job)
    lines.append(f"steps        run 1: trainer steps 1-{first_run_steps}, checkpoint written; run 2: resumed from "
                 f"it, steps {resumed[0]}-{resumed[-1]}" if resumed else f"steps        1-{steps[-1]}")
    if resumes and not resumed:
        problems.append(f"the second run did not resume after step {first_run_steps}")
    lines.append(f"checkpoint   {saved}" if saved else "checkpoint   none")
    if saved is None:
        problems.append(f"no checkpoint in {job}")
    if not sft:
        calls = sum(int(r.get("rollout/reward_calls", 0)) for r in records)
        errors = sum(int(r.get("rollout/reward_fn_errors", 0)) for r in records)
        low = min((r["rollout/reward_min"] for r in records if "rollout/reward_min" in r), default=None)
        high = max((r["rollout/reward_max"] for r in records if "rollout/reward_max" in r), default=None)
        lines.append(f"reward       {reward} scored the {calls} trained response(s), {errors} raised; values seen "
                     f"{low} to {high}")
        if not calls or errors == calls:
            problems.append("the reward function never returned a value" + (
                f" ({errors} call(s) raised: see {path})" if errors else ""))
        syncs = sum(1 for r in records if "time/sync" in r)
        lines.append(f"weight sync  {syncs} time(s)")
        if not syncs:
            problems.append("the trainer's weights never reached the explorer")
    finite = {}
    for r in records:
        for k, v in r.items():
            if isinstance(v, (int, float)) and ("loss" in k or k.endswith("grad_norm")):
                finite[k] = finite.get(k, True) and math.isfinite(v)
    lines.append("losses       " + (", ".join(f"{k} {'finite' if ok else 'NOT FINITE'}" for k, ok in sorted(
        finite.items())) or "none logged"))
    problems += [f"{k} was not finite at some step (see {path})" for k, ok in finite.items() if not ok]
    if not finite:
        problems.append("no loss was logged")
    return Ran(lines, problems)


def default_folder(config: TrinityConfig) -> Path:
    root = Path(os.environ.get("RFTC_SMOKE_DIR", Path.home() / ".cache" / "rftc" / "smoke"))
    return root / "-".join(p for p in (config.project, config.name.replace("/", "_")) if p)
