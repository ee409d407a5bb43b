"""How a Trinity-RFT 0.6 config reads and renders its rows, in the semantic model (rftc.semantics.data has the veRL
side): the quantities Trinity has no setting for take the "off" values a veRL launch that leaves them off has; the
media a workflow gives the model come from the taskset's format; an SFT run's experience buffer is read from its
storage and subset, in its selector's order. ``view_data`` writes the fields read here as ``view``'s keys."""

from __future__ import annotations

from rftc.plugins import DISTILL_WORKFLOW, WORKFLOW
from rftc.semantics.data import NO_CLASS, NO_PF_PPO, TEMPLATE_TURNS
from rftc.semantics.model import Value
from rftc.semantics.trinity_inputs import TASKSETS, per_taskset
from rftc.trinity.registry import WORKFLOWS

TS = "buffer.explorer_input.tasksets.0"
EB = "buffer.trainer_input.experience_buffer"
# Trinity's workflows that give the model a row's media: format.image_key and video_key
# (trinity/common/workflows/simple_mm_workflow.py SimpleMMWorkflow.reset); its other workflows read none
MEDIA_WORKFLOWS = ("simple_mm_workflow", "async_simple_mm_workflow")
TEXT_ONLY = "none (the prompt's text only)"


def view_data(x, put, where) -> None:
    """``view``'s keys of the expanded config ``x`` read here: the first training taskset's response cap
    (rollout_args.max_tokens, which Trinity's validator fills in from model.max_response_tokens), the experience
    buffer's subset and selector."""
    ts = x.buffer.explorer_input.tasksets[0] if x.buffer.explorer_input.tasksets else None
    if ts is not None:
        key = f"{TS}.rollout_args.max_tokens"
        put(key, ts.rollout_args.max_tokens, where(key) if not where(key).endswith("(Trinity's default)")
            else where("model.max_response_tokens"))
    eb = x.buffer.trainer_input.experience_buffer
    if eb is not None:
        put(f"{EB}.subset_name", eb.subset_name)  # its storage: rftc.semantics.buffer's view (what the trainer reads)
        put(f"{EB}.data_selector", eb.data_selector.model_dump(), where(f"{EB}.data_selector"))


def trinity_data_fields(val, of) -> dict[str, Value]:
    """TrainingRun's quantities of how the config reads its rows (``val``, ``of``: from_trinity's readers)."""
    return dict(dataset_class=Value(NO_CLASS, "Trinity's task reader (no dataset class of the user's)"),
                media=_media(val(TASKSETS, []), of),
                tokenization=Value(TEMPLATE_TURNS, "Trinity's models render each turn with the chat template"),
                pf_ppo=Value(NO_PF_PPO, "Trinity-RFT 0.6 has no preference-feedback PPO"))


def _media(tasksets: list[dict], of) -> Value:
    """The columns each taskset's workflow gives a prompt's media from: Trinity's multimodal workflows read
    format.image_key and video_key (none where unset), processed by the model's processor as it comes; rftc's veRL
    reward and distillation workflows and Trinity's other workflows give the model the prompt's text only, which matters where the
    format names media columns (the rows carry media: rftc convert writes them where the launch names them), and
    a taskset whose format names none has no such quantity (rftc diff compares it where both runs have it); another
    workflow may read them."""
    def media(t: dict) -> str | None:
        workflow, fmt = t.get("default_workflow_type"), t.get("format") or {}
        named = [(what, fmt[k]) for what, k in (("images", "image_key"), ("videos", "video_key")) if fmt.get(k)]
        if workflow in MEDIA_WORKFLOWS:
            return ", ".join(f"{what} from column {column}" for what, column in named) or "none"
        text_only = workflow in (WORKFLOW, DISTILL_WORKFLOW) or workflow in WORKFLOWS  # rftc's send chat messages
        if workflow is None or text_only and not named:
            return None
        if text_only:
            return TEXT_ONLY
        return f"unknown (workflow {workflow} may read format.image_key, video_key)"

    if all(media(t) is None for t in tasksets):
        return Value(None, "no workflow reads a media column of the tasks")
    return of(per_taskset(tasksets, lambda t: media(t) or "none (names no media column)"), TASKSETS)


def sft_data(file: str, path: str, storage, subset) -> str:
    """The experience buffer's rows as the reader opens them: ``file``, the split's file of a dataset folder; a store
    other than a file by its type and ``path`` (trinity/buffer/buffer.py get_buffer_reader); the dataset's subset
    (trinity/buffer/reader/file_reader.py: load_dataset(path, name=subset_name, split=split))."""
    where = file if str(storage or "file") == "file" else f"{storage}:{path}"
    return where + (f" (subset {subset})" if subset else "")
