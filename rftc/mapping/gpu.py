"""The GPU split. veRL colocates rollout and training on all n_gpus_per_node x nnodes GPUs; Trinity gives the
explorer's rollout engines, each auxiliary model (reward models) and the trainer separate GPUs.

Rules a split must satisfy (Trinity 0.6 validator and veRL's workers):
  rollout GPUs = engine_num x TP x DP x PP (TP from the script; veRL's default is 2)
  auxiliary GPUs = sum of engine_num_i x TP_i
  trainer GPUs = total - rollout - auxiliary >= 1, whole nodes when more than one node's worth
  trainer GPUs divisible by the sequence-parallel size (megatron: TP x PP x CP)
  buffer.train_batch_size (experiences) divisible by trainer GPUs / SP, and, without dynamic batch sizes,
  the per-GPU share divisible by every micro batch size (when only that rules every split out, and veRL
  itself would run the sizes, they are lowered to divide the chosen split's share: RFTC319)

Heuristic among valid splits: give rollout the share of the non-auxiliary GPUs that its work has, with

  rollout share = g / (g + t),  g = DECODE_COST x R,  t = (P + R) x passes
  passes = 3 x ppo_epochs + 1 (old log-probs) + 1 if a reference model + (3 x ppo_epochs + 1) if a critic

where P, R are the prompt and response lengths and DECODE_COST = 4 (a generated token is memory-bound and costs
about four token-passes of training per GPU). Each auxiliary model is sized like the rollout model. The split
closest to these targets wins; ties go to the split with more trainer GPUs. ``--explorer-gpus N`` fixes the
rollout GPUs. One GPU in all: Trinity's colocate mode.

When no split of the script's GPUs is valid (typically rollout TP, or megatron TP x PP x CP, spans every GPU:
veRL time-shares them, Trinity cannot except on one GPU), the faithful conversion keeps what training depends
on: the trainer gets veRL's whole world size (nnodes x n_gpus_per_node, so data parallelism, batch splits and
model parallelism are veRL's), the rollout keeps its TP, and the explorer gets GPUs of its own on extra nodes:
the fewest whole nodes that hold one engine per model (more engines when the nodes have room), or exactly
``--explorer-gpus N`` rollout GPUs. This is reported as a warning (RFTC317) naming the extra GPUs; RFTC306
remains for jobs where even veRL's own world size breaks a rule (the numbers say which).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import islice
from math import gcd

from rftc.mapping.batch import divisors
from rftc.mapping.draft import PASSED, ROLLOUT_TP, Draft, Origin
from rftc.mapping.micro import per_gpu

DECODE_COST = 4
# The most GPUs veRL's world size (nnodes x n_gpus_per_node) or one engine may have; more is a typo, since no cluster
# Trinity or veRL runs on has them. Both place their workers on one Ray cluster, Ray's published scalability envelope
# is about 2,000 nodes, and veRL and Trinity are run on clusters of at most a few thousand GPUs. 2,048 nodes of 8 GPUs
# leaves room above both; the split search below (linear in the GPU count) takes milliseconds there.
MAX_GPUS = 16384
R = "actor_rollout_ref.rollout"
A = "actor_rollout_ref.actor"
REF_MICRO = "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu"


@dataclass
class Workload:
    total: int
    gpu_per_node: int
    engine_gpus: int  # GPUs per rollout engine (TP x DP x PP)
    aux_gpus: list[int]  # GPUs per engine of each auxiliary model
    sp: int  # trainer GPUs must be a multiple of this (ulysses SP; megatron TP x PP x CP)
    experiences: int  # buffer.train_batch_size
    micro: list[tuple[str, int]]  # (key, micro batch size per GPU) checked when not dynamic
    share: float  # target rollout share of the non-auxiliary GPUs
    parallel: str = "sequence-parallel"  # what sp is, for messages


@dataclass
class Split:
    rollout_engines: int
    aux_engines: int
    trainer: int


def rollout_share(prompt: int, response: int, ppo_epochs: int, ref: bool, critic: bool) -> float:
    passes = 3 * ppo_epochs + 1 + (1 if ref else 0) + ((3 * ppo_epochs + 1) if critic else 0)
    gen = DECODE_COST * response
    return gen / (gen + (prompt + response) * passes)


def why_invalid(w: Workload, trainer: int) -> str | None:
    """None when ``trainer`` GPUs satisfy every rule, else the rule it breaks."""
    if trainer < 1:
        return "no GPU left for the trainer"
    if trainer > w.gpu_per_node and trainer % w.gpu_per_node:
        return f"trainer {trainer} GPUs is not whole nodes of {w.gpu_per_node}"
    if trainer % w.sp:
        return f"trainer {trainer} GPUs is not divisible by the {w.parallel} size {w.sp}"
    dp = trainer // w.sp
    if w.experiences % dp:
        return f"{w.experiences} experiences per step do not split over {dp} data-parallel ranks"
    per = w.experiences // dp
    for key, m in w.micro:
        if per % m:
            return f"{per} experiences per GPU are not a multiple of {key.rsplit('.', 1)[-1]} {m}"
    return None


def candidates(w: Workload, rollout_gpus: int | None = None):
    """Every (split, reason-or-None) in search order: rollout engines ascending, then auxiliary engines."""
    e = w.engine_gpus
    aux_unit = sum(w.aux_gpus)
    ks = [rollout_gpus // e] if rollout_gpus else range(1, w.total // e + 1)
    for k in ks:
        js = range(1, (w.total - k * e) // aux_unit + 1) if aux_unit else [0]
        for j in js:
            trainer = w.total - k * e - j * aux_unit
            yield Split(k, j, trainer), why_invalid(w, trainer)


def score(w: Workload, s: Split) -> tuple[float, int]:
    rollout = s.rollout_engines * w.engine_gpus
    aux = [s.aux_engines * a for a in w.aux_gpus]
    target = w.share * (w.total - sum(aux))
    return abs(rollout - target) + sum(abs(a - rollout) for a in aux), -s.trainer


def solve(w: Workload, rollout_gpus: int | None = None) -> tuple[Split | None, list[str]]:
    """The best valid split, or None and the reasons the first five candidates fail (every one does).

    The best of ``candidates``, the first of equal scores, found without visiting each: for each trainer count
    the rules allow, the score is convex in the rollout engines (a sum of distances), so only the engine counts
    around its kinks and at the ends are scored; the search is linear in the GPU count."""
    e, aux_unit = w.engine_gpus, sum(w.aux_gpus)
    best, best_key = None, None
    for t in range(w.total - 1, 0, -1):
        if why_invalid(w, t) is None:
            for k in _engine_counts(w, t, rollout_gpus):
                s = Split(k, (w.total - t - k * e) // aux_unit if aux_unit else 0, t)
                if best is None or (score(w, s), k) < best_key:
                    best, best_key = s, (score(w, s), k)
    if best is not None:
        return best, []
    return None, [f"rollout {s.rollout_engines * e}" + (f" + auxiliary {s.aux_engines * aux_unit}" if w.aux_gpus
                                                        else "") + f": {why}"
                  for s, why in islice(candidates(w, rollout_gpus), 5)]


def _engine_counts(w: Workload, trainer: int, rollout_gpus: int | None) -> list[int]:
    """The rollout engine counts k that may score best with ``trainer`` GPUs: k x e + j x (auxiliary GPUs per
    engine of each model) = total - trainer with k, j >= 1 (j = 0 without auxiliary models). Such k are one residue
    class (Chinese remainder); the score is convex in k with kinks where the rollout meets its share of the
    non-auxiliary GPUs and where each auxiliary model's GPUs meet the rollout's, so the class's members around
    each kink and at its ends hold the best (and the smallest best)."""
    e, aux_unit, rest = w.engine_gpus, sum(w.aux_gpus), w.total - trainer
    if rollout_gpus:
        left = rest - rollout_gpus
        ok = (left >= aux_unit and left % aux_unit == 0) if aux_unit else left == 0
        return [rollout_gpus // e] if ok else []
    if not aux_unit:
        return [rest // e] if rest % e == 0 and rest >= e else []
    q = gcd(e, aux_unit)
    if rest % q:
        return []
    m = aux_unit // q
    lo = rest // q * pow(e // q, -1, m) % m or m  # the least k >= 1 with k x e = rest (mod aux_unit)
    last = (rest - aux_unit) // e
    if lo > last:
        return []
    hi = lo + m * ((last - lo) // m)
    kinks = [rest * a / (e * (aux_unit + a)) for a in w.aux_gpus]
    kinks += [w.share * trainer / (e * (1 - w.share))] if w.share < 1 else []
    ks = {lo, hi}
    for p in kinks:
        below = lo + m * min(max(int((p - lo) // m), 0), (hi - lo) // m)
        ks |= {below, min(below + m, hi)}
    return sorted(ks)


def extra_nodes(w: Workload, rollout_gpus: int | None = None) -> tuple[Split | None, int, str | None]:
    """The trainer on all ``w.total`` GPUs and the explorer on ``k`` more whole nodes: (split, k, None), or
    (None, 0, why) when veRL's own world size breaks a rule or no engine counts fill whole nodes.
    The fewest nodes win; on those, the auxiliary models are sized like the rollout (as ``score``)."""
    why = why_invalid(w, w.total)
    if why:
        return None, 0, f"even the trainer on all {w.total} GPUs is invalid: {why}"
    e, aux, g = w.engine_gpus, sum(w.aux_gpus), w.gpu_per_node
    for k in range(1, 2 * (e + aux) + 1):  # past (e + aux) / g nodes, the remainders repeat
        r = _rollout_fit(k * g, e, aux, rollout_gpus)
        if r is not None:
            return Split(r // e, (k * g - r) // aux if aux else 0, w.total), k, None
    what = f"--explorer-gpus {rollout_gpus}" if rollout_gpus else f"rollout engines of {e} GPUs"
    return None, 0, f"{what}{f' with auxiliary models of {aux}' if aux else ''} cannot fill whole nodes of {g}"


def _rollout_fit(gpus: int, e: int, aux: int, rollout_gpus: int | None) -> int | None:
    """The rollout GPUs r of ``gpus`` (``rollout_gpus``, else a multiple of ``e``) that leave a positive multiple
    of ``aux`` to the auxiliary models (none without them), nearest gpus / 2 (the auxiliary models sized like the
    rollout) and the smaller on a tie; None when none does. The multiples of ``e`` that leave a multiple of
    ``aux`` are one residue class modulo lcm(e, aux) (Chinese remainder), so only its two members around
    gpus / 2 are compared."""
    if not aux:
        r = rollout_gpus or gpus
        return r if r == gpus and r % e == 0 else None
    if rollout_gpus:
        return rollout_gpus if gpus - rollout_gpus > 0 and (gpus - rollout_gpus) % aux == 0 else None
    q = gcd(e, aux)
    if gpus % q:
        return None
    step, m = e // q * aux, aux // q
    first = e * (gpus // q * pow(e // q, -1, m) % m)  # the least r >= 0 with r % e == 0 and (gpus - r) % aux == 0
    top = gpus - aux
    below = first + step * ((min(gpus // 2, top) - first) // step)
    above = first - step * ((first - max(gpus - gpus // 2, e)) // step)
    fits = [r for r in (below, above) if e <= r <= top]
    return min(fits, key=lambda r: (abs(gpus - 2 * r), r)) if fits else None


def map_gpus(d: Draft, *, experiences: int, aux: list[tuple[int, str]], critic: bool, ref: bool,
             megatron: bool, rollout: tuple[int, str] | None = None,
             teacher: tuple[int, int, str] | None = None) -> int | None:
    """Write explorer.rollout_model.engine_num / tensor_parallel_size and each auxiliary model's engine_num
    (``aux`` = [(GPUs per engine, veRL key)]), or mode colocate for one GPU; RFTC306 when no split is valid.
    Returns the trainer's GPUs (None where no split was written).
    ``rollout``: (GPUs, section) of a veRL rollout that runs beside the trainer's (veRL's off-policy trainers,
    counted by the section's nnodes x n_gpus_per_node): the explorer gets exactly those, and the cluster both.
    ``teacher``: (GPUs, engines, veRL key) of on-policy distillation's teacher, on a pool of its own beside the
    trainer's (distillation.nnodes x n_gpus_per_node): auxiliary_models[0] gets those engines, the cluster the
    pool's GPUs too, and the split is of the rest."""
    nodes = d.number("trainer.nnodes", positive=True)
    gpn = d.number("trainer.n_gpus_per_node", positive=True)
    tp_key = ROLLOUT_TP
    tp = d.number(tp_key, positive=True)
    dp = d.number(f"{R}.data_parallel_size", positive=True) or 1
    pp = d.number(f"{R}.pipeline_model_parallel_size", positive=True) or 1
    if None in (nodes, gpn, tp):
        return None
    total = nodes * gpn
    if rollout:
        gpus, section = rollout
        keys = ("trainer.nnodes", "trainer.n_gpus_per_node", f"{section}.nnodes", f"{section}.n_gpus_per_node")
        if gpus % gpn:  # nodes of a size both the trainer's and the rollout's GPUs fill (Trinity's are uniform)
            gpn = gcd(total, gpus)
            nodes = total // gpn
            d.set("cluster.gpu_per_node", gpn, *keys, note=f"gcd({total}, {gpus}): the trainer's and the "
                  "rollout's GPUs on whole nodes (RFTC340)")
        total += gpus
        d.set("cluster.node_num", total // gpn, *keys, note=f"{nodes} for the trainer + the rollout's {gpus} GPUs")
    beside = 0  # the teacher's GPUs, on nodes of their own
    if teacher:
        beside, engines, tkey = teacher
        keys = ("trainer.nnodes", "trainer.n_gpus_per_node", "distillation.nnodes", "distillation.n_gpus_per_node")
        if beside % gpn:  # nodes of a size both the trainer's and the teacher's GPUs fill (Trinity's are uniform)
            gpn = gcd(gpn, beside)
            nodes = total // gpn
            d.set("cluster.gpu_per_node", gpn, *keys, note="gcd of the trainer's and the teacher's GPUs a node")
        d.set("cluster.node_num", (total + beside) // gpn, *keys,
              note=f"{total // gpn} for veRL's trainer and rollout + {beside // gpn} for the teacher's {beside} GPUs")
        d.set("explorer.auxiliary_models[0].engine_num", engines, tkey, "distillation.nnodes",
              "distillation.n_gpus_per_node", note=f"veRL's teacher replicas: {beside} GPUs / {beside // engines} "
              "an engine")
    sizes = [(total, f"trainer.nnodes x trainer.n_gpus_per_node = {nodes} x {gpn}",
              "trainer.nnodes" if nodes > gpn else "trainer.n_gpus_per_node"),
             (tp * dp * pp, f"one rollout engine (tensor x data x pipeline parallel {tp} x {dp} x {pp})", tp_key)]
    sizes += [(a, f"one engine of the auxiliary model {d.val(key)}", key) for a, key in aux]
    if any(_beyond_any_cluster(d, *size) for size in sizes):
        return None
    d.set("explorer.rollout_model.tensor_parallel_size", tp, tp_key,
          note=d.given_by(tp_key) or ("" if d.user(tp_key) else "veRL default (Trinity's is 1)"))
    if megatron:
        sp = 1
        for k in ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size"):
            sp *= d.number(f"{A}.megatron.{k}", positive=True, allow_none=True) or 1  # absent before 0.4.0
    else:
        sp = d.number(f"{A}.ulysses_sequence_parallel_size", positive=True) or 1
    if total == 1 and not teacher:
        _colocate(d, tp, dp * pp, aux, sp)
        return total
    micro: list[tuple[str, int]] = []
    if not d.flag(f"{A}.use_dynamic_bsz"):
        keys = [f"{A}.ppo_micro_batch_size_per_gpu", f"{R}.log_prob_micro_batch_size_per_gpu"]
        keys += [REF_MICRO] if ref else []
        keys += ["critic.ppo_micro_batch_size_per_gpu"] if critic else []
        micro += [(k, got[0]) for k in keys if (got := per_gpu(d, k)) is not None]
    epochs = d.val(f"{A}.ppo_epochs") if isinstance(d.val(f"{A}.ppo_epochs"), int) else 1
    share = rollout_share(d.get("model.max_prompt_tokens") or 512, d.get("model.max_response_tokens") or 512,
                          epochs, ref, critic)
    w = Workload(total, gpn, tp * dp * pp, [a for a, _ in aux], sp, experiences, micro, share,
                 "megatron model-parallel (TP x PP x CP)" if megatron else "sequence-parallel")
    forced = d.opt.explorer_gpus or (rollout[0] if rollout else None)
    why_forced = " (--explorer-gpus)" if d.opt.explorer_gpus else " (veRL's rollout GPUs)" if rollout else ""
    if forced is not None and (forced <= 0 or forced % w.engine_gpus):
        d.report("RFTC306", f"--explorer-gpus {forced} is not a positive multiple of the {w.engine_gpus} GPUs one "
                 f"rollout engine needs (tensor x data x pipeline parallel)", tp_key if d.user(tp_key) else None)
        return None
    split, reasons = solve(w, forced)
    # micro-batch sizes are memory and speed, not what is trained: a split that only they rule out is taken with
    # sizes that divide its share (RFTC319) rather than none, or extra nodes. Where the script's release cuts a
    # GPU's share exactly, a size that does not divide its own share is the script's error: nothing is fitted.
    loose = replace(w, micro=[]) if w.micro and all(
        _remainder(d, key) == "smaller_last" or why_invalid(replace(w, micro=[(key, m)]), w.total) is None
        for key, m in w.micro) else None
    adapt = False
    if split is None and loose is not None:
        split = solve(loose, forced)[0]
        adapt = split is not None
    added = 0
    if split is None:
        shown = "; ".join(reasons[:4]) + ("; ..." if len(reasons) > 4 else "")
        where = (f"{total} GPUs ({nodes}x{gpn}) between rollout ({w.engine_gpus} per engine)"
                 f"{' and auxiliary models' if aux else ''} and the trainer")
        split, added, why = extra_nodes(w, forced)
        if split is None and loose is not None:
            split, added, _ = extra_nodes(loose, forced)
            adapt = split is not None
        if split is None:
            # when veRL's own world size breaks a rule, no explorer size helps: the GPU count must change
            hint = (f"run the job on a GPU count where the rule holds (--gpus-per-node N, --nodes N), or change the "
                    f"{w.parallel} or batch sizes" if why_invalid(w, w.total) else
                    "change the batch sizes or the parallel sizes, or pass --explorer-gpus N")
            d.report("RFTC306", f"no valid split of {where}: {shown or 'too few GPUs'}; {why}",
                     "trainer.n_gpus_per_node" if d.user("trainer.n_gpus_per_node") else None, hint=hint,
                     extra_keys=(tp_key,) if d.user(tp_key) else ())
            return None
        extra = added * gpn
        d.report("RFTC317", f"no split of {where} is valid ({shown}); the trainer keeps veRL's {total} GPUs and the "
                 f"explorer gets {extra} more ({added} more node{'s' if added > 1 else ''} of {gpn}): "
                 f"cluster.node_num {nodes + added}",
                 "trainer.n_gpus_per_node" if d.user("trainer.n_gpus_per_node") else
                 (tp_key if d.user(tp_key) else None),
                 hint="pass --explorer-gpus N to size the explorer, or lower the rollout tensor parallel size to "
                 f"fit in {total} GPUs", settles=False)
        d.set("cluster.node_num", nodes + added + beside // gpn, "trainer.nnodes",
              note=f"{nodes} for the trainer + {added} for the explorer (RFTC317)" + (
                  f" + {beside // gpn} for the teacher" if beside else ""))
        total += extra
    if adapt:
        _fit_micro(d, w, split.trainer)
    rollout = split.rollout_engines * w.engine_gpus
    summary = (f"GPU split: rollout {rollout}" + "".join(f" + aux {split.aux_engines * a}" for a in w.aux_gpus)
               + f" + trainer {split.trainer} = {total}" + (f", the teacher's {beside} beside" if beside else ""))
    assumed_tp = (tp_key,) if tp_key in d.assumed else ()  # the engine count rests on it: its comment says so
    d.set("explorer.rollout_model.engine_num", split.rollout_engines, "trainer.n_gpus_per_node", "trainer.nnodes",
          *assumed_tp, note=summary + why_forced)
    for i, (_, key) in enumerate(aux):
        d.set(f"explorer.auxiliary_models[{i}].engine_num", split.aux_engines, key, note=summary)
    return split.trainer


def _beyond_any_cluster(d: Draft, gpus: int, what: str, key: str) -> bool:
    """RFTC313 when ``what`` needs more GPUs than any cluster has (MAX_GPUS), before anything is sized from it."""
    if gpus <= MAX_GPUS:
        return False
    d.report("RFTC313", f"{what} is {gpus} GPUs, more than the {MAX_GPUS} of any cluster Trinity and veRL run on",
             key, hint=f"set {d.given_by(key) or key} to what the job runs on (at most {MAX_GPUS} GPUs in all)")
    return True


def _remainder(d: Draft, key: str) -> str:
    """How the script's release cuts a GPU's share into micro-batches of ``key``: smaller_last or exact."""
    return d.sem.value("log_prob_micro_remainder" if "log_prob" in key else "train_micro_remainder")


def _fit_micro(d: Draft, w: Workload, trainer: int) -> None:
    """Each micro-batch size that does not divide the experiences a trainer GPU takes per step becomes the largest
    size that does, no larger than the script's (so no more memory): Trinity's trainer splits a GPU's share into
    micro-batches of exactly that size (its worker asserts it), where older veRL releases take a smaller last
    one (semantics: train_micro_remainder, log_prob_micro_remainder) and the others need it to divide only
    veRL's own share, on all the script's GPUs. The reference model's size, when derived from one of them
    (models.ref_micro_batch), follows."""
    per = w.experiences // (trainer // w.sp)
    ref = f"trainer.trainer_config.{REF_MICRO}"
    derived = d.origins.get(ref)  # before the loop, which may set the reference model's own size
    fitted: dict[str, int] = {}
    for key, m in w.micro:
        if per % m:
            src = per_gpu(d, key)[1]  # the per-GPU key itself, or the global one it was divided from
            why = (f"verl {d.sem.release} takes a smaller last micro-batch" if _remainder(d, key) == "smaller_last"
                   else f"it divides veRL's share on all {w.total} GPUs")
            fitted[src] = max(x for x in divisors(per) if x <= m)
            size = m if src == key else f"{m} per GPU"
            d.set(f"trainer.trainer_config.{key}", fitted[src], src, status=PASSED,
                  note=f"the script's {size}, lowered to divide the {per} experiences per trainer GPU (RFTC319)")
            d.report("RFTC319", f"{key} {m} becomes {fitted[src]}: Trinity's trainer splits the {per} experiences "
                     f"each of its {trainer} GPUs takes per step into micro-batches of exactly this size, and {m} "
                     f"does not divide them ({why})", src, settles=False,
                     hint="set a micro-batch size that divides the per-GPU share, or use_dynamic_bsz=True")
    if derived is not None and derived.keys and derived.keys[0] in fitted and REF_MICRO not in dict(w.micro):
        d.set(ref, fitted[derived.keys[0]])
        d.origins[ref] = Origin(derived.keys, derived.note + f"; {derived.keys[0]} as fitted (RFTC319)")


def _colocate(d: Draft, tp: int, other: int, aux, sp: int) -> None:
    why = ("tensor parallel size " + str(tp)) if tp * other > 1 else ("auxiliary models" if aux else
                                                                   ("sequence parallel " + str(sp) if sp > 1 else None))
    if why:
        d.report("RFTC306", f"one GPU in all: Trinity's colocate mode needs one engine of one GPU, no auxiliary model "
                 f"and no sequence parallelism, but the script uses {why}", "trainer.n_gpus_per_node"
                 if d.user("trainer.n_gpus_per_node") else None, hint="add GPUs")
        return
    d.set("mode", "colocate", "trainer.n_gpus_per_node", "trainer.nnodes", note="one GPU: explorer and trainer share it")
    d.set("explorer.rollout_model.engine_num", 1, "trainer.n_gpus_per_node")
    d.report("RFTC315", "one GPU in all: the converted config runs Trinity in colocate mode (rollout and training "
             "time-share the GPU; rollout memory is capped at 25%)",
             "trainer.n_gpus_per_node" if d.user("trainer.n_gpus_per_node") else None, settles=False)
