"""The GPU path, on a machine with NVIDIA GPUs (skipped with a message elsewhere): the trainer's worker group on
CUDA (NCCL, FSDP, bfloat16 compute), vLLM on CUDA (CUDA graphs unless enforce_eager) and the NCCL weight sync from
the trainer's rank 0 into the engine's workers. Needs rftc[gpu] (vllm, verl, ray) and the bundled model."""

import importlib.util
import os
import sys

import pytest

from runtime_support import experiences, require, require_model, tiny_model
from rftc_runtime.plan import detected_gpus, make_plan
from runtime_support import settings

GPUS = detected_gpus()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(GPUS == 0, reason="no NVIDIA GPU on this machine: the GPU "
                                                  "path (worker group on CUDA, vLLM on CUDA, NCCL sync) is untested here")]
require("ray", "verl", "torch")  # the trainer's workers; the vLLM engine's test asks for vllm itself
MODEL = require_model()
NO_VLLM = importlib.util.find_spec("vllm") is None


def _settings(model, job, sync="nccl", enforce_eager=False):
    return settings({
        "algorithm": {"algorithm_type": "grpo", "repeat_times": 4, "kl_loss_fn": "low_var_kl",
                      "optimizer": {"lr": 1e-3}},
        "model": {"model_path": str(model), "max_model_len": 96, "max_response_tokens": 8},
        "cluster": {"node_num": 1, "gpu_per_node": min(GPUS, 2)},
        "buffer": {"batch_size": 2, "explorer_input": {"taskset": {"path": str(job)}}},
        "explorer": {"rollout_model": {"engine_num": 1, "tensor_parallel_size": 1, "enforce_eager": enforce_eager,
                                       "gpu_memory_utilization": 0.3}},
        "synchronizer": {"sync_method": sync},
        "checkpoint_root_dir": str(job)})


@pytest.fixture()
def cluster():
    import ray

    ray.init(num_gpus=GPUS, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}})
    yield ray
    ray.shutdown()


def test_the_trainers_worker_group_runs_on_cuda_as_the_plan_says(cluster, tmp_path):
    from rftc_runtime.plan import engine_words
    from rftc_runtime.trainer import Trainer

    s = _settings(tiny_model(tmp_path / "tiny"), tmp_path)
    plan = make_plan(s, gpus=1 + 1)
    trainer = Trainer(s, plan, total_steps=2)
    trainer.prepare()
    try:
        for role in plan.roles:
            for facts in trainer.describe()[role.name]:
                assert (facts["device"], facts["backend"]) == ("cuda", "nccl")
                # veRL's FSDP engines keep a forward-only model's parameters on the CPU (CPUOffload/CPUOffloadPolicy)
                assert facts["params_on"] == ("cpu" if facts["forward_only"] else "cuda")
                assert engine_words(facts["engine"], facts["strategy"], facts["compute_dtype"], facts["param_dtype"],
                                    facts["forward_only"]) == plan.engine_words(role)
        m = trainer.train_step(experiences(2, 4, 5, vocab=1000))
        assert m["actor/grad_norm"] > 0
    finally:
        trainer.shutdown()


@pytest.mark.skipif(GPUS < 2, reason="the NCCL sync needs a GPU for the trainer and one for the engine")
@pytest.mark.skipif(NO_VLLM, reason="vllm is not installed in this Python: the engine's half of the sync is untested")
def test_nccl_sync_changes_the_cuda_engines_generations(cluster, tmp_path):
    from rftc_runtime.explorer import Explorer, ExplorerPool
    from rftc_runtime.synchronizer import WeightSync
    from rftc_runtime.tasksets import Task
    from rftc_runtime.trainer import Trainer

    ray = cluster
    s = _settings(MODEL, tmp_path)
    plan = make_plan(s, gpus=2)
    assert plan.sync_method == "nccl" and plan.explorer_gpus == 1
    actor = ray.remote(Explorer).options(num_gpus=1).remote(str(MODEL), max_model_len=96, dtype=plan.dtype,
                                                           enforce_eager=False, gpu_memory_utilization=0.3)
    pool = ExplorerPool([actor])
    built = ray.get(pool.describe())
    assert built["device"] == "cuda" and not built["enforce_eager"]  # CUDA graphs
    assert f"{built['engine']} on 1 GPU(s) each, gpu_memory_utilization 0.3, CUDA graphs" in plan.describe(s)
    trainer = Trainer(s, plan, total_steps=2)
    trainer.prepare()
    try:
        sync = WeightSync("nccl", trainer, pool, s.checkpoint_job_dir)
        sync.setup(1)
        prompts = ["What is 3 + 4? Reply with only the number.", "Name a colour."]
        before = ray.get(actor.greedy.remote(prompts, 12))
        exps, _ = ray.get(pool.explore([Task(i, p, None, {}) for i, p in enumerate(prompts)], s.taskset,
                                       "last_number", 0))
        for e in exps:
            e.reward = float(len(e.response_ids))
        trainer.train_step(exps)
        ray.get(sync.publish(1))
        assert ray.get(actor.greedy.remote(prompts, 12)) != before
    finally:
        trainer.shutdown()
