"""Trinity-RFT 0.6.0 registries as data: algorithm types with the defaults they fill, the functions each
``*_fn`` field names with the arguments their constructors take, and the names Trinity looks up only at
run time (workflows, rewards, selectors, monitors, engine types). Source: trinity-0.6.md §4.
"""

from __future__ import annotations

from dataclasses import dataclass

# Filled for every algorithm where the field is None, before the algorithm's own defaults (§4.1).
GLOBAL_DEFAULTS = {
    "sample_strategy": "warmup", "policy_loss_fn": "ppo", "advantage_fn": "ppo", "kl_penalty_fn": "none",
    "kl_loss_fn": "k2", "entropy_loss_fn": "default", "loss_agg_mode": "token-mean",
}


@dataclass(frozen=True)
class Algorithm:
    name: str
    use_critic: bool
    use_reference: bool
    schema: str  # experience buffer schema: experience, sft, cpt, dpo
    defaults: dict  # what the algorithm's default_config() fills where the field is None
    declared_repeat_times: int = 1  # declared but never applied: the field's own default (1) is not None
    advantage_in_trainer: bool = False  # compute_advantage_in_trainer: on each trainer batch, not per task group

    def default(self, field: str):
        return self.defaults.get(field, GLOBAL_DEFAULTS.get(field))


def _algo(name, critic, ref, schema="experience", repeat=1, in_trainer=False, **defaults):
    defaults.setdefault("sample_strategy", "default")
    return Algorithm(name, critic, ref, schema, defaults, repeat, in_trainer)


_NO_KL = {"kl_loss_fn": "none"}
_NO_KL_NO_ENT = {"kl_loss_fn": "none", "entropy_loss_fn": "none"}

ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in [
    _algo("ppo", True, True, in_trainer=True, advantage_fn="ppo", policy_loss_fn="ppo"),
    _algo("grpo", False, True, repeat=2, advantage_fn="grpo", policy_loss_fn="ppo"),
    _algo("grpo_verl", False, True, in_trainer=True, repeat=2, advantage_fn="grpo", policy_loss_fn="ppo"),
    _algo("dapo", False, False, repeat=16, advantage_fn="grpo", policy_loss_fn="ppo", **_NO_KL),
    _algo("reinforceplusplus", False, True, in_trainer=True, repeat=2, advantage_fn="reinforceplusplus",
          policy_loss_fn="ppo"),
    _algo("rloo", False, True, in_trainer=True, repeat=2, advantage_fn="rloo", policy_loss_fn="ppo"),
    _algo("opmd", False, True, repeat=2, advantage_fn="opmd", policy_loss_fn="opmd"),
    _algo("asymre", False, False, repeat=2, advantage_fn="asymre", policy_loss_fn="opmd", **_NO_KL_NO_ENT),
    _algo("topr", False, True, repeat=2, advantage_fn="reinforce", policy_loss_fn="topr"),
    _algo("cispo", False, True, repeat=2, advantage_fn="grpo", policy_loss_fn="cispo"),
    _algo("gspo", False, True, repeat=2, advantage_fn="grpo", policy_loss_fn="gspo"),
    _algo("sapo", False, True, repeat=2, advantage_fn="grpo", policy_loss_fn="sapo"),
    _algo("rec", False, True, repeat=2, advantage_fn="rec", policy_loss_fn="rec"),
    _algo("sppo", False, False, repeat=2, advantage_fn="opmd", policy_loss_fn="sppo", **_NO_KL_NO_ENT),
    _algo("multi_step_grpo", False, True, repeat=8, advantage_fn="step_wise_grpo", policy_loss_fn="ppo"),
    _algo("gigpo", False, True, repeat=8, advantage_fn="gigpo", policy_loss_fn="ppo",
          advantage_fn_args={"omega": 1, "gamma": 1, "fnorm": "none", "epsilon": 1e-6},
          policy_loss_fn_args={"clip_range_low": 0.2, "clip_range_high": 0.2, "loss_agg_mode": "token-mean"}),
    _algo("mix", False, True, repeat=8, advantage_fn="grpo", policy_loss_fn="mix", entropy_loss_fn="mix",
          sample_strategy="mix"),
    _algo("mix_chord", False, True, repeat=8, advantage_fn="grpo", policy_loss_fn="mix_chord",
          entropy_loss_fn="mix", sample_strategy="mix"),
    _algo("raft", False, False, policy_loss_fn="sft", **_NO_KL_NO_ENT),
    _algo("on_policy_distill", False, False, in_trainer=True, repeat=8, advantage_fn="on_policy_distill",
          policy_loss_fn="ppo", **_NO_KL_NO_ENT),
    _algo("jsd", False, False, in_trainer=True, repeat=8, advantage_fn="jsd", policy_loss_fn="ppo", **_NO_KL_NO_ENT),
    _algo("sft", False, False, schema="sft", policy_loss_fn="sft", **_NO_KL_NO_ENT),
    _algo("cpt", False, False, schema="cpt", policy_loss_fn="sft", **_NO_KL_NO_ENT),
    _algo("dpo", False, True, schema="dpo", repeat=2, policy_loss_fn="dpo"),
]}

