"""veRL's global micro-batch sizes as the per-GPU sizes the run trained with.

Trinity-RFT 0.6 runs verl >= 0.8, whose workers read only ``*_micro_batch_size_per_gpu`` (a global size in
trainer_config fails when the trainer starts, and one beside a per-GPU size is refused by ActorConfig), so a
script's global size is written as the per-GPU size its release's workers made of it (rftc.verl.micro): the same
micro-batches on each GPU, the same memory. Releases from 0.8.0 do not divide: there the script's global size is
its own error (RFTC221, rftc.verl.startup)."""

from __future__ import annotations

from rftc.mapping.draft import PASSED, Draft
from rftc.verl.micro import GLOBAL, share

STARTUP_CHECKED = ("actor_rollout_ref.actor.ppo_micro_batch_size", "critic.ppo_micro_batch_size")  # < n_gpus


def map_micro(d: Draft) -> None:
    """Each global micro-batch size the script sets -> trainer_config's per-GPU key: global // data-parallel
    ranks (the world over SP, or over TP x PP x CP for Megatron), as the script's release divides it."""
    doubt = d.sem.doubt("global_micro")
    for key in GLOBAL:
        if not d.user(key) or d.done(key):
            continue
        per = f"{key}_per_gpu"
        if not divides(d):
            d.implied(key, f"verl {d.sem.release}'s workers read only {per}")
            continue
        if d.val(per) is not None or d.val(key) is None:
            d.implied(key, f"veRL's workers read {per}")
            continue
        s = share(d.val, key) if d.number(key, positive=True) is not None else None  # else RFTC311, RFTC313
        if s is None:
            if not d.done(key):
                d.implied(key, "not converted: the GPU count it is divided by is not known")
            continue
        assumed = [k for k in ("trainer.nnodes", "trainer.n_gpus_per_node") if k in d.assumed]
        if s.size == 0 and assumed:
            # the script runs on fewer GPUs than assumed (RFTC318 says so): at least 1 a GPU, the least memory
            d.set(f"trainer.trainer_config.{per}", 1, key, *assumed, status=PASSED,
                  note=f"{s.formula} per GPU on the assumed GPUs, where veRL's workers fail: 1, as on the most GPUs "
                  "they run on")
            continue
        if s.size == 0:
            if key in STARTUP_CHECKED and d.sem.value("startup_checks") is not None:
                d.implied(key, "veRL's startup check refuses it (RFTC221)")
            else:
                d.report("RFTC221", f"{key} ({d.val(key)}) is {s.formula} per GPU: verl {d.sem.release}'s workers "
                         f"divide it by their {s.ranks} data-parallel ranks and fail on micro-batches of 0", key,
                         hint=f"set {per} instead, or a global size of at least {s.ranks}")
            continue
        d.set(f"trainer.trainer_config.{per}", s.size, key, status=PASSED,
              note=f"{s.formula} per GPU, as verl {d.sem.release}'s workers divide it")
        if doubt is not None:  # said once, at the first size it concerns
            d.report("RFTC326", f"{key}={d.val(key)}: {doubt.describe()}; without it the workers divide the global "
                     f"size ({s.formula} per GPU, as converted), with it they read only {per} and the launch "
                     "fails", key, settles=False, hint=f"read the worker code in the checkout; set {per} to "
                     "decide")
            doubt = None


def divides(d: Draft) -> bool:
    """Whether the script's release divides global sizes: certainly, or possibly (a snapshot in doubt, where the
    other behaviour fails the launch: the conversion takes the one that runs)."""
    doubt = d.sem.doubt("global_micro")
    return d.sem.value("global_micro") == "divided" or (doubt is not None and doubt.other == "divided")


def per_gpu(d: Draft, key: str) -> tuple[int, str] | None:
    """(the per-GPU size veRL trains ``key`` (a ``*_per_gpu`` key) with, the veRL key it comes from): the key's
    own value, else its global form's as the release divides it; None when neither is a positive size."""
    v = d.val(key)
    if isinstance(v, int) and not isinstance(v, bool) and v > 0:
        return v, key
    glob = key.removesuffix("_per_gpu")
    if v is None and glob in GLOBAL and divides(d):
        s = share(d.val, glob)
        if s is not None and s.size > 0:
            return s.size, glob
    return None
