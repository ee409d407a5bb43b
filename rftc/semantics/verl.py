"""The semantic model of a veRL launch: its effective config (rftc.verl.effective) read by the rules of the release
it runs (rftc.verl.releases.semantics): what one ppo_mini_batch_size counts, where KL goes, whether PPO dual-clips,
which loss aggregations exist. Step counts are in optimizer steps, the unit both trainers' schedulers step in."""

from __future__ import annotations

import math

from rftc.mapping.algorithm import ESTIMATORS, GIGPO, KL, NO_DUAL_CLIP, NORM_READERS, fork_gigpo
from rftc.mapping.correction import bypass_loss
from rftc.mapping.data import PROMPT_CUTS, reads_context
from rftc.mapping.distill import task_free
from rftc.mapping.minibatch import minibatch_responses
from rftc.mapping.models import MCORE, SCHEDULERS, clip_key, greedy_rollout, reads_sampling_key
from rftc.mapping.sampling import V1_REWARD, filtering_trainer
from rftc.mapping.steps import steps_per_epoch
from rftc.plugins import ADVANTAGE_FN, GPG_LOSS_FN
from rftc.semantics.buffer import verl_fields as buffer_fields
from rftc.semantics.data import verl_data_fields
from rftc.semantics.minibatch import CriticSteps, verl_order
from rftc.semantics.distill import verl_distilled
from rftc.semantics.distill import verl_fields as distill_fields
from rftc.semantics.model import SftRun, TrainingRun, Value
from rftc.semantics.model_settings import verl_fields, verl_lora
from rftc.semantics.offpol import offpol_fields
from rftc.semantics.precision import precision_fields
from rftc.semantics.optim import critic_optimizer, optimizer
from rftc.semantics.loss import verl_fields as loss_fields, verl_schedule_args
from rftc.semantics.micro import verl_fields as micro_fields
from rftc.semantics.reader import Reader, train_rows
from rftc.semantics.reward import verl_fields as reward_fields, verl_reward
from rftc.semantics.seeds import verl_seed
from rftc.semantics.inputs import launch_path
from rftc.semantics.sft_verl import from_verl_sft
from rftc.semantics.verl_inputs import inputs, reward_keys
from rftc.verl.effective import EffectiveConfig
from rftc.verl.releases import modes, semantics
from rftc.verl.releases.modes import ASYNC
from rftc.verl.trainers import is_sft

A, R, O = "actor_rollout_ref.actor", "actor_rollout_ref.rollout", "actor_rollout_ref.actor.optim"
M = "actor_rollout_ref.model"
RC = "algorithm.rollout_correction"
TOTAL_PROMPTS = "rollout.total_rollout_steps"  # the fully async rollout's bound (rftc.verl.releases.modes)
# veRL's estimators that discount with algorithm.gamma (gae also with lam): core_algos.compute_*_advantage; a
# fork's gigpo discounts its step returns with it
DISCOUNTED = ("gae", "reinforce_plus_plus", "gigpo")
# veRL loss_mode -> Trinity's name of the same loss. veRL's sapo is not Trinity's sapo (the gate of the ratio, whose
# gradient is 1 at ratio 1, against the detached gate times the log-prob, 2/tau there): it keeps a name of its own
LOSS_NAMES = {"vanilla": "ppo", "gpg": GPG_LOSS_FN, "sapo": "verl sapo"}


