"""Every key of every bundled veRL release is classified (rftc.mapping.rules: the quantity of the semantic model it
feeds, or why it does not change what is trained), and the classification holds: each key is perturbed on launches
composed once per release (GRPO with a KL loss, PPO with a critic, the off-policy trainers, the SFT trainers), the
model recomputed, and a key that feeds a quantity must change it where its condition holds, a key that does not
train must change none."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, fields, replace

import pytest

from rftc import api
from rftc.mapping.classes import CORRECTION_READS, INERT, WHEN
from rftc.mapping.rules import RULES, find_rule
from rftc.mapping.sft_rules import SFT_RULES
from rftc.semantics.model import SftRun, TrainingRun
from rftc.semantics.verl import from_verl
from rftc.verl.overrides.resolve import Resolver, has_interpolation
from rftc.verl.releases import modes, schema, semantics
from rftc.verl.trainers import SFT_CONFIGS

A, R, M = "actor_rollout_ref.actor", "actor_rollout_ref.rollout", "actor_rollout_ref.model"
MAIN = "verl.trainer.main_ppo"
COMMON = ("data.train_files=train.parquet", "data.val_files=test.parquet", "data.train_batch_size=16",
          "data.max_prompt_length=512", "data.max_response_length=1024", f"{M}.path=Qwen/Qwen2.5-0.5B",
          f"{A}.ppo_mini_batch_size=8", f"{A}.ppo_micro_batch_size_per_gpu=2", f"{R}.name=vllm", f"{R}.n=4",
          f"{R}.log_prob_micro_batch_size_per_gpu=2", "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2",
          "trainer.total_training_steps=100", "trainer.nnodes=1", "trainer.n_gpus_per_node=8",
          f"{A}.optim.override_optimizer_config={{}}")
# the actor's engine seeds (rftc.mapping.seeds), whichever engine section the config has
DETERMINISM = " | ".join(f"{A}.{e}.full_determinism=True" for e in ("fsdp_config", "veomni", "torchtitan"))
GRPO = ("algorithm.adv_estimator=grpo", f"{A}.use_kl_loss=True", f"{A}.kl_loss_type=low_var_kl", DETERMINISM,
        f"{M}.lora_rank=8", f"{M}.lora_alpha=16",
        "reward.custom_reward_function.path=reward.py | custom_reward_function.path=reward.py",
        f"{A}.optim.lr_scheduler_type=cosine | {A}.optim.warmup_style=cosine | {A}.optim.lr_decay_style=cosine", f"{R}.multi_turn.enable=True",
        "algorithm.filter_groups.enable=True",
        f"{M}.lora.rank=8", "distillation.enabled=True", "distillation.distillation_loss.loss_mode=forward_kl_topk",
        "+distillation.teacher_models.second.model_path=/models/second",
        "+distillation.teacher_models.second.key=second", "reward_model.reward_loop_source=importlib",
        "reward_model.reward_loop_module_path=manager.py", "data.continuous_token.enable=True")
PPO = ("algorithm.adv_estimator=gae", "critic.model.path=Qwen/Qwen2.5-0.5B", "critic.ppo_micro_batch_size_per_gpu=2",
       "algorithm.use_kl_in_reward=True", "algorithm.kl_ctrl.type=adaptive",
       "reward.reward_model.enable=True | reward_model.enable=True",
       "reward.reward_model.model_path=rm | reward_model.model.path=rm", "reward_model.micro_batch_size_per_gpu=2",
       "algorithm.use_pf_ppo=True", "algorithm.rollout_correction.bypass_mode=True", "critic.model.lora_rank=8",
       f"{A}.loss_agg_mode=seq-mean-token-sum-norm", f"{A}.clip_ratio_low=null", f"{A}.clip_ratio_high=null",
       f"{A}.optim.lr_scheduler_type=null", "critic.optim.override_optimizer_config={}",
       f"{A}.shuffle=True", "critic.shuffle=True", f"{A}.data_loader_seed=7", "critic.data_loader_seed=7",
       "critic.optim.lr_scheduler_type=cosine | critic.optim.warmup_style=cosine", "critic.model.lora.rank=8",
       "reward.reward_model.rollout.name=vllm | reward_model.rollout.name=vllm",
       "reward_model.model.input_tokenizer=tok",
       "data.custom_cls.path=dataset.py", "data.custom_cls.name=RowsDataset", "data.datagen.path=generator.py")
# a reference engine in the actor's worker that seeds it (the actor's does not), and a critic's engine that seeds
SEEDS = ("algorithm.adv_estimator=gae", "critic.model.path=Qwen/Qwen2.5-0.5B", "critic.ppo_micro_batch_size_per_gpu=2",
         "critic.optim.override_optimizer_config={}", f"{A}.shuffle=True", "critic.shuffle=True",
         f"{A}.data_loader_seed=7", "critic.data_loader_seed=7",
         f"{A}.use_kl_loss=True", "reward.custom_reward_function.path=reward.py | custom_reward_function.path=reward.py",
         *(" | ".join(f"{s}.{e}.{k}" for s, e in sections) for k in ("full_determinism=True", "seed=7") for sections in (
             [("actor_rollout_ref.ref", e) for e in ("fsdp_config", "veomni", "torchtitan")],
             [("critic", e) for e in ("fsdp", "model.fsdp_config", "veomni", "torchtitan")])),
         "reward.reward_manager.source=importlib", "reward.reward_manager.module.path=manager.py")
# a reference and a critic of their own, each engine's QAT on (the rollout quantising for the actor's), 0.7.1's legacy
# actor's QAT, Megatron's precision-aware optimizers, a quantising rollout (0.7.0, before QAT) (rftc.mapping.precision)
PRECISION = ("algorithm.adv_estimator=gae", "critic.model.path=Qwen/Qwen2.5-0.5B",
             "critic.ppo_micro_batch_size_per_gpu=2", "critic.optim.override_optimizer_config={}",
             f"{A}.use_kl_loss=True", "reward.custom_reward_function.path=reward.py | custom_reward_function.path=reward.py",
             f"{A}.fsdp_config.qat.enable=True | {A}.megatron.qat.enable=True",
             "critic.fsdp.qat.enable=True | critic.model.fsdp_config.qat.enable=True | critic.megatron.qat.enable=True",
             f"{A}.fsdp_config.qat.quantization_config_path=q.json | {A}.megatron.qat.quantization_config_path=q.json",
             f"{A}.qat.enable=True", f"{A}.optim.use_precision_aware_optimizer=True",
             "critic.optim.use_precision_aware_optimizer=True", f"{R}.quantization=fp8")
SAPO = ("algorithm.adv_estimator=grpo", f"{A}.policy_loss.loss_mode=sapo", "custom_reward_function.path=reward.py")
ASYNC = ("rollout.nnodes=1", "rollout.n_gpus_per_node=4", "trainer.n_gpus_per_node=4",
         "async_training.require_batches=1", "rollout.total_rollout_steps=1000")
# the legacy reward keys, which the off-policy trainers migrate (verl 0.9's main_ppo does not)
LEGACY_RM = ("reward_model.enable=True", "reward_model.model.path=rm",
             "reward.reward_model.rollout.name=vllm | reward_model.rollout.name=vllm")
LEGACY_CRF = ("custom_reward_function.path=reward.py",)
SFT = ("data.train_files=train.parquet", "data.train_batch_size=16", "data.micro_batch_size_per_gpu=2",
       "trainer.total_training_steps=100", "model.partial_pretrain=Qwen/Qwen2.5-0.5B", "model.path=Qwen/Qwen2.5-0.5B",
       "model.lora_rank=8", "model.lora_alpha=16", "model.lora.rank=8", "trainer.nnodes=1",
       "trainer.n_gpus_per_node=8", "data.custom_cls.path=dataset.py")
V1 = ("algorithm.adv_estimator=grpo", "trainer.use_v1=True", "custom_reward_function.path=reward.py",
      "algorithm.filter_groups.enable=True")
# default_compute_score in the sandbox (0.7.0: the trainer's function, whose manager is importlib's)
SANDBOX = ("reward.sandbox_fusion.url=http://sandbox | reward_model.sandbox_fusion.url=http://sandbox",
           "reward_model.use_reward_loop=False", "reward_manager.source=importlib",
           "reward_manager.module.path=manager.py")
# veRL's on-policy distillation without task rewards, one teacher (rftc.mapping.distill: what Trinity trains alike)
DISTILL = ("algorithm.adv_estimator=grpo",
           "reward.custom_reward_function.path=reward.py | custom_reward_function.path=reward.py",
           "distillation.enabled=True", "distillation.teacher_models.teacher_model.model_path=/models/teacher",
           "distillation.distillation_loss.loss_mode=k1", "distillation.distillation_loss.use_policy_gradient=True",
           "distillation.distillation_loss.use_task_rewards=False",
           "distillation.distillation_loss.clip_ratio_low=null")
HF = tuple(o.replace(f"{R}.name=vllm", f"{R}.name=hf") for o in COMMON) + (
    "algorithm.adv_estimator=grpo", "data.sampler.class_path=sampler.py", "data.filter_overlong_prompts=True",
    "trainer.val_only=True", *SANDBOX)
# the rollout correction on (verl 0.6.0's keys, and algorithm.rollout_correction's after), the rollout's log-probs
CORRECTION = ("algorithm.adv_estimator=grpo", "custom_reward_function.path=reward.py", f"{R}.calculate_log_probs=True",
              "algorithm.rollout_is=True", "algorithm.rollout_is_threshold=2.0", "algorithm.rollout_is_mode=mask",
              "algorithm.rollout_correction.rollout_is=token", "algorithm.rollout_correction.rollout_rs=token",
              "algorithm.rollout_correction.rollout_rs_threshold=2.0")
# verl 0.6.x's SGLang multi-turn rollout, which reads over_sample_rate
SGLANG = tuple(o.replace(f"{R}.name=vllm", f"{R}.name=sglang") for o in COMMON) + (
    "algorithm.adv_estimator=grpo", "custom_reward_function.path=reward.py", f"{R}.multi_turn.enable=True")
# the actor's and a critic's global micro-batch sizes in place of the per-GPU ones (rftc.mapping.microloss)
GLOBAL_MICRO = tuple(o for o in COMMON if not o.startswith(f"{A}.ppo_micro_batch_size_per_gpu")) + (
    f"{A}.ppo_micro_batch_size=16", "algorithm.adv_estimator=gae", "critic.model.path=Qwen/Qwen2.5-0.5B",
    "critic.ppo_micro_batch_size=16", "critic.optim.override_optimizer_config={}",
    "reward.custom_reward_function.path=reward.py | custom_reward_function.path=reward.py")
# token budgets for the actor and a critic (rftc.mapping.microloss)
DYNAMIC = ("algorithm.adv_estimator=gae", "critic.model.path=Qwen/Qwen2.5-0.5B", "critic.ppo_micro_batch_size_per_gpu=2",
           "critic.optim.override_optimizer_config={}", f"{A}.use_dynamic_bsz=True", "critic.use_dynamic_bsz=True",
           "reward.custom_reward_function.path=reward.py | custom_reward_function.path=reward.py")
# a Megatron actor that trains its MTP layers and replays the rollout's MoE routing (the legacy worker's key, the
# engine's)
MOE = (f"{M}.mtp.enable=True", f"{M}.mtp.enable_train=True", f"{A}.router_replay.mode=R3",
       f"{A}.megatron.router_replay.mode=R3")


@dataclass(frozen=True)
class Base:
    name: str
    module: str
    config: str
    overrides: tuple[str, ...]
    choice: str | None = None  # the model_engine option composed (the engine sections differ by it)

    def launch(self, present: frozenset[str]) -> str:
        """The launch line: ``overrides`` whose keys the release has ("a=1 | b=1": the first of them)."""
        overrides = [next((o for o in alts.split(" | ") if _present(o.split("=", 1)[0], present)), None)
                     for alts in self.overrides]
        return " ".join([f"python3 -m {self.module} --config-name={self.config}",
                         *([f"model_engine={self.choice}"] if self.choice else []), *(o for o in overrides if o)])


def _present(key: str, present: frozenset[str]) -> bool:
    """A key of the release's config, or one added (+) to a section of it (a teacher entry beside teacher_model)."""
    if key.startswith("+"):
        section = key[1:].rsplit(".", 2)[0]
        return any(p.startswith(f"{section}.") for p in present)
    return key in present


