"""Reward functions: rule-based answer matching built in, veRL's reward_score functions where they fit,
DAPO's reward (veRL's dapo reward manager), and a user's function named ``module:function`` (or
``module.function``).

Every function is called as veRL calls a custom reward function:
``fn(data_source, solution_str, ground_truth, extra_info, **reward_fn_args) -> float | dict`` (a dict carries
``score``; its other numeric entries become metrics). The taskset's ``reward_fn_args`` are bound once, by
:func:`resolve`, as veRL binds ``custom_reward_function.reward_kwargs``.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import math
import re
from collections.abc import Callable

from rftc.plugins import WORKFLOW
from rftc.plugins.reward import VerlReward, overlong_penalty

_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def _as_number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def last_number(data_source, solution_str: str, ground_truth, extra_info=None) -> float:
    """1.0 when the last number in the reply equals the ground truth (arithmetic, GSM8K-style answers)."""
    found = _NUMBER.findall(solution_str or "")
    if not found or ground_truth is None:
        return 0.0
    truth = _as_number(str(ground_truth).split("####")[-1].strip())
    got = _as_number(found[-1])
    return 1.0 if truth is not None and got is not None and abs(got - truth) < 1e-6 else 0.0


def _verl(module: str, name: str = "compute_score") -> Callable:
    def call(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
        fn = getattr(importlib.import_module(f"verl.utils.reward_score.{module}"), name)
        return fn(solution_str, ground_truth, **kwargs)

    call.__name__ = f"verl.utils.reward_score.{module}.{name}"
    call.verl_target = (f"verl.utils.reward_score.{module}", name)  # whose signature the arguments must fit
    return call


def _verl_default(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    from verl.utils.reward_score import default_compute_score

    return default_compute_score(data_source, solution_str, ground_truth, extra_info, **kwargs)


class MathDAPO:
    """Trinity's ``math_dapo_reward`` computed as veRL's dapo reward manager computes it: veRL's
    ``math_dapo.compute_score`` (+1 right, -1 wrong, on the last 300 characters) plus, when enabled, the
    overlong-buffer penalty ``min(-(L - (max_response_length - cache_length)) / cache_length * penalty_factor, 0)``
    on the response's token count L (EOS included, as veRL's attention mask counts it). veRL does not clip the
    penalty for L > max_response_length (Trinity clips it at -penalty_factor); veRL's rollout never generates
    past it when max_resp_len is data.max_response_length, as DAPO's scripts set it.

    The arguments are Trinity's names (``rftc convert`` maps veRL's reward_kwargs onto them): veRL's
    ``overlong_buffer_cfg.{enable,len,penalty_factor}`` and ``max_resp_len``. veRL's ``overlong_buffer_cfg.log``
    only decides whether the penalty is logged; here it always is (``overlong_reward``, ``overlong``)."""

    needs_response_length = True

    def __init__(self, enable_overlong_penalty: bool | None = None, penalty_factor: float | None = None,
                 max_response_length: int | None = None, cache_length: int | None = None):
        self.enabled = bool(enable_overlong_penalty)
        self.penalty_factor, self.max_response_length, self.cache_length = (
            penalty_factor, max_response_length, cache_length)
        if not self.enabled:
            return
        # veRL's DAPORewardManager asserts these at construction
        unset = [k for k, v in (("max_response_length", max_response_length), ("cache_length", cache_length),
                                ("penalty_factor", penalty_factor)) if v is None]
        if unset:
            raise ValueError(f"math_dapo_reward: enable_overlong_penalty needs {', '.join(unset)} in reward_fn_args")
        if not cache_length > 0:
            raise ValueError(f"math_dapo_reward: cache_length (veRL's overlong_buffer.len) must be positive, got "
                             f"{cache_length}")
        if not max_response_length >= cache_length:
            raise ValueError(f"math_dapo_reward: max_response_length ({max_response_length}) must be at least "
                             f"cache_length ({cache_length})")

    def __call__(self, data_source, solution_str, ground_truth, extra_info=None, *, response_length: int) -> dict:
        from verl.utils.reward_score import math_dapo

        result = math_dapo.compute_score(solution_str, ground_truth)
        out = {"score": result["score"], "acc": float(result["acc"])}
        if self.enabled:
            overlong = overlong_penalty(response_length, self.max_response_length, self.cache_length,
                                        self.penalty_factor)
            out["score"] += overlong
            out["overlong_reward"] = float(overlong)
            out["overlong"] = float(overlong < 0)
        return out


# Trinity's reward names and veRL's data-source dispatch. math answers go through veRL's \boxed{} matcher.
# A class is built from the taskset's reward_fn_args (as Trinity builds its RewardFn classes).
BUILTIN: dict[str, Callable] = {
    "last_number": last_number,
    "accuracy_reward": last_number,
    "gsm8k": _verl("gsm8k"),
    "math_reward": _verl("math_reward"),
    "math_boxed_reward": _verl("math_reward"),
    "math_dapo_reward": MathDAPO,
    "verl_default": _verl_default,
}


def _bind(fn: Callable, name: str, args: dict) -> Callable:
    """fn with the taskset's reward_fn_args bound; arguments it does not take are a configuration error."""
    if not args:
        return fn
    module, attr = getattr(fn, "verl_target", (None, None))
    target = getattr(importlib.import_module(module), attr) if module else fn
    positional = 2 if module else 4  # veRL's compute_score(solution_str, ground_truth) or the full call
    try:
        inspect.signature(target).bind(*range(positional), **args)
    except TypeError as exc:
        raise ValueError(f"reward function {name} does not take reward_fn_args {sorted(args)}: {exc}") from None
    except ValueError:  # no signature to inspect (a builtin): the call itself will tell
        pass
    return functools.wraps(fn)(functools.partial(fn, **args))


