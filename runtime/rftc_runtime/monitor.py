"""Metrics: one JSON line per step (``<job>/monitor/metrics.jsonl``), TensorBoard when configured and
installed, and a live display (rich) on a terminal or one plain line per step elsewhere."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

TIME_KEYS = ("generate", "reward", "old_logprob", "ref", "critic", "update", "sync")
# Counted rollout problems: their code and what the warning says about them
PROBLEMS = {"reward_fn_errors": ("RFTC502", "response(s) on which the reward function raised (scored 0)"),
            "empty_responses": ("RFTC504", "empty response(s)"),
            "truncated_responses": ("RFTC504", "response(s) cut at max_tokens")}


class Monitor:
    def __init__(self, job_dir: str, total_steps: int, monitor_type: str = "tensorboard", stream=None,
                 live: bool | None = None, warnings=None):
        self.dir = Path(job_dir) / "monitor"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / "metrics.jsonl"
        self.total = total_steps
        self.stream = stream or sys.stdout
        self.warnings = warnings or sys.stderr  # rftc's own warnings: the terminal's stderr during a run
        self.start = time.perf_counter()
        self.first_reward: float | None = None
        self.last_reward: float | None = None
        self.counts = dict.fromkeys(PROBLEMS, 0)
        self.examples: dict[str, str] = {}  # the first example of each counted problem
        self.logged = False
        self.tb = None
        if monitor_type == "tensorboard":
            try:
                from torch.utils.tensorboard import SummaryWriter

                self.tb = SummaryWriter(str(self.dir / "tensorboard"))
            except ImportError:
                self.tb = None
        self.live = None
        if live if live is not None else (self.stream.isatty() and not os.environ.get("CI")):
            from rich.console import Console
            from rich.live import Live

            self.live = Live(console=Console(file=self.stream), refresh_per_second=4, transient=False)
            self.live.start()

    def log(self, step: int, metrics: dict) -> None:
        reward = metrics.get("rollout/reward_mean")
        if reward is not None:
            self.first_reward = reward if self.first_reward is None else self.first_reward
            self.last_reward = reward
        for k in self.counts:
            n = int(metrics.get(f"rollout/{k}", 0))
            self.counts[k] += n
            if n and k not in self.examples:
                self._first_warning(step, k, n, metrics.get(f"rollout/{k}_examples") or ["(no example)"])
        record = {"step": step, "time": round(time.time(), 3), **metrics}
        if not self.logged:
            self._drop_superseded(step)
            self.logged = True
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record, default=str) + "\n")
        if self.tb is not None:
            for k, v in metrics.items():
                if isinstance(v, (int, float)):
                    self.tb.add_scalar(k, v, step)
        if self.live is not None:
            self.live.update(self._table(step, metrics))
        else:
            print(self._line(step, metrics), file=self.stream, flush=True)

    def _drop_superseded(self, step: int) -> None:
        """A run that died after its last checkpoint logged steps that the resumed run does again: keep one
        record per step (the new one), and drop a line a kill cut short, so the file stays one history."""
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return
        kept = []
        for line in lines:
            try:
                if json.loads(line)["step"] < step:
                    kept.append(line)
            except (ValueError, KeyError, TypeError):
                continue
        if len(kept) != len(lines):
            self.path.write_text("".join(k + "\n" for k in kept), encoding="utf-8")

    def _first_warning(self, step: int, kind: str, n: int, examples: list) -> None:
        """Said once per kind, when it first happens, so a run going wrong can be stopped early; the totals
        are in the metrics (rollout/<kind>) and in the run's summary."""
        self.examples[kind] = str(examples[0])
        code, what = PROBLEMS[kind]
        print(f"warning[{code}]: step {step}: {n} {what}; first: {self.examples[kind]} "
              f"(counted in rollout/{kind}, {self.path})", file=self.warnings, flush=True)

    def _eta(self, step: int) -> str:
        elapsed = time.perf_counter() - self.start
        if step <= 0 or self.total <= 0:
            return "?"
        left = elapsed / step * max(0, self.total - step)
        return f"{int(left // 60)}m{int(left % 60):02d}s"

    def _line(self, step: int, m: dict) -> str:
        times = " ".join(f"{k}={m[f'time/{k}']:.1f}s" for k in TIME_KEYS if f"time/{k}" in m)
        tps = m.get("rollout/tokens", 0) / m["time/generate"] if m.get("time/generate") else 0.0
        evals = "".join(f"  {k[:-len('/reward_mean')]} {v:.3f}" for k, v in m.items()
                        if k.startswith("eval/") and k.endswith("/reward_mean"))
        if "rollout/reward_mean" not in m:  # an evaluation on startup: no rollout, nothing trained yet
            return f"step {step}/{self.total}{evals}"
        return (f"step {step}/{self.total}  reward {m['rollout/reward_mean']:.3f}  "
                f"len {m.get('rollout/response_len_mean', 0):.1f}  {tps:.0f} tok/s  {times}{evals}  "
                f"ETA {self._eta(step)}")

    def _table(self, step: int, m: dict):
        from rich.table import Table

        t = Table(title=f"rftc run  step {step}/{self.total}  ETA {self._eta(step)}", show_header=False)
        tps = m.get("rollout/tokens", 0) / m["time/generate"] if m.get("time/generate") else 0.0
        t.add_row("reward (first / now)", f"{self.first_reward:.3f} / {self.last_reward:.3f}"
                  if self.first_reward is not None else "-")
        t.add_row("response length", f"{m.get('rollout/response_len_mean', 0):.1f} tokens")
        t.add_row("throughput", f"{tps:.0f} generated tokens/s")
        t.add_row("time", "  ".join(f"{k} {m[f'time/{k}']:.1f}s" for k in TIME_KEYS if f"time/{k}" in m))
        for k in ("actor/pg_loss", "actor/kl_loss", "actor/grad_norm", "actor/lr"):
            if k in m:
                t.add_row(k, f"{m[k]:.4g}")
        return t

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()
        if self.tb is not None:
            self.tb.close()
