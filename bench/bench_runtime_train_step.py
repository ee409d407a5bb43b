"""One GRPO actor update through the trainer (veRL's TrainingWorker with the FSDP engine, in a Ray worker group on
the CPU platform: collate, veRL's compute_advantage, the no-padding batch, ``train_mini_batch`` with ppo_loss)
against a bare loop of the same veRL functions on the same batch and weights in this process (a transformers
model, ``logprobs_from_logits``, the policy loss, clipping, AdamW: tests/runtime_support.py's
``reference_actor_step``), interleaved so load changes on a shared machine hit both alike. Also:

- where the time goes: both with gradient checkpointing (veRL's default) and without, and the driver's share
  (collating, the no-padding conversion);
- the weight sync: the workers' export (``get_per_tensor_param`` gathered into rank 0's state dict in Ray's object
  store) and vLLM's reload of it in an explorer (``--sync``; starts a vLLM engine).

    .venv-run/bin/python bench/bench_runtime_train_step.py [--tasks 4] [--n 8] [--response 10] [--rounds 3] [--sync]
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the bare loop is the tests' reference step


def _settings(model: str, tasks: int, n: int, checkpointing: bool):
    from runtime_support import settings

    size = tasks * n
    return settings({
        "algorithm": {"algorithm_type": "grpo", "repeat_times": n, "kl_loss_fn": "none", "entropy_loss_fn": "none"},
        "model": {"model_path": model},
        "buffer": {"batch_size": tasks, "explorer_input": {"taskset": {"path": "unused"}}},
        "trainer": {"trainer_config": {"actor_rollout_ref": {
            "actor": {"ppo_micro_batch_size_per_gpu": size},
            "model": {"enable_gradient_checkpointing": checkpointing}}}},
        "continue_from_checkpoint": False, "checkpoint_root_dir": tempfile.mkdtemp()})


def _bare(model: str, checkpointing: bool, s):
    import torch
    from transformers import AutoModelForCausalLM

    hf = AutoModelForCausalLM.from_pretrained(model, dtype=torch.float32, attn_implementation="sdpa")
    hf.config.use_cache = False
    if checkpointing:
        hf.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    hf.train()
    o = s.algorithm.optimizer
    return hf, torch.optim.AdamW(hf.parameters(), lr=o.lr, betas=o.betas, weight_decay=o.weight_decay)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", type=int, default=4)
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--response", type=int, default=10)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--sync", action="store_true", help="also time the weight sync into a vLLM engine")
    args = p.parse_args()

    import ray
    import torch
    from verl.trainer.ppo import core_algos

    from rftc_runtime import verl_cpu
    from rftc_runtime.batch import collate, engine_batch
    from rftc_runtime.model_cache import default_model_dir
    from rftc_runtime.plan import make_plan
    from rftc_runtime.trainer import Trainer
    from runtime_support import experiences, reference_actor_step

    model = str(default_model_dir())
    threads = os.cpu_count()
    torch.set_num_threads(threads)
    os.environ.update(verl_cpu.environment())
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": {
        **verl_cpu.environment(), "PYTHONPATH": os.pathsep.join(sys.path)}})
    trainers, bares = {}, {}
    for gc in (False, True):  # off, and veRL's default
        s = _settings(model, args.tasks, args.n, gc)
        trainers[gc] = Trainer(s, make_plan(s, gpus=0), total_steps=100)
        trainers[gc].prepare()
        bares[gc] = _bare(model, gc, s)
    trainer = trainers[False]
    exps = experiences(args.tasks, args.n, args.response, bares[False][0].config.vocab_size)
    data = collate(exps, trainer.pad_id)
    data["old_log_probs"] = data["rollout_log_probs"]
    data["advantages"], _ = core_algos.compute_grpo_outcome_advantage(data["token_level_scores"],
                                                                      data["response_mask"], data["uid"])
    config = trainer.bound.actor_config

    def bare_step(gc: bool) -> None:
        hf, opt = bares[gc]
        reference_actor_step(hf, opt, data, copy.deepcopy(config))

    label = {False: "", True: ", gradient checkpointing"}
    times: dict[str, list[float]] = {}
    for gc in (False, True):  # warm-up
        trainers[gc].train_step(exps)
        bare_step(gc)
    for _ in range(args.rounds):
        for gc in (False, True):
            t = time.perf_counter()
            trainers[gc].train_step(exps)
            times.setdefault("worker group" + label[gc], []).append(time.perf_counter() - t)
            t = time.perf_counter()
            bare_step(gc)
            times.setdefault("bare loop" + label[gc], []).append(time.perf_counter() - t)
        t = time.perf_counter()
        batch = collate(exps, trainer.pad_id)
        engine_batch({**batch, "old_log_probs": batch["rollout_log_probs"], "advantages": data["advantages"]},
                     ("old_log_probs", "advantages"))
        times.setdefault("driver: collate + no-padding batch", []).append(time.perf_counter() - t)
    best = {k: min(v) for k, v in times.items()}
    tokens = int(data["attention_mask"].sum())
    print(f"{args.tasks * args.n} experiences ({tokens} tokens, responses up to {args.response}), {threads} "
          f"thread(s), best of {args.rounds}:")
    for name, value in best.items():
        print(f"  {name:<42} {value:6.2f} s")
    for gc in (False, True):
        print(f"worker group vs bare loop{label[gc] or ', no gradient checkpointing'}: "
              f"{best['worker group' + label[gc]] / best['bare loop' + label[gc]]:.2f}x")
    print(f"gradient checkpointing (veRL's default) costs {best['bare loop' + label[True]] / best['bare loop']:.2f}x "
          "in the bare loop")

    t = time.perf_counter()
    ref = trainer.upload_state_dict()
    ray.wait([ref])
    export = time.perf_counter() - t
    print(f"weight export (every rank iterates get_per_tensor_param, rank 0's state dict into Ray's object store): "
          f"{export:.2f} s")
    if args.sync:
        from rftc_runtime.explorer import Explorer

        explorer = Explorer(model, max_model_len=128, dtype=trainer.plan.dtype, threads=threads)
        state = ray.get(ref)
        reload = min(explorer.update_weights(state, i) for i in range(2))
        print(f"vLLM reload of those weights: {reload:.2f} s; sync per step: {export + reload:.2f} s")
    ray.shutdown()


if __name__ == "__main__":
    main()