BASES = (Base("grpo", MAIN, "ppo_trainer", COMMON + GRPO),
         Base("ppo", MAIN, "ppo_trainer", COMMON + PPO + ("reward_model.use_reward_loop=False",)),
         Base("seeds", MAIN, "ppo_trainer", COMMON + SEEDS),
         Base("sapo", MAIN, "ppo_trainer", COMMON + SAPO),
         Base("hf", MAIN, "ppo_trainer", HF),
         Base("megatron-muon", MAIN, "ppo_megatron_trainer", COMMON + PPO + (
             f"{A}.optim.optimizer=muon", "critic.optim.optimizer=muon")),
         Base("v1", MAIN, "ppo_trainer", COMMON + V1 + ("trainer.v1.trainer_mode=colocate_async",)),
         Base("v1-separate", MAIN, "ppo_trainer", COMMON + V1 + (
             "trainer.v1.trainer_mode=separate_async", "trainer.v1.separate_async.parameter_sync_step=2",
             f"{R}.nnodes=1",
             "trainer.v1.separate_async.hybrid_rollout.enable_switch=True")),
         Base("megatron", MAIN, "ppo_megatron_trainer", COMMON + GRPO + MOE),
         Base("megatron-ppo", MAIN, "ppo_megatron_trainer", COMMON + PPO),
         Base("fully_async", "verl.experimental.fully_async_policy.fully_async_main", "fully_async_ppo_trainer",
              COMMON + GRPO + ASYNC + LEGACY_RM),
         Base("one_step_off", "verl.experimental.one_step_off_policy.main_ppo", "one_step_off_ppo_trainer",
              COMMON + GRPO + ASYNC + LEGACY_CRF),
         Base("fully_async-megatron", "verl.experimental.fully_async_policy.fully_async_main",
              "fully_async_ppo_megatron_trainer", COMMON + GRPO + ASYNC),
         Base("one_step_off-megatron", "verl.experimental.one_step_off_policy.main_ppo",
              "one_step_off_ppo_megatron_trainer", COMMON + GRPO + ASYNC),
         # a trainer that migrates the legacy reward keys, scoring with default_compute_score in the sandbox
         Base("one_step_off-sandbox", "verl.experimental.one_step_off_policy.main_ppo", "one_step_off_ppo_trainer",
              COMMON + ("algorithm.adv_estimator=grpo", "reward.sandbox_fusion.url=http://sandbox") + ASYNC),
         # an async rollout whose rows run the tool agent (the agent loops; 0.4.x's chat scheduler)
         Base("multiturn", MAIN, "ppo_trainer", COMMON + ("algorithm.adv_estimator=grpo", f"{R}.mode=async",
                                                           f"{R}.multi_turn.enable=True")),
         Base("sft", "verl.trainer.fsdp_sft_trainer", "sft_trainer", SFT + (
             "data.prompt_key=question", "data.response_key=answer", "optim.lr_scheduler=cosine")),
         Base("sft-multiturn", "verl.trainer.fsdp_sft_trainer", "sft_trainer", SFT + ("data.multiturn.enable=True",)),
         Base("sft_engine", "verl.trainer.sft_trainer", "sft_trainer_engine", SFT + (
             "optim.lr_scheduler_type=cosine", "data.use_dynamic_bsz=False", "engine.full_determinism=True")),
         Base("sft_engine-dynamic", "verl.trainer.sft_trainer", "sft_trainer_engine", SFT + (
             "data.use_dynamic_bsz=True", "data.max_token_len_per_gpu=8192")),
         Base("correction", MAIN, "ppo_trainer", COMMON + CORRECTION),
         Base("sglang-multiturn", MAIN, "ppo_trainer", SGLANG),
         Base("v1-sampler", MAIN, "ppo_trainer", COMMON + V1 + (
             "trainer.v1.trainer_mode=colocate_async", "trainer.v1.sampler.max_off_policy_threshold=1",
             "trainer.v1.sampler.custom_sampler.path=sampler.py", "trainer.v1.sampler.custom_sampler.name=Sampler")),
         Base("sft_engine-megatron", "verl.trainer.sft_trainer", "sft_trainer_engine", SFT + (
             "engine.strategy=megatron", "model.mtp.enable=True", "model.mtp.enable_train=True")),
         Base("sft_engine-qat", "verl.trainer.sft_trainer", "sft_trainer_engine", SFT + ("engine.qat.enable=True",)),
         Base("precision", MAIN, "ppo_trainer", COMMON + PRECISION),
         Base("precision-megatron", MAIN, "ppo_megatron_trainer", COMMON + PRECISION),
         *(Base(mode, MAIN, "ppo_trainer", COMMON + ("algorithm.adv_estimator=grpo", "custom_reward_function.path="
                                                     "reward.py", f"{A}.policy_loss.loss_mode={mode}"))
           for mode in ("clip_cov", "kl_cov", "dro")),
         # Megatron's schedules: wsd and cosine, warming up from lr_warmup_init
         Base("megatron-schedule", MAIN, "ppo_megatron_trainer", COMMON + PPO + (
             f"{A}.optim.lr_decay_style=wsd", f"{A}.optim.lr_warmup_steps_ratio=0.1", "critic.optim.lr_decay_style=wsd",
             "critic.optim.lr_warmup_steps_ratio=0.1")),
         Base("megatron-cosine", MAIN, "ppo_megatron_trainer", COMMON + PPO + (
             "critic.optim.lr_decay_style=cosine", "critic.optim.lr_warmup_steps_ratio=0.1")),
         # verl 0.7's engine workers in place of the legacy ones
         Base("engine-ppo", MAIN, "ppo_trainer", COMMON + PPO + ("trainer.use_legacy_worker_impl=disable",)),
         Base("distill", MAIN, "ppo_trainer", COMMON + DISTILL),
         # global micro-batch sizes, which the legacy workers divide by their data-parallel ranks (rftc.verl.micro)
         *(Base(name, MAIN, config, GLOBAL_MICRO) for name, config in (
             ("micro-global", "ppo_trainer"), ("micro-global-megatron", "ppo_megatron_trainer"))),
         *(Base(name, MAIN, config, COMMON + DYNAMIC) for name, config in (
             ("micro-dynamic", "ppo_trainer"), ("micro-dynamic-megatron", "ppo_megatron_trainer"))))
