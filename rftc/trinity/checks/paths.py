"""Local model and data paths that do not exist (Trinity opens them only when a component starts).
A value is a local path when it starts with /, ./, ../ or ~; a hub id such as `openai/gsm8k` is not checked.
``model.chat_template_path`` is read during validation, so a missing file fails Trinity's check (error)."""

from __future__ import annotations

import os

from rftc.diagnostics.model import Severity


def _local(value) -> bool:
    return isinstance(value, str) and value.startswith(("/", "./", "../", "~"))


def check(ctx, cfg, d) -> None:
    if not ctx.options.path_checks:
        return
    base = ctx.options.base_dir or os.getcwd()
    m = cfg.model
    items = [(("model", "model_path"), m.model_path, "model"), (("model", "critic_model_path"), m.critic_model_path,
                                                                "critic model")]
    items += [(("model", "lora_configs", i, "path"), lc.path, "LoRA adapter") for i, lc in enumerate(m.lora_configs or [])]
    items += [(("explorer", "auxiliary_models", i, "model_path"), a.model_path, "auxiliary model")
              for i, a in enumerate(cfg.explorer.auxiliary_models)]
    ei = cfg.buffer.explorer_input
    sets = ([("taskset", None, ei.taskset)] if ei.taskset else []) + \
        [("tasksets", i, t) for i, t in enumerate(ei.tasksets)] + [("eval_tasksets", i, t) for i, t in enumerate(ei.eval_tasksets)]
    for key, i, t in sets:
        path = ("buffer", "explorer_input", key) + ((i,) if i is not None else ()) + ("path",)
        if t.storage_type == "file":
            items.append((path, t.path, "dataset"))
    eb = cfg.buffer.trainer_input.experience_buffer
    if eb is not None and eb.storage_type == "file":
        items.append((("buffer", "trainer_input", "experience_buffer", "path"), eb.path, "dataset"))
    for name, b in cfg.buffer.trainer_input.auxiliary_buffers.items():
        if b.storage_type == "file":
            items.append((("buffer", "trainer_input", "auxiliary_buffers", name, "path"), b.path, "dataset"))
    for path, value, what in items:
        if _local(value) and path not in ctx.unresolved and not _exists(value, base):
            ctx.add("RFTC481", f"{what} path `{value}` does not exist here", path)
    _job_dir(ctx, cfg)
    tpl = m.chat_template_path
    if tpl and ("model", "chat_template_path") not in ctx.unresolved and not m.custom_chat_template \
            and not os.path.isfile(_abs(tpl, base)):
        ctx.add("RFTC481", f"Failed to read chat template from {tpl} (Trinity reads it during validation)",
                ("model", "chat_template_path"), severity=Severity.ERROR)


def _abs(value: str, base: str) -> str:
    return os.path.join(base, os.path.expanduser(value))


def _exists(value: str, base: str) -> bool:
    return os.path.exists(_abs(value, base))


def _job_dir(ctx, cfg) -> None:
    """Trinity resumes from the latest checkpoint of an existing job directory, or (continue_from_checkpoint:
    false) renames the experiment; either way a rerun does not start the run the file describes afresh."""
    base = ctx.options.base_dir or os.getcwd()  # a relative checkpoint_root_dir is relative to the start directory
    shown = os.path.normpath(os.path.join(cfg.checkpoint_root_dir or ".", cfg.project, cfg.group, cfg.name))
    job = os.path.join(base, shown)
    if not os.path.isdir(job) or not os.listdir(job):
        return
    if cfg.continue_from_checkpoint or cfg.mode == "bench":
        what = "Trinity resumes from the latest checkpoint in it"
    else:
        what = f"continue_from_checkpoint is false, so Trinity renames the experiment to {cfg.name}_<timestamp>"
    ctx.add("RFTC486", f"the job directory {shown} already exists and is not empty: {what}",
            ("continue_from_checkpoint",) if ctx.is_set(("continue_from_checkpoint",)) else ("name",))
