"""The mapping's working state: the Trinity config being built, where each of its values came from, and the
ledger that accounts for every veRL key the script set (mapped, passed through, implied, or reported)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Span
from rftc.mapping.verl_defaults import VERL_DEFAULTS
from rftc.trinity.generated.verl_trainer_keys import SECTIONS, VERL_VERSION
from rftc.verl.releases import semantics
from rftc.verl.effective import EffectiveConfig
from rftc.verl.trainers import torchrun_world

_ABSENT = object()
_INDEX = re.compile(r"\[(\d+)\]")
ENV_ONLY = re.compile(r"\$\{oc\.env:([A-Za-z_][A-Za-z0-9_]*|[0-9]+)\}")  # a variable the script never sets, no default
ARGUMENT = re.compile(r"\$\{oc\.env:([0-9]+)\}")  # the shell stage's form of the script's Nth argument, not given
ARGS_HINT = "pass the script's arguments after `--` (rftc convert SCRIPT -- ARG1 ARG2 ...)"

MAPPED, PASSED, IMPLIED, REPORTED = "mapped", "passed", "implied", "reported"


def split_key(key: str) -> list:
    """``a.b[0].c`` -> ``['a', 'b', 0, 'c']``."""
    out: list = []
    for part in _INDEX.sub(r".\1", key).split("."):
        out.append(int(part) if part.isdigit() else part)
    return out


def join_key(parts) -> str:
    return ".".join(str(p) for p in parts)


@dataclass(frozen=True)
class Origin:
    """Where an emitted Trinity value came from: the veRL keys it was computed from, and a note
    (``derived: 1024/256``, ``veRL default``, ...)."""

    keys: tuple[str, ...] = ()
    note: str = ""


@dataclass
class Entry:
    """What became of one veRL key."""

    status: str
    targets: list[str] = field(default_factory=list)
    note: str = ""


@dataclass
class Options:
    sync_offset: int = 0
    explorer_gpus: int | None = None
    dataset_size: int | None = None
    total_steps: int | None = None
    env: dict[str, str] = field(default_factory=dict)  # for resolving ${oc.env:X} in data paths
    cwd: str | None = None
    fixed: dict[str, Any] = field(default_factory=dict)  # veRL key -> value given on rftc's command line (--nodes)


class Draft:
    def __init__(self, cfg: EffectiveConfig, options: Options | None = None, diags: Diagnostics | None = None):
        self.cfg = cfg
        self.sem = semantics.of(cfg)  # how the release the config follows behaves where releases differ
        self.opt = options or Options()
        self.diags = diags if diags is not None else Diagnostics()
        self.data: dict = {}
        self.origins: dict[str, Origin] = {}
        self.ledger: dict[str, Entry] = {}
        self.assumed: dict[str, tuple[Any, str]] = {}  # cluster key -> (assumed value, the variable it stands for)
        for key in CLUSTER_OPTIONS:
            if not (key in TORCHRUN_SIZES and torchrun_world(cfg.invocation)):  # not read: torchrun's sizes are
                self._assume_cluster_size(key)  # assumed once, for the GPUs the job runs on (rftc.mapping.sft)

    def _assume_cluster_size(self, key: str) -> None:
        """A GPU count or rollout engine size that only the environment knows (``trainer.n_gpus_per_node=$GPUS``,
        ``rollout.tensor_model_parallel_size=$ROLLOUT_TP_SIZE`` with the variable never set) is a property of the
        cluster, not of the training: veRL's batch sizes are global and tensor parallelism only shards the
        inference engine, so the job trains the same on any value. The conversion assumes veRL's default for it,
        like a missing dataset size, and says so loudly (RFTC318, an error under --werror) with the fix; every
        value computed from it says so too."""
        if key in self.opt.fixed:
            return
        v = self.cfg.get(key, _ABSENT)
        m = ENV_ONLY.fullmatch(v) if isinstance(v, str) else None
        if m is None:
            return
        default, assumed = VERL_DEFAULTS[key], f"veRL's default {VERL_DEFAULTS[key]}"
        what = "cluster size"
        if key == ROLLOUT_TP:  # the cluster keys come first: the GPU count is known or assumed by now
            what = "rollout engines' size"
            counts = [self.val(k) for k in ("trainer.nnodes", "trainer.n_gpus_per_node")]
            gpus = counts[0] * counts[1] if all(type(c) is int for c in counts) else None
            if gpus is not None and 0 < gpus < default:
                default, assumed = gpus, f"{gpus}, as veRL's default {default} needs more GPUs than the job has"
        name = m.group(1)
        self.assumed[key] = (default, name)
        knows, fix = ((f"the script's argument ${name}, which rftc is not given", ARGS_HINT.replace("pass", "or pass", 1))
                      if name.isdigit() else ("which only the environment knows", f"or --env {name}=N, or --use-env"))
        self.report("RFTC318", f"{key} is {v!r}, {knows}; the conversion assumes {assumed} ({what} and GPU split "
                    "are computed with it)", key, hint=f"pass {CLUSTER_OPTIONS[key]} N, {fix}", settles=False)

    # ---- reading the veRL config -------------------------------------------------------------------
    def val(self, key: str, default: Any = None) -> Any:
        if key in self.opt.fixed:
            return self.opt.fixed[key]
        if key in self.assumed:
            return self.assumed[key][0]
        v = self.cfg.get(key, _ABSENT)
        if v is _ABSENT:
            v = VERL_DEFAULTS.get(key, default)
        return v

    def user(self, key: str) -> bool:
        return self.cfg.user_set(key)

    def given_by(self, key: str) -> str:
        """The rftc option that gave ``key``'s value (``--nodes``), or ""."""
        return CLUSTER_OPTIONS[key] if key in self.opt.fixed else ""

    def span(self, key: str) -> Span | None:
        p = self.cfg.prov(key)
        if p.span is None and p.kind == "derived" and p.source_key and p.source_key != key:
            return self.span(p.source_key)
        return p.span

    def any_user(self, *keys: str) -> bool:
        return any(self.user(k) for k in keys)

    def user_keys_under(self, prefix: str) -> list[str]:
        return [k for k in self.cfg.user_keys() if k == prefix or k.startswith(prefix + ".")]

    def symbolic(self, v: Any) -> bool:
        return isinstance(v, str) and "${" in v

    def number(self, key: str, kind=int, *, positive: bool = False, allow_none: bool = False):
        """The value of ``key`` as ``kind``; reports RFTC311/RFTC313 and returns None when it is not one."""
        v = self.val(key)
        if v is None and allow_none:
            return None
        if self.symbolic(v):
            self.report("RFTC311", f"{key} is {v!r}, which is only known when the script runs; the conversion "
                        "computes with it", key, hint=_env_hint(v, key))
            return None
        try:
            if isinstance(v, bool):
                raise ValueError
            n = whole(v) if kind is int else kind(v)
            if n != n:  # NaN
                raise ValueError
        except (TypeError, ValueError):
            self.report("RFTC313", f"{key} must be {'an integer' if kind is int else 'a number'}, got {v!r}"
                        f"{not_a_count(v)}", key)
            return None
        if positive and n <= 0:
            self.report("RFTC313", f"{key} must be positive, got {v!r}", key)
            return None
        return n

    def flag(self, key: str) -> bool | None:
        v = self.val(key)
        if isinstance(v, bool) or v is None:
            return v
        if isinstance(v, str) and v.lower() in ("true", "false"):
            return v.lower() == "true"
        if self.symbolic(v):
            self.report("RFTC311", f"{key} is {v!r}, which is only known when the script runs", key,
                        hint=_env_hint(v))
        else:
            self.report("RFTC313", f"{key} must be true or false, got {v!r}", key)
        return None

    # ---- writing the Trinity config -----------------------------------------------------------------
    def set(self, tkey: str, value: Any, *keys: str, note: str = "", status: str = MAPPED) -> None:
        """Set Trinity ``tkey`` (``a.b[0].c``) to ``value``, computed from the veRL ``keys``."""
        assumed = [f"{self.assumed[k][0]} assumed for ${self.assumed[k][1]} (RFTC318)" for k in keys
                   if k in self.assumed]
        if assumed:
            note = "; ".join(([note] if note else []) + assumed)
        argument = ARGUMENT.search(str(value)) if keys else None
        if argument is not None:  # it would reach the config as an environment variable that is no such thing
            self.report("RFTC311", f"{keys[0]} is {self.val(keys[0])!r}: ${argument.group(1)} is the script's "
                        "argument, which rftc is not given", keys[0], hint=ARGS_HINT)
        parts = split_key(tkey)
        node: Any = self.data
        for part, nxt in zip(parts, parts[1:]):
            if isinstance(part, int):
                while len(node) <= part:
                    node.append({})
                node = node[part]
            else:
                node = node.setdefault(part, [] if isinstance(nxt, int) else {})
        last = parts[-1]
        if isinstance(last, int):
            while len(node) <= last:
                node.append(None)
        node[last] = value
        self.origins[join_key(parts)] = Origin(tuple(keys), note)
        for k in keys:
            self.account(k, status, join_key(parts))

    def get(self, tkey: str, default: Any = None) -> Any:
        node: Any = self.data
        for part in split_key(tkey):
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                return default
        return node

    def has(self, tkey: str) -> bool:
        return self.get(tkey, _ABSENT) is not _ABSENT

    def passthrough(self, key: str, value: Any = _ABSENT, *, under: str | None = None) -> None:
        """Pass veRL ``key`` through ``trainer.trainer_config`` at the same path (or at ``under``); a key the verl
        release Trinity runs does not have (one of an older release, e.g. fsdp_config.grad_offload) is RFTC300,
        since Trinity's trainer would fail building its config."""
        path = under or key
        if not worker_setting(path):
            self.report("RFTC300", f"{key} is not a setting of verl {VERL_VERSION}, whose workers Trinity-RFT 0.6 "
                        "runs; it is not in the converted config", key)
            return
        target = "trainer.trainer_config." + path
        self.set(target, self.val(key) if value is _ABSENT else value, key, status=PASSED)

    # ---- the ledger ----------------------------------------------------------------------------------
    def account(self, key: str, status: str, target: str = "", note: str = "") -> None:
        e = self.ledger.get(key)
        if e is None:
            e = self.ledger[key] = Entry(status)
        elif _RANK[status] > _RANK[e.status]:
            e.status = status
        if target and target not in e.targets:
            e.targets.append(target)
        if note and not e.note:
            e.note = note

    def implied(self, key: str, note: str) -> None:
        self.account(key, IMPLIED, note=note)

    def done(self, key: str) -> bool:
        return key in self.ledger

    def report(self, code: str, message: str, key: str | None = None, *, hint: str | None = None,
               notes=(), extra_keys=(), settles: bool = True) -> None:
        """Add a diagnostic at ``key``'s span; unless ``settles`` is False (a warning about a key that is
        still mapped), the ledger records the key as reported."""
        if not any(d.code == code and d.key == key and d.message == message for d in self.diags):
            self.diags.add(code, message, self.span(key) if key else None, hint=hint, key=key, notes=notes)
        for k in (((key,) if key else ()) + tuple(extra_keys)) if settles else ():
            self.account(k, REPORTED, note=f"{code}: {message}")

    def fmt_value(self, key: str) -> str:
        return _fmt(self.val(key))