# another valid value of an enumerated key (by its last name)
ENUMS = {"adv_estimator": {"gae": "grpo", "*": "gae"}, "loss_agg_mode": {"token-mean": "seq-mean-token-mean",
                                                                      "*": "token-mean"},
         "loss_mode": {"vanilla": "gspo", "*": "vanilla"}, "kl_loss_type": {"low_var_kl": "kl", "*": "low_var_kl"},
         "kl_penalty": {"kl": "low_var_kl", "*": "kl"}, "strategy": {"megatron": "fsdp", "*": "megatron"},
         "lr_scheduler_type": {"constant": "cosine", "*": "constant"},
         "warmup_style": {"constant": "cosine", "*": "constant"}, "lr_scheduler": {"cosine": "wsd", "*": "cosine"},
         "lr_decay_style": {"constant": "cosine", "*": "constant"}, "truncation": {"error": "right", "*": "error"},
         "loss_type": {"ppo_clip": "reinforce", "*": "ppo_clip"}, "reward_manager": {"naive": "dapo", "*": "naive"},
         "trainer_mode": {"sync": "colocate_async", "*": "sync"},
         "use_legacy_worker_impl": {"disable": "auto", "*": "disable"}, "type": {"fixed": "adaptive", "*": "fixed"},
         "max_off_policy_strategy": {"drop": "wait", "*": "drop"}, "mode": {"sync": "async", "*": "sync"}}
