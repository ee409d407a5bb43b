"""Mode and algorithm rules (GlobalConfigValidator, MonitorConfigValidator, AlgorithmConfigValidator)."""

from __future__ import annotations

from rftc.trinity import registry
from rftc.trinity.checks._util import first_set, lookup, suggest

ALG = ("algorithm",)


def check(ctx, cfg, d) -> None:
    if cfg.mode not in registry.MODES:
        ctx.add("RFTC410", f"Invalid mode: {cfg.mode}", ("mode",),
                hint=suggest(cfg.mode, registry.MODES, "modes: " + ", ".join(registry.MODES)))
    lookup(ctx, "RFTC412", cfg.monitor.monitor_type, registry.MONITORS, ("monitor", "monitor_type"),
           "monitors: " + ", ".join(registry.MONITORS))
    a = cfg.algorithm
    lookup(ctx, "RFTC411", a.algorithm_type, registry.ALGORITHMS, ALG + ("algorithm_type",),
           "algorithms: " + ", ".join(registry.ALGORITHMS))
    for field, table in registry.FUNCTION_FIELDS.items():
        lookup(ctx, "RFTC412", getattr(a, field), table, ALG + (field,), f"{field}: " + ", ".join(table))
    if d.algorithm is not None and d.algorithm.name in registry.OFFLINE_ALGORITHMS:
        _offline(ctx, cfg, d)


def _offline(ctx, cfg, d) -> None:
    """SFT/CPT/DPO check_config: train mode with an experience file, checkpoint sync every save_interval."""
    label = registry.OFFLINE_ALGORITHMS[d.algorithm.name]
    where = ALG + ("algorithm_type",)
    if cfg.mode in ("both", "explore"):
        ctx.add("RFTC413", f"{label.upper()} does not support `{cfg.mode}` mode", first_set(ctx, ("mode",), where),
                hint="set `mode: train` and read the data from buffer.trainer_input.experience_buffer")
    if cfg.mode == "train":
        eb = cfg.buffer.trainer_input.experience_buffer
        if eb is None or not eb.path:
            ctx.add("RFTC414", "`buffer.trainer_input.experience_buffer.path` is required when "
                    f"`algorithm.algorithm_type == {label}`",
                    first_set(ctx, ("buffer", "trainer_input", "experience_buffer"), where))
    s = cfg.synchronizer
    if ctx.is_set(("synchronizer", "sync_method")) and s.sync_method != "checkpoint":
        ctx.add("RFTC416", f"{d.algorithm.name} forces `synchronizer.sync_method` to checkpoint (was {s.sync_method})",
                ("synchronizer", "sync_method"))
    if d.sync_interval <= 0:
        ctx.add("RFTC415", "`sync_interval` must be positive. (for "
                f"{d.algorithm.name}, Trinity sets synchronizer.sync_interval = trainer.save_interval = "
                f"{cfg.trainer.save_interval})", first_set(ctx, ("trainer", "save_interval"), where),
                hint="set `trainer.save_interval` (steps between checkpoints)")
    if d.algorithm.name == "dpo":
        if ctx.is_set(ALG + ("repeat_times",)) and cfg.algorithm.repeat_times != 2:
            ctx.add("RFTC416", f"DPO forces `algorithm.repeat_times` to 2 (was {cfg.algorithm.repeat_times})",
                    ALG + ("repeat_times",))
        if cfg.algorithm.kl_loss_fn == "none":
            ctx.add("RFTC416", "DPO must use KL loss: Trinity replaces `kl_loss_fn: none` with k2",
                    ALG + ("kl_loss_fn",))
