"""What the runtime's tests need (packages of the runtime environment, the bundled model), and the skips that
say how to get it."""

import importlib.util
import os
from pathlib import Path

import pytest

SETUP = "bash scripts/setup-runtime.sh, then .venv-run/bin/python -m pytest"


def require(*modules: str) -> None:
    """Skip the calling test module unless these packages are installed in this Python."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"the runtime is not installed in this Python ({', '.join(missing)} missing): {SETUP}",
                    allow_module_level=True)


def model_dir() -> Path:
    """The bundled model's directory (RFTC_MODEL_DIR overrides it)."""
    from rftc_runtime.model_cache import default_model_dir

    return Path(os.environ.get("RFTC_MODEL_DIR", default_model_dir()))


def require_model() -> Path:
    """Skip the calling test module unless the bundled model has been converted; return its directory."""
    model = model_dir()
    if not (model / "config.json").is_file():
        pytest.skip(f"no model at {model}: bash scripts/setup-runtime.sh converts it", allow_module_level=True)
    return model


def tiny_model(path: Path, hidden_size: int = 32, heads: int = 4) -> Path:
    """A 2-layer Llama with the bundled model's tokenizer at ``path``: the same code paths as the real model
    in a fraction of the time. vLLM's CPU attention needs a head size of at least 32 (``engine_model``)."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tok = AutoTokenizer.from_pretrained(model_dir())
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tok), hidden_size=hidden_size, intermediate_size=2 * hidden_size,
                         num_hidden_layers=2, num_attention_heads=heads, num_key_value_heads=max(1, heads // 2),
                         max_position_embeddings=256 if hidden_size > 32 else 128,
                         pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id, bos_token_id=tok.bos_token_id,
                         architectures=["LlamaForCausalLM"])
    LlamaForCausalLM(config).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def engine_model(path: Path) -> Path:
    """A tiny model vLLM's CPU backend also runs (head size 64): for end-to-end runs that only need the parts to
    work together."""
    return tiny_model(path, hidden_size=128, heads=2)


def experiences(tasks: int, n: int, response: int, vocab: int, seed: int = 0) -> list:
    """``tasks`` x ``n`` experiences with random tokens, rollout log-probs and 0/1 rewards (varied lengths)."""
    import random

    from rftc_runtime.experience import Experience

    rng = random.Random(seed)
    out = []
    for t in range(tasks):
        prompt = [rng.randrange(vocab) for _ in range(6 + 3 * t)]
        for i in range(n):
            r = 1 + (t * n + i) % response
            out.append(Experience(t, t, prompt, [rng.randrange(vocab) for _ in range(r)],
                                  [-rng.random() for _ in range(r)], float((i + t) % 2)))
    return out


def reference_actor_step(model, optimizer, data: dict, actor_config, temperature: float = 1.0, ref_log_prob=None):
    """One actor update as a bare loop of veRL's functions on a transformers model, the reference the trainer
    is measured and checked against: log-probs of the responses (``logprobs_from_logits``), veRL's policy loss,
    KL loss and aggregation normalised by the whole batch, backward, gradient clipping, the optimizer step.
    ``data`` is rftc_runtime.batch.collate's output with ``advantages`` and ``old_log_probs``. Returns
    (loss, pg_loss, grad_norm)."""
    import torch
    from verl.trainer.ppo import core_algos
    from verl.utils.torch_functional import logprobs_from_logits

    mask = data["response_mask"]
    cfg = actor_config
    cfg.global_batch_info.update(dp_size=1, batch_num_tokens=int(mask.sum()), global_batch_size=len(mask),
                                 loss_scale_factor=cfg.loss_scale_factor)
    R = data["responses"].shape[1]
    optimizer.zero_grad(set_to_none=True)
    out = model(input_ids=data["input_ids"], attention_mask=data["attention_mask"],
                position_ids=data["position_ids"], use_cache=False)
    log_prob = logprobs_from_logits(out.logits[:, -R - 1:-1, :].float() / temperature, data["responses"])
    pg_loss, _ = core_algos.get_policy_loss_fn(cfg.policy_loss.loss_mode)(
        old_log_prob=data["old_log_probs"], log_prob=log_prob, advantages=data["advantages"],
        response_mask=mask.bool(), loss_agg_mode=cfg.loss_agg_mode, config=cfg)
    loss = pg_loss
    if cfg.use_kl_loss:
        kld = core_algos.kl_penalty(logprob=log_prob, ref_logprob=ref_log_prob, kl_penalty=cfg.kl_loss_type)
        loss = loss + cfg.kl_loss_coef * core_algos.agg_loss(loss_mat=kld, loss_mask=mask.bool(),
                                                             loss_agg_mode=cfg.loss_agg_mode, **cfg.global_batch_info)
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
    optimizer.step()
    return float(loss.detach()), float(pg_loss.detach()), float(grad_norm)


def engine_loss_inputs(response_mask, **tensors):
    """Padded per-response tensors in the layout veRL's losses receive them from the engine: right-padded
    responses (``response_mask`` must be contiguous from the left) after a one-token prompt, the global batch
    counts as the engine sets them for one rank. Returns (data TensorDict, flatten) where ``flatten`` turns a
    (batch, R) per-token output (log-probs, values, entropy) into the engine's packed model output."""
    import torch
    from verl.utils import tensordict_utils as tu

    mask = response_mask.float()
    n, width = mask.shape
    lengths = mask.sum(-1).long()
    data = tu.get_tensordict(
        {"response_mask": mask, "prompts": torch.zeros(n, 1, dtype=torch.long),
         "responses": torch.zeros(n, width, dtype=torch.long),
         "attention_mask": torch.cat([torch.ones(n, 1), mask], -1).long(), **tensors},
        non_tensor_dict={"dp_size": 1, "batch_num_tokens": int(mask.sum()), "global_batch_size": n})

    def flatten(per_token):
        # the output at a response token's position predicts the next one: a sequence of prompt + r tokens
        # carries the r response values at its first r positions
        return torch.cat([torch.cat([per_token[i, :r], per_token.new_zeros(1)]) for i, r in enumerate(lengths)])
    return data, flatten