# the engine SFT trainer's enable_thinking_default: its default, the string 'none', reads as true
ENUMS["enable_thinking_default"] = {"none": False, "*": "none"}
NUMERIC = ("size", "steps", "num", "len", "ratio", "coef", "threshold", "freq", "seed", "rank", "epoch", "alpha")
# valid values of the dict-valued keys, merged into theirs (an entry each reads)
DICT_VALUES = {"override_mcore_model_config": {"moe_config": {"freeze_moe_router": True}}}


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
    assert {r.when for r in RULES + SFT_RULES} - {""} == set(WHEN), "a condition no row names"


MODELLED = {f.name for kind in (TrainingRun, SftRun) for f in fields(kind)}

def test_every_quantity_a_row_feeds_is_modelled():
    """A name a row feeds is a quantity of the semantic model: rftc diff compares every setting that changes what
    is trained through the model's quantities (a new release's key feeding a quantity the model lacks fails here)."""
    from rftc.mapping.trinity_fields import FIELDS

    fed = {q for row in [*RULES, *SFT_RULES, *FIELDS] for q in row.feeds.split()}
    assert not sorted(fed - MODELLED), "fed quantities the model does not have"


def perturbed(key: str, value):
    """Another valid value of ``key``: numbers changed, bools flipped, an enum's other value, lists grown."""
    last = key.rsplit(".", 1)[-1]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value * 2 if value > 0 else 2
    if isinstance(value, float):
        return value * 0.5 if value else 0.1
    if isinstance(value, list):  # a name more (a name twice is one name to PEFT's target lists)
        return [*value, f"{value[-1]}_x" if isinstance(value[-1], str) else value[-1]] if value else ["x"]
    if isinstance(value, dict):
        return {**value, **DICT_VALUES.get(last, {"x": 1})}
    if isinstance(value, str) and last in ENUMS:
        return ENUMS[last].get(value, ENUMS[last]["*"])
    if value is None or value == "???":
        return 4 if any(w in last for w in NUMERIC) else "x"
    return f"{value}_x"


class Perturber:
    """A composed launch whose keys are changed one at a time in memory: the key and the keys that interpolate it
    (resolved again on the raw tree), then restored."""

    def __init__(self, version: str, base: Base, tmp):
        script = tmp / f"{base.name}-{base.choice}-{version}.sh"
        tree = schema.load(version).tree(base.config, base.choice)
        present = schema.leaf_paths(version, base.config, base.choice)
        script.write_text(base.launch(present) + "\n")
        overrides = base.launch(present).split()[4 + bool(base.choice):]
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
        """The keys that interpolate ``key``, or a section holding it (${oc.select:a.qat} follows a.qat.enable)."""
        out, todo = [], [key] + [key.rsplit(".", i)[0] for i in range(1, key.count(".") + 1)]
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
    """The base launches of a release: those whose config and features it has, and GRPO under each model_engine
    option other than the default (the engine sections differ by it)."""
    s = schema.load(version)
    configs = set(s.config_names())
    bases = [b for b in BASES if b.config in configs and
             (b.name != "distill" or "distillation.enabled" in schema.leaf_paths(version, b.config)) and
             (not b.name.startswith("v1") or "trainer.use_v1" in schema.leaf_paths(version, b.config)) and
             (b.name != "sapo" or f"{A}.tau_pos" in schema.leaf_paths(version, b.config)) and
             (b.name != "megatron-muon" or f"{A}.optim.muon_momentum" in schema.leaf_paths(version, b.config)) and
             (b.name != "multiturn" or f"{R}.multi_turn.enable" in schema.leaf_paths(version, b.config)) and
             (b.name not in LOSS_MODE_BASES or f"{A}.policy_loss.{LOSS_MODE_BASES[b.name]}" in
              schema.leaf_paths(version, b.config)) and
             (b.name != "engine-ppo" or "trainer.use_legacy_worker_impl" in schema.leaf_paths(version, b.config)) and
             (not b.name.startswith("micro-global")
              or semantics.resolve(version, snapshot=False).value("global_micro") == "divided")]
    grpo, seeds, precision = BASES[0], BASES[2], next(b for b in BASES if b.name == "precision")
    default = s.current_choices(grpo.config).get(schema.SWITCHABLE_GROUP)
    return bases + [replace(b, name=f"{b.name}-{c}", choice=c) for b in (grpo, seeds, precision)
                    for c in s.choices(grpo.config) if c != default]


