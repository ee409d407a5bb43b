"""The inputs of a veRL launch's RL run (rftc.semantics.verl): its models, training data and reward, read by the
keys the release's trainer reads. veRL 0.9's main_ppo no longer migrates the legacy reward keys (reward_model.*,
custom_reward_function.*: rftc.verl.releases.legacy), so they count only where the trainer migrates them, and
there a legacy key that is set wins, as migrate_legacy_reward_impl lets it."""

from __future__ import annotations

from rftc.mapping.rewards import CRF as CUSTOM_REWARD, KWARGS, MANAGER as REWARD_MANAGER, RM_ENABLE, RM_PATH
from rftc.semantics.data import chat_kwargs
from rftc.semantics.inputs import (ALL_ROWS, IN_FILE_ORDER, SHUFFLED, Order, launch_path, reward_arguments,
                                   verl_files)
from rftc.semantics.model import Value
from rftc.semantics.model_settings import verl_model
from rftc.semantics.reader import Reader
from rftc.semantics.sft_verl import template_text
from rftc.verl.releases import legacy, semantics
from rftc.verl.trainers import is_dapo, module_of

M = "actor_rollout_ref.model"
TORCH = "torch RandomSampler"
# the seed a release without data.seed in its config shuffles with: its trainer reads data.get("seed", 1)
UNSET_SEED = 1


def inputs(r: Reader, *, reference: bool, critic: bool) -> dict[str, Value]:
    """TrainingRun's model, data and reward-argument quantities; ``reference``: the loss or reward has a KL term;
    ``critic``: the estimator trains a value model."""
    keys = reward_keys(r)
    return dict(
        **verl_model(r, semantics.of(r.eff), kl=reference, critic=critic),
        chat_template=_template(r),
        data=r.of(verl_files(r.get("data.train_files")), "data.train_files"),
        data_columns=_columns(r, keys),
        max_samples=_max_samples(r),
        data_order=_order(r),
        reward_kwargs=_reward_kwargs(r, keys),
    )


def reward_keys(r: Reader) -> tuple:
    """The custom reward function's prefixes, the reward model's enable and path keys, the manager's keys and the
    reward kwargs' keys the launch's trainer reads (legacy ones first where it migrates them)."""
    inv = r.eff.invocation
    ignored = inv is not None and legacy.ignores_legacy(module_of(inv), r.eff.release)

    def read(keys):
        return tuple(k for k in keys if not (ignored and k.split(".", 1)[0] in legacy.LEGACY_ROOTS))

    return read(CUSTOM_REWARD), read(RM_ENABLE), read(RM_PATH), read(REWARD_MANAGER), read(KWARGS)


def _template(r: Reader) -> Value:
    """The tokenizer (model.tokenizer_path where set and not the model's) and the chat template the rows are
    rendered with (model.custom_chat_template), with the arguments the release's datasets and agent loops render
    it with (rftc.semantics.data.chat_kwargs: the thinking switch and any other)."""
    tokenizer, custom = r.get(f"{M}.tokenizer_path"), r.get(f"{M}.custom_chat_template")
    kwargs, keys = chat_kwargs(r, semantics.of(r.eff))
    text = template_text(custom, kwargs)
    if tokenizer and launch_path(str(tokenizer)) != launch_path(str(r.get(f"{M}.path"))):
        text = f"tokenizer {launch_path(str(tokenizer))}, {text}"
    return r.of(text, *(k for k in (f"{M}.tokenizer_path", f"{M}.custom_chat_template") if r.eff.has(k)), *keys)


def _columns(r: Reader, keys) -> Value:
    """The prompt column, and the data-source column veRL's reward manager dispatches on (the ground truth is
    always the row's reward_model.ground_truth); a reward model's score reads neither."""
    if any(r.get(k) for k in keys[1]):
        return r.of(columns_text(r.get("data.prompt_key", "prompt")), "data.prompt_key")
    return r.of(columns_text(r.get("data.prompt_key", "prompt"), r.get("data.reward_fn_key") or "data_source"),
                "data.prompt_key", "data.reward_fn_key")


def columns_text(prompt: str, source: str | None = None) -> str:
    return f"prompt: {prompt}" + (f", data source: {source}" if source else "")


def _max_samples(r: Reader) -> Value:
    """data.train_max_samples (0.6.1 on): the first N rows, or N drawn at random where the data is shuffled
    (RLHFDataset); -1 or unset: all."""
    n = r.get("data.train_max_samples")
    if not isinstance(n, int) or n <= 0:
        return r.of(ALL_ROWS, "data.train_max_samples") if r.eff.has("data.train_max_samples") else \
            Value(ALL_ROWS, f"verl {r.eff.release}")
    how = "drawn at random" if r.get("data.shuffle", True) else "the first"
    return r.of(f"{n} rows ({how})", "data.train_max_samples", "data.shuffle")


def _order(r: Reader) -> Value:
    """A curriculum sampler (data.sampler.class_path, 0.5 to 0.7), else RandomSampler on a torch generator seeded
    with data.seed (a release whose config has no data.seed reads data.get("seed", 1); one whose config has it
    null leaves the generator's own seed) where data.shuffle, else the file's order; verl 0.1 (no data.shuffle)
    always shuffles, unseeded."""
    sampler = r.get("data.sampler.class_path")
    if sampler:
        return r.of(Order(f"sampler {sampler}:{r.get('data.sampler.class_name')}"), "data.sampler.class_path",
                    "data.sampler.class_name")
    if not r.eff.has("data.shuffle"):  # verl 0.1: DataLoader(shuffle=True) on torch's global generator
        return Value(Order(SHUFFLED, "torch's global generator, unseeded"), f"verl {r.eff.release}")
    if not r.get("data.shuffle"):
        return r.of(Order(IN_FILE_ORDER), "data.shuffle")
    seed = r.get("data.seed") if r.eff.has("data.seed") else UNSET_SEED
    return r.of(Order(SHUFFLED, TORCH, "torch's default" if seed is None else seed), "data.shuffle", "data.seed")


def _reward_kwargs(r: Reader, keys) -> Value:
    """The custom function's reward_kwargs and the reward manager's (the DAPO recipe's trainer: its overlong buffer
    from reward_model.overlong_buffer, max_resp_len = data.max_response_length)."""
    crf, _, _, manager_keys, kwargs_keys = keys
    prefix = next((p for p in crf if r.get(f"{p}.path")), None)
    function = r.get(f"{prefix}.reward_kwargs") if prefix else None
    manager_key = next((k for k in manager_keys if r.get(k)), None)
    manager = r.get(manager_key) if manager_key else "naive"
    kw_key = next((k for k in kwargs_keys if r.get(k)), None)
    manager_kwargs = dict(r.get(kw_key) or {}) if kw_key else {}
    used = [f"{prefix}.reward_kwargs"] if function else []
    used += [kw_key] if kw_key else []
    if manager == "dapo" and r.eff.invocation is not None and is_dapo(r.eff.invocation):
        buf = "reward_model.overlong_buffer"
        manager_kwargs = {"overlong_buffer_cfg": dict(r.get(buf) or {}),
                          "max_resp_len": r.get("data.max_response_length")}
        used = [f"{prefix}.reward_kwargs"] * bool(function) + [buf, "data.max_response_length"]
    return r.of(reward_arguments(_plain(function), manager, _plain(manager_kwargs)), *used) if used else \
        Value("none", "")


def _plain(value):
    """A config mapping as plain dicts."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {k: _plain(v) for k, v in value.items()}
    return value