# Algorithms whose check_config() enforces mode train, an experience file and checkpoint sync (§2.2).
OFFLINE_ALGORITHMS = {"sft": "sft", "cpt": "sft", "dpo": "dpo"}  # algorithm -> the name Trinity's message uses

_EPS = "epsilon"
# Constructor arguments of each registered function, with the constructor's defaults (§4.2-§4.5). Keys outside these
# make the constructor raise TypeError when the trainer or explorer builds the function.
ADVANTAGE_FNS: dict[str, dict] = {
    "ppo": {"gamma": 1.0, "lam": 1.0},
    "grpo": {_EPS: 1e-6, "std_threshold": None, "duplicate_experiences": False, "rank_penalty": None,
             "std_cal_level": "group"},
    "grpo_verl": {_EPS: 1e-6},
    "step_wise_grpo": {_EPS: 1e-6, "enable_step_norm": False, "std_threshold": None, "std_cal_level": "group"},
    "gigpo": {"omega": 1, "gamma": 1, "fnorm": "none", _EPS: 1e-6, "step_reward_key": "step_reward",
              "env_state_hash_key": "env_state_hash"},
    "reinforceplusplus": {"gamma": 1.0},
    "reinforce": {},
    "remax": {},
    "rloo": {},
    "opmd": {"opmd_baseline": "mean", "tau": 1.0},
    "opmd_verl": {"opmd_baseline": "mean", "tau": 1.0},
    "asymre": {"baseline_shift": -0.1},
    "asymre_verl": {"baseline_shift": -0.1},
    "rec": {_EPS: 1e-6, "std_normalize": False, "drop": None},
    "on_policy_distill": {"kl_coef": 1.0},
    "jsd": {"lambda_coef": 0.5, "kl_coef": 1.0, "temperature": 1.0, "chunk_size": None},
    "clipb": {_EPS: 1e-6, "mu": 2.5},
    "clipv": {_EPS: 1e-6, "mu": 2.0, "max_frac": 1e-4},
}
# Advantages computed from the teacher log-probs a distillation workflow stores in each experience
# (experience.teacher_logprobs), which read no reward.
TEACHER_ADVANTAGE_FNS = ("on_policy_distill", "jsd")
# Advantages normalised within a task's group of rollouts: one rollout per task makes every advantage 0.
GROUP_ADVANTAGE_FNS = {"grpo", "grpo_verl", "step_wise_grpo", "gigpo", "rloo", "opmd", "opmd_verl", "asymre",
                       "asymre_verl", "rec"}

_AGG = {"loss_agg_mode": "token-mean"}
POLICY_LOSS_FNS: dict[str, dict] = {
    "ppo": {"clip_range": None, "clip_range_low": None, "clip_range_high": None, "clip_ratio_c": 3.0, **_AGG,
            "enable_sequence_masking": False, "delta_sequence_masking": 0.1, "fallback_to_policy_gradient": False},
    "opmd": {"tau": 1.0, **_AGG},
    "dpo": {"beta": 0.1, "label_smoothing": 0.0},
    "sft": {**_AGG},
    "mix": {"mu": 0.1, "clip_range": None, **_AGG},
    "gspo": {"clip_range": None, "clip_range_low": None, "clip_range_high": None,
             "loss_agg_mode": "seq-mean-token-mean"},
    "topr": {"advantage_threshold": 0.0, **_AGG},
    "cispo": {"clip_range_low": 1.0, "clip_range_high": 0.28, "enable_mask_clip": False, "mask_clip_range_low": 1.0,
              "mask_clip_range_high": 0.28, **_AGG},
    "sft_is": {**_AGG},
    "sft_phi": {**_AGG, "cutoff_prob": 1.0},
    "mix_chord": {"mu_warmup_steps": 0, "mu_decay_steps": 0, "mu_peak": 0.1, "mu_valley": 0.1, "clip_range": None,
                  "enable_phi_function": True, **_AGG},
    "sppo": {"epsilon": 0.3, **_AGG},
    "rec": {"epsilon_low": 0.2, "epsilon_high": 0.2, "epsilon_low_prime": 0.4, "epsilon_high_prime": 0.4,
            "clip_mode": "none", "weight": "none", "regularizer": "none", "regularizer_coef": 0.0, "temp": 1.0},
    "sapo": {"tau_pos": 1.0, "tau_neg": 1.05, **_AGG},
    "importance_sampling": {**_AGG},
}