def resolve(name: str | None, args: dict | None = None) -> Callable:
    """A built-in name, ``module:function`` or ``module.function``, with ``args`` (the taskset's
    reward_fn_args) bound; None means veRL's data-source dispatch. Raises ValueError for a name that cannot
    be found or arguments the function does not take."""
    args = dict(args or {})
    if not name:
        return _bind(BUILTIN["verl_default"], "verl_default", args)
    if name in BUILTIN:
        fn = BUILTIN[name]
        if isinstance(fn, type):
            try:
                return fn(**args)
            except TypeError as exc:
                raise ValueError(f"reward function {name} does not take reward_fn_args {sorted(args)}: {exc}") \
                    from None
        return _bind(fn, name, args)
    module, sep, attr = name.partition(":") if ":" in name else name.rpartition(".")
    if not sep or not module or not attr:
        raise ValueError(f"unknown reward function {name!r}: use one of {', '.join(BUILTIN)} or module:function")
    fn = getattr(importlib.import_module(module), attr, None)
    if not callable(fn):
        raise ValueError(f"{name!r}: {module} has no function {attr}")
    return _bind(fn, name, args)


def argument_error(name: str | None, args: dict | None) -> str | None:
    """Why a built-in reward function cannot take these reward_fn_args, or None. For the run plan, so the
    mistake is found before anything starts: imports nothing heavy, so functions bound to veRL's modules and
    users' own are left to :func:`resolve` in the explorer."""
    fn = BUILTIN.get(name or "verl_default")
    if fn is None or not args or hasattr(fn, "verl_target"):
        return None
    try:
        resolve(name, args)
    except ValueError as exc:
        return str(exc)
    return None


# default_workflow_type values this runtime runs: Trinity's simple workflows (the chat as the taskset formats it,
# one reward function by name) and rftc's veRL reward workflow. Trinity's other workflows add prompts, turns or
# rewards of their own that are not reproduced here.
WORKFLOWS = ("simple_workflow", "async_simple_workflow", WORKFLOW)


def scorer(taskset, reward_fn_name: str | None = None) -> Callable:
    """``score(task, text, response_length) -> (reward, metrics)`` for the taskset's responses: veRL's reward
    (rftc.plugins.reward) for rftc's workflow, else the named reward function (``reward_fn_name``, default the
    taskset's) on the row's data source and the taskset's response_key."""
    if taskset.default_workflow_type == WORKFLOW:
        verl = VerlReward(taskset.workflow_args)
        return lambda task, text, n: _with_extra(*verl(task.row, text, n))
    fn = resolve(reward_fn_name or taskset.default_reward_fn_type, taskset.reward_fn_args)
    return lambda task, text, n: score(fn, task.row.get("data_source", ""), text, task.answer,
                                       task.row.get("extra_info", {}), n)


def _with_extra(reward: float, extra: dict[str, float]) -> tuple[float, dict[str, float]]:
    return checked(reward)[0], extra


def score(fn: Callable, data_source, response: str, ground_truth, extra_info,
          response_length: int | None = None) -> tuple[float, dict[str, float]]:
    """The reward and the other numeric entries of the function's dict (for metrics); see :func:`checked`."""
    if getattr(fn, "needs_response_length", False):
        return checked(fn(data_source, response, ground_truth, extra_info, response_length=response_length))
    return checked(fn(data_source, response, ground_truth, extra_info))


def checked(out) -> tuple[float, dict[str, float]]:
    """A reward function's result as (reward, numeric extras). A value that is not a finite number raises
    ValueError, like a function that raises: the caller counts it (RFTC502)."""
    extras: dict[str, float] = {}
    if isinstance(out, dict):
        if "score" not in out:
            raise ValueError(f"the reward function returned a dict without 'score' (keys: {sorted(out)})")
        extras = {k: float(v) for k, v in out.items() if k != "score" and isinstance(v, (bool, int, float))}
        out = out["score"]
    try:
        reward = float(out)
    except (TypeError, ValueError):
        raise ValueError(f"the reward function returned {type(out).__name__} {out!r:.60}, not a number") from None
    if not math.isfinite(reward):
        raise ValueError(f"the reward function returned {reward}")
    return reward, extras
