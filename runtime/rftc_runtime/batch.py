"""Experiences -> padded tensors in veRL's layout: left-padded prompts, right-padded responses, so every
response occupies the same columns (``input_ids[:, -R:]``) and its logits are ``logits[:, -R-1:-1]``."""

from __future__ import annotations


def collate(exps, pad_id: int) -> dict:
    import numpy as np
    import torch

    P = max(len(e.prompt_ids) for e in exps)
    R = max(1, max(len(e.response_ids) for e in exps))
    n = len(exps)
    input_ids = torch.full((n, P + R), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((n, P + R), dtype=torch.long)
    responses = torch.full((n, R), pad_id, dtype=torch.long)
    response_mask = torch.zeros((n, R), dtype=torch.float32)
    rollout_log_probs = torch.zeros((n, R), dtype=torch.float32)
    token_level_scores = torch.zeros((n, R), dtype=torch.float32)
    for i, e in enumerate(exps):
        p, r = len(e.prompt_ids), len(e.response_ids)
        input_ids[i, P - p:P] = torch.tensor(e.prompt_ids)
        attention_mask[i, P - p:P] = 1
        if r:
            input_ids[i, P:P + r] = torch.tensor(e.response_ids)
            attention_mask[i, P:P + r] = 1
            responses[i, :r] = torch.tensor(e.response_ids)
            response_mask[i, :r] = 1 if e.action_mask is None else torch.tensor(e.action_mask, dtype=torch.float32)
            rollout_log_probs[i, :r] = torch.tensor(e.logprobs, dtype=torch.float32)
            token_level_scores[i, r - 1] = e.reward  # outcome reward on the last response token, as veRL places it
    position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0)
    return {
        "input_ids": input_ids, "attention_mask": attention_mask, "position_ids": position_ids,
        "responses": responses, "response_mask": response_mask, "rollout_log_probs": rollout_log_probs,
        "token_level_scores": token_level_scores,
        "uid": np.array([str(e.group) for e in exps], dtype=object),
    }


def engine_batch(data: dict, keys, **meta):
    """The padded batch as veRL's trainer hands it to its workers: a TensorDict converted to the no-padding
    layout by veRL's ``left_right_2_no_padding`` (nested input_ids/position_ids, ``prompts`` and
    ``responses`` kept for cutting the responses out of the outputs), with ``meta`` as non-tensor data."""
    from verl.utils import tensordict_utils as tu
    from verl.workers.utils.padding import left_right_2_no_padding

    prompt_len = data["input_ids"].shape[1] - data["responses"].shape[1]
    tensors = {k: data[k] for k in ("input_ids", "attention_mask", "position_ids", "responses", "response_mask",
                                    *keys)}
    tensors["prompts"] = data["input_ids"][:, :prompt_len]
    return left_right_2_no_padding(tu.get_tensordict(tensors, non_tensor_dict=meta))


def response_values(output, key: str, batch):
    """A per-token output of the workers (log-probs, values) cut back to the responses, (batch, R)."""
    from verl.utils import tensordict_utils as tu
    from verl.workers.utils.padding import no_padding_2_padding

    return no_padding_2_padding(tu.get(output, key), batch).float()


def sft_loss_mask(data: dict, batch):
    """veRL's SFT loss mask in the no-padding layout: 1 on every response token of each sequence (the tokens
    the loss predicts), 0 on the prompt."""
    import torch

    prompt_len = data["input_ids"].shape[1] - data["responses"].shape[1]
    full = torch.cat([torch.zeros_like(data["attention_mask"][:, :prompt_len]),
                      data["response_mask"].to(data["attention_mask"].dtype)], dim=1)
    offsets = batch["input_ids"].offsets()
    return torch.nested.nested_tensor_from_jagged(full[data["attention_mask"].bool()], offsets=offsets)
