"""Rewards: veRL's reward model becomes a Trinity auxiliary model; the rule reward (a custom reward function
file, the dapo reward manager's overlong buffer) becomes the workflow_args of rftc's veRL reward workflow,
which scores as veRL's reward manager does (rftc/plugins/reward.py)."""

from __future__ import annotations

from rftc.mapping.draft import Draft
from rftc.verl.releases import legacy
from rftc.verl.trainers import is_dapo, module_of

# legacy (<= 0.8) and 0.9 spellings of the same settings
RM_ENABLE = ("reward_model.enable", "reward.reward_model.enable")
RM_PATH = ("reward_model.model.path", "reward.reward_model.model_path")
RM_TP = ("reward_model.rollout.tensor_model_parallel_size", "reward.reward_model.rollout.tensor_model_parallel_size")
RM_MEM = ("reward_model.rollout.gpu_memory_utilization", "reward.reward_model.rollout.gpu_memory_utilization")
CRF = ("custom_reward_function", "reward.custom_reward_function")
KWARGS = ("reward_model.reward_kwargs", "reward.reward_kwargs")
# the dapo reward manager's arguments, which the workflow reads under veRL's own names
DAPO_ARGS = ("overlong_buffer_cfg.enable", "overlong_buffer_cfg.len", "overlong_buffer_cfg.penalty_factor",
             "max_resp_len")
MANAGER = ("reward_model.reward_manager", "reward.reward_manager.name")
LOG_ONLY = "logging only: the workflow always reports the penalty"  # the overlong buffer's `log` flag
# the conditions (rftc.mapping.classes WHEN) under which a key decides the reward through veRL's reward path
# (rftc.mapping.reward_loop): the manager it loads, the sandbox default_compute_score runs code in, the reward
# model's settings; 0.7.0's use_reward_loop, which chooses the path
MANAGER_WHEN = ("loop_manager", "loop_importlib", "loop_class", "trainer_manager", "trainer_importlib",
                "section_manager", "section_importlib")
SANDBOX_WHEN = ("trainer_sandbox", "trainer_sandbox_on", "section_sandbox", "section_sandbox_on", "legacy_sandbox",
                "legacy_sandbox_on")
MODEL_WHEN = ("rm_worker", "rm_worker_template", "rm_worker_tokenizer", "rm_engine_legacy",
              "rm_engine_legacy_context", "rm_engine", "rm_vllm")
PATH_WHEN = "reward_loop_switch"
WORKFLOW_MANAGERS = ("naive", "dapo")  # what rftc's veRL reward workflow implements


def ignored(d: Draft, key: str) -> bool:
    """A legacy reward key the launch's trainer no longer reads (verl 0.9's main_ppo: RFTC212)."""
    inv = d.cfg.invocation
    return key.split(".", 1)[0] in legacy.LEGACY_ROOTS and inv is not None and \
        legacy.ignores_legacy(module_of(inv), d.cfg.release)


def _first(d: Draft, keys) -> str | None:
    for k in keys:
        if d.user(k) and not ignored(d, k):
            return k
    return None


def custom_reward(d: Draft) -> bool:
    return any(d.user(f"{p}.path") and d.val(f"{p}.path") and not ignored(d, p) for p in CRF)


def reward_model(d: Draft) -> bool:
    ek = _first(d, RM_ENABLE)
    return bool(ek and d.flag(ek))


