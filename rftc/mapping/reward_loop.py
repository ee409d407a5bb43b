"""What a veRL release reads to compute the reward and to run the rollout's turns, as functions of the launch's
values (``get``: a key's value, None where absent; ``has``: whether the release's config has the key), shared by the
key classification's conditions (rftc.mapping.classes), the conversion (rftc.mapping.rewards) and the semantic model
(rftc.semantics.reward).

The reward path is a fact of the release (rftc.verl.releases.semantics ``reward_loop``): the trainer's reward function
(load_reward_manager over reward_model.*) to 0.6.x; 0.7.0's reward loop where reward_model.use_reward_loop (else the
trainer's reward function over the top-level reward_manager); from 0.7.1 the reward loop over the reward section,
into which the trainer migrates the legacy keys (migrate_legacy_reward_impl, where it runs: not verl 0.9's main_ppo).
"""

from __future__ import annotations

from rftc.mapping.models import MCORE

R = "actor_rollout_ref.rollout"
USE_LOOP = "reward_model.use_reward_loop"  # 0.7.0
LOOP_SOURCE, LOOP_PATH, LOOP_CLASS = (f"reward_model.reward_loop_{k}" for k in ("source", "module_path", "class_name"))
LEGACY_NAME = "reward_model.reward_manager"
TOP = "reward_manager"  # 0.7.0's top-level section (load_reward_manager's)
SECTION = "reward.reward_manager"  # 0.7.1 on
TOP_SANDBOX = ("sandbox_fusion.url", "sandbox_fusion.max_concurrent", "sandbox_fusion.memory_limit_mb")
# what the reward model's rollout server reads of its rollout config (0.7.0 on): vLLM's vllm_async_server.py (engine
# args, quantization, the seed, the generation defaults: _get_override_generation_config; ignore_eos from 0.9.0),
# SGLang's async_sglang_server.py (engine args and quantization); neither reads n or do_sample
ENGINE_READS = {"vllm": ("dtype", "prompt_length", "response_length", "max_model_len", "quantization",
                         "quantization_config_file", "temperature", "top_p", "top_k", "seed", "ignore_eos"),
                "sglang": ("dtype", "prompt_length", "response_length", "max_model_len", "quantization")}
SINGLE_TURN = "single turn"


# ---- the reward

def reward_path(get, loop: str) -> str:
    """"trainer" (the trainer's reward function, the reward model's worker) or "loop" (the reward loop, the reward
    model on a rollout server), by the release's ``loop`` (its reward_loop fact)."""
    if loop == "none":
        return "trainer"
    if loop == "optional":  # 0.7.0: RayPPOTrainer.use_reward_loop
        return "loop" if get(USE_LOOP) else "trainer"
    return "loop"


def manager(get, loop: str, legacy: bool, path=str) -> tuple[str, tuple[str, ...]]:
    """The reward manager that calls the rule reward, and the keys it is read from: to 0.6.x the registered name
    reward_model.reward_manager (0.1: naive); 0.7.0's reward loop reward_model.reward_loop_source (register: the
    registry's reward_model.reward_manager; importlib: reward_loop_module_path:reward_loop_class_name,
    reward_loop.py RewardLoopWorker._init_reward_fn), its trainer function the top-level reward_manager
    (reward.py load_reward_manager: source, name, module.path); from 0.7.1 reward.reward_manager, the legacy
    reward_loop_source, reward_loop_module_path and reward_manager over it where the trainer migrates them and they
    are set (reward.py resolve_reward_manager_cls: importlib loads module.path:name; module.name only names the
    module in sys.modules, and the legacy reward_loop_class_name goes there). ``path`` spells a module's path."""
    if loop == "none":
        return get(LEGACY_NAME) or "naive", (LEGACY_NAME,)
    if loop == "optional":
        if reward_path(get, loop) == "loop":
            source = get(LOOP_SOURCE)
            keys = (USE_LOOP, LOOP_SOURCE) + ((LOOP_PATH, LOOP_CLASS) if source == "importlib" else (LEGACY_NAME,))
            name = get(LOOP_CLASS) if source == "importlib" else get(LEGACY_NAME)
            return _manager(source, name, get(LOOP_PATH), path), keys
        source = get(f"{TOP}.source")
        return _manager(source, get(f"{TOP}.name"), get(f"{TOP}.module.path"), path), (
            USE_LOOP, f"{TOP}.source", f"{TOP}.name", *([f"{TOP}.module.path"] if source == "importlib" else []))
    name_key = LEGACY_NAME if legacy and get(LEGACY_NAME) is not None else f"{SECTION}.name"
    source_key, path_key = (LOOP_SOURCE, LOOP_PATH) if legacy and get(LOOP_SOURCE) is not None else (
        f"{SECTION}.source", f"{SECTION}.module.path")
    source = get(source_key)
    return _manager(source, get(name_key), get(path_key), path), (
        source_key, name_key, *([path_key] if source == "importlib" else []))


