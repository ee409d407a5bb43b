"""The explorer: a Ray actor holding one vLLM engine. It turns tasks into scored experiences.

On CPU the engine runs inside the actor's process (``VLLM_ENABLE_V1_MULTIPROCESSING=0``), so a weight update
hands the worker the state dict that came through Ray's object store as tensors, with no second copy.
"""

from __future__ import annotations

import os
import time

from rftc_runtime.experience import Experience
from rftc_runtime.placement import node_id
from rftc_runtime.tasksets import Task, chat_messages


class Explorer:
    """Wrapped by ``ray.remote`` in :mod:`rftc_runtime.driver`; usable in-process for tests and benchmarks."""

    def __init__(self, model_path: str, *, max_model_len: int | None, dtype: str = "bfloat16", seed: int = 42,
                 enforce_eager: bool = True, tensor_parallel_size: int = 1, gpu_memory_utilization: float = 0.9,
                 max_prompt_tokens: int | None = None, threads: int | None = None):
        on_cpu = not _has_cuda()
        if on_cpu:
            os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
            os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")
            if threads:
                os.environ.setdefault("VLLM_CPU_OMP_THREADS_BIND", f"0-{threads - 1}")
        from vllm import LLM

        kwargs = dict(model=model_path, dtype=dtype, seed=seed, enforce_eager=enforce_eager,
                      max_model_len=max_model_len, tensor_parallel_size=tensor_parallel_size,
                      worker_extension_cls="rftc_runtime.engine_ext.WeightSyncExtension")
        if not on_cpu:
            kwargs["gpu_memory_utilization"] = gpu_memory_utilization
            if tensor_parallel_size > 1:  # vLLM's own multiprocessing executor, on the GPUs Ray gave this actor
                kwargs["distributed_executor_backend"] = "mp"
        self.llm = LLM(**kwargs)
        self.tokenizer = self.llm.get_tokenizer()
        self.max_prompt_tokens = max_prompt_tokens
        self.weights_version = 0
        self.in_process = on_cpu

    def is_alive(self) -> bool:
        return True

    def _prompt_ids(self, task: Task, system_prompt: str | None) -> tuple[list[int], bool]:
        ids = self.tokenizer.apply_chat_template(chat_messages(task, system_prompt), add_generation_prompt=True,
                                                 tokenize=True, return_dict=False)
        if hasattr(ids, "keys"):  # some tokenizers return a BatchEncoding despite return_dict=False
            ids = ids["input_ids"]
        ids = list(ids)
        if self.max_prompt_tokens and len(ids) > self.max_prompt_tokens:
            return ids[: self.max_prompt_tokens], True  # Trinity truncates prompts on the right
        return ids, False

    def explore(self, tasks: list[Task], taskset, reward_fn_name: str | None, group_base: int
                ) -> tuple[list[Experience], dict]:
        """Sample ``taskset.repeat_times`` responses per task and score them (``reward_fn_name`` overrides the
        taskset's reward function); returns experiences and metrics."""
        from vllm import SamplingParams

        from rftc_runtime import rewards

        t0 = time.perf_counter()
        score = rewards.scorer(taskset, reward_fn_name)
        prompts, truncated_prompts = [], 0
        for t in tasks:
            ids, cut = self._prompt_ids(t, taskset.format.system_prompt)
            truncated_prompts += cut
            prompts.append({"prompt_token_ids": ids})
        r = taskset.rollout_args
        params = SamplingParams(n=taskset.repeat_times, temperature=r.temperature, top_p=r.top_p,
                                top_k=r.top_k if r.top_k and r.top_k > 0 else 0, max_tokens=r.max_tokens, logprobs=0)
        outputs = self.llm.generate(prompts, params, use_tqdm=False)
        t1 = time.perf_counter()
        exps, tokens, extras = [], 0, {}
        counts = {"reward_fn_errors": 0, "empty_responses": 0, "truncated_responses": 0}
        examples: dict[str, list[str]] = {k: [] for k in counts}

        def count(kind: str, example: str) -> None:
            counts[kind] += 1
            if len(examples[kind]) < 3:
                examples[kind].append(example)

        for k, (task, out) in enumerate(zip(tasks, outputs)):
            for comp in out.outputs:
                ids = list(comp.token_ids)
                lps = [lp[tok].logprob for tok, lp in zip(ids, comp.logprobs)] if comp.logprobs else [0.0] * len(ids)
                text = comp.text
                tokens += len(ids)
                is_trunc = comp.finish_reason == "length"
                if is_trunc:
                    count("truncated_responses", f"task {task.index}: {len(ids)} tokens ending {text[-40:]!r}")
                if not text.strip():
                    count("empty_responses", f"task {task.index}: {len(ids)} token(s), text {text!r}")
                try:
                    reward, parts = score(task, text, len(ids))
                except Exception as exc:  # a reward function that raises scores 0 and is counted (RFTC502)
                    count("reward_fn_errors", f"task {task.index}: {type(exc).__name__}: {exc}"[:300])
                    reward, parts = 0.0, {}
                for name, value in parts.items():
                    extras.setdefault(name, []).append(value)
                exps.append(Experience(task.index, group_base + k, list(out.prompt_token_ids), ids, lps, reward,
                                       is_trunc, {"text": text}))
        t2 = time.perf_counter()
        rs = [e.reward for e in exps]
        metrics = {
            "rollout/reward_mean": sum(rs) / max(1, len(rs)),
            "rollout/reward_max": max(rs) if rs else 0.0,
            "rollout/reward_min": min(rs) if rs else 0.0,
            "rollout/reward_calls": len(rs),
            "rollout/response_len_mean": tokens / max(1, len(exps)),
            "rollout/tokens": tokens,
            **{f"rollout/{kind}": n for kind, n in counts.items()},
            "rollout/truncated_prompts": truncated_prompts,
            "rollout/weights_version": self.weights_version,
            "time/generate": t1 - t0,
            "time/reward": t2 - t1,
        }
        # The reward function's other entries (accuracy, DAPO's overlong penalty...), averaged over responses
        metrics.update({f"rollout/{name}_mean": sum(v) / len(v) for name, v in extras.items()})
        metrics.update({f"rollout/{kind}_examples": found for kind, found in examples.items() if found})
        return exps, metrics

    def update_weights(self, state, version: int) -> float:
        """Load the trainer's weights into every engine worker through vLLM's reload path: a state dict (sync
        method ``memory``) or the path of the file the trainer wrote (``checkpoint``)."""
        t0 = time.perf_counter()
        if not self.in_process and not isinstance(state, str):  # tensors in RPC arguments across processes
            # arrive as lists: send bytes
            import io

            import torch

            buf = io.BytesIO()
            torch.save(state, buf)
            state = buf.getvalue()
        self.llm.collective_rpc("rftc_load_state_dict", args=(state,))
        self.weights_version = version
        return time.perf_counter() - t0

    def join_weight_group(self, host: str, port: int, rank_offset: int, world_size: int) -> None:
        """Sync method ``nccl``: every engine worker joins the trainer's weight group (rftc_runtime.weight_group)."""
        self.llm.collective_rpc("rftc_join_weight_group", args=(host, port, rank_offset, world_size))

    def receive_weights(self, specs, version: int) -> float:
        """Sync method ``nccl``: receive the trainer's broadcast of every weight in ``specs``' order."""
        t0 = time.perf_counter()
        self.llm.collective_rpc("rftc_receive_weights", args=(specs,))
        self.weights_version = version
        return time.perf_counter() - t0

    def greedy(self, prompts: list[str], max_tokens: int = 16) -> list[str]:
        """Greedy replies to chat prompts (used to check that a sync changed the engine's weights)."""
        from vllm import SamplingParams

        tasks = [Task(i, p, None, {}) for i, p in enumerate(prompts)]
        ids = [{"prompt_token_ids": self._prompt_ids(t, None)[0]} for t in tasks]
        outs = self.llm.generate(ids, SamplingParams(temperature=0.0, max_tokens=max_tokens), use_tqdm=False)
        return [o.outputs[0].text for o in outs]

    def describe(self) -> dict:
        """What the engine was built with, read from vLLM's own config (the plan's words are checked against it)."""
        config = self.llm.llm_engine.vllm_config
        return {"engine": f"vllm.{type(self.llm).__name__}", "dtype": str(config.model_config.dtype).removeprefix(
                    "torch."), "enforce_eager": config.model_config.enforce_eager,
                "tensor_parallel_size": config.parallel_config.tensor_parallel_size,
                "device": config.device_config.device_type, "node": node_id()}

    def shutdown(self) -> None:
        del self.llm


