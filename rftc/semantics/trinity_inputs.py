"""The inputs of a Trinity-RFT 0.6 RL run (rftc.semantics.trinity): its models, training tasksets and reward
arguments, from Trinity's expansion of the config. ``view_inputs`` writes them as ``view``'s keys (the tasksets as
one list of the fields read here, as Trinity's own expansion reports them: tests/trinity_ref), ``inputs``
computes the quantities."""

from __future__ import annotations

from rftc.mapping.trinity_fields import SELECTOR_FIELDS
from rftc.plugins import WORKFLOW
from rftc.semantics.inputs import (ALL_ROWS, IN_FILE_ORDER, SHUFFLED, Order, data_path, reward_arguments,
                                   trinity_files)
from rftc.semantics.model import Value
from rftc.semantics.model_settings import RM, trinity_model
from rftc.semantics.sft_verl import template_text
from rftc.semantics.verl_inputs import columns_text

TASKSETS = "buffer.explorer_input.tasksets"
NUMPY = "numpy default_rng"  # Trinity's selectors draw from np.random.default_rng(seed + epoch or index)
MODEL_KEYS = ("model.model_path", "model.critic_model_path", "model.custom_chat_template", "model.enable_thinking")
# the fields of a taskset the quantities read; Trinity adds checkpoint_job_dir to workflow_args, which no reward
# reads
TASKSET_FIELDS = ("name", "storage_type", "path", "split", "subset_name", "format", "data_selector",
                  "default_workflow_type", "default_reward_fn_type", "workflow_args", "reward_fn_args")
# what rftc's veRL reward workflow reads of a taskset's format (its prompt column, a system prompt; Trinity's task
# reader the per-row workflow and reward columns): another workflow may read any of the rest
WORKFLOW_FORMAT = ("prompt_key", "system_prompt", "workflow_key", "reward_fn_key")
PIPELINE = "data_processor.task_pipeline"
# what Trinity's task pipeline hands Data-Juicer (trinity/buffer/pipelines/task_pipeline.py), num_process aside
PIPELINE_FIELDS = ("operators", "config_path", "inputs", "target_fields", "priority_weights", "top_k")
INJECTED = ("checkpoint_job_dir",)


def view_inputs(x, put, where) -> None:
    """``view``'s model and taskset keys of the expanded config ``x``."""
    for key in MODEL_KEYS:
        put(key, getattr(x.model, key.split(".", 1)[1]))
    if x.model.custom_chat_template is None and x.model.chat_template_path:
        put("model.custom_chat_template", _template_file(x.model.chat_template_path),
            where("model.chat_template_path"))
    put(TASKSETS, [{k: v for k, v in ts.model_dump().items() if k in TASKSET_FIELDS}
                   for ts in x.buffer.explorer_input.tasksets], where(f"{TASKSETS}.0.path"))
    put(PIPELINE, _pipeline(x), where(PIPELINE))


def _pipeline(x) -> dict | None:
    """The task pipeline Trinity's launcher runs before the run starts, where it writes the training data (its
    output unset, or at the data's path): an RL run's first training taskset (the explorer reads tasksets in modes
    explore and both; colocate runs no pipeline), an SFT run's experience buffer (mode train). Data-Juicer's
    operators over its inputs."""
    p = x.data_processor.task_pipeline
    if x.algorithm.algorithm_type == "sft":
        target, modes = x.buffer.trainer_input.experience_buffer, ("train",)
    else:
        target, modes = next(iter(x.buffer.explorer_input.tasksets), None), ("explore", "both")
    if p is None or target is None or x.mode not in modes:
        return None
    if p.output is not None and p.output.path != target.path:
        return None
    return {k: v for k, v in p.model_dump().items() if k in PIPELINE_FIELDS}