_RANK = {IMPLIED: 0, PASSED: 1, MAPPED: 2, REPORTED: 3}


def worker_setting(path: str) -> bool:
    """Whether ``path`` (actor_rollout_ref.actor.x, critic.y, ...) is a key of the verl worker config Trinity 0.6
    builds; sections Trinity does not keep, and the critic's model, are not looked up here."""
    parts = split_key(path)
    if parts[:1] == ["actor_rollout_ref"]:
        parts = parts[1:]
    if not parts or parts[0] not in SECTIONS or parts[:2] == ["critic", "model"]:
        return True
    node: Any = SECTIONS[parts[0]]
    for part in parts[1:]:
        if node is None or "*" in node or isinstance(part, int):
            return True
        if part not in node:
            return False
        node = node[part]
    return True


def whole(v: Any) -> int:
    """``v`` as an int where it is one (an int, or a float with no fraction); ValueError for a fraction, infinity or
    NaN, which Hydra reads as floats (2.5, 1e309, nan), TypeError for what is no number."""
    if isinstance(v, float) and not v.is_integer():
        raise ValueError(f"{v!r} is not a whole number")
    return int(v)


def not_a_count(v: Any) -> str:
    """Why a float Hydra read cannot be used: infinity (a literal past 1.8e308, or inf), NaN, or a fraction."""
    if not isinstance(v, float):
        return ""
    if v != v:
        return " (NaN: no computation with it has a value)"
    if v in (float("inf"), float("-inf")):
        return " (Hydra reads it as float infinity: a literal past 1.8e308 overflows; no count or size is infinite)"
    return " (Hydra reads it as a float; the setting takes whole numbers)"


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


