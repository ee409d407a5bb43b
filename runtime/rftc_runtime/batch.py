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
            response_mask[i, :r] = 1
            rollout_log_probs[i, :r] = torch.tensor(e.logprobs, dtype=torch.float32)
            token_level_scores[i, r - 1] = e.reward  # outcome reward on the last response token, as veRL places it
    position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0)
    return {
        "input_ids": input_ids, "attention_mask": attention_mask, "position_ids": position_ids,
        "responses": responses, "response_mask": response_mask, "rollout_log_probs": rollout_log_probs,
        "token_level_scores": token_level_scores,
        "uid": np.array([str(e.group) for e in exps], dtype=object),
    }
