"""Every key of every bundled veRL release is classified (rftc.mapping.rules: the quantity of the semantic model it
feeds, or why it does not change what is trained), and the classification holds: each key is perturbed on launches
composed once per release (GRPO with a KL loss, PPO with a critic, the off-policy trainers, the SFT trainers), the
model recomputed, and a key that feeds a quantity must change it where its condition holds, a key that does not
train must change none."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, fields

import pytest

from rftc import api
from rftc.mapping.classes import INERT, WHEN
from rftc.mapping.rules import RULES, find_rule
from rftc.mapping.sft_rules import SFT_RULES
from rftc.semantics.model import SftRun, TrainingRun
from rftc.semantics.verl import from_verl
from rftc.verl.overrides.resolve import Resolver, has_interpolation
from rftc.verl.releases import schema
from rftc.verl.trainers import SFT_CONFIGS

A, R, M = "actor_rollout_ref.actor", "actor_rollout_ref.rollout", "actor_rollout_ref.model"
MAIN = "verl.trainer.main_ppo"
COMMON = ("data.train_files=train.parquet", "data.val_files=test.parquet", "data.train_batch_size=16",
          "data.max_prompt_length=512", "data.max_response_length=1024", f"{M}.path=Qwen/Qwen2.5-0.5B",
          f"{A}.ppo_mini_batch_size=8", f"{A}.ppo_micro_batch_size_per_gpu=2", f"{R}.name=vllm", f"{R}.n=4",
          f"{R}.log_prob_micro_batch_size_per_gpu=2", "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2",
          "trainer.total_training_steps=100", "trainer.nnodes=1", "trainer.n_gpus_per_node=8")
GRPO = ("algorithm.adv_estimator=grpo", f"{A}.use_kl_loss=True", f"{A}.kl_loss_type=low_var_kl",
        f"{M}.lora_rank=8", f"{M}.lora_alpha=16",
        "reward.custom_reward_function.path=reward.py | custom_reward_function.path=reward.py",
        f"{A}.optim.lr_scheduler_type=cosine | {A}.optim.warmup_style=cosine", f"{R}.multi_turn.enable=True",
        "algorithm.filter_groups.enable=True",
        f"{M}.lora.rank=8", "distillation.enabled=True")
PPO = ("algorithm.adv_estimator=gae", "critic.model.path=Qwen/Qwen2.5-0.5B", "critic.ppo_micro_batch_size_per_gpu=2",
       "algorithm.use_kl_in_reward=True", "reward.reward_model.enable=True | reward_model.enable=True",
       "reward.reward_model.model_path=rm | reward_model.model.path=rm", "reward_model.micro_batch_size_per_gpu=2",
       "algorithm.use_pf_ppo=True", "algorithm.rollout_correction.bypass_mode=True", "critic.model.lora_rank=8",
       f"{A}.loss_agg_mode=seq-mean-token-sum-norm", f"{A}.clip_ratio_low=null", f"{A}.clip_ratio_high=null",
       f"{A}.optim.lr_scheduler_type=null")
SAPO = ("algorithm.adv_estimator=grpo", f"{A}.policy_loss.loss_mode=sapo", "custom_reward_function.path=reward.py")
ASYNC = ("rollout.nnodes=1", "rollout.n_gpus_per_node=4", "trainer.n_gpus_per_node=4",
         "async_training.require_batches=1", "rollout.total_rollout_steps=1000")
SFT = ("data.train_files=train.parquet", "data.train_batch_size=16", "data.micro_batch_size_per_gpu=2",
       "trainer.total_training_steps=100", "model.partial_pretrain=Qwen/Qwen2.5-0.5B", "model.path=Qwen/Qwen2.5-0.5B",
       "model.lora_rank=8", "model.lora_alpha=16", "model.lora.rank=8", "trainer.nnodes=1",
       "trainer.n_gpus_per_node=8")
V1 = ("algorithm.adv_estimator=grpo", "trainer.use_v1=True", "custom_reward_function.path=reward.py")


@dataclass(frozen=True)
class Base:
    name: str
    module: str
    config: str
    overrides: tuple[str, ...]


BASES = (Base("grpo", MAIN, "ppo_trainer", COMMON + GRPO),
         Base("ppo", MAIN, "ppo_trainer", COMMON + PPO),
         Base("sapo", MAIN, "ppo_trainer", COMMON + SAPO),
         Base("v1", MAIN, "ppo_trainer", COMMON + V1 + ("trainer.v1.trainer_mode=colocate_async",)),
         Base("v1-separate", MAIN, "ppo_trainer", COMMON + V1 + (
             "trainer.v1.trainer_mode=separate_async", "trainer.v1.separate_async.parameter_sync_step=2",
             f"{R}.nnodes=1",
             "trainer.v1.separate_async.hybrid_rollout.enable_switch=True")),
         Base("megatron", MAIN, "ppo_megatron_trainer", COMMON + GRPO),
         Base("megatron-ppo", MAIN, "ppo_megatron_trainer", COMMON + PPO),
         Base("fully_async", "verl.experimental.fully_async_policy.fully_async_main", "fully_async_ppo_trainer",
              COMMON + GRPO + ASYNC),
         Base("one_step_off", "verl.experimental.one_step_off_policy.main_ppo", "one_step_off_ppo_trainer",
              COMMON + GRPO + ASYNC),
         Base("sft", "verl.trainer.fsdp_sft_trainer", "sft_trainer", SFT + (
             "data.prompt_key=question", "data.response_key=answer", "optim.lr_scheduler=cosine")),
         Base("sft-multiturn", "verl.trainer.fsdp_sft_trainer", "sft_trainer", SFT + ("data.multiturn.enable=True",)),
         Base("sft_engine", "verl.trainer.sft_trainer", "sft_trainer_engine", SFT + (
             "optim.lr_scheduler_type=cosine", "data.use_dynamic_bsz=False")),
         Base("sft_engine-dynamic", "verl.trainer.sft_trainer", "sft_trainer_engine", SFT + (
             "data.use_dynamic_bsz=True", "data.max_token_len_per_gpu=8192")))
# another valid value of an enumerated key (by its last name)
ENUMS = {"adv_estimator": {"gae": "grpo", "*": "gae"}, "loss_agg_mode": {"token-mean": "seq-mean-token-mean",
                                                                      "*": "token-mean"},
         "loss_mode": {"vanilla": "gspo", "*": "vanilla"}, "kl_loss_type": {"low_var_kl": "kl", "*": "low_var_kl"},
         "kl_penalty": {"kl": "low_var_kl", "*": "kl"}, "strategy": {"megatron": "fsdp", "*": "megatron"},
         "lr_scheduler_type": {"constant": "cosine", "*": "constant"},
         "warmup_style": {"constant": "cosine", "*": "constant"}, "lr_scheduler": {"cosine": "wsd", "*": "cosine"},
         "lr_decay_style": {"constant": "cosine", "*": "constant"}, "truncation": {"error": "right", "*": "error"},
         "loss_type": {"ppo_clip": "reinforce", "*": "ppo_clip"}, "reward_manager": {"naive": "dapo", "*": "naive"},
         "trainer_mode": {"sync": "colocate_async", "*": "sync"}, "type": {"fixed": "adaptive", "*": "fixed"}}
NUMERIC = ("size", "steps", "num", "len", "ratio", "coef", "threshold", "freq", "seed", "rank", "epoch", "alpha")


def leaves(tree: dict, prefix: str = ""):
    for k, v in tree.items():
        path = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and v:
            yield from leaves(v, path)
        else:
            yield path


def _release_keys():
    """(release, config, key) of every leaf of every bundled release's configs, under every engine choice."""
    for version in schema.versions():
        s = schema.load(version)
        for config in s.config_names():
            keys = set()
            for choice in (None, *s.choices(config)):
                keys |= set(leaves(s.tree(config, choice)))
            yield from ((version, config, k) for k in sorted(keys))


