"""Run-level settings: names, cluster, monitor, evaluation start, checkpoints and resumption."""

from __future__ import annotations


import re

from rftc.mapping.draft import ARGS_HINT, ARGUMENT, Draft
from rftc.mapping.offpolicy import schedule

T = "trainer"
MONITORS = ("tensorboard", "wandb", "mlflow", "swanlab")
HYDRA_ONLY = re.compile(r"\$\{(?!oc\.env:)[^}]*\}?'?")  # e.g. ${now:%H-%M}: Trinity has no such resolver
DEFAULT_ROOT = "./checkpoints"  # veRL writes to checkpoints/<project>/<experiment> relative to the CWD
VALIDATES_ONLY = ("sync", "colocate_async", "separate_async", "one_step_off")  # the loops that read val_only


def reads_val_only(sem, loop: str) -> str:
    """Nothing ("") where the launch's trainer returns after its first validation when trainer.val_only is set,
    else why it does not: the release does not read the key (before 0.2: the release fact val_only), or the loop does not.
    The loops that do: ray_trainer.py RayPPOTrainer.fit (main_ppo's; 0.9's main_ppo_v0), v1/trainer_base.py
    PPOTrainer.fit (0.9's v1 sync and async trainers), one_step_off_policy/ray_trainer.py OneStepOffRayTrainer.fit;
    fully_async_trainer.py FullyAsyncTrainer.fit never reads it."""
    if sem.value("val_only") != "read":
        return f"verl {sem.release} does not read val_only"
    return "" if loop in VALIDATES_ONLY else f"veRL's {loop} trainer does not read val_only"


def map_trainer(d: Draft) -> None:
    """project = project_name; name = experiment_name; cluster.node_num / gpu_per_node = nnodes /
    n_gpus_per_node (always written, so Trinity needs no Ray to validate); monitor.monitor_type = the first
    logger Trinity supports (console is always on); explorer.eval_on_startup = val_before_train;
    checkpoint_root_dir = default_local_dir without its trailing <project>/<name> (Trinity appends them),
    ./checkpoints by default; continue_from_checkpoint = resume_mode != disable; trainer.balance_batch;
    trainer.max_checkpoints_to_keep = max_actor_ckpt_to_keep (trainer.critic_warmup: rftc.mapping.loss)."""
    for verl, trinity in (("project_name", "project"), ("experiment_name", "name")):
        key = f"{T}.{verl}"
        v = d.val(key)
        if v is None:
            continue
        d.set(trinity, _without_hydra(d, key, str(v), verl.split("_")[0], "name"), key,
              note="" if d.user(key) else "veRL default")
    for verl, trinity in (("nnodes", "cluster.node_num"), ("n_gpus_per_node", "cluster.gpu_per_node")):
        if d.has(trinity):  # the launcher gave it (rftc.mapping.sft: a torchrun trainer)
            continue
        n = d.number(f"{T}.{verl}", positive=True)
        if n is not None:
            d.set(trinity, n, f"{T}.{verl}", note=d.given_by(f"{T}.{verl}") or (
                "" if d.user(f"{T}.{verl}") else "veRL default"))
    _monitor(d)
    _checkpoints(d)
    key = f"{T}.val_before_train"
    if d.user(key) and d.sem.value("val_before_train") == "always":
        d.implied(key, f"not read by verl {d.sem.release}: it validates before training whatever the key says, "
                  "as Trinity's explorer.eval_on_startup (default true) does")
    elif d.user(key):
        v = d.flag(key)
        if v is not None:
            d.set("explorer.eval_on_startup", v, key)
    key = f"{T}.balance_batch"
    if d.user(key):
        d.set("trainer.balance_batch", d.val(key), key)
    keep = [k for k in (f"{T}.max_actor_ckpt_to_keep", f"{T}.max_critic_ckpt_to_keep") if d.user(k)]
    if keep:
        v = d.val(keep[0])
        d.set("trainer.max_checkpoints_to_keep", 0 if v is None else v, keep[0], note="0 = keep all" if v is None else "")
        for k in keep[1:]:
            if d.val(k) != v:
                d.report("RFTC310", f"{k}={d.fmt_value(k)} differs from {keep[0]}={d.fmt_value(keep[0])}; Trinity "
                         "keeps the same number of checkpoints for every model", k)
            else:
                d.account(k, "mapped", "trainer.max_checkpoints_to_keep")
    key, first = f"{T}.val_only", f"{T}.val_before_train"
    why = reads_val_only(d.sem, schedule(d).loop.name) if d.user(key) else ""
    if d.user(key) and d.flag(key) and why:
        d.implied(key, f"not read: {why}, so the launch trains")
    elif d.user(key) and d.flag(key) and not d.val(first, True):
        d.implied(key, f"not reached: the launch trains, as {first} is off (val_only returns after that validation)")
    elif d.user(key) and d.flag(key):
        d.set("mode", "bench", key, note="evaluation only")
    elif d.user(key):
        d.implied(key, "false: training runs")
    key = f"{T}.device"
    if d.user(key):
        if str(d.val(key)) == "cuda":
            d.implied(key, "Trinity runs on CUDA GPUs")
        else:
            d.report("RFTC300", f"{key}={d.val(key)}: Trinity-RFT 0.6 runs on CUDA GPUs", key)