# the conditions of how a step's loss is made from its micro-batches (rftc.mapping.microloss)
MICRO_WHEN = {f"{role}_{what}" for role in ("actor", "critic") for what in (
    "micro_rows", "global_micro", "budget_switch", "budget", "fsdp_sp_ranks", "megatron_ranks", "engine_sp_ranks")}
# the base launches of veRL's own policy losses, and a key of each loss's (the releases that have it)
LOSS_MODE_BASES = {"clip_cov": "clip_cov_ratio", "kl_cov": "kl_cov_ratio", "dro": "dro_beta"}


def _can_hold(when: str, version: str) -> bool:
    """Whether some launch of ``version`` can meet a condition: the release's own facts, and the trainer loops it
    has (veRL's v1 trainers, the off-policy trainers), decide some."""
    names = {b.name for b in _bases(version)}
    if when == "megatron_unit":
        return WHEN[when][1](lambda k: None, version)
    if when in ("v1", "v1_async", "colocate_async", "separate_async"):
        return "v1" in names
    if when in ("grad_clip", "critic_grad_clip"):  # from 0.8.0 only the engine workers, which clip at optim.*
        role = "actor" if when == "grad_clip" else "critic"
        return semantics.resolve(version, snapshot=False).value(f"{role}_clip") != "optim"
    if when in ("filter_groups", "group_filter_trainer"):  # only main_ppo's v1 trainers of the bundled ones
        return "v1" in names and bool(modes.fact("v1_routing", version))
    if when.startswith(("process_seed_", "determinism_")) and not when.endswith("_sft"):
        # before 0.8.0 the bases run the legacy FSDP workers, which seed nothing (the engine workers, whose FSDP
        # engine seeds under full_determinism, only under trainer.use_legacy_worker_impl=disable)
        return semantics.resolve(version, snapshot=False).value("actor_clip") == "optim"
    if when == "turns_by_mode":  # from 0.7.0 the rollout is async whatever rollout.mode says
        return semantics.resolve(version, snapshot=False).value("rollout_modes") == ("sync", "async")
    if when == "rm_engine_legacy_context":  # 0.7.0's rollout servers read no max_model_len
        return semantics.resolve(version, snapshot=False).value("context_key") != "unread"
    if when == "loop_class":  # from 0.7.1 reward_loop_class_name only names the module
        return semantics.resolve(version, snapshot=False).value("reward_loop") == "optional"
    if when == "reads_context":  # 0.7.0's servers give the engine the model's max_position_embeddings
        return semantics.resolve(version, snapshot=False).value("context_key") != "unread"
    if when == "truncates":  # before 0.3.0 the dataset leaves every over-long prompt out
        return semantics.resolve(version, snapshot=False).value("prompt_filter") == "read"
    if when in ("hybrid_requested", "hybrid_switch", "hybrid_adaptive"):  # a key of 0.9.1's v1 separate_async
        return "v1" in names and bool(modes.fact("hybrid_rollout", version))
    if when in CORRECTION_READS or when == "vllm_logprobs":  # a rollout correction: 0.6.0 on
        kind = semantics.resolve(version, snapshot=False).value("rollout_correction")
        if when.startswith("legacy_"):
            return kind == "legacy"
        return kind is not None and (kind != "legacy" or when == "reads_logprobs")
    if when == "over_sample_read":  # only verl 0.6.x's SGLang multi-turn rollout reads it
        return semantics.resolve(version, snapshot=False).value("over_sample_reader") is not None
    if when.startswith(("legacy_dtype_", "legacy_qat_")):  # the legacy FSDP workers of 0.6.1 (0.7.1) to 0.7.1
        return semantics.resolve(version, snapshot=False).value("actor_clip") != "optim"
    if when.startswith(("qat_train_", "engine_qat_")) or when == "megatron_dtype_ref":
        # before 0.8.0 the bases run the legacy workers: their critic and reference read no engine section's QAT,
        # the legacy Megatron reference computes in the actor's megatron.dtype
        return semantics.resolve(version, snapshot=False).value("actor_clip") == "optim"
    if when.startswith("turbo_") or when == "megatron_sft":  # no base composes fsdp_turbo or the Megatron SFT engine
        return False
    if when == "legacy_sft":  # fsdp_sft_trainer's config, gone from 0.7.1
        return "sft" in names
    if when == "reads_ignore_eos":  # the agent loop of 0.7.x and 0.8.0 fixes the sampling parameters
        return semantics.resolve(version, snapshot=False).value("rollout_sampling_keys") != "fixed"
    engine_only = semantics.resolve(version, snapshot=False).value("actor_clip") == "optim"  # no legacy workers
    if when in MICRO_WHEN:  # the engine actor normalises by the mini-batch, the engine critic from 0.9.0
        sem = semantics.resolve(version, snapshot=False)
        sums = sem.value("engine_micro") == "sum" and sem.value("engine_critic_loss") != "global"  # the engine critic
        if when == "critic_engine_sp_ranks":
            return sums and "engine-ppo" in names | ({"ppo"} if engine_only else set())
        if "global_micro" in when or when.endswith("fsdp_sp_ranks") or when == "actor_megatron_ranks":
            return sem.value("global_micro") == "divided"  # the legacy workers divide a global size
        if when == "critic_megatron_ranks":
            return sem.value("global_micro") == "divided" or (sums and engine_only)
        return not engine_only or (when.startswith("critic_") and sums)
    if when.startswith("legacy_") or when == "own_reference":  # the legacy workers' keys (to 0.7.x)
        return not engine_only
    if when.startswith(("megatron_replay_", "megatron_frozen_")):  # the bases run Megatron's engine from 0.8.0
        return engine_only
    if when == "engine_actor":  # before 0.8.0 only VeOmni's and TorchTitan's engines (model_engine options)
        return engine_only or bool({"veomni", "torchtitan"} & set(schema.load(version).choices(BASES[0].config)))
    if when == "dapo_refill":  # the DAPO recipe's config: a checkout's, which no bundled release composes
        return False
    if when == "val_only":  # a config key from 0.4.1 (0.2 to 0.4.0 read it when added with +)
        return "trainer.val_only" in schema.leaf_paths(version, "ppo_trainer")
    return True


