"""Step counts: veRL counts one step per train batch (B prompts); Trinity counts one trainer step per mini-batch
and one explorer step per buffer.batch_size tasks. A step-valued setting of the trainer is multiplied by
sync_interval (trainer steps per veRL step), one of the explorer by the explorer's sync interval (explorer steps
per veRL step; the same number unless a mini-batch splits a prompt's responses: rftc.mapping.batch)."""

from __future__ import annotations

import os

from rftc.mapping.batch import B, GEN, Batch
from rftc.mapping.data import file_list
from rftc.mapping.draft import Draft, resolve_env
from rftc.mapping.parquet import ParquetError, num_rows

T, O = "trainer", "actor_rollout_ref.actor.optim"


def set_scaled(d: Draft, field: str, veRL_steps: int, batch: Batch, key: str, explorer: bool = False) -> None:
    """Set ``field`` to a veRL step count in Trinity trainer steps (``steps x sync_interval``), or in explorer
    steps (x the explorer's sync interval), with the arithmetic as the note."""
    si, esi = batch.sync_interval, batch.explorer_sync_interval
    if explorer and esi != si:
        d.set(field, veRL_steps * esi, key, note=f"{veRL_steps}*{esi} (veRL steps x explorer steps a veRL step)")
    else:
        d.set(field, veRL_steps * si, key, note=f"{veRL_steps}*{si} (veRL steps x trainer steps a veRL step)")


def steps_per_epoch(rows: int, train_batch: int) -> int:
    """veRL's ``len(train_dataloader)``: ``rows // train_batch_size`` (the loader drops the last partial batch)."""
    return rows // train_batch


def needs_horizon(d: Draft) -> tuple[str, str] | None:
    """(veRL key, reason) when the LR schedule needs trainer.total_steps (Trinity 0.6 uses sys.maxsize
    without it), else None."""
    ratio = d.val(f"{O}.lr_warmup_steps_ratio") or 0
    warmup_steps = d.val(f"{O}.lr_warmup_steps")
    sched = d.get("algorithm.optimizer.lr_scheduler_type", "constant")
    if isinstance(ratio, (int, float)) and ratio > 0 and not (isinstance(warmup_steps, int) and warmup_steps > 0):
        return f"{O}.lr_warmup_steps_ratio", f"warmup ratio {ratio}"
    if sched != "constant":
        origin = d.origins.get("algorithm.optimizer.lr_scheduler_type")
        return (origin.keys[0] if origin and origin.keys else f"{O}.lr_scheduler_type"), f"{sched} schedule"
    return None


def dataset_rows(d: Draft) -> tuple[int | None, str]:
    """Training rows from the parquet footers of data.train_files (None when any file is unreadable)."""
    files = file_list(d, "data.train_files")
    env = dict(d.opt.env)
    env.setdefault("HOME", os.path.expanduser("~"))
    total = 0
    for f in files:
        path = resolve_env(f, env)
        if path is None:
            return None, f"{f} depends on the environment"
        if not os.path.isabs(path) and d.opt.cwd:
            path = os.path.join(d.opt.cwd, path)
        if not os.path.isfile(path):
            return None, f"{path} does not exist here"
        try:
            total += num_rows(path)
        except (OSError, ParquetError) as exc:
            return None, str(exc)
    if not files:
        return None, "no data.train_files"
    return total, f"{total} rows in {len(files)} file(s)"


