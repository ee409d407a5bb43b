"""The run's log, <job dir>/run.log: what the libraries under the runtime print in its process while it trains
(Ray's notices, veRL's and torch's warnings and logging) goes there, so the terminal shows rftc's own lines. The
Ray actors' output is in Ray's own session logs (the driver starts Ray with log_to_driver off)."""

from __future__ import annotations

import contextlib
import os
import sys


def path(settings) -> str:
    return os.path.join(settings.checkpoint_job_dir, "run.log")


def written(settings) -> str | None:
    """Where a run of ``settings`` logged, for its summary or its failure: None before anything was logged."""
    logs = [path(s) for s in (settings.stages or (settings,)) if os.path.isfile(path(s))]
    return ", ".join(logs) or None


@contextlib.contextmanager
def redirected(log_path: str):
    """This process's standard error (the file descriptor, so native libraries' output too) and Python's
    ``sys.stdout`` (where Ray prints the cluster's errors, a lost node's raylet log among them) appended to
    ``log_path`` while the block runs; yields a stream to the terminal's standard error for rftc's own lines.
    rftc's own output goes to the stream its caller took before the block."""
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    sys.stderr.flush()
    saved = os.dup(2)
    terminal = os.fdopen(os.dup(saved), "w", buffering=1, encoding="utf-8")
    try:
        with open(log_path, "a", encoding="utf-8") as log:
            os.dup2(log.fileno(), 2)
            try:
                with contextlib.redirect_stdout(log):
                    yield terminal
            finally:
                sys.stderr.flush()
                os.dup2(saved, 2)
    finally:
        os.close(saved)
        terminal.close()
