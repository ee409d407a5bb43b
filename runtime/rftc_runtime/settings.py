"""What the runtime reads from a Trinity-RFT 0.6 config: a view over the config IR as Trinity runs it
(rftc.trinity.expand: what Trinity's validator fills in, from the same rules ``rftc check`` applies), with the
worker settings Trinity's trainer builds (rftc.trinity.workers). No default or rule of Trinity's is written here.
Imports no heavy package: ``rftc run --dry-run`` builds its plan from this.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from operator import attrgetter

from rftc.trinity import registry, workers
from rftc.trinity.expand import expand, stage_configs, with_model_path
from rftc.trinity.schema import ExperienceBufferConfig, TasksetConfig, TrinityConfig
from rftc_runtime.synchronizer import FixedSchedule


def _at(path: str) -> property:
    """The value at ``path`` (dotted) of the config as Trinity runs it."""
    value = attrgetter(path)
    return property(lambda self: value(self.config))


@dataclass(frozen=True)
class Settings:
    given: TrinityConfig  # the config as written (validated)
    config: TrinityConfig  # as Trinity runs it
    source: str = "<config>"
    actor: workers.Actor = field(default_factory=workers.Actor)
    critic: workers.Critic | None = None  # set exactly when the algorithm trains a critic
    stages: tuple[Settings, ...] = ()  # each stage's settings, in order (Trinity's stages)
    stage_name: str | None = None

    @classmethod
    def of(cls, given: TrinityConfig, source: str = "<config>", stage_name: str | None = None) -> Settings:
        if given.stages:
            stages = tuple(cls.of(c, source, name) for name, c in stage_configs(given))
            return replace(cls.of(given.model_copy(update={"stages": []}), source), given=given, stages=stages)
        config = expand(given)
        for ts in config.buffer.explorer_input.tasksets + config.buffer.explorer_input.eval_tasksets:
            ts.workflow_args = _pinned(ts.workflow_args)
        algo = registry.ALGORITHMS.get(config.algorithm.algorithm_type)
        return cls(given, config, source, workers.actor(config),
                   workers.critic(config) if algo is not None and algo.use_critic else None, stage_name=stage_name)

    def starting_from(self, model_path: str) -> Settings:
        """This stage's settings with the previous stage's checkpoint as its model."""
        return Settings.of(with_model_path(self.given, model_path), self.source, self.stage_name)

    # the parts of the config the runtime reads, under the names it uses
    algorithm = _at("algorithm")
    mode = _at("mode")
    model_path = _at("model.model_path")
    max_model_len = _at("model.max_model_len")
    max_prompt_tokens = _at("model.max_prompt_tokens")
    max_response_tokens = _at("model.max_response_tokens")
    continue_from_checkpoint = _at("continue_from_checkpoint")
    batch_size = _at("buffer.batch_size")
    experiences_per_step = _at("buffer.train_batch_size")
    total_epochs = _at("buffer.total_epochs")
    explore_total_steps = _at("buffer.total_steps")
    engine_num = _at("explorer.rollout_model.engine_num")
    tensor_parallel_size = _at("explorer.rollout_model.tensor_parallel_size")
    enforce_eager = _at("explorer.rollout_model.enforce_eager")
    dtype = _at("explorer.rollout_model.dtype")
    seed = _at("explorer.rollout_model.seed")
    gpu_memory_utilization = _at("explorer.rollout_model.gpu_memory_utilization")
    eval_interval = _at("explorer.eval_interval")
    eval_on_startup = _at("explorer.eval_on_startup")
    save_interval = _at("trainer.save_interval")
    train_total_steps = _at("trainer.total_steps")
    grad_clip = _at("trainer.grad_clip")
    save_hf_checkpoint = _at("trainer.save_hf_checkpoint")
    max_checkpoints_to_keep = _at("trainer.max_checkpoints_to_keep")
    use_remove_padding = _at("trainer.use_remove_padding")
    sync_method = _at("synchronizer.sync_method")
    sync_style = _at("synchronizer.sync_style")
    sync_offset = _at("synchronizer.sync_offset")
    monitor_type = _at("monitor.monitor_type")
    gpu_per_node = _at("cluster.gpu_per_node")
    node_num = _at("cluster.node_num")

    @property
    def trainer_strategy(self) -> str:
        return self.config.trainer.trainer_strategy.lower()

    @property
    def taskset(self) -> TasksetConfig | None:
        """The training taskset (Trinity's first; this runtime trains on one)."""
        tasksets = self.config.buffer.explorer_input.tasksets
        return tasksets[0] if tasksets else None

    @property
    def eval_tasksets(self) -> list[TasksetConfig]:
        return self.config.buffer.explorer_input.eval_tasksets

    @property
    def sft_data(self) -> ExperienceBufferConfig | None:
        """The dataset of algorithm_type sft: buffer.trainer_input.experience_buffer, read by Trinity's sft
        formatter (format.prompt_type messages: chat messages under messages_key; plaintext: prompt/response)."""
        eb = self.config.buffer.trainer_input.experience_buffer
        return eb if self.algorithm.algorithm_type == "sft" and eb is not None and eb.path else None

    @property
    def needs_reference(self) -> bool:
        a = self.algorithm
        return a.kl_loss_fn != "none" or a.kl_penalty_fn != "none"

    @property
    def checkpoint_job_dir(self) -> str:
        c = self.config
        root = os.path.abspath(c.checkpoint_root_dir or "checkpoints")
        return os.path.join(root, *[p for p in (c.project, c.group, c.name) if p])

    def schedule(self) -> FixedSchedule:
        s = self.config.synchronizer
        return FixedSchedule(s.sync_interval, s.sync_offset, s.explorer_sync_interval, s.trainer_sync_interval)


def _pinned(args: dict) -> dict:
    """A relative custom reward file is the launch's (veRL reads it from where it starts): pinned here, before
    the explorer's process, whose working directory may differ, loads it."""
    crf = dict(args.get("custom_reward_function") or {})
    if crf.get("path") and not os.path.isabs(os.path.expanduser(crf["path"])):
        return {**args, "custom_reward_function": {**crf, "path": os.path.abspath(crf["path"])}}
    return args
