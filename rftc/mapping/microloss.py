"""How an optimizer step's loss is made from its micro-batches, read from each side's workers, and where a
conversion cannot keep it (RFTC305; RFTC331 for the SFT trainers: rftc.mapping.sft).

A worker takes an optimizer step over a mini-batch: each data-parallel rank trains its share in micro-batches (of
a fixed number of rows, or of a token budget with use_dynamic_bsz), backpropagating each micro-batch's loss as its
loss function and worker scale it, and the ranks' gradients are averaged (FSDP's reduce-scatter, Megatron's DDP).
How each micro-batch's loss is normalised and scaled is the quantity (``how``):

- ``global``: the loss normalises each micro-batch's token or sequence sums by the whole mini-batch's
  (batch_num_tokens, global_batch_size, x dp_size; core_algos.agg_loss), so the step's loss is the mini-batch's
  whatever its micro-batches: veRL's engine actor (verl/workers/utils/losses.py ppo_loss, 0.7.0 on), its critic
  from 0.9.0 (value_loss), its engine SFT trainer from 0.6.1 (sft_loss).
- ``mean``: each micro-batch's loss, aggregated within it, is divided by the micro-batches: the legacy FSDP
  workers to 0.7.x (dp_actor.py, dp_critic.py update_*: loss / gradient_accumulation, gradient_accumulation =
  ppo_mini_batch_size // ppo_micro_batch_size_per_gpu of the rank's share), the legacy Megatron workers
  (megatron_actor.py, megatron_critic.py: Megatron-core's schedule divides each micro-batch's loss by the
  micro-batches, as verl's Megatron engine says where it multiplies it back: engine/megatron/transformer_impl.py
  postprocess_micro_batch_func), fsdp_sft_trainer (_compute_loss_and_backward: loss / n_micro_batches).
- ``weighted``: each micro-batch's loss x its rows / the rank's share: the legacy FSDP workers under
  use_dynamic_bsz (loss_scale_factor = response_mask.shape[0] / ppo_mini_batch_size), verl 0.6.0's engine
  (forward_backward_batch; semantics "engine_micro"), whose critic and SFT losses aggregate within the micro-batch.
  With fixed micro-batches, whose rows are alike, it is ``mean``.
- ``sum``: each micro-batch's loss, aggregated within it, is backpropagated as it is, so the micro-batches' losses
  add up: the engine's critic from 0.6.1 to 0.8.0 (value_loss aggregates within the micro-batch; semantics
  "engine_critic_loss"), and Trinity-RFT 0.6's actor and critic on verl 0.8's engine (trinity/trainer/verl/losses.py
  TrinityPolicyLoss aggregates with trinity/algorithm/utils.py aggregate_loss within the micro-batch; its critic
  takes verl 0.8's value_loss; FSDPEngine.forward_backward_batch, Megatron's engine alike).

What a micro-batch's own loss is follows its aggregation (``mode``): token-mean divides by the micro-batch's tokens;
the seq-mean modes by its sequences, which fixed micro-batches hold alike, so a mean of them is the mini-batch's;
seq-mean-token-sum-norm is the token sum over the width before verl 0.7.1 and in Trinity's own aggregate_loss
(semantics "sum_norm": token_sum), a seq-mean mode from verl 0.7.1 (seq_mean). The step's loss is then (``form``):

- "one": the mini-batch's loss (1 x);
- "rows_per_gpu": a sum of token sums over the width, added up on each rank: (rows a GPU) x the mini-batch's
  sequence-mean loss;
- "micro_rows": the mean of such sums: (rows a micro-batch) x it;
- "micro_count": a sum of sequence means over fixed micro-batches: (micro-batches a GPU) x the mini-batch's loss;
- "micro_means": token means of fixed micro-batches, averaged or added up: tokens weigh within their micro-batch;
- "budget": micro-batches of a token budget, their count and rows known only as the run goes.
"""

from __future__ import annotations

import math