def _manager(source, name, module, path) -> str:
    if source == "register":
        return str(name)
    if source == "importlib":
        return f"{path(str(module))}:{name}" if module else "importlib without a module path (veRL refuses it)"
    return f"reward manager source {source!r} (veRL refuses it)"


def sandbox(get, has, loop: str, legacy: bool) -> tuple[str | None, tuple[str, ...]]:
    """Where default_compute_score runs a code data source's tests (codecontests, apps, codeforces, taco): in
    Sandbox Fusion where its url is set, with memory_limit_mb (from 0.4.1; unset or null: the sandbox's own
    limit), else locally (prime_code; None). The trainer's function reads reward_model.sandbox_fusion (0.4.0 on);
    0.7.0's reward loop reads none; from 0.7.1 reward.sandbox_fusion, which the top-level sandbox_fusion replaces
    whole where the trainer migrates it and any of its keys is set (migrate_legacy_reward_impl). Only where no
    custom reward function is set (load_reward_manager)."""
    path = reward_path(get, loop)
    if path == "loop" and loop == "optional":
        return None, (USE_LOOP,)
    if path == "trainer":
        section = "reward_model.sandbox_fusion"
    else:
        section = "sandbox_fusion" if legacy and any(get(k) is not None for k in TOP_SANDBOX) else \
            "reward.sandbox_fusion"
    url, memory = f"{section}.url", f"{section}.memory_limit_mb"
    if not has(url):
        return None, ()
    if not get(url):
        return None, (url,)
    limit = get(memory)
    text = f"code run in Sandbox Fusion at {get(url)}, " + (f"memory limit {limit} MB" if limit is not None else
                                                            "the sandbox's own memory limit")
    return text, (url, *([memory] if has(memory) else []))


def reward_model_settings(get, has, loop: str, legacy: bool, context: bool, path=str) -> tuple[str, tuple[str, ...]]:
    """What decides a reward model's score besides its weights. The worker (to 0.6.x; 0.7.0 without the reward
    loop): model.input_tokenizer, whose chat template the response is rendered again with, and there (FSDP's
    worker, fsdp_workers.py RewardModelWorker._switch_chat_template) max_length, the length it is cut at; null:
    the policy's tokens as they are (Megatron's worker decodes with input_tokenizer, whatever it is). A rollout
    server (0.7.0's reward loop, 0.7.1 on): its engine (rollout.name) and the keys that engine reads (ENGINE_READS;
    max_model_len where the release's server reads it: context_key), from reward.reward_model.rollout, the legacy
    reward_model.rollout's over it where set and migrated (0.7.0: reward_model.rollout itself). ``path`` spells a
    tokenizer's path."""
    if reward_path(get, loop) == "trainer":
        tokenizer, length = "reward_model.model.input_tokenizer", "reward_model.max_length"
        tok = get(tokenizer)
        if not tok:
            return "scores the policy's tokens (no input_tokenizer)", (tokenizer,)
        if get("reward_model.strategy") in MCORE:
            return f"input_tokenizer {path(str(tok))}", (tokenizer,)
        return f"input_tokenizer {path(str(tok))}, max_length {get(length)}", (tokenizer, length)

    def key(k: str) -> str:
        old = f"reward_model.rollout.{k}"
        if loop == "optional" or legacy and get(old) is not None:
            return old
        return f"reward.reward_model.rollout.{k}"

    engine = get(key("name"))
    if engine in (None, "???"):  # Hydra's mandatory value: veRL stops at it
        return f"no rollout engine ({key('name')} unset: veRL refuses the launch)", (key("name"),)
    if engine not in ENGINE_READS:
        return f"a rollout engine {engine!r}, which veRL does not have", (key("name"),)
    read = [key(k) for k in ENGINE_READS[engine] if has(key(k)) and (k != "max_model_len" or context)]
    return f"{engine}: " + ", ".join(f"{k.rsplit('.', 1)[1]} {get(k)}" for k in read), (key("name"), *read)


