"""One sampled response with everything the trainer needs, as Trinity's Experience holds it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Experience:
    task_index: int
    group: int  # responses to the same task in the same explore step share a group id (GRPO's uid)
    prompt_ids: list[int]
    response_ids: list[int]
    logprobs: list[float]  # rollout log-probabilities of response_ids
    reward: float
    truncated: bool = False
    info: dict = field(default_factory=dict)
    action_mask: list[int] | None = None  # which response tokens the loss covers (None: all of them)