def _table(config: str):
    return SFT_RULES if config in SFT_CONFIGS else RULES


def classify(key: str, config: str):
    row = find_rule(key, _table(config))
    return row if row is not None and (row.feeds or row.inert) else None


def test_every_key_of_every_release_is_classified():
    missing = [f"{k} (verl {v}, {c})" for v, c, k in _release_keys() if classify(k, c) is None]
    assert not missing, "keys with no class in rftc/mapping/rules.py or sft_rules.py:\n" + "\n".join(missing)


def test_every_row_has_one_class():
    for row in RULES + SFT_RULES:
        assert bool(row.feeds) != bool(row.inert), row.verl
        assert row.inert in ("", *INERT) and row.when in ("", *WHEN), row.verl
        assert all(q.isidentifier() for q in row.feeds.split()), row.verl
        assert not (row.when and not row.feeds), row.verl


def perturbed(key: str, value):
    """Another valid value of ``key``: numbers changed, bools flipped, an enum's other value, lists grown."""
    last = key.rsplit(".", 1)[-1]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value * 2 if value > 0 else 2
    if isinstance(value, float):
        return value * 0.5 if value else 0.1
    if isinstance(value, list):
        return [*value, value[-1]] if value else ["x"]
    if isinstance(value, dict):
        return {**value, "x": 1}
    if isinstance(value, str) and last in ENUMS:
        return ENUMS[last].get(value, ENUMS[last]["*"])
    if value is None or value == "???":
        return 4 if any(w in last for w in NUMERIC) else "x"
    return f"{value}_x"


