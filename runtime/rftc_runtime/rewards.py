"""Reward functions: rule-based answer matching built in, veRL's reward_score functions where they fit,
and a user's function named ``module:function`` (or ``module.function``).

Every function is called as veRL calls a custom reward function:
``fn(data_source, solution_str, ground_truth, extra_info) -> float | dict`` (a dict carries ``score``).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable

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
    def call(data_source, solution_str, ground_truth, extra_info=None):
        fn = getattr(importlib.import_module(f"verl.utils.reward_score.{module}"), name)
        return fn(solution_str, ground_truth)

    call.__name__ = f"verl.utils.reward_score.{module}.{name}"
    return call


def _verl_default(data_source, solution_str, ground_truth, extra_info=None):
    from verl.utils.reward_score import default_compute_score

    return default_compute_score(data_source, solution_str, ground_truth, extra_info)


# Trinity's reward names and veRL's data-source dispatch. math answers go through veRL's \boxed{} matcher.
BUILTIN: dict[str, Callable] = {
    "last_number": last_number,
    "accuracy_reward": last_number,
    "gsm8k": _verl("gsm8k"),
    "math_reward": _verl("math_reward"),
    "math_boxed_reward": _verl("math_reward"),
    "verl_default": _verl_default,
}


def resolve(name: str | None) -> Callable:
    """A built-in name, ``module:function`` or ``module.function``; None means veRL's data-source dispatch."""
    if not name:
        return BUILTIN["verl_default"]
    if name in BUILTIN:
        return BUILTIN[name]
    module, sep, attr = name.partition(":") if ":" in name else name.rpartition(".")
    if not sep or not module or not attr:
        raise ValueError(f"unknown reward function {name!r}: use one of {', '.join(BUILTIN)} or module:function")
    fn = getattr(importlib.import_module(module), attr, None)
    if not callable(fn):
        raise ValueError(f"{name!r}: {module} has no function {attr}")
    return fn


def score(fn: Callable, data_source, response: str, ground_truth, extra_info) -> float:
    out = fn(data_source, response, ground_truth, extra_info)
    if isinstance(out, dict):
        out = out["score"]
    return float(out)