def from_verl(eff: EffectiveConfig, *, total_steps: int | None = None, dataset_rows: int | None = None,
              cwd: str | None = None) -> TrainingRun | SftRun:
    """What the launch's trainer loop trains (main_ppo's RayPPOTrainer or v1 trainers, the one-step-off or fully
    async trainer: rftc.verl.releases.modes gives its batch, weight updates, prompts ahead and rollout GPUs), or
    what one of veRL's SFT trainers trains (rftc.semantics.sft_verl).
    ``total_steps`` and ``dataset_rows`` stand for what the data files would say (the LR horizon), as `rftc convert
    --total-steps/--dataset-size`; else the parquet footers of data.train_files are read from ``cwd``."""
    if is_sft(eff.invocation):
        return from_verl_sft(eff, total_steps=total_steps, dataset_rows=dataset_rows, cwd=cwd)
    r, sem = Reader(eff), semantics.of(eff)
    loop = modes.schedule(eff.invocation.module if eff.invocation is not None else None, eff.release, r.get)
    n = r.get(f"{R}.n", 1)
    batch = loop.batch or r.get("data.train_batch_size")  # the fully async trainer's step: mini x require_batches
    responses, unit = minibatch_responses(r.get, sem, "actor", batch, n)  # a larger mini-batch holds the whole batch
    if responses is None:
        raise ValueError(f"a step of {batch} prompts x n {n} in mini-batches of {r.get(f'{A}.ppo_mini_batch_size')} "
                         f"{unit}: not positive whole numbers")
    epochs, si, k_sync = r.get(f"{A}.ppo_epochs", 1), batch * n // responses, loop.sync_every
    batch_keys = ("data.train_batch_size" if loop.batch is None else f"{ASYNC}.require_batches",
                  f"{A}.ppo_mini_batch_size", f"{R}.n")
    prompts = "train_batch_size" if loop.batch is None else "ppo_mini_batch_size x require_batches"
    every = f" x {k_sync} trainer steps a weight update" if k_sync > 1 else ""
    sched_key = next((f"{O}.{k}" for k in SCHEDULERS if r.get(f"{O}.{k}") is not None), None)
    sched = r.get(sched_key) if sched_key else "constant"
    warmup, ratio = r.get(f"{O}.lr_warmup_steps"), r.get(f"{O}.lr_warmup_steps_ratio") or 0.0
    warmup_set = isinstance(warmup, int) and warmup > 0
    kl_loss, kl_reward = bool(r.get(f"{A}.use_kl_loss")), bool(semantics.kl_in_reward(sem, r.get))
    bypass = bool(r.get(f"{RC}.bypass_mode"))
    replaced = bypass_loss(r.get, sem)  # bypass mode's own loss in place of loss_mode (rftc.mapping.correction)
    mode = replaced or r.get(f"{A}.policy_loss.loss_mode", "vanilla")
    clipped = mode not in ("sapo", "gpg")  # sapo smooths the ratio with tau_pos/tau_neg, gpg has no ratio
    est = r.get("algorithm.adv_estimator")
    total, total_key = r.get("trainer.total_training_steps"), "trainer.total_training_steps"
    if loop.total_prompts is not None:  # the fully async rollouter stops after this many prompts
        total, total_key = loop.total_prompts // batch, TOTAL_PROMPTS
    agg_modes = sem.value("loss_agg_modes")
    wants_horizon = (ratio > 0 and not warmup_set) or sched != "constant"
    return verl_distilled(TrainingRun(
        responses_per_step=r.of(responses, *batch_keys, formula=f"ppo_mini_batch_size x n ({unit} under verl "
                                f"{eff.release})" if unit == "prompts" else "ppo_mini_batch_size (responses)"),
        steps_per_batch=r.of(si * epochs * k_sync, *batch_keys, f"{A}.ppo_epochs",
                             *(loop.keys if k_sync > 1 else ()),
                             formula=f"{prompts} x n / responses per step x ppo_epochs" + every),
        ppo_epochs=r.v(f"{A}.ppo_epochs", 1),
        total_epochs=r.v("trainer.total_epochs"),
        total_steps=r.of(total * si, total_key, formula=f"x {prompts} / mini-batch" if total_key !=
                         TOTAL_PROMPTS else "// prompts a trainer step x optimizer steps per batch")
        if isinstance(total, int) and total > 0 else Value(None),
        lr=r.v(f"{O}.lr"),
        lr_scheduler=r.of(sched, sched_key) if sched_key else Value("constant", f"{O}.lr_scheduler_type (unset)"),
        warmup_steps=r.of(warmup * si, f"{O}.lr_warmup_steps", formula="x steps per rollout batch / ppo_epochs")
        if warmup_set else Value(None),
        warmup_ratio=r.of(ratio, f"{O}.lr_warmup_steps_ratio"),
        lr_horizon=_horizon(r, si, batch, (total, total_key), total_steps, dataset_rows, cwd) if wants_horizon
        else Value(None),
        weight_decay=r.v(f"{O}.weight_decay", 0.01),  # verl 0.1-0.3 read it with this default
        kl_loss=r.of(KL.get(r.get(f"{A}.kl_loss_type"), r.get(f"{A}.kl_loss_type")) if kl_loss else "none",
                     f"{A}.use_kl_loss", *([f"{A}.kl_loss_type"] if kl_loss else [])),
        kl_loss_coef=r.v(f"{A}.kl_loss_coef", when=kl_loss),
        kl_in_reward=r.of(KL.get(r.get("algorithm.kl_penalty"), r.get("algorithm.kl_penalty")) if kl_reward
                          else "none", "algorithm.use_kl_in_reward", *(["algorithm.kl_penalty"] if kl_reward else [])),
        kl_in_reward_coef=r.v("algorithm.kl_ctrl.kl_coef", when=kl_reward),
        policy_loss=r.of(LOSS_NAMES.get(mode, mode), *([f"{RC}.bypass_mode", *(f"{RC}.{k}" for k in (
            "loss_type", "use_policy_gradient") if r.eff.has(f"{RC}.{k}"))] if replaced else
            [f"{A}.policy_loss.loss_mode"])),
        clip_low=_clip(r, sem, "low") if clipped else Value(None),
        clip_high=_clip(r, sem, "high") if clipped else Value(None),
        clip_ratio_c=_dual_clip(r, sem, eff.release) if mode == "vanilla" else Value(None),
        sapo_tau=r.of((r.get(f"{A}.tau_pos"), r.get(f"{A}.tau_neg")), f"{A}.tau_pos", f"{A}.tau_neg")
        if mode == "sapo" else Value(None),
        entropy_coef=r.v(f"{A}.entropy_coeff", 0.0),
        loss_agg_mode=Value("seq-mean-token-mean", f"veRL's {mode} loss") if mode == "sapo" else
        r.v(f"{A}.loss_agg_mode") if len(agg_modes) > 1 else Value(agg_modes[0], f"verl {eff.release}"),
        advantage=r.of("gigpo" if fork_gigpo(est, r.get) else _estimator(est), "algorithm.adv_estimator"),
        gamma=r.v("algorithm.gamma", when=est in DISCOUNTED),
        lam=r.v("algorithm.lam", when=est == "gae"),
        step_advantage_w=r.v(f"{GIGPO}.step_advantage_w", when=fork_gigpo(est, r.get)),
        critic_lr=r.v("critic.optim.lr", when=est == "gae"),
        value_clip=r.v("critic.cliprange_value", when=est == "gae"),
        minibatch_order=r.of(verl_order(r.get, sem, "actor", si, epochs, k_sync), *batch_keys, f"{A}.ppo_epochs",
                             *(f"{A}.{k}" for k in ("shuffle", "data_loader_seed") if r.eff.has(f"{A}.{k}")),
                             formula=f"ppo_epochs passes over a trainer step's {si} mini-batches"),
        critic_steps=_critic_steps(r, sem, batch, n, k_sync) if est == "gae" else Value(None),
        trainer_seed=verl_seed(r.get, r.where, sem, critic=est == "gae", kl=kl_loss or kl_reward),
        # a reference no loss reads (veRL's distillation without task rewards) trains nothing in its precision
        **precision_fields(r, sem, kl=(kl_loss or kl_reward) and not task_free(r.get), critic=est == "gae"),
        n=r.v(f"{R}.n", 1),
        temperature=r.v(f"{R}.temperature", 1.0),
        top_p=r.v(f"{R}.top_p", 1.0),
        top_k=r.v(f"{R}.top_k", -1),
        max_prompt_length=r.v("data.max_prompt_length"),
        max_response_length=r.v("data.max_response_length"),
        context_length=_context_length(r, sem),
        **_overlong_prompts(r, sem, eff.release),
        # the oldest rollout is one of the prompts ahead, trained in the last of their mini-batches after the
        # steps of a whole weight version
        policy_lag=r.of((si * k_sync + math.ceil(loop.ahead * si / batch)) * epochs - 1, *batch_keys,
                        f"{A}.ppo_epochs", *loop.keys, formula="(optimizer steps between weight updates + the "
                        f"mini-batches of the prompts ahead) x ppo_epochs - 1 (veRL's {loop.loop.name} trainer loop)"),
        ahead=r.of(loop.ahead, *loop.keys, batch_keys[0], formula=f"veRL's {loop.loop.name} trainer loop")
        if loop.ahead else Value(0, f"veRL's {loop.loop.name} trainer loop"),
        experiences_per_update=r.of(batch * n * k_sync, *batch_keys, *(loop.keys if k_sync > 1 else ()),
                                    formula="prompts a trainer step x n" + every),
        rollout_gpus=Value(loop.rollout_gpus[0] * loop.rollout_gpus[1], r.where(
            f"{loop.loop.own_gpus}.nnodes", f"{loop.loop.own_gpus}.n_gpus_per_node"), "nnodes x n_gpus_per_node")
        if loop.rollout_gpus else Value(None),
        trainer_gpus=r.of(r.get("trainer.nnodes") * r.get("trainer.n_gpus_per_node"), "trainer.nnodes",
                          "trainer.n_gpus_per_node", formula="nnodes x n_gpus_per_node")
        if loop.rollout_gpus else Value(None),
        logprob_source=r.of("rollout" if bypass else "actor", f"{RC}.bypass_mode"),
        **_optimizer_fields(r, sem, eff.release, sched),
        critic_optimizer=_critic_optimizer(r, sem, si) if est == "gae" else Value(None),
        **_loss_and_sampling_fields(r, eff, sem, est, kl_reward),
        reward=verl_reward(r, sem, *reward_keys(r)[:3]),
        **reward_fields(r, sem, eff.release),
        **inputs(r, reference=kl_loss or kl_reward, critic=est == "gae"),
        **offpol_fields(r, sem, eff.release, loop),
        **verl_fields(r, sem, kl=kl_loss or kl_reward, critic=est == "gae"),
        **buffer_fields(r, sem, loop),
        **loss_fields(r, sem, eff.release, est=est, mode=mode, sched=sched, si=si, epochs=epochs),
        **verl_data_fields(r, sem, eff.release),
        **distill_fields(r),
        **micro_fields(r, sem, batch=batch, n=n, critic=est == "gae", loss_mode=mode),
    ), r)