from rftc.mapping.minibatch import SECTIONS, minibatch_responses
from rftc.mapping.models import MCORE, engine_worker
from rftc.mapping.precision import TRINITY_VERL
from rftc.verl.micro import GLOBAL, MEGATRON_SIZES, count, data_parallel, megatron, megatron_sizes, share

GLOBAL_LOSS, MEAN, WEIGHTED, SUM = "global", "mean", "weighted", "sum"
SEQ_MODES = ("seq-mean-token-mean", "seq-mean-token-sum")
SUM_NORM = "seq-mean-token-sum-norm"
HOW = {MEAN: "mean", WEIGHTED: "row-weighted mean", SUM: "sum"}
# what a form's value is computed from (beyond the mini-batch's rows)
READS = {"one": (), "rows_per_gpu": ("ranks",), "micro_rows": ("micro",), "micro_count": ("micro", "ranks"),
         "micro_means": ("micro",), "budget": ("budget",)}


def form(how: str, mode: str, sum_norm: str, dynamic: bool) -> str:
    """The form of the step's loss (the module's list) for a worker that combines micro-batches ``how``, whose
    micro-batch loss aggregates by ``mode`` (seq-mean-token-sum-norm as ``sum_norm``), with token-budget
    micro-batches where ``dynamic``."""
    if how == GLOBAL_LOSS:
        return "one"
    token_sum = mode == SUM_NORM and sum_norm == "token_sum"
    seq = mode in SEQ_MODES or (mode == SUM_NORM and not token_sum)
    if dynamic:
        if token_sum and how == SUM:
            return "rows_per_gpu"
        if seq and how == WEIGHTED:  # the rows' weights make the sequence means the mini-batch's
            return "one"
        return "budget"
    if token_sum:
        return "rows_per_gpu" if how == SUM else "micro_rows"
    if seq:
        return "micro_count" if how == SUM else "one"
    return "micro_means"


def reads(how: str, mode: str, sum_norm: str, dynamic: bool) -> tuple[str, ...]:
    """What the step's loss is computed from: "micro" (the rows of a fixed micro-batch), "ranks" (the data-parallel
    ranks), "budget" (the token budget); a sum of micro-batch token means reads the ranks too (its micro-batches
    a GPU)."""
    f = form(how, mode, sum_norm, dynamic)
    return READS[f] + (("ranks",) if f == "micro_means" and how == SUM else ())


def switches(how_static: str, how_dynamic: str, mode: str, sum_norm: str) -> bool:
    """Whether use_dynamic_bsz changes the step's loss (a worker that combines fixed micro-batches
    ``how_static`` and token-budget ones ``how_dynamic``)."""
    static, dynamic = form(how_static, mode, sum_norm, False), form(how_dynamic, mode, sum_norm, True)
    return not (static == dynamic and static in ("one", "rows_per_gpu"))  # forms of the same value either way


