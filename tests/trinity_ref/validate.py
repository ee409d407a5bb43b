"""Run trinity-rft 0.6.0's own config loader and validator on many configs in one process.

Runs inside .venv-trinity (scripts/setup-trinity-ref.sh), never inside rftc's venv. For each config:
trinity.common.config.load_config(path) and Config.check_and_update(), exactly as `trinity run` does
before it starts any actor. Prints one JSON line per config on stdout:

    {"path", "ok", "error_type", "message", "undecided", "outside"}

("undecided" says in words what the verdict depends on besides the file, "outside" names the Trinity function
that reached for it: a key of OUTSIDE, or "plugin")

and with --expand also what Trinity derives and would run:

    "derived"       Trinity fields the validator fills in (train_batch_size, eval_interval, GPU split, ...)
    "verl"          the veRL config Trinity would hand its trainer (build_verl_config(), verl 0.8.0 path),
                    flattened to dotted keys
    "trainer_start" {"ok", "error_type", "message"}: veRL's own dataclasses built from that config the way
                    the trainer's workers build them (omega_conf_to_dataclass), which is where unknown
                    trainer_config keys first fail
    "warnings"      what Trinity logged at WARNING or above while checking and expanding

Paths come as arguments, or as a JSON list on stdin when there are none.

Side effects are contained: the validator creates <checkpoint_root_dir>/<project>/<group>/<name>/ and renames
the experiment when that directory is not empty, so each config gets a fresh checkpoint_root_dir in a temporary
directory (set on the loaded config; load_config has already resolved every interpolation, so this is the
same as validating a copy of the file with that one key changed).

Some verdicts depend on more than the file, and are reported with "undecided" naming what Trinity reached for
(see OUTSIDE): a config without cluster.node_num and cluster.gpu_per_node makes Trinity ask a Ray cluster (here
there is none, as on CI); a LoRA adapter without path makes it build a dummy adapter
(trinity.utils.lora_utils.create_dummy_lora: peft, the model's config.json read from model_path, and a randomly
initialised copy of the whole model in memory; no weights are read, but a hub id needs the network);
Tinker asks its service over the network; a function named `pkg.module.Class` is imported from whatever is
installed (a name that cannot be an import path, such as `0.5`, is decided: it never imports).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tempfile

# Trinity's loggers write to stdout; keep stdout for the JSON lines only.
_JSON_OUT = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the legacy path asks the HF hub for model configs otherwise
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

_WARNINGS: list[str] = []
_call_handlers = logging.Logger.callHandlers


def _recording_call_handlers(self, record):
    # Trinity's loggers do not propagate, so record at the one place every record passes through.
    if record.levelno >= logging.WARNING and record.name.startswith("trinity"):
        message = record.getMessage()
        if "NO GPU DETECTED" not in message:  # the memory estimator's notice on a machine with no GPU
            _WARNINGS.append(message)
    return _call_handlers(self, record)


logging.Logger.callHandlers = _recording_call_handlers

DERIVED_FIELDS = [
    "mode", "name", "checkpoint_job_dir",
    "algorithm.algorithm_type", "algorithm.repeat_times", "algorithm.sample_strategy",
    "algorithm.advantage_fn", "algorithm.advantage_fn_args", "algorithm.policy_loss_fn",
    "algorithm.policy_loss_fn_args", "algorithm.kl_loss_fn", "algorithm.kl_loss_fn_args",
    "algorithm.kl_penalty_fn", "algorithm.kl_penalty_fn_args", "algorithm.entropy_loss_fn",
    "algorithm.entropy_loss_fn_args", "algorithm.loss_agg_mode", "algorithm.optimizer.lr_scheduler_type",
    "model.max_model_len", "model.max_prompt_tokens", "model.max_response_tokens", "model.min_response_tokens",
    "cluster.node_num", "cluster.gpu_per_node", "cluster.rollout_gpu_num", "cluster.auxiliary_model_gpu_num",
    "cluster.explorer_gpu_num", "cluster.trainer_gpu_num", "cluster.trainer_node_num",
    "cluster.trainer_gpu_num_per_node",
    "buffer.batch_size", "buffer.train_batch_size", "buffer.total_epochs", "buffer.total_steps",
    "explorer.eval_interval", "explorer.runner_per_model", "explorer.rollout_model.gpu_per_engine",
    "explorer.rollout_model.nnodes", "explorer.rollout_model.gpu_memory_utilization",
    "synchronizer.sync_method", "synchronizer.sync_style", "synchronizer.sync_interval",
    "synchronizer.sync_offset", "synchronizer.explorer_sync_interval", "synchronizer.trainer_sync_interval",
    "trainer.trainer_strategy", "trainer.total_steps", "trainer.save_interval", "trainer.max_token_len_per_gpu",
    "trainer.ulysses_sequence_parallel_size", "trainer.critic_warmup", "algorithm.sample_strategy_args",
    "explorer.rollout_model.engine_type", "buffer.explorer_input.tasksets.0.repeat_times",
    "buffer.explorer_input.tasksets.0.rollout_args.top_k", "buffer.explorer_input.tasksets.0.default_workflow_type",
    "buffer.explorer_input.tasksets.0.default_reward_fn_type",
    "model.model_path", "model.critic_model_path", "model.custom_chat_template", "model.enable_thinking",
    "buffer.explorer_input.tasksets",
    "data_processor.experience_pipeline.operators", "explorer.rollout_model.seed", "explorer.rollout_model.ignore_eos",
    "explorer.rollout_model.repetition_penalty", "explorer.rollout_model.min_response_tokens",
    "explorer.rollout_model.model_path", "explorer.rollout_model.max_model_len",
    "explorer.rollout_model.rope_scaling", "explorer.rollout_model.rope_theta", "explorer.rollout_model.chat_template",
    "explorer.rollout_model.enable_thinking", "model.rope_theta", "algorithm.enable_router_replay",
    "explorer.auxiliary_models",
]


def _plain(value):
    """JSON-safe form of a config value (enums by value, dataclasses and containers recursively)."""
    import dataclasses
    import enum

    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def _get(obj, dotted):
    for part in dotted.split("."):
        if isinstance(obj, list):
            obj = obj[int(part)] if int(part) < len(obj) else None
        else:
            obj = getattr(obj, part, None)
    return obj


def _flatten(value, prefix="", out=None):
    out = {} if out is None else out
    if isinstance(value, dict) and value:
        for key, sub in value.items():
            _flatten(sub, f"{prefix}.{key}" if prefix else str(key), out)
    else:
        out[prefix] = value
    return out


# Where Trinity reaches outside the config: the function a failure passes through -> what the verdict depends on.
OUTSIDE = {
    "_set_cluster_info": "the Ray cluster's size (cluster.node_num / gpu_per_node unset)",
    "create_dummy_lora": "the model (a LoRA adapter without path: Trinity builds a dummy adapter on a randomly "
                         "initialised copy of the whole model, from the config.json at model_path, with peft)",
    "get_server_capabilities": "the Tinker service (network)",
    "plugin": "the Python environment (a class named by its import path, as plugins are)",
}


def _plugin_path(frame) -> bool:
    """A registry lookup of a name the registry does not have, that could name an importable class (Trinity
    imports `pkg.module.Class` names): whether it imports depends on what is installed, not on the config."""
    code, local = frame.f_code, frame.f_locals
    if code.co_name != "get" or not code.co_filename.endswith(os.path.join("trinity", "utils", "registry.py")):
        return False
    key = local.get("module_key")
    return (isinstance(key, str) and "." in key and key not in local["self"]._default_mapping
            and all(part.isidentifier() for part in key.split(".")))


def _outside(exc: BaseException) -> str | None:
    """The key of OUTSIDE the failure passed through, if any."""
    if isinstance(exc, ModuleNotFoundError) and exc.name == "tinker":  # the client Trinity imports to ask it
        return "get_server_capabilities"
    frame = exc.__traceback__
    while frame is not None:
        if frame.tb_frame.f_code.co_name in OUTSIDE:
            return frame.tb_frame.f_code.co_name
        if _plugin_path(frame.tb_frame):
            return "plugin"
        frame = frame.tb_next
    return None


def _error(exc: BaseException) -> dict:
    return {"error_type": type(exc).__name__, "message": str(exc)}


def _ref_as_actor(verl_config):
    """The ref section as verl 0.8.0's ActorRolloutRefWorker.init_model renames it before building it."""
    from omegaconf import open_dict

    ref = verl_config.ref.copy()
    with open_dict(ref):
        ref.ppo_mini_batch_size = verl_config.actor.ppo_mini_batch_size
        ref.ppo_micro_batch_size = ref.pop("log_prob_micro_batch_size", None)
        ref.ppo_micro_batch_size_per_gpu = ref.pop("log_prob_micro_batch_size_per_gpu", None)
        ref.use_dynamic_bsz = ref.pop("log_prob_use_dynamic_bsz", False)
        ref.ppo_max_token_len_per_gpu = ref.pop("log_prob_max_token_len_per_gpu", None)
    return ref