def _optimizer_fields(r: Reader, sem, release: str, sched: str) -> dict[str, Value]:
    """The actor's optimizer (rftc.semantics.optim), the key its release clips the gradient with, the cosine
    schedule's floor and cycles, and LoRA."""
    megatron = r.get(f"{A}.strategy") in MCORE
    name, betas, eps = optimizer(lambda k: r.get(f"{O}.{k}"), megatron=megatron)
    keys = [f"{O}.{k}" for k in ("optimizer", "optimizer_impl", "override_optimizer_config", "name", "eps")
            if r.get(f"{O}.{k}")]
    cosine = sched == "cosine"
    lr = r.get(f"{O}.lr")
    min_lr = r.get(f"{O}.min_lr") if megatron else None
    return dict(
        optimizer=r.of(name, *keys) if keys else Value(name, f"verl {release}: {'Megatron' if megatron else 'FSDP'}"
                                                       " workers' default"),
        betas=r.of(betas, f"{O}.betas", *keys) if betas is not None else Value(None),
        eps=r.of(eps, *keys, formula="the optimizer's default unless override_optimizer_config sets it")
        if eps is not None and keys else Value(eps, "the optimizer's default"),
        clip_grad=r.v(clip_key(r.get, sem, megatron)),
        min_lr_ratio=(r.of(min_lr / lr, f"{O}.min_lr", f"{O}.lr", formula="min_lr / lr") if isinstance(min_lr, (
            int, float)) and lr else r.of(r.get(f"{O}.min_lr_ratio") or 0.0, f"{O}.min_lr_ratio")) if cosine
        else Value(None),
        lr_cycles=r.v(f"{O}.num_cycles", 0.5) if cosine and not megatron else Value(None),
        lora=verl_lora(r, sem),
    )