def map_rewards(d: Draft, tasksets: list[str]) -> list[tuple[int, str]]:
    """reward_model.enable -> explorer.auxiliary_models[0] {model_path = model.path, tensor_parallel_size =
    rollout.tensor_model_parallel_size (1 when unset, as the guide), gpu_memory_utilization}; its engine_num
    comes from the GPU split. In the workflow_args of each of ``tasksets`` (those rftc's reward workflow
    scores, from data.map_data), under veRL's names: custom_reward_function.{path, name, reward_kwargs}
    (RFTC307 when the path is relative); the dapo reward manager's reward_manager, overlong_buffer_cfg and
    max_resp_len.
    Every other reward setting tunes veRL's reward workers (RFTC301) or has no equivalent (RFTC300).
    Returns [(GPUs per engine, key)] for each auxiliary model."""
    aux: list[tuple[int, str]] = []
    enabled = reward_model(d)
    if enabled:
        ek = _first(d, RM_ENABLE)
        pk = _first(d, RM_PATH)
        own = sorted(k for k in d.cfg.fork_keys if k.startswith(f"{ek.rsplit('.', 1)[0]}."))
        if (pk is None or not d.val(pk)) and own:  # the fork builds its reward model from keys of its own
            d.report("RFTC327", f"{ek}=true enables the reward model of the veRL fork at {d.cfg.source}, which it "
                     f"configures with keys upstream veRL lacks ({', '.join(own[:4])}{', ...' if own[4:] else ''}); "
                     "Trinity's workflow must provide it", ek,
                     hint="implement the reward model in the Trinity workflow or plugin that runs this job")
        elif pk is None or not d.val(pk):
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
    if custom_reward(d) and tasksets:
        p = next(p for p in CRF if d.user(f"{p}.path") and not ignored(d, p))
        path = str(d.val(f"{p}.path"))
        for at in tasksets:
            d.set(f"{at}.workflow_args.custom_reward_function.path", path, f"{p}.path")
            if d.user(f"{p}.name") and d.val(f"{p}.name"):
                d.set(f"{at}.workflow_args.custom_reward_function.name", d.val(f"{p}.name"), f"{p}.name")
            for k in d.user_keys_under(f"{p}.reward_kwargs"):
                sub = k[len(f"{p}.reward_kwargs."):]
                d.set(f"{at}.workflow_args.custom_reward_function.reward_kwargs.{sub}", d.val(k), k)
        if not path.startswith(("/", "~", "$")):
            d.report("RFTC307", f"the reward function file {path} is relative: veRL read it from the launch's "
                     "working directory, Trinity's workflow reads it from the directory `trinity run` starts in",
                     f"{p}.path", hint="give an absolute path, or start Trinity where the launch ran",
                     settles=False)
    _dapo(d, tasksets)
    _rest(d, enabled)
    return aux


def _dapo(d: Draft, tasksets: list[str]) -> None:
    """reward_manager=dapo: the manager and its overlong-buffer kwargs (DAPO_ARGS) go to each reward workflow's
    workflow_args under veRL's names; the buffer's `log` flag only logs (the workflow always reports the
    penalty)."""
    mk = _first(d, MANAGER)
    if mk is None or str(d.val(mk)) != "dapo" or not tasksets:
        return
    for at in tasksets:
        d.set(f"{at}.workflow_args.reward_manager", "dapo", mk)
    if is_dapo(d.cfg.invocation):
        _recipe_buffer(d, tasksets)
    for prefix in KWARGS:
        for k in [] if ignored(d, prefix) else d.user_keys_under(prefix):
            sub = k[len(prefix) + 1:]
            if sub == "overlong_buffer_cfg.log":
                d.implied(k, LOG_ONLY)
            elif sub in DAPO_ARGS:
                for at in tasksets:
                    d.set(f"{at}.workflow_args.{sub}", d.val(k), k)


def _recipe_buffer(d: Draft, tasksets: list[str]) -> None:
    """The DAPO recipe's trainer builds the dapo manager with overlong_buffer_cfg=reward_model.overlong_buffer and
    max_resp_len=data.max_response_length (reward_kwargs are not read for these)."""
    buf = "reward_model.overlong_buffer"
    if not d.flag(f"{buf}.enable"):
        for k in d.user_keys_under(buf):
            d.implied(k, "the overlong buffer is off")
        return
    for at in tasksets:
        for sub in ("enable", "len", "penalty_factor"):
            d.set(f"{at}.workflow_args.overlong_buffer_cfg.{sub}", d.val(f"{buf}.{sub}"), f"{buf}.{sub}")
        d.set(f"{at}.workflow_args.max_resp_len", d.val("data.max_response_length"), "data.max_response_length",
              note="the recipe's trainer passes data.max_response_length")
    if d.user(f"{buf}.log"):
        d.implied(f"{buf}.log", LOG_ONLY)


