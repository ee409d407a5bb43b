"""The run plan: actors and their resources, and the batch arithmetic per step, from the settings alone.
Stdlib only, so ``rftc run --dry-run`` starts nothing and imports nothing heavy. Problems that would stop the
run are collected as (code, message, hint, key) instead of being found minutes into it."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class RoleSpec:
    """One trainer role as the driver builds it: a veRL TrainingWorker (rftc_runtime.workers.EngineWorker)
    hosting one FSDP engine, colocated with the other roles in one process per rank."""

    name: str  # actor, ref, critic
    engine: str  # the veRL engine class
    forward_only: bool
    micro_batch_size: int  # per rank, training
    infer_micro_batch_size: int  # per rank, log-probs / values
    gradient_checkpointing: bool


def engine_words(engine: str, strategy: str, compute: str, weights: str, forward_only: bool) -> str:
    return f"{engine} ({strategy}, {compute} compute, {weights} weights" + (", forward only)" if forward_only else ")")


WORKER = "rftc_runtime.workers.EngineWorker"  # veRL's TrainingWorker with the CPU platform's preparation
EXPLORER = "rftc_runtime.explorer.Explorer"


@dataclass
class Plan:
    cpus: int
    gpus: int
    threads: int
    explorer_cpus: int
    explorer_gpus: int
    trainer_cpus: int
    trainer_gpus: int
    experiences_per_explore_step: int
    experiences_per_step: int
    micro_batch_size: int
    taskset_rows: int | None
    total_explore_steps: int | None
    total_train_steps: int
    sync_method: str
    dtype: str  # the rollout engine's dtype
    explorer_tp: int = 1  # each engine's tensor parallel size: the config's on GPUs, 1 on a CPU (one process)
    device: str = "cpu"  # where the trainer's engines run: cuda or cpu
    trainer_ranks: int = 1  # processes (one per GPU) in the trainer's worker group
    trainer_nodes: list = field(default_factory=lambda: [1])  # the ranks on each node (veRL's process_on_nodes)
    engines: int = 1  # the explorer's engines: engine_num, or one on this machine's CPU
    placement: object = None  # rftc_runtime.placement.Placement on a cluster of several nodes
    strategy: str = "fsdp2"  # the FSDP engine's strategy
    train_dtype: str = "float32"  # the engines' compute (mixed precision param) dtype; master weights are fp32
    roles: list = field(default_factory=list)  # RoleSpec per trainer role
    seed: int = 42
    errors: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    infos: list = field(default_factory=list)
    stages: list = field(default_factory=list)  # each stage's Plan, in order, when the config has stages

    def describe(self, s) -> str:
        if self.stages:
            out = [f"config        {s.source}: {len(s.stages)} stage(s), run in order; a finished stage is "
                   f"skipped on restart ({stage_state_path(s)})"]
            for i, (st, plan) in enumerate(zip(s.stages, self.stages)):
                origin = (f"model         the latest Hugging Face checkpoint of stage {s.stages[i - 1].stage_name} "
                          f"(under {s.stages[i - 1].checkpoint_job_dir})")
                out.append(f"\nstage {i + 1}/{len(s.stages)}: {st.stage_name} (mode {st.mode})")
                out.extend("  " + (origin if i and line.startswith("model ") else line)
                           for line in plan.describe(st).splitlines()[1:])
            return "\n".join(out)
        from rftc_runtime.algorithm import policy_agg

        a = s.algorithm
        if a.algorithm_type == "sft":
            return self._describe_sft(s)
        lines = [
            f"config        {s.source}",
            f"model         {s.model_path}",
            f"algorithm     {a.algorithm_type}: advantage {a.advantage_fn}, policy loss {a.policy_loss_fn}, "
            f"kl loss {a.kl_loss_fn}, kl in reward {a.kl_penalty_fn}, entropy {a.entropy_loss_fn}, "
            f"loss_agg_mode {policy_agg(a)}",
            f"resources     {self.cpus} CPU(s), {self.gpus} GPU(s)" + ("  (no GPU: every actor runs on CPU)"
                                                                        if not self.gpus else ""),
            "actors",
            self._explorer_line(s),
            *self._trainer_lines(s, "veRL ppo_loss"),
            f"  precision   rollout {self.dtype}, training {self.train_dtype}" + (
                "" if self.dtype == s.dtype else f" (config: {s.dtype}; {cpu_precision()[1]})"),
            f"  sync        {self.sync_method} {self._sync_cadence(s)}",
            "per step",
            f"  explore     {s.batch_size} task(s) x {a.repeat_times} response(s) = "
            f"{self.experiences_per_explore_step} experiences",
            f"  train       {self.experiences_per_step} experiences -> {s.actor.ppo_epochs} optimizer step(s) of "
            f"{self._micro_batches()}",
            f"  steps       {self.total_train_steps} trainer step(s)"
            + (f" ({self.taskset_rows} task(s) x {s.total_epochs} epoch(s) / {s.batch_size})"
               if self.taskset_rows is not None and s.train_total_steps is None else ""),
            f"  checkpoints {s.checkpoint_job_dir} "
            + (f"every {s.save_interval} step(s) and at the end" if s.save_interval else "at the end")
            + (", resuming when one exists" if s.continue_from_checkpoint else ""),
        ]
        if self.placement is not None:
            lines += ["placement", *self.placement.lines()]
        return "\n".join(lines)

    @staticmethod
    def _sync_cadence(s) -> str:
        sched = s.schedule()
        e, t, off = sched.explorer_interval, sched.trainer_interval, s.sync_offset
        every = f"every {e} step(s)" if e == t else f"every {e} explorer step(s) and {t} trainer step(s)"
        lag = "on-policy" if off == 0 and e == 1 else f"off-policy by up to {e + off - 1} explorer step(s)"
        # the explorer runs `off` steps ahead of the trainer's syncs, so a rollout is trained from weights up to
        # ceil(off / e) updates newer than the ones that generated it
        stale = -(-off // e)
        staleness = ("every rollout trained from the weights that generated it" if stale == 0 else
                     f"staleness: rollouts up to {stale} weight update(s) older than the weights they train")
        return f"{every}, offset {off} ({lag}; {staleness})"

    def _describe_sft(self, s) -> str:
        d = s.sft_data
        f = None if d is None else d.format
        data = "(none)" if d is None else f"{d.path} ({f.prompt_type}: " + (
            f"messages under {f.messages_key!r})" if f.prompt_type == "messages"
            else f"{f.prompt_key!r} -> {f.response_key!r})")
        lines = [
            f"config        {s.source}",
            f"model         {s.model_path}",
            "algorithm     sft: veRL's sft_loss (token-mean NLL of the response tokens), chat template applied",
            f"resources     {self.cpus} CPU(s), {self.gpus} GPU(s)",
            "actors",
            *self._trainer_lines(s, "veRL sft_loss"),
            "  explorer    none (mode train)",
            f"  data        {data}",
            "per step",
            f"  train       {self.experiences_per_step} sample(s) -> 1 optimizer step of {self._micro_batches()}",
            f"  steps       {self.total_train_steps} trainer step(s)"
            + (f" ({self.taskset_rows} sample(s) x {s.total_epochs} epoch(s) / {self.experiences_per_step}, "
               "the last partial batch dropped)" if self.taskset_rows is not None and s.train_total_steps is None
               and s.explore_total_steps is None else ""),
            f"  checkpoints {s.checkpoint_job_dir} "
            + (f"every {s.save_interval} step(s) and at the end" if s.save_interval else "at the end")
            + (" (with a Hugging Face copy at the end)" if s.save_hf_checkpoint in ("last", "always") else "")
            + (", resuming when one exists" if s.continue_from_checkpoint else ""),
        ]
        return "\n".join(lines)

    def _micro_batches(self) -> str:
        per_rank = self.experiences_per_step // self.trainer_ranks
        return (f"{math.ceil(per_rank / self.micro_batch_size)} micro-batch(es) of {self.micro_batch_size}"
                + (f" on each of {self.trainer_ranks} ranks" if self.trainer_ranks > 1 else ""))

    def engine_words(self, role: RoleSpec) -> str:
        """How the plan names a role's engine; the driver builds exactly this (tests/test_runtime_engine.py)."""
        return engine_words(role.engine, self.strategy, self.train_dtype, "float32", role.forward_only)

    def _explorer_line(self, s) -> str:
        if self.gpus:
            where = (f"vllm.LLM on {s.tensor_parallel_size} GPU(s) each"
                     + (" (vLLM's multiprocessing executor for tensor parallelism)" if s.tensor_parallel_size > 1
                        else "") + f", gpu_memory_utilization {s.gpu_memory_utilization:g}, "
                     + ("eager (enforce_eager)" if s.enforce_eager else "CUDA graphs"))
        else:
            where = "vllm.LLM on vLLM's CPU backend, in the actor's process, eager"
        return (f"  explorer    {EXPLORER} x {self.engines}: {where}, {self.dtype}; "
                f"{self.explorer_gpus} GPU(s), {self.explorer_cpus} CPU(s), {self.threads} thread(s)")

    def _trainer_lines(self, s, loss: str) -> list[str]:
        where = (f"{self.trainer_ranks} rank(s) on GPU, NCCL" if self.device == "cuda" else
                 f"{self.trainer_ranks} rank(s) on CPU (veRL platform cpu), gloo, {self.threads} thread(s)")
        lines = [f"  trainer     {WORKER} (veRL TrainingWorker) in a veRL RayWorkerGroup: {where}; each rank is "
                 "one process holding every role (veRL's colocated WorkerDict)"
                 + (f"; trainer_strategy {s.trainer_strategy} runs as {self.strategy} on a CPU"
                    if s.trainer_strategy != self.strategy else "")]
        for role in self.roles:
            if role.name == "actor":
                o = s.algorithm.optimizer
                what = (f"{o.optimizer_type} lr {o.lr:g} {o.lr_scheduler_type}, grad clip {s.grad_clip:g}; loss "
                        f"{loss}; micro-batch {role.micro_batch_size}, log-probs {role.infer_micro_batch_size}")
            elif role.name == "ref":
                what = f"reference model; micro-batch {role.infer_micro_batch_size}"
            else:
                what = self._critic_words(s.critic, role)
            if not role.forward_only:
                what += f"; gradient checkpointing {'on' if role.gradient_checkpointing else 'off'}"
            lines.append(f"    {role.name:<9} {self.engine_words(role)}: {what}")
        return lines

    def _critic_words(self, c, role: RoleSpec) -> str:
        o = c.optimizer
        return (f"value model from {c.model_path} (token classification, 1 label): {o.optimizer_type} "
                f"lr {o.lr:g} {o.lr_scheduler_type}, cliprange_value {c.cliprange_value:g}, loss_agg_mode "
                f"{c.loss_agg_mode}, {c.ppo_epochs} epoch(s) of "
                f"{math.ceil(self.experiences_per_step / self.trainer_ranks / role.micro_batch_size)} "
                f"micro-batch(es) of {role.micro_batch_size}, grad clip {o.clip_grad:g}"
                + (f"; actor updated from step {c.warmup} (critic_warmup)" if c.warmup > 1 else ""))


