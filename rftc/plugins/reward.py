"""veRL's rule reward for one response, as its naive and dapo reward managers compute it: read the row as
veRL's RLHFDataset stores it (data source column, ``reward_model.ground_truth``, ``extra_info``), score the
decoded response with ``default_compute_score`` (dispatch by data source) or the launch's
``custom_reward_function`` (loaded from its file with its ``reward_kwargs``), and, for the dapo manager, add the
overlong-buffer penalty. Both the Trinity workflow that ``rftc convert`` emits and ``rftc run`` score through
:class:`VerlReward`, so a converted config rewards as the veRL script did wherever it runs. verl is imported
only when the first response is scored."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# workflow_args keys: veRL's own names for the settings they carry
ARGS = ("reward_fn_key", "custom_reward_function", "reward_manager", "overlong_buffer_cfg", "max_resp_len")


def overlong_penalty(response_length: int, max_resp_len: int, buffer_len: int, penalty_factor: float) -> float:
    """DAPO's soft overlong punishment (veRL's DAPORewardManager): 0 up to ``max_resp_len - buffer_len`` tokens,
    then falling linearly, ``min(-(L - (max_resp_len - buffer_len)) / buffer_len * penalty_factor, 0)``."""
    return min(-(response_length - (max_resp_len - buffer_len)) / buffer_len * penalty_factor, 0)


def chat_messages(prompt, system_prompt: str | None = None) -> list[dict]:
    """The chat to sample from: veRL's prompt column holds chat messages, a plain string is one user message;
    a configured system prompt goes first unless the messages have one."""
    msgs = [dict(m) for m in prompt] if isinstance(prompt, (list, tuple)) else [{"role": "user", "content": str(prompt)}]
    if system_prompt and not any(m.get("role") == "system" for m in msgs):
        msgs.insert(0, {"role": "system", "content": system_prompt})
    return msgs


def ground_truth(row: dict) -> Any:
    """Where veRL reads the answer: ``row['reward_model']['ground_truth']`` (None when the row has none)."""
    rm = row.get("reward_model")
    return rm.get("ground_truth") if isinstance(rm, dict) else None


class VerlReward:
    """Scores responses to veRL-format rows. ``args`` are the workflow_args ``rftc convert`` writes (ARGS):
    ``reward_fn_key`` (veRL's data.reward_fn_key, default ``data_source``), ``custom_reward_function``
    ({path, name, reward_kwargs}), ``reward_manager`` (``naive`` or ``dapo``), ``overlong_buffer_cfg``
    ({enable, len, penalty_factor, log}) and ``max_resp_len`` (the dapo manager's). Raises ValueError for
    arguments veRL itself would refuse at start-up."""

    def __init__(self, args: dict | None = None):
        args = dict(args or {})
        unknown = sorted(set(args) - set(ARGS) - {"checkpoint_job_dir"})  # Trinity injects checkpoint_job_dir
        if unknown:
            raise ValueError(f"unknown workflow_args {unknown}: the veRL reward reads {', '.join(ARGS)}")
        self.key = args.get("reward_fn_key") or "data_source"
        self.custom = dict(args.get("custom_reward_function") or {})
        manager = args.get("reward_manager") or "naive"
        if manager not in ("naive", "dapo"):
            raise ValueError(f"reward_manager {manager!r}: the veRL reward implements naive and dapo")
        self.manager = manager
        buf = dict(args.get("overlong_buffer_cfg") or {}) if manager == "dapo" else {}
        self.overlong = bool(buf.get("enable"))
        self.max_resp_len = args.get("max_resp_len")
        self.buffer_len, self.penalty_factor = buf.get("len"), buf.get("penalty_factor", 1.0)
        if self.overlong:  # DAPORewardManager's own assertions
            if self.max_resp_len is None:
                raise ValueError("overlong_buffer_cfg.enable needs max_resp_len")
            if not (self.buffer_len or 0) > 0:
                raise ValueError(f"overlong_buffer_cfg.len must be positive, got {self.buffer_len}")
            if self.max_resp_len < self.buffer_len:
                raise ValueError(f"max_resp_len ({self.max_resp_len}) must be at least overlong_buffer_cfg.len "
                                 f"({self.buffer_len})")
        self._fn: Callable | None = None

    def _function(self) -> Callable:
        if self._fn is None:
            if self.custom.get("path"):
                from verl.utils.import_utils import load_extern_object

                fn = load_extern_object(module_path=self.custom["path"],
                                        object_name=self.custom.get("name") or "compute_score")
                kwargs = dict(self.custom.get("reward_kwargs") or {})
                self._fn = (lambda **kw: fn(**kw, **kwargs)) if kwargs else fn
            else:
                from verl.utils.reward_score import default_compute_score

                self._fn = default_compute_score
        return self._fn

    def __call__(self, row: dict, solution_str: str, response_length: int) -> tuple[float, dict[str, float]]:
        """(reward, extra): the response's reward, and the numeric entries veRL's reward manager records for it
        in reward_extra_info (the entries of the function's dict, its raw ``score`` included; under the dapo
        manager ``acc`` for a plain number, and ``overlong_reward`` / ``overlong`` when the buffer is on).
        ``response_length`` is the response's token count, EOS included."""
        result = self._function()(data_source=row.get(self.key), solution_str=solution_str,
                                  ground_truth=ground_truth(row), extra_info=row.get("extra_info"))
        if isinstance(result, dict):
            extra = {k: float(v) for k, v in result.items() if isinstance(v, (bool, int, float))}
            reward = float(result["score"])
        else:
            reward = float(result)
            extra = {"acc": reward} if self.manager == "dapo" else {}
        if self.overlong:
            penalty = overlong_penalty(response_length, self.max_resp_len, self.buffer_len, self.penalty_factor)
            reward += penalty
            extra["overlong_reward"], extra["overlong"] = float(penalty), float(penalty < 0)
        return reward, extra