# ---- the rollout's turns

def verl_turns(get, has, release: str, modes: tuple) -> tuple[str, tuple[str, ...], str]:
    """(the rollout's turns, the keys, the formula). No multi-turn rollout before 0.4.0. A sync rollout generates
    once, but SGLang's with multi_turn.enable runs its tool-calling loop (sglang_rollout.py
    _req_level_generate_sequences, 0.4.0 to 0.6.x). An async rollout (rollout.mode async where the release's
    ``modes``, its rollout_modes fact, have both; 0.4.x's chat scheduler, the agent loops of 0.5.0 on, the only mode
    from 0.7.0) runs the agent loop each row's agent_name column names, else agent.default_agent_loop (0.6.0 on;
    before, single_turn_agent), whose tool agent reads multi_turn.* (agent_loop/tool_agent_loop.py): the data
    decides, and rftc takes multi_turn.enable (or a default agent loop other than single_turn_agent) as the
    launch's declaration that its rows run the tool agent."""
    mt, agent = f"{R}.multi_turn", f"{R}.agent"
    if not has(f"{mt}.enable"):
        return SINGLE_TURN, (), f"verl {release} has no multi-turn rollout"
    sync = "sync" in modes and ("async" not in modes or get(f"{R}.mode") != "async")  # ray_trainer: mode == "async"
    if sync and get(f"{R}.name") != "sglang":
        return SINGLE_TURN, (f"{R}.mode", f"{R}.name"), "the sync rollout generates once (SGLang's alone reads " \
            "multi_turn.enable)"
    default = None if sync or not has(f"{agent}.default_agent_loop") else get(f"{agent}.default_agent_loop")
    switches = (f"{mt}.enable", *([f"{agent}.default_agent_loop"] if default is not None else []))
    rows = "" if sync else "; a row's agent_name column names its own agent loop"
    if not get(f"{mt}.enable") and default in (None, "single_turn_agent"):
        return SINGLE_TURN, switches, "multi_turn.enable off" + rows
    settings = [k for k in multi_turn_keys(get) if has(k)]
    if not sync and get(f"{agent}.agent_loop_config_path"):
        settings.append(f"{agent}.agent_loop_config_path")
    loop = "SGLang's tool-calling rollout" if sync else \
        f"each row's agent loop, else {default or 'single_turn_agent'}"
    text = f"multi-turn ({loop}): " + ", ".join(f"{k.rsplit('.', 1)[1]} {get(k)}" for k in settings)
    return text, (*switches, *settings), "multi_turn.enable" + rows


def multi_turn_keys(get) -> list[str]:
    """The multi_turn.* leaves of the rollout's config (enable and _target_ aside)."""
    section = get(f"{R}.multi_turn")
    out: list[str] = []

    def walk(node, prefix: str):
        for k, v in (node.items() if isinstance(node, dict) else ()):
            if isinstance(v, dict):
                walk(v, f"{prefix}.{k}")
            elif k not in ("enable", "_target_"):
                out.append(f"{prefix}.{k}")
    walk(section, f"{R}.multi_turn")
    return sorted(out)