_KL_ARGS = {"adaptive": False, "kl_coef": 0.001, "target_kl": None, "horizon": None}
KL_FNS: dict[str, dict] = {k: dict(_KL_ARGS) for k in ("none", "k1", "k2", "k3", "low_var_kl", "abs", "corrected_k3")}
ENTROPY_LOSS_FNS: dict[str, dict] = {k: {"entropy_coef": 0.0} for k in ("default", "mix", "none")}
SAMPLE_STRATEGIES: dict[str, dict] = {
    "default": {}, "warmup": {}, "staleness_control": {},
    "mix": {"expert_data_ratio": 0.5, "sft_dataset_name": "sft_dataset"},
}

# default_args() where it is not the constructor's defaults: Trinity builds a function whose *_args is unset with
# default_args() (config_validator's set_if_none), one whose *_args is given with those alone
DEFAULT_ARGS: dict[str, dict[str, dict]] = {
    "advantage_fn": {"clipv": {"mu": 8.5}},
    "policy_loss_fn": {"ppo": {"clip_range": 0.2}, "mix": {"clip_range": 0.2}, "mix_chord": {"clip_range": 0.2},
                       "gspo": {"clip_range_low": 3e-4, "clip_range_high": 4e-4},
                       "rec": {"epsilon_low_prime": 0.6, "epsilon_high_prime": 2}},
}

# algorithm field -> (registry, the registry's name in messages)
FUNCTION_FIELDS = {
    "advantage_fn": ADVANTAGE_FNS,
    "policy_loss_fn": POLICY_LOSS_FNS,
    "kl_penalty_fn": KL_FNS,
    "kl_loss_fn": KL_FNS,
    "entropy_loss_fn": ENTROPY_LOSS_FNS,
    "sample_strategy": SAMPLE_STRATEGIES,
}

LOSS_AGG_MODES = ("token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm")
SELECTORS = ("sequential", "shuffle", "random", "offline_easy2hard", "difficulty_based")
MONITORS = ("tensorboard", "wandb", "mlflow", "swanlab")
STORAGE_TYPES = ("file", "queue", "sql")
PRIORITY_FNS = ("linear_decay", "decay_limit_randomization")
# each priority function's default_config(), which the replay queue updates with priority_fn_args
# (trinity/buffer/storage/queue.py AsyncPriorityQueue.__init__)
PRIORITY_FN_ARGS = {"linear_decay": {"decay": 2.0}, "decay_limit_randomization": {"decay": 2.0, "use_count_limit": 3,
                                                                                   "sigma": 0.0}}
EXPERIENCE_OPERATORS = ("reward_filter", "reward_std_filter", "dapo_dynamic_sampling", "mask_response_truncated",
                        "reward_shaping_mapper", "pass_rate_calculator", "data_juicer", "invalid_reward_filter")
ENGINE_TYPE_PREFIXES = ("vllm", "sglang", "tinker", "external")
MODES = ("both", "train", "explore", "bench", "serve", "colocate")
CONCURRENT_MODES = ("sequential", "asynchronous", "multi-threading")
SAVE_HF_CHECKPOINT = ("last", "always", "never")
TRAINER_TYPES = ("verl", "tinker")
TRAINER_STRATEGIES = ("fsdp", "fsdp2", "megatron")
LR_SCHEDULERS = ("constant", "cosine")