def verl_ppo_loss(actor_config, log_prob, old_log_prob, advantages, response_mask, ref_log_prob=None,
                  entropy=None):
    """veRL's ppo_loss, as the training worker calls it, on padded tensors; returns (loss, metrics)."""
    from verl.workers.utils.losses import ppo_loss

    extra = {} if ref_log_prob is None else {"ref_log_prob": ref_log_prob}
    data, flatten = engine_loss_inputs(response_mask, old_log_probs=old_log_prob, advantages=advantages, **extra)
    output = {"log_probs": flatten(log_prob)}
    if entropy is not None:
        output["entropy"] = flatten(entropy)
    return ppo_loss(actor_config, output, data)


def verl_value_loss(critic_config, vpreds, values, returns, response_mask):
    """veRL's value_loss, as the critic's worker calls it, on padded tensors; returns (loss, metrics)."""
    from verl.workers.utils.losses import value_loss

    data, flatten = engine_loss_inputs(response_mask, values=values, returns=returns)
    return value_loss(critic_config, {"values": flatten(vpreds)}, data)


def settings(cfg: dict, source: str = "<config>"):
    """The runtime's settings of a Trinity config given as data, loaded as `rftc run` loads a YAML file."""
    from rftc.trinity.validate import CheckOptions, check_config
    from rftc_runtime.settings import Settings

    ir, diags = check_config(cfg, options=CheckOptions(path_checks=False))
    assert ir is not None, [d.message for d in diags]
    return Settings.of(ir, source)


def taskset(*, repeat_times: int = 1, **fields):
    """A training taskset (Trinity's taskset keys) as the runtime reads it, repeating each task
    ``repeat_times`` times (the algorithm's repeat_times, as Trinity sets it)."""
    return settings({"algorithm": {"repeat_times": repeat_times},
                     "buffer": {"explorer_input": {"taskset": fields}}}).taskset