ROLLOUT_TP = "actor_rollout_ref.rollout.tensor_model_parallel_size"
# the cluster's layout, which does not change what is trained: veRL key -> rftc convert's option for it
CLUSTER_OPTIONS = {"trainer.nnodes": "--nodes", "trainer.n_gpus_per_node": "--gpus-per-node",
                   ROLLOUT_TP: "--rollout-tp"}
TORCHRUN_SIZES = ("trainer.nnodes", "trainer.n_gpus_per_node")  # what torchrun's --nnodes, --nproc_per_node stand for


def _env_hint(v: str, key: str | None = None) -> str:
    if ARGUMENT.search(v):
        return ARGS_HINT
    if key in CLUSTER_OPTIONS:
        return f"pass {CLUSTER_OPTIONS[key]} N (or --env NAME=VALUE, or --use-env)"
    names = re.findall(r"\$\{oc\.env:([A-Za-z_][A-Za-z0-9_]*)", v)
    if names:
        return f"pass --env {names[0]}=VALUE, or --use-env to read it from the environment"
    return "append the override with a literal value after `--`"


def resolve_env(text: str, env: dict[str, str]) -> str | None:
    """``${oc.env:HOME}/x`` -> ``/home/u/x`` using ``env``; None when a name is missing."""
    missing = False

    def sub(m):
        nonlocal missing
        name, default = m.group(1), m.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default
        missing = True
        return ""

    out = re.sub(r"\$\{oc\.env:([A-Za-z_][A-Za-z0-9_]*)(?:,([^}]*))?\}", sub, text)
    if missing or "${" in out:
        return None
    return os.path.expanduser(out)