def _critic_steps(r: Reader, sem, batch: int, n: int, k_sync: int) -> Value:
    """The critic's mini-batch in responses (critic.ppo_mini_batch_size in the release's critic unit: prompts x n
    from 0.4.0, responses before; at most the batch), its steps per weight version and their order
    (rftc.semantics.minibatch)."""
    responses, unit = minibatch_responses(r.get, sem, "critic", batch, n)
    if responses is None:
        return r.of("unknown (critic.ppo_mini_batch_size is not a whole number)", "critic.ppo_mini_batch_size")
    minibatches, epochs = batch * n // responses, r.get("critic.ppo_epochs", 1)
    return r.of(CriticSteps(responses, minibatches * epochs * k_sync,
                            verl_order(r.get, sem, "critic", minibatches, epochs, k_sync)),
                "critic.ppo_mini_batch_size", "critic.ppo_epochs",
                *(f"critic.{k}" for k in ("shuffle", "data_loader_seed") if r.eff.has(f"critic.{k}")),
                formula=f"ppo_mini_batch_size ({unit} under verl {r.eff.release}); mini-batches x ppo_epochs")


def _critic_optimizer(r: Reader, sem, si: int) -> Value:
    """The critic's optimizer and schedule (rftc.semantics.optim), the clip at the key the release's critic
    reads, its engine's schedule settings (rftc.semantics.loss; its steps x ``si``, the mini-batches a trainer
    step, as the actor's)."""
    c = "critic.optim"
    megatron = r.get("critic.strategy") in MCORE
    clip = clip_key(r.get, sem, megatron, "critic")
    sched_key = next((f"{c}.{k}" for k in SCHEDULERS if r.get(f"{c}.{k}") is not None), None)
    sched = r.get(sched_key) if sched_key else "constant"
    keys = [f"{c}.{k}" for k in ("optimizer", "optimizer_impl", "override_optimizer_config", "betas",
                                  "weight_decay", "lr_warmup_steps_ratio", "lr_warmup_steps") if r.eff.has(f"{c}.{k}")]
    schedule, schedule_keys, _ = verl_schedule_args(r, sem, "critic", sched=str(sched).lower(), decay=True,
                                                    total=r.get("trainer.total_training_steps"), scale=si)
    return r.of(critic_optimizer(lambda k: r.get(f"{c}.{k}"), megatron=megatron, clip=r.get(clip), sched=sched,
                                 schedule=schedule),
                clip, *keys, *([sched_key] if sched_key else []), *schedule_keys,
                *([f"{c}.min_lr"] if megatron and sched == "cosine" else []))