def _rest(d: Draft, enabled: bool) -> None:
    for k in [*d.user_keys_under("reward_model"), *d.user_keys_under("reward"),
              *d.user_keys_under("custom_reward_function"), *d.user_keys_under("reward_manager"),
              *d.user_keys_under("sandbox_fusion")]:
        if d.done(k):
            continue
        if ignored(d, k):
            d.implied(k, f"verl {d.cfg.release}'s trainer does not read it (RFTC212)")
        elif _reward_path(d, k):
            continue
        elif k in MANAGER:
            v = str(d.val(k))
            if v == "naive":
                d.implied(k, "one reward per response, as the reward workflow computes")
            else:
                d.report("RFTC300", f"{k}={v} has no Trinity-RFT 0.6 equivalent: the reward workflow implements "
                         "veRL's naive and dapo reward managers", k)
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


def _reward_path(d: Draft, key: str) -> bool:
    """A key whose row decides the reward through veRL's reward path (rftc.mapping.reward_loop): implied where its
    condition does not hold, or where the reward it decides is the workflow's (a naive or dapo manager; no
    sandbox), else RFTC300. False for another key."""
    from rftc.mapping import reward_loop
    from rftc.mapping.classes import WHEN
    from rftc.mapping.rules import find_rule

    row = find_rule(key)
    if row is None or row.when not in (*MANAGER_WHEN, *SANDBOX_WHEN, *MODEL_WHEN, PATH_WHEN):
        return False
    text, holds = WHEN[row.when]
    get = lambda k: d.cfg.get(k, None)  # noqa: E731 - the effective config, as the conditions read it
    try:
        held = holds(get, d.cfg.release)
    except (KeyError, ValueError, TypeError, LookupError):  # the release's facts are not bundled: taken to hold
        held = True
    if not held:
        d.implied(key, f"it does not decide the reward of this launch (it does where {text})")
        return True
    loop, legacy = d.sem.value("reward_loop"), not ignored(d, "reward_model")
    if row.when in MANAGER_WHEN:
        name = reward_loop.manager(get, loop, legacy)[0]
        if name in WORKFLOW_MANAGERS:
            d.implied(key, f"veRL's {name} reward manager, which the reward workflow implements")
        else:
            d.report("RFTC300", f"{key} has no Trinity-RFT 0.6 equivalent: veRL loads the reward manager {name}, "
                     "and the reward workflow implements veRL's naive and dapo managers", key)
    elif row.when in SANDBOX_WHEN:
        if reward_loop.sandbox(get, d.cfg.has, loop, legacy)[0] is None:
            d.implied(key, "no sandbox: default_compute_score runs code tests locally (prime_code), as the reward "
                      "workflow's does")
        else:
            d.report("RFTC300", f"{key} has no Trinity-RFT 0.6 equivalent: veRL's default_compute_score runs a code "
                     "data source's tests in Sandbox Fusion, the reward workflow's runs them locally (prime_code)",
                     key)
    elif row.when in MODEL_WHEN:
        d.report("RFTC300", f"{key} has no Trinity-RFT 0.6 equivalent: it decides how veRL's reward model scores; in "
                 "Trinity the workflow that queries explorer.auxiliary_models decides", key)
    else:
        d.report("RFTC300", f"{key} has no Trinity-RFT 0.6 equivalent: it chooses verl {d.cfg.release}'s reward path "
                 "(its reward loop or the trainer's reward function), which here scores with another manager, "
                 "sandbox or reward-model server", key)
    return True