class Perturber:
    """A composed launch whose keys are changed one at a time in memory: the key and the keys that interpolate it
    (resolved again on the raw tree), then restored."""

    def __init__(self, version: str, base: Base, tmp):
        script = tmp / f"{base.name}-{version}.sh"
        tree = schema.load(version).tree(base.config)
        present = schema.leaf_paths(version, base.config)
        # "a=1 | b=1": the first whose key the release has
        overrides = [next((o for o in alts.split(" | ") if o.split("=", 1)[0] in present), None)
                     for alts in base.overrides]
        overrides = [o for o in overrides if o is not None]
        script.write_text(f"python3 -m {base.module} " + " ".join(overrides) + "\n")
        result = api.compile(str(script), api.Options(verl_version=version, verl_source="bundled"))
        assert result.verl is not None, [str(d) for d in result.diagnostics]
        self.eff, self.version, self.base = result.verl, version, base
        self.raw = copy.deepcopy(tree)
        for o in overrides:
            k = o.split("=", 1)[0]
            if self.eff.has(k):
                _put(self.raw, k, self.eff.get(k))
        resolver = Resolver(self.raw)
        self.dependents: dict[str, set[str]] = {}
        for k in leaves(self.raw):
            if has_interpolation(_at(self.raw, k)):
                try:
                    resolver.resolve_key(k)
                except Exception:  # noqa: BLE001 - an interpolation of a key veRL leaves unset ("???")
                    continue
        for k, srcs in resolver.sources.items():
            for s in srcs:
                self.dependents.setdefault(s, set()).add(k)
        self.run = self.model()

    def model(self):
        return from_verl(self.eff, dataset_rows=1000)

    def followers(self, key: str) -> list[str]:
        out, todo = [], [key]
        while todo:
            for d in self.dependents.get(todo.pop(), ()):
                if d not in out and d != key:
                    out.append(d)
                    todo.append(d)
        return out

    def changed(self, key: str) -> set[str]:
        """The quantities a perturbation of ``key`` changes ({"<error: ...>"} where the model cannot be read)."""
        old = self.eff.get(key)
        new = perturbed(key, old)
        follow = [k for k in self.followers(key) if self.eff.has(k)]
        saved = {k: self.eff.get(k) for k in follow}
        raw_old = _at(self.raw, key)
        _put(self.raw, key, new)
        _put(self.eff.values, key, new)
        try:
            resolver = Resolver(self.raw)
            for k in follow:
                try:
                    _put(self.eff.values, k, resolver.resolve_key(k))
                except Exception:  # noqa: BLE001 - the perturbed value does not fit the interpolation
                    pass
            try:
                run = self.model()
            except Exception as e:  # noqa: BLE001 - the model reads the key and cannot take this value
                return {f"<error: {type(e).__name__}: {e}>"}
            return {f.name for f in fields(run) if getattr(run, f.name) != getattr(self.run, f.name)}
        finally:
            _put(self.raw, key, raw_old)
            _put(self.eff.values, key, old)
            for k, v in saved.items():
                _put(self.eff.values, k, v)