def _has_cuda() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


class ExplorerPool:
    """``engine_num`` explorer actors behind one explorer's interface (each call returns one ObjectRef, as an
    actor method's ``.remote`` does): a batch of tasks is split over the engines in order, the group ids stay
    those of the whole batch, and the results are merged by a Ray task. Weight updates reach every engine."""

    def __init__(self, actors: list):
        import ray

        self.actors = actors
        # light tasks: no CPU of their own, which a cluster placement may have given to every actor
        self._merge, self._gather = ray.remote(num_cpus=0)(_merge), ray.remote(num_cpus=0)(_gather)

    def explore(self, tasks: list, taskset, reward_fn_name, group_base: int):
        n = len(self.actors)
        size = -(-len(tasks) // n)
        refs = [actor.explore.remote(tasks[i:i + size], taskset, reward_fn_name, group_base + i)
                for actor, i in zip(self.actors, range(0, len(tasks), size))]
        return refs[0] if len(refs) == 1 else self._merge.remote(*refs)

    def update_weights(self, state, version: int):
        return self._all([a.update_weights.remote(state, version) for a in self.actors])

    def receive_weights(self, specs, version: int):
        return self._all([a.receive_weights.remote(specs, version) for a in self.actors])

    def join_weight_group(self, host: str, port: int, tensor_parallel_size: int, world_size: int):
        return self._all([a.join_weight_group.remote(host, port, 1 + i * tensor_parallel_size, world_size)
                          for i, a in enumerate(self.actors)])

    def is_alive(self):
        return self._all([a.is_alive.remote() for a in self.actors])

    def describe(self):
        return self._all([a.describe.remote() for a in self.actors])

    def _all(self, refs: list):
        return refs[0] if len(refs) == 1 else self._gather.remote(*refs)


def _gather(*results):
    return list(results)


def _merge(*parts):
    """One explore call's (experiences, metrics) from the engines' parts: counts and tokens added, means over
    all responses, the slowest engine's times, the oldest weights version."""
    exps = [e for part, _ in parts for e in part]
    metrics = [m for _, m in parts]
    n = [len(part) for part, _ in parts]
    total = max(1, sum(n))
    merged = {}
    for key in metrics[0]:
        values = [m[key] for m in metrics if key in m]
        if key.endswith("_examples"):
            merged[key] = [x for v in values for x in v][:3]
        elif key.startswith("time/"):
            merged[key] = max(values)
        elif key == "rollout/weights_version":
            merged[key] = min(values)
        elif key == "rollout/reward_max":
            merged[key] = max(values)
        elif key.endswith("_mean"):
            merged[key] = sum(v * k for v, k in zip(values, n)) / total
        else:
            merged[key] = sum(values)
    return exps, merged