def text(how: str, mode: str, sum_norm: str, *, rows: int, ranks: int | None, micro: int | None,
         dynamic: bool, budget, unit: str = "responses") -> str:
    """The step's loss in words, a multiple of "the mini-batch's loss" (its aggregation over all of it) where it
    is one: ``rows`` of the mini-batch over ``ranks`` data-parallel ranks, in micro-batches of ``micro`` rows a
    GPU, or of a token ``budget`` a GPU where ``dynamic``. Where the sizes do not divide, the run's workers refuse
    them (or veRL's floor the micro-batches' weights): "unknown (...)"."""
    f = form(how, mode, sum_norm, dynamic)
    if f == "one":
        return one(1)
    if f == "budget":
        return f"the {HOW[how]} of its micro-batches' losses (token budget {budget} a GPU)"
    if "ranks" in reads(how, mode, sum_norm, dynamic) and not ranks:
        return "unknown (the trainer's data-parallel ranks are not known)"
    if f == "rows_per_gpu":  # each rank's token sums, over the width, averaged over the ranks
        return one(rows // ranks) if rows % ranks == 0 else \
            f"unknown ({rows} {unit} do not split over {ranks} data-parallel ranks)"
    if not micro:
        return "unknown (no micro-batch size: the trainer refuses fixed micro-batches without one)"
    # the micro-batches of a rank's share (rows / ranks) hold alike where they divide it; veRL's legacy workers floor
    # the micro-batches' weights otherwise (its startup check refuses that from 0.4.0), Trinity's engine refuses it
    if rows % micro or (ranks and (rows % ranks or rows // ranks % micro)):
        split = f" over {ranks} data-parallel ranks" if ranks else ""
        return f"unknown ({rows} {unit}{split} do not split into micro-batches of {micro})"
    if f == "micro_rows":
        return one(micro)
    per_gpu = rows // ranks // micro if ranks else None  # micro-batches a GPU (a sum reads it: ranks known)
    if f == "micro_count":
        return one(per_gpu)
    if rows == micro:  # one micro-batch is the whole mini-batch
        return one(1)
    return f"{per_gpu if how == SUM else 1} x the mean of its micro-batches' losses ({micro} {unit} each)"


def one(k: int) -> str:
    return f"{k} x the mini-batch's loss"


# ---- a veRL launch

def verl_how(get, sem, role: str) -> tuple[str, str]:
    """(how ``role``'s worker combines fixed micro-batches, how it combines token-budget ones) in ``sem``'s
    release: the engine workers by their losses (the actor's global; the critic's by semantics
    "engine_critic_loss" and "engine_micro"), the legacy ones by their worker (FSDP's weighs token budgets by rows,
    Megatron's schedule does not)."""
    if engine_worker(get, sem, role):
        if role == "actor" or sem.value("engine_critic_loss") == "global":
            return GLOBAL_LOSS, GLOBAL_LOSS
        return (MEAN, WEIGHTED) if sem.value("engine_micro") == "weighted" else (SUM, SUM)
    if get(f"{SECTIONS[role]}.strategy") in MCORE:
        return MEAN, MEAN
    return MEAN, WEIGHTED


def verl_mode(get, sem, role: str, loss_mode: str | None = None) -> str:
    """The aggregation within a micro-batch: the role's loss_agg_mode where the release has several (veRL's sapo
    loss aggregates seq-mean-token-mean whatever it says), token-mean before 0.4.0."""
    if role == "actor" and loss_mode == "sapo":
        return "seq-mean-token-mean"
    if len(sem.value("loss_agg_modes")) == 1:
        return "token-mean"
    return get(f"{SECTIONS[role]}.loss_agg_mode") or "token-mean"


def verl_micro(get, sem, role: str) -> tuple[int | None, str]:
    """(the rows of one of ``role``'s fixed micro-batches a GPU, the key that sets it): its global size as the
    release divides it where it is set (the legacy workers overwrite the per-GPU size with it, which from 0.5.0 the
    config interpolates from it: rftc.verl.micro), else its per-GPU size."""
    key = f"{SECTIONS[role]}.ppo_micro_batch_size"
    if get(key) is not None and key in GLOBAL and sem.value("global_micro") == "divided":
        s = share(get, key)
        return (s.size if s is not None and s.size > 0 else None), key
    return count(get(f"{key}_per_gpu")), f"{key}_per_gpu"


def engine_sp(get, sem, role: str) -> str | None:
    """The Ulysses size key of the critic's FSDP engine (its engine section's: critic.model.fsdp_config to 0.7.x,
    critic.fsdp from 0.8.0), which splits its data-parallel ranks; None for a worker that reads its role's own."""
    if role != "critic" or not engine_worker(get, sem, role) or get(f"{SECTIONS[role]}.strategy") in MCORE:
        return None
    return next((k for k in ("critic.fsdp.ulysses_sequence_parallel_size",
                             "critic.model.fsdp_config.ulysses_sequence_parallel_size") if get(k) is not None), None)


def verl_inputs(get, sem, role: str, batch: int, n: int, loss_mode: str | None = None) -> dict | None:
    """What ``role``'s step's loss is computed from in a veRL launch (keyword arguments of ``text``, with "how"
    and the keys read), None where the mini-batch is not a whole number of responses."""
    rows, _ = minibatch_responses(get, sem, role, batch, n)
    if rows is None:
        return None
    section = SECTIONS[role]
    dynamic = bool(get(f"{section}.use_dynamic_bsz"))
    how = verl_how(get, sem, role)[1 if dynamic else 0]
    mode = verl_mode(get, sem, role, loss_mode)
    micro, micro_key = verl_micro(get, sem, role)
    sp_key = engine_sp(get, sem, role)
    dp = data_parallel(get, section, sp_key)
    read = reads(how, mode, sem.value("sum_norm"), dynamic)
    keys = [f"{section}.ppo_mini_batch_size", f"{section}.use_dynamic_bsz",
            *([f"{section}.loss_agg_mode"] if len(sem.value("loss_agg_modes")) > 1 else []),
            *([micro_key] if "micro" in read else []),
            *([f"{section}.ppo_max_token_len_per_gpu"] if "budget" in read else []),
            *(["trainer.nnodes", "trainer.n_gpus_per_node", sp_key or f"{section}.ulysses_sequence_parallel_size",
               *(f"{section}.megatron.{k}" for k in MEGATRON_SIZES)] if "ranks" in read else [])]
    return dict(how=how, mode=mode, sum_norm=sem.value("sum_norm"), rows=rows, ranks=dp[0] if dp else None,
                micro=micro, dynamic=dynamic, budget=get(f"{section}.ppo_max_token_len_per_gpu"), keys=keys)


def verl_reads(get, release: str, role: str, what: str) -> bool:
    """Whether ``role``'s step's loss reads ``what`` in a launch of ``release`` (the rows' classes:
    rftc.mapping.classes): "micro" (the rows of a fixed micro-batch, from the per-GPU size), "global" (from a
    global size the release divides), "ranks" (the data-parallel ranks, which also divide a global size), of them
    "fsdp_sp" (counted with the role's own Ulysses size), "megatron" (with its Megatron sizes), "engine_sp" (with its
    FSDP engine's Ulysses size), "budget" (the token budget), "switch" (use_dynamic_bsz changes it). A critic only
    where one is trained (gae)."""
    from rftc.verl.releases import semantics  # the release table only where a condition needs it

    if role == "critic" and get("algorithm.adv_estimator") != "gae":
        return False
    sem = semantics.resolve(release, snapshot=False)
    section = SECTIONS[role]
    mode = verl_mode(get, sem, role, get(f"{section}.policy_loss.loss_mode") if role == "actor" else None)
    static, budget = verl_how(get, sem, role)
    if what == "switch":
        return switches(static, budget, mode, sem.value("sum_norm"))
    dynamic = bool(get(f"{section}.use_dynamic_bsz"))
    read = reads(budget if dynamic else static, mode, sem.value("sum_norm"), dynamic)
    divided = "micro" in read and verl_micro(get, sem, role)[1] in GLOBAL
    ranks = "ranks" in read or divided
    if what in ("fsdp_sp", "megatron", "engine_sp"):
        sp = engine_sp(get, sem, role)
        mcore = megatron(get)
        return ranks and {"fsdp_sp": sp is None and not mcore, "megatron": mcore,
                          "engine_sp": sp is not None}[what]
    return {"micro": "micro" in read and not divided, "global": divided, "ranks": ranks}.get(what, what in read)


# ---- the conversion

def trinity_sum_norm(role: str) -> str:
    """What seq-mean-token-sum-norm is on Trinity-RFT 0.6's trainer: its policy losses aggregate with
    trinity/algorithm/utils.py aggregate_loss (the token sum over the width), its critic with verl 0.8's agg_loss."""
    from rftc.verl.releases.semantics import resolve

    return "token_sum" if role == "actor" else resolve(TRINITY_VERL, snapshot=False).value("sum_norm")


def trinity_text(inputs: dict, role: str, unit: str = "responses") -> str:
    """What Trinity-RFT 0.6's trainer makes of the same micro-batches (the conversion keeps the mini-batch, the
    per-GPU micro-batch size, use_dynamic_bsz, the token budget and the trainer's data-parallel ranks): it adds up
    their losses, each aggregated within its micro-batch (``trinity_sum_norm``)."""
    return text(SUM, inputs["mode"], trinity_sum_norm(role), rows=inputs["rows"], ranks=inputs["ranks"], micro=inputs["micro"],
                dynamic=inputs["dynamic"], budget=inputs["budget"], unit=unit)


def _count(inputs: dict, unit: str) -> str:
    """The micro-batches a GPU Trinity adds up, with how they are counted."""
    rows, ranks, micro = inputs["rows"], inputs["ranks"], inputs["micro"]
    if inputs["dynamic"]:
        return f"its token-budget micro-batches ({inputs['budget']} tokens a GPU; as many as the lengths make)"
    if ranks and micro and rows % ranks == 0 and rows // ranks % micro == 0:
        return (f"its {rows // ranks // micro} micro-batches a GPU ({rows} {unit} / ({ranks} data-parallel ranks x "
                f"{micro}))")
    return "its micro-batches"


def warning(inputs: dict, verl: str, trinity: str, whose: str, unit: str = "responses") -> tuple[str, str] | None:
    """(the message, a hint) where Trinity's step's loss (``trinity``, of its ``inputs``) differs from veRL's, else
    None (also where the converted trainer's is unknown: no split of the GPUs, no micro-batch size, which the
    conversion reports as errors of their own)."""
    if verl == trinity or trinity.startswith("unknown"):
        return None
    scale, _, rest = trinity.partition(" x ")
    same = scale.isdigit() and verl == f"1 x {rest}"
    effect = f"{scale} x veRL's gradient" if same else "another gradient, whose tokens weigh within their micro-batch"
    made = f"{whose}'s step's loss is {verl}" if verl.startswith("unknown") else \
        f"{whose} makes a step's loss as {verl}"
    message = (f"{made}; Trinity-RFT 0.6's trainer adds up the losses of "
               f"{_count(inputs, unit)}, each aggregated within its micro-batch: {trinity} ({effect}; gradient "
               "clipping cuts a larger gradient sooner)")
    ranks, rows = inputs["ranks"], inputs["rows"]
    hint = (f"a micro-batch size of {rows // ranks} a GPU (trainer.trainer_config) makes Trinity's step one "
            "micro-batch a GPU, its scale veRL's, where memory allows"
            if not inputs["dynamic"] and ranks and rows % ranks == 0 and rows // ranks != inputs["micro"] else None)
    return message, hint


def map_microbatch(d, batch: int, critic: bool, trainer_gpus: int | None) -> None:
    """RFTC305 at the micro-batch key (use_dynamic_bsz with token budgets) of the actor (and a critic) where
    Trinity's step's loss, the sum of its micro-batches', differs from what the release's worker makes of them. The
    converted config trains the same mini-batch with the release's per-GPU micro-batch size (as fitted to the
    split: RFTC319) on ``trainer_gpus`` (the split's) over the same sequence or model parallel group, with
    trainer.use_dynamic_bsz and the token budget of the actor's."""
    n = d.val("actor_rollout_ref.rollout.n") or 1
    group = trinity_group(d)
    actor = None
    for role in ("actor", "critic") if critic else ("actor",):
        section = SECTIONS[role]
        got = verl_inputs(d.val, d.sem, role, batch, n, d.val(f"{section}.policy_loss.loss_mode")
                          if role == "actor" else None)
        if got is None:
            continue  # the batch mapping reports the sizes
        actor = actor or got
        fitted = d.get(f"trainer.trainer_config.{section}.ppo_micro_batch_size_per_gpu")
        trinity = {**got, "ranks": trainer_gpus // group if trainer_gpus and group else None,
                   "micro": fitted or got["micro"], "dynamic": actor["dynamic"], "budget": actor["budget"]}
        said = warning(trinity, text(**{k: got[k] for k in TEXT}), trinity_text(trinity, role),
                       f"verl {d.sem.release}'s {role}")
        if said is not None:
            micro_key = verl_micro(d.val, d.sem, role)[1]
            _report(d, "RFTC305", said, f"{section}.use_dynamic_bsz" if got["dynamic"] else micro_key)


def trinity_group(d) -> int:
    """The GPUs of one of the converted trainer's model-parallel groups: trainer.megatron's TP x PP x CP (as
    rftc.mapping.models writes them), else the Ulysses size the rules write (the actor's, or its fsdp_config's)."""
    if d.get("trainer.trainer_strategy") == "megatron":
        return math.prod(megatron_sizes(d.get, "trainer.megatron"))
    keys = (f"{SECTIONS['actor']}.ulysses_sequence_parallel_size",
            f"{SECTIONS['actor']}.fsdp_config.ulysses_sequence_parallel_size")
    return next((count(d.val(k)) for k in keys if d.user(k) and count(d.val(k))), 1)


def sft_inputs(get, sem, legacy: bool) -> dict:
    """What an SFT trainer's step's loss is computed from (keyword arguments of ``text``, with "how"):
    fsdp_sft_trainer averages its fixed micro-batches' token means (fsdp_sft_trainer.py _compute_loss_and_backward:
    loss / n_micro_batches); the engine SFT trainer normalises by the global batch from 0.6.1, 0.6.0's engine weighs
    each micro-batch's token mean by its rows (semantics "engine_sft_loss", "engine_micro")."""
    dynamic = not legacy and bool(get("data.use_dynamic_bsz"))
    if legacy:
        how = MEAN
    elif sem.value("engine_sft_loss") == "global":
        how = GLOBAL_LOSS
    else:
        how = WEIGHTED if dynamic else MEAN
    micro = get("data.micro_batch_size_per_gpu")
    return dict(how=how, mode="token-mean", sum_norm=sem.value("sum_norm"), rows=get("data.train_batch_size"),
                ranks=None, micro=count(micro), dynamic=dynamic, budget=get("data.max_token_len_per_gpu"))


def map_sft_microbatch(d, legacy: bool) -> None:
    """RFTC331 where Trinity's sft loss, the sum of its micro-batches' token means, differs from the SFT trainer's
    step's loss: the trainer's data-parallel ranks are the cluster's GPUs (torchrun's, or trainer.nnodes x
    n_gpus_per_node: rftc.mapping.sft, trainer) over the Ulysses size."""
    got = sft_inputs(d.val, d.sem, legacy)
    if not isinstance(got["rows"], int) or isinstance(got["rows"], bool) or got["rows"] < 1:
        return  # the batch mapping reports it
    nodes, per_node = d.get("cluster.node_num"), d.get("cluster.gpu_per_node")
    sp = d.val("ulysses_sequence_parallel_size") or 1
    if isinstance(nodes, int) and isinstance(per_node, int) and isinstance(sp, int) and nodes * per_node % sp == 0:
        got["ranks"] = nodes * per_node // sp
    verl = text(**{k: got[k] for k in TEXT}, unit="rows")
    trainer = "fsdp_sft_trainer" if legacy else f"verl {d.sem.release}'s sft_trainer"
    said = warning(got, verl, trinity_text(got, "actor", unit="rows"), trainer, unit="rows")
    if said is not None:
        _report(d, "RFTC331", said, "data.use_dynamic_bsz" if got["dynamic"] else "data.micro_batch_size_per_gpu")


TEXT = ("how", "mode", "sum_norm", "rows", "ranks", "micro", "dynamic", "budget")


def _report(d, code: str, said: tuple[str, str | None], key: str) -> None:
    """A warning at ``key`` where the script sets it, else at the launch."""
    message, hint = said
    if d.user(key):
        d.report(code, message, key, settles=False, hint=hint)
    else:
        d.diags.add(code, message, d.cfg.invocation.span if d.cfg.invocation is not None else None, hint=hint)
