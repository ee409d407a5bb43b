"""The mapping pipeline: effective veRL config -> draft Trinity-RFT 0.6 config, with provenance per emitted key,
the ledger of every key the script set, and RFTC3xx diagnostics."""

from __future__ import annotations

from dataclasses import dataclass

from rftc.diagnostics.collector import Diagnostics
from rftc.mapping import (algorithm, batch, data, distill, gpu, loss, micro, microloss, minibatch, models, offpolicy,
                          precision, rewards, sampling, seeds, sft, steps, sync, trainer)
from rftc.mapping.draft import Draft, Entry, Options, Origin
from rftc.mapping.order import ordered
from rftc.mapping.rules import apply_rules
from rftc.mapping.sft_rules import SFT_RULES
from rftc.verl.effective import EffectiveConfig
from rftc.verl.trainers import SFT_CONFIGS

REF_ALGORITHMS = {"ppo", "grpo", "reinforceplusplus", "rloo", "gspo", "cispo", "sapo"}  # Trinity types with a ref model


@dataclass
class Mapped:
    config: dict  # the draft Trinity config, sections in the guide's order
    origins: dict[str, Origin]  # dotted Trinity key (list items by index) -> where it came from
    ledger: dict[str, Entry]  # every veRL key the mapping touched -> what became of it
    diagnostics: Diagnostics
    cfg: EffectiveConfig

    @property
    def ok(self) -> bool:
        return not self.diagnostics.has_errors


def map_config(cfg: EffectiveConfig, options: Options | None = None) -> Mapped:
    d = Draft(cfg, options)
    if is_sft(cfg):
        sft.map_sft(d)
        precision.map_sft_precision(d, legacy=sft.legacy(d))
        trainer.map_trainer(d)
        loss.map_sft_loss(d)
        microloss.map_sft_microbatch(d, sft.legacy(d))
        apply_rules(d, SFT_RULES)
        return Mapped(ordered(d.data), d.origins, d.ledger, d.diags, cfg)
    trainer.map_trainer(d)
    algo = algorithm.map_algorithm(d)
    loop = offpolicy.schedule(d)
    b = batch.map_batch(d, algo, (loop.batch, "async_training.require_batches", loop.batch_formula)
                        if loop.batch else None)
    b = sampling.map_dynamic_sampling(d, b)
    critic = algo == "ppo"
    if not critic:
        for k in d.user_keys_under("critic"):
            d.implied(k, f"no critic: the {algo or 'chosen'} algorithm does not train one (veRL ignores it too)")
    scored = data.map_data(d, rule_reward=not rewards.reward_model(d))
    teacher = None
    if algo == "on_policy_distill":  # the training tasksets run the distillation workflow, the teacher beside
        teacher, scored = distill.map_teacher(d, scored)
    models.map_models(d, critic=critic)
    if b is not None:
        minibatch.map_order(d, b, critic)
    models.map_megatron(d)
    seeds.map_seeds(d, critic)
    precision.map_precision(d, critic)
    micro.map_micro(d)
    models.ref_micro_batch(d, ref=algo in REF_ALGORITHMS)
    if b is not None:
        steps.map_steps(d, b)
    loss.map_loss(d, b, critic)
    sync.map_sync(d, loop.loop.name)
    offpolicy.map_schedule(d, loop, d.get("buffer.batch_size"), b.sync_interval if b else None)
    aux = rewards.map_rewards(d, scored)
    if b is not None:
        trainer_gpus = gpu.map_gpus(d, experiences=b.experiences, aux=aux, critic=critic,
                                    ref=(algo in REF_ALGORITHMS), megatron=models.strategy(d) == "megatron",
                                    rollout=offpolicy.rollout_gpus(d, loop), teacher=teacher)
        microloss.map_microbatch(d, b.train_batch, critic, trainer_gpus)
    apply_rules(d)
    return Mapped(ordered(d.data), d.origins, d.ledger, d.diags, cfg)


def is_sft(cfg: EffectiveConfig) -> bool:
    """Whether ``cfg`` is the config of one of veRL's SFT trainers (its primary config's name)."""
    return cfg.config_name.split(" ")[0] in SFT_CONFIGS