def _expand(config) -> dict:
    """The veRL config Trinity's trainer would build, and whether veRL accepts it."""
    from omegaconf import OmegaConf

    from trinity.algorithm import ALGORITHM_TYPE
    from trinity.trainer.trainer import is_verl_legacy

    if config.mode not in ("train", "both", "colocate") or config.trainer.trainer_type != "verl":
        return {}
    if is_verl_legacy():
        raise RuntimeError("the reference environment must have verl >= 0.8 (scripts/setup-trinity-ref.sh)")
    from trinity.trainer.verl.config import build_verl_config
    from verl.utils.config import omega_conf_to_dataclass

    verl_config = build_verl_config(config)
    result = {"verl": _plain(_flatten(OmegaConf.to_container(verl_config, resolve=True)))}
    # The sections the trainer's workers turn into veRL dataclasses (model needs the weights: skipped).
    sections = ["actor", "rollout"]
    algorithm = ALGORITHM_TYPE.get(config.algorithm.algorithm_type)
    if algorithm.use_reference:
        sections.append("ref")
    if algorithm.use_critic:
        sections.append("critic")
    try:
        for section in sections:
            node = verl_config[section]
            if section == "ref":
                node = _ref_as_actor(verl_config)
            omega_conf_to_dataclass(node)
        result["trainer_start"] = {"ok": True, "error_type": None, "message": None}
    except Exception as exc:  # veRL's own rejection, whatever its type
        result["trainer_start"] = {"ok": False, "section": section, **_error(exc)}
    return result