def map_steps(d: Draft, batch: Batch) -> None:
    """buffer.total_epochs = trainer.total_epochs;
    trainer.total_steps = total_training_steps x sync_interval, buffer.total_steps (the explorer's) =
    total_training_steps x explorer sync interval (when set);
    trainer.save_interval = save_freq x sync_interval; explorer.eval_interval = test_freq x explorer sync interval;
    algorithm.optimizer.lr_warmup_steps = lr_warmup_steps x sync_interval.

    When the LR schedule needs a horizon (warmup ratio, cosine) and total_training_steps is unset, the
    horizon is veRL's: (rows // data.train_batch_size) x total_epochs x sync_interval, with rows read from
    the parquet footers, or ``--dataset-size ROWS``; ``--total-steps N`` gives it in veRL steps. Without
    any of these RFTC303 names the fix.
    """
    epochs = d.number(f"{T}.total_epochs", positive=True)
    if epochs is not None:
        d.set("buffer.total_epochs", epochs, f"{T}.total_epochs", note="" if d.user(f"{T}.total_epochs") else
              "veRL default (Trinity's is 1)")
    total = d.number(f"{T}.total_training_steps", allow_none=True)
    if total is not None and total > 0:
        key = f"{T}.total_training_steps"
        set_scaled(d, "trainer.total_steps", total, batch, key)
        set_scaled(d, "buffer.total_steps", total, batch, key, explorer=True)
    elif total is not None:
        d.implied(f"{T}.total_training_steps", "not positive: training length follows total_epochs")
    else:
        need = needs_horizon(d)
        if need:
            horizon(d, batch, epochs, *need)
    for verl, trinity in (("save_freq", "trainer.save_interval"), ("test_freq", "explorer.eval_interval")):
        key = f"{T}.{verl}"
        if not d.user(key):
            continue
        v = 0 if d.val(key) is False else d.number(key)  # veRL reads False as 0 (off)
        if v is None:
            continue
        if v > 0:
            set_scaled(d, trinity, v, batch, key, explorer=trinity.startswith("explorer."))
        elif verl == "test_freq" and v < 0 and d.sem.value("test_freq_nonpositive") == "every_step":
            esi = batch.explorer_sync_interval
            d.set(trinity, esi, key, note=f"verl {d.sem.release} validates after every step when test_freq < 0 "
                  f"((step + 1) % test_freq == 0): 1*{esi}")
        elif verl == "save_freq":
            d.set(trinity, 0, key, note="no periodic save")
        else:
            d.implied(key, "veRL never evaluates during training; Trinity evaluates every explorer.eval_interval")
    key = f"{O}.lr_warmup_steps"
    w = d.number(key, allow_none=True) if d.user(key) else None
    if w is not None and w > 0:
        set_scaled(d, "algorithm.optimizer.lr_warmup_steps", w, batch, key)
    elif d.user(key):
        d.implied(key, "negative: the warmup ratio applies, as in Trinity")


def horizon(d: Draft, batch: Batch, epochs: int | None, key: str, reason: str) -> None:
    """trainer.total_steps for an LR schedule that needs one (``reason``, set by ``key``): from --total-steps,
    or the training rows (--dataset-size, or the parquet footers) and the epochs; else RFTC303."""
    si = batch.sync_interval
    if d.opt.total_steps:
        n = d.opt.total_steps
        d.set("trainer.total_steps", n * si,
              note=f"--total-steps {n} x trainer steps a veRL step {si}: LR horizon for {reason}")
        return
    if d.opt.dataset_size:
        rows, source = d.opt.dataset_size, f"--dataset-size {d.opt.dataset_size}"
    else:
        rows, source = dataset_rows(d)
    if rows is not None and epochs is not None:
        size, size_key = (batch.loader_batch, GEN) if batch.loader_batch else (batch.train_batch, B)
        spe = steps_per_epoch(rows, size)
        if spe == 0:
            d.report("RFTC313", f"the training data has {rows} rows, fewer than {size_key} ({size}): veRL's "
                     "dataloader would be empty", size_key)
            return
        d.set("trainer.total_steps", spe * epochs * si, "data.train_files", "trainer.total_epochs",
              note=f"LR horizon for {reason}: {source}: {rows}//{size}*{epochs}*{si}")
        return
    d.report("RFTC303", f"the learning-rate schedule ({reason}) needs trainer.total_steps, but the number of "
             f"training steps is unknown ({source}); without it Trinity-RFT 0.6 uses sys.maxsize, so warmup never "
             "ends and the learning rate stays near 0",
             key,
             hint="pass --dataset-size ROWS (rows of the training files) or --total-steps N (veRL steps), "
             "or set trainer.total_training_steps", settles=False)