def _loss_and_sampling_fields(r: Reader, eff: EffectiveConfig, sem, est, kl_reward: bool) -> dict[str, Value]:
    """Advantage normalisation, the KL-in-reward controller, dynamic sampling, greedy or sampled rollouts, and the
    rollout's ignore_eos, repetition penalty, minimum length and seed."""
    ctrl, fg = "algorithm.kl_ctrl", "algorithm.filter_groups"
    adaptive = str(r.get(f"{ctrl}.type", "fixed")) == "adaptive"
    trainer = filtering_trainer(eff.invocation, eff.release, r.get)  # a group of one response always stays
    filters = trainer is not None
    metric = r.get(f"{fg}.metric")
    metric = "seq_reward" if trainer == "v1" and metric == V1_REWARD else metric
    greedy = greedy_rollout(r.get) or r.get(f"{R}.temperature", 1.0) == 0
    return dict(
        norm_adv_by_std=(r.v("algorithm.norm_adv_by_std_in_grpo", True) if est in NORM_READERS
                         else Value(True, f"verl's {est} estimator divides by the group's std"))
        if est in NORM_READERS + ("grpo_vectorized",) else r.of(r.get(f"{GIGPO}.mode") == "mean_std_norm",
                                                                 f"{GIGPO}.mode") if fork_gigpo(est, r.get)
        else Value(None),
        kl_in_reward_ctrl=(r.of(("adaptive", r.get(f"{ctrl}.target_kl"), r.get(f"{ctrl}.horizon")), f"{ctrl}.type",
                                f"{ctrl}.target_kl", f"{ctrl}.horizon") if adaptive
                           else r.of("fixed", f"{ctrl}.type")) if kl_reward else Value(None),
        dynamic_sampling=r.of(f"groups whose {metric} varies", f"{fg}.enable", f"{fg}.metric") if filters
        else r.of("none", f"{fg}.enable"),
        do_sample=r.of("greedy" if greedy else "sampled", f"{R}.temperature",
                       *([f"{R}.name", f"{R}.do_sample"] if r.get(f"{R}.do_sample") is False else [])),
        ignore_eos=r.v(f"{R}.ignore_eos", False) if reads_sampling_key(r.get, sem, "ignore_eos")
        else r.of(False, f"{R}.ignore_eos", formula=f"verl {eff.release}'s rollout does not read it"),
        **{q: r.v(f"{R}.{key}", default) if reads_sampling_key(r.get, sem, key)
           else Value(default, f"verl {eff.release}'s rollout samples with {key} {default}")
           for q, key, default in (("repetition_penalty", "repetition_penalty", 1.0), ("min_response_length",
                                                                                     "min_tokens", 0))},
        sampling_seed=r.v(f"{R}.seed") if eff.has(f"{R}.seed") else Value(0, f"vLLM's seed 0 (verl {eff.release} "
                                                                             "has no rollout.seed)"),
    )