def _at(tree, key: str):
    node = tree
    for p in key.split("."):
        node = node[p]
    return node


def _put(tree, key: str, value) -> None:
    *parents, last = key.split(".")
    node = tree
    for p in parents:
        node = node[p]
    node[last] = value


def _bases(version: str):
    configs = set(schema.load(version).config_names())
    return [b for b in BASES if b.config in configs and
            (not b.name.startswith("v1") or "trainer.use_v1" in schema.leaf_paths(version, b.config)) and
            (b.name != "sapo" or f"{A}.tau_pos" in schema.leaf_paths(version, b.config))]


def _can_hold(when: str, version: str) -> bool:
    """Whether some launch of ``version`` can meet a condition: the release's own facts, and the trainer loops it
    has (veRL's v1 trainers, the off-policy trainers), decide some."""
    names = {b.name for b in _bases(version)}
    if when == "megatron_unit":
        return WHEN[when][1](lambda k: None, version)
    if when in ("v1", "v1_async", "colocate_async", "separate_async"):
        return "v1" in names
    if when == "own_rollout_gpus":
        return bool(names & {"v1-separate", "fully_async", "one_step_off"})
    return True


@pytest.mark.parametrize("version", schema.versions())
def test_the_classification_holds_when_each_key_is_perturbed(version, tmp_path):
    """A key classified as feeding a quantity changes it (in a base where its condition holds); a key that does not
    change what is trained changes no quantity. Keys that feed quantities the model does not have yet are listed on
    their own."""
    start = time.perf_counter()
    wrong, lacking, checked, unchecked = [], {}, set(), {}
    for base in _bases(version):
        p = Perturber(version, base, tmp_path)
        kind = SftRun if base.config in SFT_CONFIGS else TrainingRun
        names = {f.name for f in fields(kind)}
        get = p.eff.get
        for key in leaves(p.eff.values):
            if key not in schema.leaf_paths(version, base.config):
                continue
            row = classify(key, base.config)
            if row is None:
                continue  # test_every_key_of_every_release_is_classified names it
            feeds = row.feeds.split()
            absent = [q for q in feeds if q not in names]
            if absent:
                lacking.setdefault(key, set()).update(absent)
            present = [q for q in feeds if q in names]
            if row.feeds and not present:
                continue
            if row.feeds and row.when and not WHEN[row.when][1](lambda k: get(k, None), version):
                unchecked[key] = row.when
                continue
            got = p.changed(key)
            if row.inert and got:
                wrong.append(f"{key} ({base.name}): classified '{row.inert}' ({row.verl}) but changes {sorted(got)}")
            elif present:
                checked.add(key)
                missed = [q for q in present if q not in got]
                if missed:
                    wrong.append(f"{key} ({base.name}): classified as feeding {present} ({row.verl}) but changes "
                                 f"{sorted(got) or 'nothing'}")
    elapsed = time.perf_counter() - start
    message = []
    never = {k: w for k, w in unchecked.items() if k not in checked and _can_hold(w, version)}
    if never:
        message.append(f"verl {version}: keys no base launch checks (their condition holds in none):\n  " +
                       "\n  ".join(f"{k} (when {w}: {WHEN[w][0]})" for k, w in sorted(never.items())))
    if wrong:
        message.append(f"verl {version}: classification contradicted by the model:\n  " + "\n  ".join(wrong))
    if lacking:
        message.append(f"verl {version}: keys feeding quantities the semantic model does not have yet:\n  " +
                       "\n  ".join(f"{k} -> {' '.join(sorted(q))}" for k, q in sorted(lacking.items())))
    assert not message, "\n".join(message) + f"\n({elapsed:.1f}s)"