def _template_file(path: str) -> str:
    """The template Trinity's validator reads from model.chat_template_path (from where `trinity run` starts)."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return f"the template in {path} (not readable here)"


def inputs(v, val, of, *, reference: bool, critic: bool) -> dict[str, Value]:
    """TrainingRun's model, data and reward-argument quantities of ``view``'s keys ``v`` (``val``, ``of``:
    from_trinity's readers); ``reference``: a KL term in the loss or reward; ``critic``: a value model."""
    tasksets = val(TASKSETS, [])
    system = per_taskset(tasksets, _system_prompt)
    return dict(
        **trinity_model(v, val, of, reference=reference, critic=critic),
        chat_template=of(_rendering(val) + (f", system prompt {system}" if system not in (None, "none") else ""),
                         f"{RM}.chat_template", f"{RM}.enable_thinking", f"{RM}.model_path", TASKSETS),
        data=_data(tasksets, val(PIPELINE), of),
        data_columns=of(per_taskset(tasksets, _columns), TASKSETS),
        max_samples=Value(ALL_ROWS, "Trinity 0.6's tasksets (no field limits the rows read)"),
        data_order=of(_order(tasksets), TASKSETS),
        reward_kwargs=of(per_taskset(tasksets, _reward_kwargs), TASKSETS),
    )


def _rendering(val) -> str:
    """The template the rollout engine renders the prompts with (trinity/common/models/model.py
    apply_chat_template): explorer.rollout_model's chat_template and enable_thinking (the model's where unset), and
    the tokenizer of explorer.rollout_model.model_path where that is not the model's, as
    rftc.semantics.verl_inputs names veRL's model.tokenizer_path."""
    text = template_text(val(f"{RM}.chat_template"), {"enable_thinking": val(f"{RM}.enable_thinking")})
    engine, path = data_path(str(val(f"{RM}.model_path"))), data_path(str(val("model.model_path")))
    return f"tokenizer {engine}, {text}" if val(f"{RM}.model_path") and engine != path else text


def _data(tasksets: list[dict], pipeline: dict | None, of) -> Value:
    """The tasksets' files (a store other than a file named by its type), and the task pipeline that writes the
    first one's."""
    files = trinity_files([(t["path"] if str(t.get("storage_type") or "file") == "file" else
                            f"{t['storage_type']}:{t['path']}", t["split"], t.get("subset_name")) for t in tasksets])
    if pipeline is None:
        return of(files, TASKSETS)
    return of(f"{files}, the first written by Data-Juicer's task pipeline {pipeline}", TASKSETS, PIPELINE)


def _system_prompt(t: dict) -> str:
    """The system prompt the taskset's workflow puts before each prompt (format.system_prompt; rftc's veRL reward
    workflow before a prompt without one)."""
    prompt = (t.get("format") or {}).get("system_prompt")
    return repr(prompt) if prompt else "none"


def per_taskset(tasksets: list[dict], value):
    """``value`` of the tasksets where they agree, else each taskset's by name."""
    values = [value(t) for t in tasksets]
    if not values:
        return None
    if all(v == values[0] for v in values):
        return values[0]
    return "; ".join(f"taskset {t['name']}: {v}" for t, v in zip(tasksets, values))


def _columns(t: dict) -> str:
    """As rftc.semantics.verl_inputs' for rftc's veRL reward workflow; another workflow by the format's prompt and
    response keys."""
    fmt = t.get("format") or {}
    if t.get("default_workflow_type") == WORKFLOW:
        return columns_text(fmt.get("prompt_key"), (t.get("workflow_args") or {}).get("reward_fn_key")
                            or "data_source")
    rest = ", ".join(f"{k}: {v}" for k, v in fmt.items() if k not in WORKFLOW_FORMAT and v is not None)
    return f"prompt: {fmt.get('prompt_key')}" + (f", {rest}" if rest else "")


def _order(tasksets: list[dict]) -> Order | None:
    """Each taskset's selector (sequential: in file order; shuffle: shuffled every epoch); several tasksets are
    interleaved at random each epoch (trinity/buffer/task_scheduler.py TasksetScheduler.build_orders), which for
    shuffled tasksets is one shuffle of all their rows."""
    orders = [_selector(t.get("data_selector") or {}) for t in tasksets]
    if not orders:
        return None
    if len(orders) == 1:
        return orders[0]
    if all(o.kind == SHUFFLED for o in orders):
        return Order(SHUFFLED, NUMPY, tuple(o.seed for o in orders))
    return Order("tasksets interleaved at random each epoch, each " + ", ".join(map(str, orders)))


def _selector(sel: dict) -> Order:
    kind = sel.get("selector_type") or "sequential"
    if kind == "sequential":
        return Order(IN_FILE_ORDER)
    if kind == "shuffle":
        return Order(SHUFFLED, NUMPY, sel.get("seed"))
    reads = SELECTOR_FIELDS.get(kind, ("seed", "feature_keys", "kwargs"))
    by = "".join(f", {k} {sel.get(k)}" for k in ("feature_keys", "kwargs") if k in reads)
    return Order(f"{kind} selector{by}", NUMPY if "seed" in reads else "", sel.get("seed") if "seed" in reads else None)


def _reward_kwargs(t: dict):
    """rftc's veRL reward workflow: the workflow_args it reads as veRL's reward does
    (rftc.semantics.inputs.reward_arguments); another workflow: its workflow_args and reward_fn_args."""
    args = {k: v for k, v in (t.get("workflow_args") or {}).items() if k not in INJECTED}
    if t.get("default_workflow_type") == WORKFLOW:
        crf = args.get("custom_reward_function") or {}
        return reward_arguments(crf.get("reward_kwargs") if crf.get("path") else None,
                                args.get("reward_manager") or "naive",
                                {k: args[k] for k in ("overlong_buffer_cfg", "max_resp_len") if k in args})
    extra = {k: v for k, v in (("workflow_args", args), ("reward_fn_args", t.get("reward_fn_args"))) if v}
    return extra or "none"