@pytest.mark.parametrize("version", schema.versions())
def test_the_classification_holds_when_each_key_is_perturbed(version, tmp_path):
    """A key classified as feeding a quantity changes it (in a base where its condition holds); a key that does not
    change what is trained changes no quantity (a key feeds only quantities of its kind of run: an RL or an SFT
    one); a quantity the model lacks is listed on its own."""
    start = time.perf_counter()
    wrong, lacking, checked, unchecked = [], {}, set(), {}
    for base in _bases(version):
        p = Perturber(version, base, tmp_path)
        kind = SftRun if base.config in SFT_CONFIGS else TrainingRun
        names = {f.name for f in fields(kind)}
        get = p.eff.get
        for key in leaves(p.eff.values):
            if key not in schema.leaf_paths(version, base.config, base.choice):
                continue
            row = classify(key, base.config)
            if row is None:
                continue  # test_every_key_of_every_release_is_classified names it
            feeds = row.feeds.split()
            absent = [q for q in feeds if q not in names]
            present = [q for q in feeds if q in names]
            unknown = [q for q in absent if q not in MODELLED]
            if unknown:
                lacking.setdefault(key, set()).update(unknown)
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
                if not set(present) & got:
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
        message.append(f"verl {version}: keys feeding quantities the model lacks:\n  " +
                       "\n  ".join(f"{k} -> {' '.join(sorted(q))}" for k, q in sorted(lacking.items())))
    assert not message, "\n".join(message) + f"\n({elapsed:.1f}s)"


# ---- Trinity-RFT 0.6: every field of its config (rftc.mapping.trinity_fields)

TRINITY_BASES = ("convert/cases/algo_grpo_kl_loss.yaml", "convert/cases/algo_gae_ppo.yaml",
                 "convert/sft/gsm8k_qwen_05_peft.yaml", "convert/async/fully_async_4_4.yaml",
                 "convert/cases/rewards_reward_model.yaml", "convert/recipe/dapo_dynamic_sampling.yaml",
                 "convert/cases/release_0_1_gae.yaml", "convert/sft/multiturn_qwen_05_sp2.yaml",
                 "convert/cases/algo_distill_k1.yaml")
# valid values of the dict-valued fields, merged into theirs (a key each reads)
TRINITY_VALUES = {"algorithm.policy_loss_fn_args": {"clip_range_low": 0.1, "clip_range_high": 0.3, "clip_range": 0.25},
                  "algorithm.kl_loss_fn_args": {"kl_coef": 0.5}, "algorithm.kl_penalty_fn_args": {"kl_coef": 0.5},
                  "algorithm.entropy_loss_fn_args": {"entropy_coef": 0.5},
                  "algorithm.advantage_fn_args": {"gamma": 0.5, "lam": 0.5, "epsilon": 0.5},
                  "algorithm.sample_strategy_args": {"expert_data_ratio": 0.25, "max_staleness": 2},
                  **{f"buffer.explorer_input.{k}.workflow_args": {"custom_reward_function": {"path": "other.py"},
                                                                   "temperature": 0.5}
                     for k in ("tasksets", "taskset")},
                  "trainer.trainer_config": {"actor_rollout_ref": {"actor": {"ppo_epochs": 3}},
                                             "critic": {"optim": {"lr": 0.5}}},
                  "data_processor.experience_pipeline.operators.args": {"metric": "score"},
                  "algorithm.sample_strategy_args": {"expert_data_ratio": 0.25}}
# (an unset field's "*" differs from the default Trinity's validator fills in)
TRINITY_ENUMS = {"algorithm_type": {"grpo": "ppo", "*": "grpo"}, "advantage_fn": {"rloo": "grpo", "*": "rloo"},
                 "policy_loss_fn": {"gspo": "ppo", "*": "gspo"}, "kl_loss_fn": {"none": "k2", "*": "none"},
                 "kl_penalty_fn": {"none": "k1", "*": "none"}, "entropy_loss_fn": {"none": "default", "*": "none"},
                 "mode": {"both": "train", "*": "both"}, "prompt_type": {"messages": "plaintext", "*": "messages"},
                 "selector_type": {"shuffle": "sequential", "*": "shuffle"},
                 "trainer_strategy": {"megatron": "fsdp", "*": "megatron"},
                 "engine_type": {"vllm": "sglang", "*": "vllm"}}


def trinity_perturbed(path: str, value, annotation):
    """Another valid value of a Trinity field: as ``perturbed``, the enums of Trinity's names, and for an unset
    field one of its type."""
    import enum

    last = path.rsplit(".", 1)[-1]
    if isinstance(value, enum.Enum):
        return next(m for m in type(value) if m != value)
    if path in TRINITY_VALUES:
        return {**(value or {}), **TRINITY_VALUES[path]}
    if isinstance(value, str) and last in TRINITY_ENUMS or value is None and last in TRINITY_ENUMS:
        return TRINITY_ENUMS[last].get(value, TRINITY_ENUMS[last]["*"])
    if value is None:
        kind = str(annotation)
        for name, new in (("bool", True), ("int", 3), ("float", 0.5), ("dict", {"x": 1}), ("list", ["x"])):
            if name in kind:
                return new
        return "x"
    return perturbed(path, value)