def _context_length(r: Reader, sem) -> Value:
    """The rollout engine's context length: rollout.max_model_len where set and read (a key from verl 0.3.0; not
    read by 0.6's async servers nor 0.7.0's: reads_context; the SGLang rollout asserts it is at least prompt +
    response, 0.4.0 on), else max_prompt_length + max_response_length: what vLLM is given up to 0.6. From 0.7.0 a
    null (0.7.0: any value) is the model's max_position_embeddings, which a prompt of max_prompt_length and a response
    of max_response_length do not reach wherever a window of their sum starts (vLLM refuses a max_model_len over
    it), so it bounds them as their sum does."""
    key, p, r_len = f"{R}.max_model_len", r.get("data.max_prompt_length"), r.get("data.max_response_length")
    if r.get(key) is not None and reads_context(r.get, sem):
        return r.v(key)
    total = p + r_len if isinstance(p, int) and isinstance(r_len, int) else None
    return r.of(total, "data.max_prompt_length", "data.max_response_length", *[key] * r.eff.has(key),
                formula="max_prompt_length + max_response_length (rollout.max_model_len null or not read)")


def _overlong_prompts(r: Reader, sem, release: str) -> dict[str, Value]:
    """What RLHFDataset does with a prompt over max_prompt_length: leaves it out (always before 0.3.0; where
    data.filter_overlong_prompts is set after), else cuts it as data.truncation says, or raises (truncation=error,
    or one the release does not know: postprocess_data asserts it for every row)."""
    if sem.value("prompt_filter") == "always":
        source = f"verl {release}'s RLHFDataset drops prompts over max_prompt_length"
        return dict(overlong_prompts=Value("left out", source), prompt_truncation=Value(None, source))
    filt = "data.filter_overlong_prompts"
    if r.get(filt):  # measured with the schemas of data's tools where set (0.6.1 on: RLHFDataset.tool_schemas)
        tools = [k for k in ("data.tool_config_path", "data.function_tool_path") if r.get(k)]
        files = ", ".join(launch_path(str(r.get(k))) for k in tools)
        return dict(overlong_prompts=r.of("left out" + (f" (measured with the tools of {files})" if tools else ""),
                                          filt, *tools), prompt_truncation=Value(None, r.where(filt)))
    how = r.get("data.truncation", "error")
    known = how in sem.value("truncation_modes")
    cut = PROMPT_CUTS[how] if known else f"the run stops (verl {release} has no truncation {how})"
    return dict(overlong_prompts=r.of("kept", filt), prompt_truncation=r.of(cut, "data.truncation", filt))