def validate(path: str, expand: bool, scratch: str) -> dict:
    from trinity.common.config import load_config

    record = {"path": path, "ok": False, "error_type": None, "message": None, "undecided": None, "outside": None}
    _WARNINGS.clear()
    try:
        config = load_config(path)
        config.checkpoint_root_dir = tempfile.mkdtemp(dir=scratch)
        config.check_and_update()
        record["ok"] = True
        if expand:
            record["derived"] = {key: _plain(_get(config, key)) for key in DERIVED_FIELDS}
            record.update(_expand(config))
    except Exception as exc:  # Trinity's verdict is whatever it raises, of any type
        if not record["ok"]:
            outside = _outside(exc)
            record.update(_error(exc), undecided=OUTSIDE.get(outside), outside=outside)
        else:
            record["expand_error"] = _error(exc)
    record["warnings"] = list(_WARNINGS)
    return record


def _without_local_ray(scratch: str) -> None:
    """Make Trinity's question to Ray (asked when a config leaves the cluster size out) find no cluster, as on CI,
    even when someone runs a Ray instance on this machine: ray.init(address="auto") would otherwise join any
    local one. Ray itself still raises its own ConnectionError."""
    import functools

    import ray._private.services as services

    os.environ.pop("RAY_ADDRESS", None)
    os.environ["RAY_TMPDIR"] = scratch  # where Ray looks for the address of the latest local cluster
    # Ray's (cached) scan of local processes for a running cluster finds none.
    services._cached_find_gcs_addresses = functools.lru_cache(maxsize=1)(lambda: [])


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="config files (default: a JSON list on stdin)")
    parser.add_argument("--expand", action="store_true", help="add derived fields and the expanded veRL config")
    args = parser.parse_args(argv)
    paths = args.paths or json.load(sys.stdin)
    scratch = tempfile.mkdtemp(prefix="trinity-ref-")
    _without_local_ray(scratch)
    try:
        for path in paths:
            _JSON_OUT.write(json.dumps(validate(path, args.expand, scratch), ensure_ascii=False) + "\n")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