def trinity_paths(cls=None, prefix: str = ""):
    """The path of every field of Trinity 0.6's config (list items without their index, a dict's entries as *)."""
    from rftc.trinity.schema import TrinityConfig, _model_in

    for name, f in (cls or TrinityConfig).model_fields.items():
        path = f"{prefix}.{name}" if prefix else name
        sub, in_dict = _model_in(f.annotation)
        if sub is None:
            yield path
        else:
            yield from trinity_paths(sub, path + (".*" if in_dict else ""))


def test_every_trinity_field_is_classified():
    from rftc.mapping.trinity_fields import find_field

    missing = [p for p in trinity_paths() if find_field(p) is None or not (find_field(p).feeds or find_field(p).inert)]
    assert not missing, "Trinity 0.6 fields with no class in rftc/mapping/trinity_fields.py:\n" + "\n".join(missing)


def test_every_trinity_row_has_one_class():
    from rftc.mapping.trinity_fields import FIELDS, WHEN as TRINITY_WHEN

    for row in FIELDS:
        assert bool(row.feeds) != bool(row.inert), row.path
        assert row.inert in ("", *INERT) and row.when in ("", *TRINITY_WHEN), row.path
    assert {f.when for f in FIELDS} - {""} == set(TRINITY_WHEN), "a condition no row names"


def _every_section(cfg):
    """``cfg`` with the optional sections and list items its file leaves out, so each field has a value to
    perturb: the task pipeline and its output, the experience pipeline's output and operators, an auxiliary
    buffer, an auxiliary model, the external-model settings, the deprecated task selectors (the training taskset's
    one that reads all its fields), the Data-Juicer service."""
    from rftc.trinity import schema as s

    cfg = cfg.model_copy(deep=True)
    ts = cfg.buffer.explorer_input.tasksets[0]
    cfg.data_processor.task_pipeline = s.TaskPipelineConfig(output=ts.model_copy(deep=True), inputs=["raw.jsonl"],
                                                            operators=[s.OperatorConfig(name="op")])
    cfg.data_processor.experience_pipeline.output = s.ExperienceBufferConfig(name="pipeline_output")
    cfg.data_processor.experience_pipeline.operators = [s.OperatorConfig(name="op")]
    cfg.buffer.trainer_input.auxiliary_buffers = {"aux": s.ExperienceBufferConfig(name="aux", path="aux.jsonl")}
    cfg.explorer.rollout_model.external_model_config = s.ExternalModelConfig()
    cfg.explorer.auxiliary_models = [s.InferenceModelConfig(model_path="judge",
                                                             external_model_config=s.ExternalModelConfig())]
    for t in (cfg.data_processor.task_pipeline.output, *cfg.buffer.explorer_input.eval_tasksets):
        t.task_selector = s.DataSelectorConfig()
    ts.task_selector = s.DataSelectorConfig(selector_type="difficulty_based")
    cfg.service.data_juicer = s.DataJuicerServiceConfig()
    return cfg


def _mix_and_replay(cfg):
    """``cfg`` whose trainer reads a replaying queue and draws part of each batch from its auxiliary buffer (the mix
    sample strategy), a replaying queue too."""
    from rftc.trinity import schema as s

    cfg = cfg.model_copy(deep=True)
    cfg.algorithm.sample_strategy, cfg.algorithm.sample_strategy_args = "mix", {"sft_dataset_name": "aux"}
    replay = s.ReplayBufferConfig(enable=True, reuse_cooldown_time=1.0)
    cfg.buffer.trainer_input.experience_buffer = s.ExperienceBufferConfig(name="experience_buffer",
                                                                          replay_buffer=replay)
    cfg.buffer.trainer_input.auxiliary_buffers = {"aux": s.ExperienceBufferConfig(
        name="aux", path="aux.jsonl", storage_type="queue", replay_buffer=replay.model_copy())}
    return cfg


def _with_task_pipeline(cfg):
    """``cfg`` with a task pipeline that writes its training data (its output unset)."""
    from rftc.trinity import schema as s

    cfg = cfg.model_copy(deep=True)
    cfg.data_processor.task_pipeline = s.TaskPipelineConfig(inputs=["raw.jsonl"],
                                                            operators=[s.OperatorConfig(name="op")])
    return cfg


def _deprecated_taskset(cfg):
    """``cfg`` with its training taskset under the deprecated ``buffer.explorer_input.taskset``."""
    cfg = cfg.model_copy(deep=True)
    cfg.buffer.explorer_input.taskset = cfg.buffer.explorer_input.tasksets.pop(0)
    return cfg


def _trinity_workflow(cfg):
    """``cfg`` whose training taskset runs one of Trinity's workflows and reward functions, from explorer_input's
    defaults (the taskset leaves them unset), its rows chosen by a selector that reads all its fields."""
    cfg = cfg.model_copy(deep=True)
    ei = cfg.buffer.explorer_input
    ei.default_workflow_type, ei.default_reward_fn_type = "math_workflow", "math_reward"
    ts = ei.tasksets[0]
    ts.default_workflow_type = ts.default_reward_fn_type = None
    ts.data_selector.selector_type = "difficulty_based"
    return cfg


def _changed(cfg, path: str, value):
    """``cfg`` with one field set (a list's first item, as ``_holder`` reads it)."""
    cfg = cfg.model_copy(deep=True)
    holder, attr = _holder(cfg, path)
    object.__setattr__(holder, attr, value)
    return cfg


def walk(obj, parts):
    """The object at ``parts`` below ``obj`` as the conditions read it (a list's first item, a dict's first entry);
    None where there is none."""
    for part in parts:
        if part == "*":
            obj = next(iter(obj.values()), None) if isinstance(obj, dict) else None
        else:
            obj = getattr(obj, part, None)
            if isinstance(obj, list):
                obj = obj[0] if obj else None
        if obj is None:
            return None
    return obj