def _clip(r: Reader, sem, side: str) -> Value:
    """clip_ratio_low/high where set; before 0.4.0 (with dual clip) the loss reads clip_ratio only, whatever a
    fork's config declares."""
    key = f"{A}.clip_ratio_{side}"
    return r.v(key) if r.get(key) is not None and sem.value("dual_clip") else r.v(f"{A}.clip_ratio")


def _dual_clip(r: Reader, sem, release: str) -> Value:
    """clip_ratio_c, "none" before dual clip (0.4.0) or at a bound no ratio reaches."""
    if not sem.value("dual_clip"):
        return Value("none", f"verl {release}")
    c = r.get(f"{A}.clip_ratio_c")
    return r.of("none" if isinstance(c, (int, float)) and c >= NO_DUAL_CLIP else c, f"{A}.clip_ratio_c")


def _estimator(est: str | None) -> str | None:
    """The estimator by Trinity's name where Trinity has it, else veRL's (computed by rftc's VerlAdvantageFn)."""
    adv = ESTIMATORS.get(est, (None,))[0]
    return adv if adv not in (None, ADVANTAGE_FN) else f"verl:{est}"


def _horizon(r: Reader, si: int, batch: int, bound: tuple, total_steps, rows, cwd) -> Value:
    """The LR horizon in optimizer steps: the trainer steps ``bound`` (trainer.total_training_steps, or the fully
    async rollout's prompts // ``batch``), else the data loader's length x epochs."""
    total, key = bound
    decay = r.get(f"{O}.lr_decay_steps")  # Megatron's scheduler decays over it where set, and warms up by a ratio
    # of it (verl/utils/megatron/optimizer.py get_megatron_optimizer_param_scheduler)
    if r.get(f"{A}.strategy") in MCORE and isinstance(decay, int) and decay > 0:
        return r.of(decay * si, f"{O}.lr_decay_steps", formula="x optimizer steps per batch / ppo_epochs")
    if isinstance(total, int) and total > 0:
        return r.of(total * si, key, formula="x optimizer steps per batch / ppo_epochs")
    if total_steps:
        return Value(total_steps * si, "--total-steps", "x optimizer steps per batch / ppo_epochs")
    rows = train_rows(r, rows, cwd)
    if isinstance(rows, Value):
        return rows
    steps = steps_per_epoch(rows, batch) * r.get("trainer.total_epochs")
    return r.of(steps * si, "data.train_files", "data.train_batch_size", "trainer.total_epochs",
                formula=f"{rows} rows // train_batch_size x total_epochs x optimizer steps per batch / ppo_epochs")
