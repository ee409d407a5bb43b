"""The config as Trinity-RFT 0.6.0 runs it: what its validator (check_and_update, trinity-0.6.md §2) writes into a
config before anything runs, and the stages as its ``Config.__iter__`` runs them. ``rftc run`` reads these; the
values come from rftc.trinity.derive, where their rules are written once (the checks read the same).

    expand(cfg)          the config after Trinity's validator (a copy; ``cfg`` is left as written)
    stage_configs(cfg)   [(stage name, the stage's whole config)] for a config with ``stages``
"""

from __future__ import annotations

from rftc.trinity import registry
from rftc.trinity.derive import derive
from rftc.trinity.schema import TasksetConfig, TrinityConfig

# Trinity's StageConfig: the sections a stage replaces whole (trinity/common/config.py, Config.__iter__).
STAGE_SECTIONS = ("mode", "algorithm", "buffer", "data_processor", "explorer", "trainer")


def expand(cfg: TrinityConfig) -> TrinityConfig:
    """A copy of ``cfg`` with what Trinity's validator fills in: the length window, the algorithm's functions and
    the arguments each is built with (rftc.trinity.registry.arguments), experiences per trainer step, the sync
    method and intervals, the evaluation interval, the critic's model, the deprecated warmup_style and
    task_selector read as their replacements, every taskset completed from explorer_input and the model
    (name, workflow, reward, sampling, repeat_times, batch size), and the experience buffer's format from the
    model's chat template and thinking switch (BufferConfigValidator._check_trainer_input)."""
    d = derive(cfg)
    x = cfg.model_copy(deep=True)
    m = x.model
    lengths = d.lengths
    m.max_model_len, m.max_prompt_tokens = lengths.max_model_len, lengths.max_prompt_tokens
    m.max_response_tokens, m.min_response_tokens = lengths.max_response_tokens, lengths.min_response_tokens
    m.critic_model_path = m.critic_model_path or m.model_path
    a = x.algorithm
    a.loss_agg_mode, a.repeat_times = d.loss_agg_mode, d.repeat_times
    for field, name in d.functions.items():
        setattr(a, field, name)
        given = getattr(a, f"{field}_args")
        if given is None and d.algorithm is not None:
            given = d.algorithm.default(f"{field}_args")
        args = registry.arguments(field, name, given)
        # Trinity overwrites the loss's loss_agg_mode with the algorithm's only where the arguments it builds the
        # loss with (as given, else default_args()) name one: otherwise the constructor's default stays
        if field == "policy_loss_fn" and "loss_agg_mode" in (args if given is None else given):
            args["loss_agg_mode"] = a.loss_agg_mode
        setattr(a, f"{field}_args", args)
    if a.optimizer.warmup_style is not None:
        a.optimizer.lr_scheduler_type = a.optimizer.warmup_style
    x.buffer.train_batch_size = d.train_batch_size or 0
    s = x.synchronizer
    s.sync_method, s.sync_interval = d.sync_method, d.sync_interval
    s.explorer_sync_interval, s.trainer_sync_interval = d.explorer_sync_interval, d.trainer_sync_interval
    x.explorer.eval_interval = d.eval_interval
    ei = x.buffer.explorer_input
    train = ([ei.taskset] if ei.taskset is not None else []) + ei.tasksets
    ei.taskset = None
    ei.tasksets = [_taskset(t, i, x, is_eval=False) for i, t in enumerate(train)]
    ei.eval_tasksets = [_taskset(t, i, x, is_eval=True) for i, t in enumerate(ei.eval_tasksets)]
    eb = x.buffer.trainer_input.experience_buffer
    if eb is not None:  # the experience buffer's formatter renders with the model's template and switch where unset
        f = eb.format
        f.chat_template = m.custom_chat_template if f.chat_template is None else f.chat_template
        f.enable_thinking = m.enable_thinking if f.enable_thinking is None else f.enable_thinking
    return x


def _taskset(ts: TasksetConfig, index: int, x: TrinityConfig, *, is_eval: bool) -> TasksetConfig:
    """A taskset as Trinity's buffer validator completes it (trinity-0.6.md §1.4, §2.6): sampling left unset
    takes the model's (top_k is never None, so it is never inherited), train tasksets repeat each task
    algorithm.repeat_times times, and workflow and reward fall back to explorer_input's defaults (for eval
    tasksets default_eval_workflow_type first)."""
    ei, model, buffer = x.buffer.explorer_input, x.model, x.buffer
    ts.name = ts.name or (f"eval_taskset_{index}" if is_eval else f"taskset_{index}")
    ts.index, ts.is_eval, ts.batch_size = index, is_eval, buffer.batch_size
    if ts.task_selector is not None:
        ts.data_selector = ts.task_selector
    r = ts.rollout_args
    r.temperature = model.temperature if r.temperature is None else r.temperature
    r.top_p = model.top_p if r.top_p is None else r.top_p
    r.logprobs = model.logprobs if r.logprobs is None else r.logprobs
    r.max_tokens = model.max_response_tokens if r.max_tokens is None else r.max_tokens
    fallback = (ei.default_eval_workflow_type or ei.default_workflow_type) if is_eval else ei.default_workflow_type
    ts.default_workflow_type = ts.default_workflow_type or fallback
    ts.default_reward_fn_type = ts.default_reward_fn_type or ei.default_reward_fn_type
    if not is_eval:
        ts.repeat_times = x.algorithm.repeat_times
        ts.total_epochs, ts.total_steps = buffer.total_epochs, buffer.total_steps
    r.n = ts.repeat_times
    return ts


def stage_data(data: dict, index: int) -> tuple[dict, set[str]]:
    """Stage ``index`` of a config as read from its file: the global sections with the ones the stage sets
    replaced whole, and the names of those the stage sets."""
    raw = data["stages"][index]
    own = {k for k in STAGE_SECTIONS if isinstance(raw, dict) and raw.get(k) is not None}
    merged = {k: v for k, v in data.items() if k != "stages"}
    merged.update({k: raw[k] for k in own})
    return merged, own


def stage_configs(cfg: TrinityConfig) -> list[tuple[str, TrinityConfig]]:
    """Each stage's whole config as Trinity runs it: the stage's sections replace the global ones, the run is
    named <name>/<stage_name>, and save_hf_checkpoint is forced to last (the next stage starts from that
    checkpoint)."""
    data = cfg.model_dump(exclude_unset=True)
    out = []
    for i, stage in enumerate(cfg.stages):
        merged, _ = stage_data(data, i)
        if stage.stage_name:
            merged["name"] = f"{cfg.name}/{stage.stage_name}"
        merged["trainer"] = {**merged.get("trainer", {}), "save_hf_checkpoint": "last"}
        out.append((stage.stage_name, TrinityConfig.model_validate(merged)))
    return out


def with_model_path(cfg: TrinityConfig, path: str) -> TrinityConfig:
    """A stage's config starting from ``path`` (the previous stage's Hugging Face checkpoint), as Trinity replaces
    model.model_path before validating the stage (so an unset critic_model_path follows it)."""
    x = cfg.model_copy(deep=True)
    x.model.model_path = path
    return x
