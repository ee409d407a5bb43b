"""One GRPO training step through the trainer (``HFTrainEngine.train_step``: collate, veRL's compute_advantage,
micro-batched forward/backward with veRL's policy loss, clip, AdamW) against a bare loop calling the same veRL
functions on the same batch with a second copy of the model (aim: at most 1.1x). Needs the runtime environment:

    .venv-run/bin/python bench/bench_runtime_train_step.py [--tasks 2] [--n 4] [--response 8] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time


def _experiences(tasks: int, n: int, response: int, vocab: int):
    from rftc_runtime.experience import Experience

    rng = random.Random(0)
    return [Experience(t, t, [rng.randrange(vocab) for _ in range(12 + t)],
                       [rng.randrange(vocab) for _ in range(1 + (t * n + i) % response)],
                       [-rng.random() for _ in range(1 + (t * n + i) % response)], float(i % 2))
            for t in range(tasks) for i in range(n)]


def _bare_step(model, optimizer, exps, pad_id: int, n: int) -> None:
    """The same veRL calls as the trainer, inline: GRPO advantages, vanilla PPO loss, token-mean."""
    import torch
    from verl.trainer.ppo import core_algos
    from verl.utils.torch_functional import logprobs_from_logits
    from verl.workers.config import FSDPActorConfig

    from rftc_runtime.batch import collate

    d = collate(exps, pad_id)
    mask = d["response_mask"]
    adv, _ = core_algos.compute_grpo_outcome_advantage(d["token_level_scores"], mask, d["uid"])
    cfg = FSDPActorConfig(strategy="fsdp", ppo_mini_batch_size=len(exps), ppo_micro_batch_size_per_gpu=len(exps),
                          use_dynamic_bsz=False, rollout_n=n)
    cfg.global_batch_info.update(dp_size=1, batch_num_tokens=int(mask.sum()), global_batch_size=len(exps),
                                 loss_scale_factor=cfg.loss_scale_factor)
    R = d["responses"].shape[1]
    optimizer.zero_grad(set_to_none=True)
    out = model(input_ids=d["input_ids"], attention_mask=d["attention_mask"], position_ids=d["position_ids"],
                use_cache=False, logits_to_keep=R + 1)
    log_prob = logprobs_from_logits(out.logits[:, :-1, :].float(), d["responses"])
    loss, _ = core_algos.get_policy_loss_fn("vanilla")(
        old_log_prob=d["rollout_log_probs"], log_prob=log_prob, advantages=adv, response_mask=mask.bool(),
        loss_agg_mode="token-mean", config=cfg)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", type=int, default=2)
    p.add_argument("--n", type=int, default=4)
    p.add_argument("--response", type=int, default=8)
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args()

    import torch
    from transformers import AutoModelForCausalLM

    from rftc_runtime.model_cache import default_model_dir
    from rftc_runtime.settings import from_mapping
    from rftc_runtime.trainer import HFTrainEngine

    model = str(default_model_dir())
    size = args.tasks * args.n
    cfg = {"algorithm": {"algorithm_type": "grpo", "repeat_times": args.n, "kl_loss_fn": "none",
                         "entropy_loss_fn": "none"},
           "model": {"model_path": model}, "buffer": {"batch_size": args.tasks,
                                                      "explorer_input": {"taskset": {"path": "unused"}}},
           "trainer": {"trainer_config": {"actor_rollout_ref": {"actor": {"ppo_micro_batch_size_per_gpu": size}}}},
           "continue_from_checkpoint": False, "checkpoint_root_dir": tempfile.mkdtemp()}
    threads = os.cpu_count()
    trainer = HFTrainEngine(from_mapping(cfg), total_steps=100, threads=threads, dtype="float32")
    trainer.prepare()
    bare = AutoModelForCausalLM.from_pretrained(model, dtype=torch.float32)
    bare.config.use_cache = False
    bare.train()
    opt = torch.optim.AdamW(bare.parameters(), lr=1e-6, betas=(0.9, 0.999), weight_decay=0.01)
    exps = _experiences(args.tasks, args.n, args.response, bare.config.vocab_size)
    trainer.train_step(exps)  # warm-up both
    _bare_step(bare, opt, exps, trainer.pad_id, args.n)
    times = {"trainer": [], "bare": []}
    for _ in range(args.rounds):  # interleaved, so load changes on a shared machine hit both alike
        t = time.perf_counter()
        trainer.train_step(exps)
        times["trainer"].append(time.perf_counter() - t)
        t = time.perf_counter()
        _bare_step(bare, opt, exps, trainer.pad_id, args.n)
        times["bare"].append(time.perf_counter() - t)
    tr, b = min(times["trainer"]), min(times["bare"])
    print(f"{size} experiences: trainer {tr:.2f} s/step, bare veRL loop {b:.2f} s/step: "
          f"ratio {tr / b:.2f}x (aim <= 1.1x)")


if __name__ == "__main__":
    main()
