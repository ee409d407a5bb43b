"""Rewards: veRL's reward model becomes a Trinity auxiliary model; a custom reward function file becomes a
reward function Trinity looks up by name (which the user registers)."""

from __future__ import annotations

from rftc.mapping.draft import Draft

EI = "buffer.explorer_input"
# legacy (<= 0.8) and 0.9 spellings of the same settings
RM_ENABLE = ("reward_model.enable", "reward.reward_model.enable")
RM_PATH = ("reward_model.model.path", "reward.reward_model.model_path")
RM_TP = ("reward_model.rollout.tensor_model_parallel_size", "reward.reward_model.rollout.tensor_model_parallel_size")
RM_MEM = ("reward_model.rollout.gpu_memory_utilization", "reward.reward_model.rollout.gpu_memory_utilization")
CRF = ("custom_reward_function", "reward.custom_reward_function")
KWARGS = ("reward_model.reward_kwargs", "reward.reward_kwargs")
# veRL's dapo reward manager arguments -> Trinity's math_dapo_reward arguments (same overlong-penalty formula:
# 0 up to max_resp_len - len, then falling linearly to -penalty_factor at max_resp_len)
DAPO_ARGS = {"overlong_buffer_cfg.enable": "enable_overlong_penalty", "overlong_buffer_cfg.len": "cache_length",
             "overlong_buffer_cfg.penalty_factor": "penalty_factor", "max_resp_len": "max_response_length"}
MANAGER = ("reward_model.reward_manager", "reward.reward_manager.name")


def _first(d: Draft, keys) -> str | None:
    for k in keys:
        if d.user(k):
            return k
    return None


def custom_reward(d: Draft) -> bool:
    return any(d.user(f"{p}.path") and d.val(f"{p}.path") for p in CRF)


def map_rewards(d: Draft, n_train: int) -> list[tuple[int, str]]:
    """reward_model.enable -> explorer.auxiliary_models[0] {model_path = model.path, tensor_parallel_size =
    rollout.tensor_model_parallel_size (1 when unset, as the guide), gpu_memory_utilization}; its engine_num
    comes from the GPU split. custom_reward_function.{path,name} -> default_reward_fn_type = name, plus
    RFTC307 saying how to register it; reward_kwargs -> each training taskset's reward_fn_args.
    Every other reward setting tunes veRL's reward workers (RFTC301) or has no equivalent (RFTC300).
    Returns [(GPUs per engine, key)] for each auxiliary model."""
    aux: list[tuple[int, str]] = []
    ek = _first(d, RM_ENABLE)
    enabled = bool(ek and d.flag(ek))
    if enabled:
        pk = _first(d, RM_PATH)
        if pk is None or not d.val(pk):
            d.report("RFTC313", f"{ek} is true but no reward model path is set", ek)
        else:
            at = "explorer.auxiliary_models[0]"
            d.set(f"{at}.model_path", d.val(pk), pk, ek)
            tk = _first(d, RM_TP)
            tp = d.number(tk, positive=True) if tk else 1
            tp = tp or 1
            d.set(f"{at}.tensor_parallel_size", tp, *([tk] if tk else []), note="" if tk else "1, as the Trinity guide")
            mk = _first(d, RM_MEM)
            if mk:
                d.set(f"{at}.gpu_memory_utilization", d.val(mk), mk)
            aux.append((tp, pk))
            d.report("RFTC308", f"the reward model {d.val(pk)} becomes explorer.auxiliary_models[0]; Trinity does not "
                     "score with it unless the workflow queries it", ek,
                     hint="choose a workflow that calls the auxiliary model (e.g. math_rm_workflow, or your own)",
                     settles=False)
    if custom_reward(d):
        p = next(p for p in CRF if d.user(f"{p}.path"))
        name = d.val(f"{p}.name") or "compute_score"
        path = d.val(f"{p}.path")
        d.set(f"{EI}.default_reward_fn_type", name, f"{p}.name" if d.user(f"{p}.name") else f"{p}.path",
              note="register it under this name (RFTC307)")
        d.account(f"{p}.path", "reported")
        d.report("RFTC307", f"the reward function {name} from {path} must be registered in Trinity under the name "
                 f"{name!r}", f"{p}.path",
                 hint=f"in a module under a plugin directory: `@REWARD_FUNCTIONS.register_module({name!r})` on a "
                 f"RewardFn class whose __call__ wraps {name}(data_source, solution_str, ground_truth, extra_info); "
                 "run with `trinity run --plugin-dir DIR`", extra_keys=(f"{p}.name",) if d.user(f"{p}.name") else ())
        for k in d.user_keys_under(f"{p}.reward_kwargs"):
            sub = k[len(f"{p}.reward_kwargs."):]
            for i in range(n_train):
                d.set(f"{EI}.tasksets[{i}].reward_fn_args.{sub}", d.val(k), k)
    _dapo(d, n_train)
    _rest(d, enabled)
    return aux


def _dapo(d: Draft, n_train: int) -> None:
    """reward_manager=dapo on tasksets Trinity scores with math_dapo_reward (the DAPO math data): the manager
    is implied and its overlong-buffer kwargs become each such taskset's reward_fn_args (DAPO_ARGS); the
    buffer's `log` flag only logs. Other data keep the RFTC300 report."""
    mk = _first(d, MANAGER)
    if mk is None or str(d.val(mk)) != "dapo":
        return
    dapo = [i for i in range(n_train) if d.get(f"{EI}.tasksets[{i}].default_reward_fn_type") == "math_dapo_reward"]
    if not dapo:
        return
    d.implied(mk, "math_dapo_reward scores as veRL's dapo reward manager (+1/-1 and the overlong penalty)")
    for prefix in KWARGS:
        for k in d.user_keys_under(prefix):
            sub = k[len(prefix) + 1:]
            if sub == "overlong_buffer_cfg.log":
                d.implied(k, "logging only")
            elif sub in DAPO_ARGS:
                for i in dapo:
                    d.set(f"{EI}.tasksets[{i}].reward_fn_args.{DAPO_ARGS[sub]}", d.val(k), k)


def _rest(d: Draft, enabled: bool) -> None:
    for k in [*d.user_keys_under("reward_model"), *d.user_keys_under("reward"),
              *d.user_keys_under("custom_reward_function")]:
        if d.done(k):
            continue
        if k in MANAGER:
            v = str(d.val(k))
            if v == "naive":
                d.implied(k, "one reward per response, as Trinity's workflows compute")
            else:
                d.report("RFTC300", f"{k}={v} has no Trinity-RFT 0.6 equivalent; Trinity computes rewards in the "
                         "workflow (for DAPO's overlong penalty use the math_dapo_reward function)", k)
        elif ".reward_kwargs." in k or k.endswith(".reward_kwargs"):
            d.report("RFTC300", f"{k} has no Trinity-RFT 0.6 equivalent: reward-manager arguments belong to the "
                     "reward function (reward_fn_args)", k)
        elif k.endswith(".name") and "custom_reward_function" in k:
            d.implied(k, "the default function name compute_score")
        elif k in RM_ENABLE or k in RM_PATH or k in RM_TP or k in RM_MEM or k.startswith("reward_model.") or \
                k.startswith("reward.reward_model."):
            if not enabled:
                d.implied(k, "the reward model is disabled")
            else:
                d.report("RFTC301", f"{k} is left out: it tunes veRL's reward-model worker, and Trinity serves the "
                         "reward model with vLLM", k)
        else:
            d.report("RFTC301", f"{k} is left out: it tunes veRL's reward workers, which Trinity's workflows replace", k)