CPU_BF16 = "RFTC_CPU_BF16"  # 1 or 0: on a CPU, a bfloat16 config trains in bfloat16 or in float32, whatever the CPU


def cpu_precision() -> tuple[str, str]:
    """(dtype, why): what a config asking for bfloat16 computes in on this CPU. bfloat16 where the CPU has it
    natively, float32 elsewhere (emulated bfloat16 was about 2x slower); RFTC_CPU_BF16=1 or 0 decides instead."""
    forced = os.environ.get(CPU_BF16)
    if forced in ("0", "1"):
        return ("bfloat16" if forced == "1" else "float32"), f"{CPU_BF16}={forced}"
    if cpu_has_bf16():
        return "bfloat16", "this CPU has native bfloat16"
    return "float32", "this CPU has no native bfloat16"


def cpu_has_bf16() -> bool:
    """Native bfloat16 matmuls (AVX512-BF16 or AMX); without them bf16 is emulated and many times slower."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = f.read()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def detected_gpus() -> int:
    """NVIDIA GPUs visible here (without importing torch)."""
    import shutil
    import subprocess

    if not shutil.which("nvidia-smi"):
        return 0
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


def _count_rows(path: str, split: str) -> int | None:
    p = Path(path).expanduser()
    files = [p] if p.is_file() else sorted(f for f in p.rglob(f"{split}*") if f.is_file()) if p.is_dir() else []
    total = 0
    for f in files:
        if f.suffix == ".jsonl":
            total += sum(1 for line in f.read_text(encoding="utf-8").splitlines() if line.strip())
        elif f.suffix == ".json":
            data = json.loads(f.read_text(encoding="utf-8"))
            total += len(data if isinstance(data, list) else data.get("data", []))
        elif f.suffix == ".parquet" and importlib.util.find_spec("pyarrow") is not None:
            import pyarrow.parquet as pq

            total += pq.ParquetFile(f).metadata.num_rows
        else:
            return None
    return total if files else None


def _reward_resolvable(name: str | None) -> bool:
    from rftc_runtime.rewards import BUILTIN

    if not name or name in BUILTIN:
        return True
    module = name.partition(":")[0] if ":" in name else name.rpartition(".")[0]
    try:
        return bool(module) and importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _reward_checks(ts, at: str, errors: list) -> None:
    """RFTC511 for a workflow this runtime does not run; RFTC508 for a reward it cannot resolve."""
    from rftc.plugins import WORKFLOW
    from rftc.plugins.reward import VerlReward
    from rftc_runtime.rewards import BUILTIN, WORKFLOWS, argument_error

    workflow, reward_fn = ts.default_workflow_type, ts.default_reward_fn_type
    if workflow is not None and workflow not in WORKFLOWS:
        errors.append(("RFTC511", f"taskset {ts.name}: workflow {workflow} is Trinity's own (its prompts and "
                       "rewards are not reproduced here)", f"use one of {', '.join(WORKFLOWS)} (rftc convert "
                       "writes the last for veRL scripts)", f"{at}.default_workflow_type"))
    elif workflow == WORKFLOW:
        try:
            VerlReward(ts.workflow_args)
        except ValueError as exc:
            errors.append(("RFTC508", f"taskset {ts.name}: {exc}", "fix workflow_args", f"{at}.workflow_args"))
            return
        path = (ts.workflow_args.get("custom_reward_function") or {}).get("path")
        if path and not os.path.isfile(os.path.expanduser(path)):
            errors.append(("RFTC508", f"taskset {ts.name}: the custom reward function file {path} does not exist "
                           f"(from {os.getcwd()})", "run from the directory the launch ran in, or give an absolute "
                           "path", f"{at}.workflow_args.custom_reward_function.path"))
    elif not _reward_resolvable(reward_fn):
        errors.append(("RFTC508", f"reward function {reward_fn!r} cannot be found",
                       f"use a built-in name ({', '.join(BUILTIN)}) or module:function importable from here",
                       f"{at}.default_reward_fn_type"))
    elif problem := argument_error(reward_fn, ts.reward_fn_args):
        errors.append(("RFTC508", problem, "fix reward_fn_args: only the arguments the function takes, with "
                       "usable values", f"{at}.reward_fn_args"))


def stage_state_path(s) -> str:
    """Trinity's stage state file (StateManager.stage_state_path) in the whole run's job directory."""
    return os.path.join(s.checkpoint_job_dir, "stage_meta.json")


def _staged_plan(s, gpus: int | None) -> Plan:
    """One plan per stage; their problems keyed where the stage's YAML sets them (a section the stage does not
    replace is the global one). A later stage's model is the previous stage's checkpoint, not checked here."""
    from rftc.trinity.expand import STAGE_SECTIONS

    plans = [make_plan(st, gpus, model_from_previous_stage=i > 0) for i, st in enumerate(s.stages)]
    merged = dataclasses.replace(plans[0], errors=[], warnings=[], infos=[], stages=plans)
    for i, (st, plan) in enumerate(zip(s.stages, plans)):
        for kind in ("errors", "warnings", "infos"):
            for code, message, hint, key in getattr(plan, kind):
                section = (key or "").split(".")[0]
                if section in STAGE_SECTIONS and getattr(s.given.stages[i], section) is not None:
                    key = f"stages.{i}.{key}"
                getattr(merged, kind).append((code, f"stage {st.stage_name}: {message}", hint, key))
    return merged


SFT_SELECTORS = ("sequential", "shuffle", "random")  # orders rftc_runtime.tasksets.TaskReader makes


def _sft_plan(s, errors: list) -> tuple[int | None, int]:
    """Problems of an algorithm_type sft config (as Trinity's validator finds them); (rows, trainer steps)."""
    where = "buffer.trainer_input.experience_buffer"
    if s.mode != "train":
        errors.append(("RFTC505", f"this runtime cannot run algorithm_type sft in mode {s.mode}",
                       "SFT reads a dataset and has no explorer: set mode: train (Trinity refuses other modes)",
                       "mode"))
    if not s.experiences_per_step:
        errors.append(("RFTC505", "this runtime cannot run algorithm_type sft without buffer.train_batch_size",
                       "set buffer.train_batch_size, the samples per trainer step (Trinity requires it)",
                       "buffer.train_batch_size"))
    rows = None
    if s.sft_data is None:
        errors.append(("RFTC506", f"algorithm_type sft needs {where}.path (the SFT dataset)",
                       f"set {where}.path to a jsonl/parquet file or a dataset directory", "buffer"))
    elif not Path(s.sft_data.path).expanduser().exists():
        errors.append(("RFTC506", f"SFT dataset {s.sft_data.path} does not exist",
                       "generate it first or fix the path", f"{where}.path"))
    else:
        rows = _count_rows(s.sft_data.path, s.sft_data.split)
    selector = s.sft_data.data_selector.selector_type if s.sft_data is not None else "sequential"
    if selector not in SFT_SELECTORS:
        errors.append(("RFTC505", f"this runtime cannot run an SFT dataset with data_selector "
                       f"{selector} ({', '.join(SFT_SELECTORS)} only)", "use one of those data selectors",
                       f"{where}.data_selector.selector_type"))
    # Trinity's file reader drops the last partial batch; buffer.total_steps overrides the epochs.
    steps = s.explore_total_steps
    if steps is None and rows is not None and s.experiences_per_step:
        steps = rows * s.total_epochs // s.experiences_per_step
    if s.train_total_steps:
        steps = min(int(s.train_total_steps), steps) if steps is not None else int(s.train_total_steps)
    return rows, int(steps or 0)


def _explorer_checks(s, gpus: int, errors: list, warnings: list, infos: list) -> tuple[str, int | None]:
    """Problems of the explorer's side (sync, taskset, reward function); (the sync method used, usable rows)."""
    sync_method = s.sync_method
    if not gpus and s.tensor_parallel_size > 1:
        infos.append(("RFTC509", f"tensor_parallel_size {s.tensor_parallel_size} shards the engine over GPUs; on a CPU "
                      "the engine runs unsharded in the explorer's process", "", "explorer.rollout_model."
                      "tensor_parallel_size"))
    if not gpus and sync_method == "nccl":
        infos.append(("RFTC509", "sync_method nccl needs GPUs; weights go through Ray's object store (memory) on "
                      "CPU", "set synchronizer.sync_method: memory (or checkpoint)", "synchronizer.sync_method"))
        sync_method = "memory"
    # Trinity 0.6 runs trainer_driven exactly as fixed unless the weights go over NCCL (its explorer and trainer
    # take the same need_sync branches for both), so that pair runs on the fixed schedule.
    if s.sync_style not in ("fixed", "trainer_driven") or (s.sync_style == "trainer_driven" and sync_method == "nccl"):
        errors.append(("RFTC509", f"sync_style {s.sync_style} with sync_method {sync_method} is not supported by this "
                       "runtime (fixed; trainer_driven with memory or checkpoint sync)",
                       "`rftc run --engine trinity` runs it on Trinity-RFT itself; or use synchronizer.sync_style: "
                       "fixed (with sync_offset for a bounded lag)", "synchronizer.sync_style"))
    rows = None
    if s.taskset is None or not s.taskset.path:
        errors.append(("RFTC506", "the config has no training taskset", "set buffer.explorer_input.taskset.path",
                       "buffer.explorer_input"))
    elif not Path(s.taskset.path).expanduser().exists():
        errors.append(("RFTC506", f"taskset {s.taskset.path} does not exist",
                       "generate it first (examples/ explain how) or fix the path",
                       "buffer.explorer_input.taskset.path"))
    else:
        rows = _count_rows(s.taskset.path, s.taskset.split)
        if s.taskset.path.endswith(".jsonl") and rows:
            missing = _missing_prompt_rows(s.taskset.path, s.taskset.format.prompt_key)
            if missing:
                warnings.append(("RFTC503", f"{missing} of {rows} row(s) have no {s.taskset.format.prompt_key!r} key and "
                                 "will be skipped", "fix the rows or set format.prompt_key",
                                 "buffer.explorer_input.taskset.format.prompt_key"))
                rows -= missing
    for at, ts in [("buffer.explorer_input.taskset", s.taskset),
                   *((f"buffer.explorer_input.eval_tasksets[{i}]", t) for i, t in enumerate(s.eval_tasksets))]:
        if ts is not None:
            _reward_checks(ts, at, errors)
    return sync_method, rows


def make_plan(s, gpus: int | None = None, model_from_previous_stage: bool = False, nodes: list | None = None,
              address: str | None = None) -> Plan:
    """The plan of ``s`` on this machine, or with ``nodes`` (the alive nodes of the Ray cluster at ``address``)
    on that cluster: with cluster.node_num > 1 the actors are placed on its nodes as the config splits them
    (rftc_runtime.placement), a slot being a GPU or, on a cluster without GPUs, one CPU worker."""
    from rftc_runtime.algorithm import ADVANTAGE, ALGORITHM_TYPES, KL, POLICY_LOSS, unsupported

    if s.stages:
        return _staged_plan(s, gpus)
    errors, warnings, infos = [], [], []
    cpus = os.cpu_count() or 1
    cluster = nodes is not None and (s.node_num or 0) > 1
    if cluster:
        gpus = sum(n.gpus for n in nodes)
    else:
        if gpus is None:  # this machine's
            gpus = detected_gpus()
        if (s.node_num or 0) > 1 and address:
            infos.append(("RFTC509", f"cluster.node_num is {s.node_num}: the run places its actors on the nodes of "
                          f"the Ray cluster at {address} when it starts", "", "cluster.node_num"))
        elif (s.node_num or 0) > 1:
            infos.append(("RFTC509", f"cluster.node_num is {s.node_num}: this run is on this machine alone",
                          "rftc run --address ADDR runs it on a Ray cluster of that many nodes", "cluster.node_num"))
    if gpus and s.gpu_per_node:  # the config's cluster, bounded by what there is
        gpus = min(gpus, s.gpu_per_node * max(1, s.node_num))
    # the slots split between the explorer and the trainer: GPUs, or the config's on a cluster without GPUs
    slots = int(gpus or (s.node_num * s.gpu_per_node if cluster else 0))
    explorer_slots = s.engine_num * s.tensor_parallel_size if slots else 0
    explorer_gpus = explorer_slots if gpus else 0
    unit = "GPU(s)" if gpus else "CPU worker slot(s)"
    split: list = []  # the split's own problems: without them the placement can be made
    if cluster and not gpus and not s.gpu_per_node:
        split.append(("RFTC509", f"the Ray cluster at {address} has no GPUs and cluster.gpu_per_node is unset",
                       "set cluster.gpu_per_node: the CPU workers (trainer ranks and engines) of each node",
                       "cluster.gpu_per_node"))
    elif slots and explorer_slots >= slots:
        split.append(("RFTC509", f"the explorer needs {explorer_slots} {unit} and leaves none of the {slots} for "
                       "the trainer", "lower explorer.rollout_model.engine_num or tensor_parallel_size",
                       "explorer.rollout_model.engine_num"))
    per_explore = s.batch_size * s.algorithm.repeat_times
    per_step = s.experiences_per_step
    micro = int(s.actor.micro_batch_size or min(per_step, 16))
    for item in unsupported(s.algorithm):
        key = "algorithm." + item.split(":")[0]
        errors.append(("RFTC505", f"this runtime cannot run {item}",
                       f"supported: algorithm_type {'/'.join(ALGORITHM_TYPES)}; advantage_fn {'/'.join(ADVANTAGE)} "
                       f"(ppo: GAE with the critic of algorithm_type ppo); policy_loss_fn {'/'.join(POLICY_LOSS)}; "
                       f"KL {'/'.join(KL)}; `rftc run --engine trinity` runs it on Trinity-RFT itself", key))
    ops = s.config.data_processor.experience_pipeline.operators
    if ops:
        names = ", ".join(o.name for o in ops)
        errors.append(("RFTC505", f"this runtime cannot run experience operators ({names}): it trains every "
                       "explored experience", "`rftc run --engine trinity` runs it on Trinity-RFT itself",
                       "data_processor.experience_pipeline.operators"))
    sft = s.algorithm.algorithm_type == "sft"
    if not sft and s.mode not in ("both", "colocate"):
        errors.append(("RFTC505", f"this runtime cannot run mode {s.mode}",
                       "it runs an explorer and a trainer together (mode both), or algorithm_type sft in mode train",
                       "mode"))
    model_missing = not s.model_path or not (Path(s.model_path).expanduser() / "config.json").is_file()
    if model_missing and not model_from_previous_stage:
        errors.append(("RFTC507", f"model directory {s.model_path or '(empty)'} has no config.json",
                       "point model.model_path at a Hugging Face model directory; model hubs are not contacted",
                       "model.model_path"))
    if s.critic is not None and s.critic.model_path != s.model_path and not (
            Path(s.critic.model_path).expanduser() / "config.json").is_file():
        errors.append(("RFTC507", f"critic model directory {s.critic.model_path} has no config.json",
                       "point model.critic_model_path at a Hugging Face model directory, or leave it empty to "
                       "start the critic from model.model_path", "model.critic_model_path"))
    if sft:
        explorer_gpus, sync_method, explore_steps = 0, "none", None
        rows, train_steps = _sft_plan(s, errors)
    else:
        sync_method, rows = _explorer_checks(s, gpus, errors, warnings, infos)
        explore_steps = s.explore_total_steps
        if explore_steps is None and rows is not None:
            explore_steps = math.ceil(rows * s.total_epochs / s.batch_size)
        if s.train_total_steps:
            train_steps = int(s.train_total_steps)
        elif explore_steps is not None and per_step:  # none: Trinity refuses the config (RFTC450)
            train_steps = explore_steps * per_explore // per_step
        else:
            train_steps = 0
    trainer_gpus = (gpus - explorer_gpus) if gpus else 0
    # on this machine's CPU one rank: ranks sharing the cores only split the same compute
    ranks = max(1, slots - explorer_slots)
    per_node = min(ranks, s.gpu_per_node or ranks)
    placement = None
    if ranks % per_node:
        split.append(("RFTC509", f"the trainer's {ranks} {unit} are not whole nodes of {per_node}",
                       "give the trainer whole nodes (cluster.gpu_per_node, explorer.rollout_model.engine_num)",
                       "cluster.gpu_per_node"))
    elif cluster and not split:
        from rftc_runtime.placement import assign

        placement, problems = assign(nodes, s.node_num, s.gpu_per_node, s.engine_num, s.tensor_parallel_size,
                                     bool(gpus), address)
        split.extend(problems)
    errors.extend(split)
    dtype = s.dtype if gpus or s.dtype != "bfloat16" else cpu_precision()[0]
    strategy = _strategy_checks(s, gpus, errors)
    if per_step % ranks:
        errors.append(("RFTC509", f"the trainer's {per_step} experiences per step do not split over its {ranks} "
                       f"{unit}", "make buffer.train_batch_size (or batch_size x repeat_times) a multiple of the "
                       "trainer's GPU count, or change the explorer's share", "buffer.train_batch_size"))
    return Plan(cpus=cpus, gpus=gpus, threads=cpus, explorer_cpus=1 if cpus >= 2 or cluster else 0,
                explorer_gpus=explorer_gpus, trainer_cpus=1 if cpus >= 2 or cluster else 0,
                trainer_gpus=trainer_gpus, experiences_per_explore_step=per_explore,
                experiences_per_step=per_step, micro_batch_size=micro, taskset_rows=rows,
                total_explore_steps=explore_steps, total_train_steps=train_steps, sync_method=sync_method,
                dtype=dtype, explorer_tp=s.tensor_parallel_size if gpus else 1, device="cuda" if gpus else "cpu",
                trainer_ranks=ranks, engines=s.engine_num if slots else 1, placement=placement,
                trainer_nodes=[r for _, r in placement.trainer] if placement else [per_node] * max(1, ranks // per_node),
                strategy=strategy,
                # on a GPU veRL's mixed precision computes in bfloat16; on a CPU the rollout's dtype (no native
                # bfloat16 makes it float32: emulated bfloat16 was about 2x slower)
                train_dtype="bfloat16" if gpus else dtype, roles=_roles(s, micro), seed=s.seed,
                errors=errors, warnings=warnings, infos=infos)


def _strategy_checks(s, gpus: int, errors: list) -> str:
    """The FSDP strategy the engines run: trainer.trainer_strategy, except that FSDP1 runs as FSDP2 on a CPU
    (FSDP1 refuses CPU parameters with the sync_module_states veRL sets); megatron is refused."""
    if s.trainer_strategy not in ("fsdp", "fsdp2"):
        errors.append(("RFTC509", f"trainer_strategy {s.trainer_strategy} is not run by this runtime (veRL's FSDP "
                       "engines: fsdp, fsdp2)", "set trainer.trainer_strategy: fsdp2, or run the config with "
                       "Trinity-RFT itself (rftc run --engine trinity)", "trainer.trainer_strategy"))
        return "fsdp2"
    return s.trainer_strategy if gpus else "fsdp2"


def _roles(s, micro: int) -> list[RoleSpec]:
    """The trainer's roles in the order veRL's trainer builds them, with their micro-batch sizes (veRL's
    per-GPU sizes: the log-prob passes take rollout.log_prob_micro_batch_size_per_gpu, the reference its own)."""
    a = s.actor
    infer = int(a.log_prob_micro_batch_size or micro)
    roles = [RoleSpec("actor", "FSDPEngineWithLMHead", False, micro, infer, a.gradient_checkpointing)]
    if s.needs_reference and s.algorithm.algorithm_type != "sft":
        roles.append(RoleSpec("ref", "FSDPEngineWithLMHead", True, micro, int(a.ref_micro_batch_size or infer),
                              a.gradient_checkpointing))
    if s.critic is not None:
        c = int(s.critic.micro_batch_size or micro)
        roles.append(RoleSpec("critic", "FSDPEngineWithValueHead", False, c, c, s.critic.gradient_checkpointing))
    return roles


def _missing_prompt_rows(path: str, key: str) -> int:
    n = 0
    for line in Path(path).expanduser().read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            cur = row
            for part in key.split("."):
                cur = cur.get(part) if isinstance(cur, dict) else None
            n += cur in (None, "", [])
    return n