WORKFLOWS = (
    "simple_workflow", "async_simple_workflow", "math_workflow", "async_math_workflow", "math_boxed_workflow",
    "async_math_boxed_workflow", "math_eval_workflow", "async_math_eval_workflow", "math_rm_workflow",
    "async_math_rm_workflow", "tool_call_workflow", "agentscope_workflow_adapter", "agentscope_workflow_adapter_v1",
    "agentscope_react_workflow", "agentscope_react_math_workflow", "as_react_workflow",
    "agentscopev0_react_math_workflow", "agentscope_v1_react_search_workflow", "email_search_workflow",
    "alfworld_workflow", "RAFT_alfworld_workflow", "RAFT_reflect_alfworld_workflow", "frozen_lake_workflow",
    "sciworld_workflow", "webshop_workflow", "intercode_sql_workflow", "step_wise_alfworld_workflow",
    "async_math_ruler_workflow", "math_ruler_workflow", "math_trainable_ruler_workflow", "rubric_judge_workflow",
    "rubric_judge_openai_workflow", "simple_mm_workflow", "async_simple_mm_workflow", "on_policy_distill_workflow",
    "on_policy_distill_math_workflow", "sudoku_workflow",
)
# how many turns each workflow runs (trinity/common/workflows/: one chat call per response in the simple, math,
# judge, multimodal and distillation workflows and tool_call_workflow; a loop over an agent's or an environment's
# steps in the ReAct, email-search and environment workflows); the agentscope adapters run the user's own agent
SINGLE_TURN_WORKFLOWS = (
    "simple_workflow", "async_simple_workflow", "math_workflow", "async_math_workflow", "math_boxed_workflow",
    "async_math_boxed_workflow", "math_eval_workflow", "async_math_eval_workflow", "math_rm_workflow",
    "async_math_rm_workflow", "tool_call_workflow", "async_math_ruler_workflow", "math_ruler_workflow",
    "math_trainable_ruler_workflow", "rubric_judge_workflow", "rubric_judge_openai_workflow", "simple_mm_workflow",
    "async_simple_mm_workflow", "on_policy_distill_workflow", "on_policy_distill_math_workflow",
)
MULTI_TURN_WORKFLOWS = (
    "agentscope_react_workflow", "agentscope_react_math_workflow", "as_react_workflow",
    "agentscopev0_react_math_workflow", "agentscope_v1_react_search_workflow", "email_search_workflow",
    "alfworld_workflow", "RAFT_alfworld_workflow", "RAFT_reflect_alfworld_workflow", "frozen_lake_workflow",
    "sciworld_workflow", "webshop_workflow", "intercode_sql_workflow", "step_wise_alfworld_workflow", "sudoku_workflow",
)
REWARD_FNS = ("math_reward", "math_boxed_reward", "format_reward", "countdown_reward", "accuracy_reward",
              "math_dapo_reward")


def arguments(field: str, name: str | None, given: dict | None) -> dict:
    """The arguments Trinity builds function ``name`` of algorithm field ``field`` with: the given ``*_args`` (when
    None, the function's default_args()) over its constructor's defaults. Trinity never merges a given dict with
    default_args(): keys it leaves out take the constructor's defaults."""
    ctor = FUNCTION_FIELDS[field].get(name, {})
    return {**ctor, **(DEFAULT_ARGS.get(field, {}).get(name, {}) if given is None else given)}


def construction_error(field: str, name: str | None, args: dict) -> str | None:
    """What the constructor of ``name`` raises when built with ``args`` (as :func:`arguments` gives them), else
    None: ppo's and gspo's clip bounds fall back to clip_range, and each must come out set."""
    if field != "policy_loss_fn" or name not in ("ppo", "gspo"):
        return None
    for side in ("low", "high"):
        if args.get(f"clip_range_{side}") is None and args.get("clip_range") is None:
            return (f"Either clip_range or clip_range_{side} must be specified." if name == "gspo" else
                    f"clip_range_{side} must be specified.")
    return None


def is_import_path(name: str) -> bool:
    """Registries also accept a dotted import path (``my_pkg.module.ClassName``) resolved at run time."""
    return "." in name


def import_error(name: str) -> str | None:
    """Trinity's error for a dotted name that cannot be an import path (``module.Class``), else None. Whether a
    well-formed path imports depends on the installed packages, so that is not decided here."""
    if all(part.isidentifier() for part in name.split(".")):
        return None
    module, _, cls = name.rpartition(".")
    return f"Cannot dynamically import {cls} from {module}"