def _holder(obj, path: str):
    """The object holding the field at ``path`` (a list's first item, a dict's first entry), and its name; None
    where the config has no such item."""
    *parents, last = path.split(".")
    obj = walk(obj, parents)
    return None if obj is None else (obj, last)


def _trinity_get(cfg):
    def get(path: str):
        got = _holder(cfg, path)
        return None if got is None else getattr(got[0], got[1], None)
    return get


def test_the_trinity_classification_holds_when_each_field_is_perturbed():
    """Each field of each base config changed in memory, the model recomputed from Trinity's expansion."""
    from rftc.semantics.trinity import from_trinity, view
    from rftc.mapping.trinity_fields import WHEN as TRINITY_WHEN, find_field
    from support.paths import GOLDEN

    start = time.perf_counter()
    wrong, lacking, checked, unchecked = [], {}, set(), {}
    configs = {}
    for name in TRINITY_BASES:
        result = api.check(str(GOLDEN / name))
        assert result.config is not None, [str(d) for d in result.diagnostics]
        configs[name] = result.config
    grpo, rm, sft = (configs[TRINITY_BASES[i]] for i in (0, 4, 2))
    configs["GRPO, every section"] = _every_section(grpo)
    configs["GRPO, Trinity's workflow"] = _trinity_workflow(grpo)
    configs["GRPO, Trinity's workflow, every section"] = _trinity_workflow(configs["GRPO, every section"])
    configs["GRPO, Trinity's workflow, taskset"] = _deprecated_taskset(configs["GRPO, Trinity's workflow"])
    configs["GRPO, taskset"] = _deprecated_taskset(grpo)
    configs["reward model, taskset"] = _deprecated_taskset(rm)
    configs["GRPO, the model's temperature"] = _changed(grpo, "buffer.explorer_input.tasksets.rollout_args.temperature",
                                                        None)
    configs["GRPO, explorer-driven sync"] = _changed(grpo, "synchronizer.sync_style",
                                                     type(grpo.synchronizer.sync_style)("explorer_driven"))
    configs["GRPO, on Tinker"] = _changed(grpo, "model.tinker.enable", True)
    configs["GRPO, an external model"] = _changed(grpo, "model.external_model.enable", True)
    configs["GRPO, fully async sync"] = _changed(grpo, "synchronizer.sync_style",
                                                 type(grpo.synchronizer.sync_style)("fully_async"))
    configs["GRPO, mix strategy, replay"] = _mix_and_replay(configs["GRPO, every section"])
    configs["SFT, micro-batches by tokens"] = _changed(sft, "trainer.use_dynamic_bsz", True)
    configs["SFT, a task pipeline"] = _with_task_pipeline(sft)
    configs["GRPO, over-rollout and dynamic timeout"] = _changed(_changed(
        configs["GRPO, explorer-driven sync"], "explorer.over_rollout.ratio", 0.5), "explorer.dynamic_timeout.enable",
        True)
    configs["GRPO, Megatron"] = _changed(grpo, "trainer.trainer_strategy", "megatron")
    configs["SFT, a LoRA adapter"] = _changed(sft, "model.lora_configs.path", "/adapters/sft")
    configs["GRPO, the mix algorithm (its sample strategy)"] = _changed(grpo, "algorithm.algorithm_type", "mix")
    configs["SFT, a difficulty-based selector"] = _changed(
        sft, "buffer.trainer_input.experience_buffer.data_selector.selector_type", "difficulty_based")
    for name, cfg in configs.items():
        base = from_trinity(view(cfg), dataset_rows=1000)
        names = {f.name for f in fields(type(base))}
        get = _trinity_get(cfg)
        for path in trinity_paths():
            got = _holder(cfg, path)
            if got is None or path.startswith("stages."):
                continue
            holder, attr = got
            row = find_field(path)
            feeds = row.feeds.split()
            absent = [q for q in feeds if q not in names]
            present = [q for q in feeds if q in names]
            holds = not row.when or TRINITY_WHEN[row.when][1](get)
            unknown = [q for q in absent if q not in MODELLED]
            if unknown:
                lacking.setdefault(path, set()).update(unknown)
            if row.feeds and present and not holds:
                unchecked[path] = row.when
            if row.feeds and not (present and holds):
                continue
            old = getattr(holder, attr)
            new = trinity_perturbed(path, old, type(holder).model_fields[attr].annotation)
            object.__setattr__(holder, attr, new)
            try:
                run = from_trinity(view(cfg), dataset_rows=1000)
                changed = {f.name for f in fields(run) if getattr(run, f.name) != getattr(base, f.name)} \
                    if type(run) is type(base) else {f"<a {type(run).__name__}>"}
            except Exception as e:  # noqa: BLE001 - Trinity's expansion reads the field and refuses the value
                changed = {f"<error: {type(e).__name__}: {e}>"}
            finally:
                object.__setattr__(holder, attr, old)
            if row.inert and changed:
                wrong.append(f"{path} ({name}): classified '{row.inert}' ({row.path}) but changes {sorted(changed)}")
            elif row.feeds:
                checked.add(path)
                if not set(present) & changed:
                    wrong.append(f"{path} ({name}): classified as feeding {present} ({row.path}) but changes "
                                 f"{sorted(changed) or 'nothing'}")
    elapsed = time.perf_counter() - start
    message = []
    never = {k: w for k, w in unchecked.items() if k not in checked}
    if never:
        message.append("Trinity 0.6: fields no base config checks (their condition holds in none):\n  " +
                       "\n  ".join(f"{k} (when {w}: {TRINITY_WHEN[w][0]})" for k, w in sorted(never.items())))
    if wrong:
        message.append("Trinity 0.6: classification contradicted by the model:\n  " + "\n  ".join(wrong))
    if lacking:
        message.append("Trinity 0.6: fields feeding quantities the semantic model lacks:\n  " +
                       "\n  ".join(f"{k} -> {' '.join(sorted(q))}" for k, q in sorted(lacking.items())))
    assert not message, "\n".join(message) + f"\n({elapsed:.1f}s)"