def _monitor(d: Draft) -> None:
    key = f"{T}.logger"
    v = d.val(key)
    loggers = [v] if isinstance(v, str) else list(v or [])
    supported = [x for x in loggers if x in MONITORS]
    if supported:
        d.set("monitor.monitor_type", supported[0], key,
              note=("console is always on" if "console" in loggers else "") if d.user(key) else "veRL default")
        dropped = [x for x in loggers if x not in ("console", supported[0])]
        if dropped:
            d.report("RFTC309", f"{key}={loggers}: Trinity-RFT 0.6 logs to one monitor; using {supported[0]}, dropping "
                     f"{', '.join(dropped)}", key)
    elif d.user(key):
        unsupported = [x for x in loggers if x != "console"]
        if unsupported:
            d.report("RFTC309", f"{key}={loggers}: Trinity-RFT 0.6 has no {', '.join(unsupported)} monitor; "
                     "using tensorboard (and the console)", key)
        else:
            d.implied(key, "console only: Trinity always logs to the console (and to its default tensorboard)")


def _without_hydra(d: Draft, key: str, v: str, fallback: str, what: str) -> str:
    """``v`` without the Hydra-only interpolations (${now:...}) Trinity's loader cannot resolve, reported."""
    if not HYDRA_ONLY.search(v):
        return v
    plain = HYDRA_ONLY.sub("", v).strip("_-") or fallback
    d.report("RFTC305", f"{key}={v!r} uses a Hydra resolver Trinity's config loader does not have; the {what} "
             f"becomes {plain!r}", key, settles=False)
    return plain


def _checkpoints(d: Draft) -> None:
    key = f"{T}.default_local_dir"
    argument = ARGUMENT.search(str(d.val(key))) if d.user(key) else None
    if argument is not None:  # where checkpoints go, not what is trained: the conversion goes on without it
        d.set("checkpoint_root_dir", DEFAULT_ROOT, key, note=f"assumed: ${argument.group(1)} is not given (RFTC336)")
        d.report("RFTC336", f"{key} is {d.val(key)!r}: ${argument.group(1)} is the script's argument, which rftc is "
                 f"not given; checkpoints go to {DEFAULT_ROOT}/<project>/<name>", key, hint=ARGS_HINT, settles=False)
    elif d.user(key) and d.val(key):
        v = str(d.val(key)).rstrip("/")
        project, name = d.get("project", ""), d.get("name", "")
        root, stripped = v, False
        for tail in (f"/{project}/{name}", "/${trainer.project_name}/${trainer.experiment_name}"):
            if project and name and v.endswith(tail) and len(v) > len(tail):
                root, stripped = v[: -len(tail)], True
                break
        d.set("checkpoint_root_dir", _without_hydra(d, key, root, DEFAULT_ROOT, "folder"), key,
              note="Trinity appends <project>/<name>" + ("" if stripped else "; veRL wrote here directly"))
    elif d.user(key) and d.val(key) == "":
        d.set("checkpoint_root_dir", ".", key, note="empty: veRL writes global_step_N into the directory it runs in; "
              "Trinity appends <project>/<name>")
    else:
        d.set("checkpoint_root_dir", DEFAULT_ROOT, note="veRL's default checkpoints/<project>/<experiment>")
    key = f"{T}.resume_mode"
    if d.user(key):
        mode = str(d.val(key))
        if mode == "disable":
            d.set("continue_from_checkpoint", False, key)
        elif mode == "auto":
            d.set("continue_from_checkpoint", True, key)
        else:
            d.set("continue_from_checkpoint", True, key)
            d.report("RFTC300", f"{key}={mode}: Trinity resumes from the latest checkpoint in "
                     "<checkpoint_root_dir>/<project>/<name>; it cannot resume from a given path", key,
                     hint="copy the checkpoint into the job directory", extra_keys=(f"{T}.resume_from_path",)
                     if d.user(f"{T}.resume_from_path") else ())
    key = f"{T}.resume_from_path"
    if d.user(key) and not d.done(key):
        if d.val(key) in (None, "", "null") or str(d.val(key, "")) == "null":
            d.implied(key, "no path")
        else:
            d.report("RFTC300", f"{key} has no Trinity-RFT 0.6 equivalent: Trinity resumes from the latest "
                     "checkpoint in <checkpoint_root_dir>/<project>/<name>", key)


