"""Rollout throughput of the explorer against calling vLLM's ``LLM.generate`` directly, in the same process on
the same engine, prompts and sampling parameters (aim: at least 0.9x), and vLLM against Hugging Face
``generate`` on the same model and batch (reported). Needs the runtime environment:

    .venv-run/bin/python bench/bench_runtime_rollout.py [--tasks 8] [--n 8] [--max-tokens 16] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", type=int, default=8)
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--max-tokens", type=int, default=16)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--skip-hf", action="store_true")
    args = p.parse_args()

    from vllm import SamplingParams

    from rftc_runtime.explorer import Explorer
    from rftc_runtime.model_cache import default_model_dir
    from rftc_runtime.plan import cpu_has_bf16
    from runtime_support import taskset
    from rftc_runtime.tasksets import Task

    model = str(default_model_dir())
    dtype = "bfloat16" if cpu_has_bf16() else "float32"
    explorer = Explorer(model, max_model_len=256, dtype=dtype, threads=os.cpu_count())
    tasks = [Task(i, f"What is {i % 10} + {(3 * i) % 10}? Reply with only the number.", (i % 10) + (3 * i) % 10, {})
             for i in range(args.tasks)]
    ts = taskset(name="bench", path="", rollout_args={"temperature": 1.0, "max_tokens": args.max_tokens},
                 repeat_times=args.n)
    prompts = [{"prompt_token_ids": explorer._prompt_ids(t, None)[0]} for t in tasks]
    params = SamplingParams(n=args.n, temperature=1.0, max_tokens=args.max_tokens, logprobs=0, seed=0)
    explorer.explore(tasks, ts, "last_number", 0)  # warm-up
    rates = {"explorer": [], "vllm": []}
    for _ in range(args.rounds):  # interleaved, so load changes on a shared machine hit both alike
        t = time.perf_counter()
        exps, m = explorer.explore(tasks, ts, "last_number", 0)
        rates["explorer"].append(m["rollout/tokens"] / (time.perf_counter() - t))
        t = time.perf_counter()
        outs = explorer.llm.generate(prompts, params, use_tqdm=False)
        tokens = sum(len(c.token_ids) for o in outs for c in o.outputs)
        rates["vllm"].append(tokens / (time.perf_counter() - t))
    ex, direct = max(rates["explorer"]), max(rates["vllm"])
    print(f"explorer {ex:.1f} tok/s, LLM.generate {direct:.1f} tok/s: ratio {ex / direct:.2f}x (aim >= 0.9x)")
    if args.skip_hf:
        return
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model)
    tok.padding_side = "left"
    hf = AutoModelForCausalLM.from_pretrained(model, dtype=getattr(torch, dtype))
    msgs = [[{"role": "user", "content": t.prompt}] for t in tasks for _ in range(args.n)]
    enc = tok.apply_chat_template(msgs, add_generation_prompt=True, return_tensors="pt", padding=True,
                                  return_dict=True)
    t = time.perf_counter()
    with torch.no_grad():
        out = hf.generate(**enc, max_new_tokens=args.max_tokens, do_sample=True, temperature=1.0)
    new = out[:, enc["input_ids"].shape[1]:]
    hf_tokens = int((new != tok.pad_token_id).sum())
    hf_rate = hf_tokens / (time.perf_counter() - t)
    print(f"vLLM {direct:.1f} tok/s, Hugging Face generate {hf_rate:.1f} tok/s: {direct / hf_rate:.2f}x")


if __name__ == "__main__":
    main()
