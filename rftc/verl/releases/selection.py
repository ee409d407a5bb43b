"""Which bundled verl release a launch's overrides are checked against, and what another version says about a key
the chosen one does not have (removed, renamed, or not yet added)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from rftc.diagnostics.collector import Diagnostics
from rftc.dotted import get
from rftc.verl.releases import order, schema, semantics


@dataclass
class Attempt:
    """The launch composed under one version: its diagnostics, result, and how many overrides it rejects."""

    version: str
    diags: Diagnostics
    result: Any
    rejected_keys: list[str]
    retired_keys: list[str] = field(default_factory=list)  # overrides of removed keys that change nothing there
    composed: bool = True  # False: the keys were only looked up in the schema (absent_keys)
    inert_in: tuple[Attempt, list] | None = None  # (the newer attempt, [(key, why)]): chosen where these keys
    #   take effect, over that newer release where every key exists too
    refused_in: tuple[str, list, str] | None = None  # (older version, [(key, why)], veRL's startup refusal there):
    #   these keys take effect only there, but veRL refuses the launch there

    @property
    def rejected(self) -> int:
        return len(self.rejected_keys)


def choose(candidates: list[str], attempt: Callable[[str], Attempt | None],
           absent: Callable[[str], list[str]] | None = None) -> tuple[Attempt | None, list]:
    """The newest candidate (candidates come newest first) under which nothing is rejected or retired; else the
    one rejecting the fewest, then retiring the fewest, the newer on a tie. Stops at the first clean one.
    ``absent(v)`` lists override keys a candidate certainly lacks (a cheap look-up in its schema): those are
    composed only when no other candidate is clean, so a launch written for an old release composes once or
    twice, not once per release, with the same result."""
    tried: list[Attempt] = []
    later = []
    for v in candidates:
        missing = absent(v) if absent is not None else []
        if missing:
            later.append(v)
            tried.append(Attempt(v, Diagnostics(), None, missing, composed=False))
            continue
        a = attempt(v)
        if a is None:
            continue
        tried.append(a)
        if a.rejected == 0 and not a.retired_keys:
            return a, tried
    tried = [a for a in tried if a.composed]
    for v in later:
        a = attempt(v)
        if a is not None:
            tried.append(a)
    if not tried:
        return None, tried
    return min(tried, key=lambda a: (a.rejected, len(a.retired_keys), candidates.index(a.version))), tried


def plausible(best: Attempt, tried: list[Attempt], candidates: list[str], attempt: Callable[[str], Attempt | None],
              config_name: str, overrides: list,
              refusal: Callable[[Attempt], str | None] | None = None) -> tuple[Attempt, list[Attempt]]:
    """The release a launch that is clean under ``best`` was most plausibly written for: an older release where
    every key exists is preferred when keys the launch sets take effect there but not in ``best``
    (semantics.inert: e.g. algorithm.kl_ctrl.kl_coef without use_kl_in_reward has no effect from 0.4.0 on, and
    put the KL in the reward before), and the launch is valid there (``refusal``: veRL's startup refusal of an
    attempt, None when it starts). Otherwise ``best``, the newest."""

    if best.rejected or best.retired_keys or best.result is None:
        return best, tried
    tree = best.result[0].tree
    keys = [o.key for o in overrides if o.kind != "delete"]
    dead = semantics.inert(semantics.resolve(best.version, snapshot=False), lambda k: get(tree, k), keys)
    if not dead:
        return best, tried
    for v in fits(candidates[candidates.index(best.version) + 1:], config_name, overrides):
        if len(semantics.inert(semantics.resolve(v, snapshot=False), lambda k: get(tree, k), keys)) < len(dead):
            a = attempt(v)
            if a is not None and a.rejected == 0 and not a.retired_keys:
                refused = refusal(a) if refusal is not None else None
                if refused is None:
                    a.inert_in = (best, dead)
                    return a, [*tried, a]
                best.refused_in = (v, dead, refused)
            break
    return best, tried



def absent_keys(version: str, config_name: str, overrides: list) -> list[str]:
    """Keys of ``key=value`` and ``~key`` overrides that no composition of ``config_name`` in ``version`` has
    (any engine choice), so Hydra rejects them there. Keys under a key the launch adds (``+a={}`` then
    ``a.b=1``) and list elements are not looked up."""
    sch = schema.load(version)
    if config_name not in sch.configs:
        return []
    known = schema.all_paths(version, config_name)
    added = [o.key for o in overrides if o.kind in ("add", "force_add")]
    out = []
    for o in overrides:
        if o.kind not in ("change", "delete") or any(p.isdigit() for p in o.key.split(".")):
            continue
        if o.key not in known and not any(o.key == a or o.key.startswith(a + ".") for a in added):
            out.append(o.key)
    return out


def fits(versions: list[str], config_name: str, overrides: list) -> list[str]:
    """The versions in which every key the launch sets exists (by look-up, not composed)."""
    return [v for v in versions if config_name in schema.load(v).configs and not absent_keys(v, config_name,
                                                                                              overrides)]


def _outcome(a: Attempt, several: bool = False) -> str:
    if a.composed:
        parts = [f"reject{'' if several else 's'} {a.rejected} key(s) ({', '.join(a.rejected_keys[:3])})"] \
            if a.rejected else []
    else:
        parts = [f"{'have' if several else 'has'} no {', '.join(a.rejected_keys[:3])}"
                 + (f" (and {a.rejected - 3} more)" if a.rejected > 3 else "")]
    if a.retired_keys:
        parts.append(f"drop{'' if several else 's'} {len(a.retired_keys)} removed key(s) set to what it always "
                     f"does ({', '.join(a.retired_keys[:3])})")
    return " and ".join(parts)


def spans(versions: list[str]) -> str:
    """Versions as ranges of consecutive bundled releases: '0.2-0.3.0.post1, 0.5.0'."""
    bundled = sorted(schema.versions(), key=order.key)
    idx = sorted(bundled.index(v) for v in versions if v in bundled)
    runs: list[list[int]] = []
    for i in idx:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return ", ".join(bundled[r[0]] if len(r) == 1 else f"{bundled[r[0]]}-{bundled[r[-1]]}" for r in runs)


def _others(best: Attempt, tried: list[Attempt]) -> str:
    """The newer versions tried, consecutive ones with the same outcome together (older ones did no better)."""
    groups: list[list[Attempt]] = []
    newer = [a for a in tried if order.key(a.version) > order.key(best.version)]
    older = len(newer) < len(tried) - 1
    for a in newer:
        if groups and _outcome(groups[-1][0]) == _outcome(a):
            groups[-1].append(a)
        else:
            groups.append([a])
    return ", ".join([f"{spans([a.version for a in g])} {_outcome(g[0], len(g) > 1)}" for g in groups]
                     + (["older releases do no better"] if older else []))


def note(best: Attempt, tried: list[Attempt], explicit: bool, also: list[str] = ()) -> str:
    """Which version was used and why (EffectiveConfig.version_note); ``also``: the other versions in which
    every key the launch sets exists."""
    v = best.version
    if explicit:
        return f"verl {v} (chosen with --verl-version)"
    if best.refused_in is not None:
        older, dead, refused = best.refused_in
        shown = "; ".join(f"{k} has no effect ({why})" for k, why in dead[:2])
        return (f"checked against verl {v}, the newest bundled version where every key the launch sets exists: "
                f"{shown}; in verl {older}, where it takes effect, veRL refuses the launch at startup ({refused})")
    if best.rejected == 0 and not best.retired_keys and v == schema.versions()[0]:
        return f"verl {v}: the newest bundled version; every key the launch sets exists in it"
    others = _others(best, tried)
    fit = f"; every key also exists in {spans(list(also))}" if also else ""
    if best.inert_in is not None:
        _, dead = best.inert_in
        newer = [u for u in also if order.key(u) > order.key(v)]
        shown = "; ".join(f"{k} has no effect ({why})" for k, why in dead[:2])
        return (f"checked against verl {v}, the newest bundled version where every key the launch sets exists "
                f"and takes effect: in {spans(newer)}, where they exist too, {shown}{fit}")
    if best.rejected == 0 and not best.retired_keys:
        return f"checked against verl {v}, the newest bundled version where every key the launch sets exists" + \
               (f": {others}" if others else "") + fit  # no others: newer releases lack the launch's config
    if best.rejected == 0:
        return f"no bundled verl version has every key the launch sets; checked against verl {v}, which " \
               f"{_outcome(best)} (RFTC220)" + (f"; {others}" if others else "")
    return f"no bundled verl version accepts every key the launch sets; checked against verl {v}, which " \
           f"{_outcome(best)}" + (f"; {others}" if others else "")


def trains_differently(chosen: str, newest: str, found: list, uncompared: str = "") -> str | None:
    """RFTC226's words for a launch composed under ``chosen``, an older release than ``newest`` where every key
    exists too: the quantities the two train differently (rftc.semantics.model.differences), or why the two
    could not be compared (``uncompared``); None when they train the same."""
    head = f"verl {chosen} {{}} differently from verl {newest}, the newest where every key exists"
    if uncompared:
        return f"{head.format('may train')}: rftc cannot compare the two, {uncompared}"
    if not found:
        return None
    return f"{head.format('trains')}: " + ", ".join(f"{q.label} {a} vs {b}" for q, a, b in found)


# Keys (or key prefixes) that moved or went away between the bundled versions: old -> (new or None, why).
RENAMED = {
    "critic.model.fsdp_config": ("critic.fsdp", "the critic's FSDP settings moved"),
    "reward_model.sandbox_fusion": ("reward.sandbox_fusion", "sandbox settings moved to the reward section"),
    "actor_rollout_ref.actor.router_replay": ("actor_rollout_ref.actor.megatron.router_replay",
                                              "router replay moved under megatron"),
    "actor_rollout_ref.actor.megatron.grad_offload": (None, "param_offload now also releases gradient buffers"),
    "actor_rollout_ref.ref.megatron.grad_offload": (None, "param_offload now also releases gradient buffers"),
    "critic.megatron.grad_offload": (None, "param_offload now also releases gradient buffers"),
    "trainer.use_legacy_worker_impl": (None, "the legacy workers are gone"),
    "reward_model.use_reward_loop": (None, "the reward loop is always used"),
}


# Removed keys whose one remaining behaviour is a value: setting the key to that value changes nothing in the
# versions without it. Used only when rftc chooses the version (a script written between two releases).
RETIRED_VALUES = {
    "reward_model.use_reward_loop": True,
}


def retired(key: str, value: Any, version: str, config_name: str, choice: str | None) -> str | None:
    """The message of RFTC220 when ``key=value`` sets a key removed before ``version`` to the behaviour the
    removal kept (RETIRED_VALUES), else None."""
    if key not in RETIRED_VALUES or value is not RETIRED_VALUES[key] and value != RETIRED_VALUES[key]:
        return None
    tail, _ = elsewhere(key, version, config_name, choice)
    moved = _renamed(key)
    if tail is None or "(removed)" not in tail or moved is None:
        return None
    shown = "true" if value is True else "false" if value is False else str(value)
    return (f"'{key}={shown}' sets a key that {tail}: there {moved[1]}, so the override changes nothing and is "
            "dropped")


def _renamed(key: str):
    for old, (new, why) in RENAMED.items():
        if key == old or key.startswith(old + "."):
            return (new + key[len(old):] if new else None), why
    return None


def elsewhere(key: str, version: str, config_name: str, choice: str | None) -> tuple[str | None, str | None]:
    """(message tail, hint) when ``key`` exists in another bundled version of the same config, else (None, None)."""
    found = [v for v in schema.versions() if v != version and config_name in schema.load(v).configs
             and key in schema.leaf_paths(v, config_name, _choice(v, config_name, choice))]
    if not found:
        return None, None
    older = [v for v in found if order.key(v) < order.key(version)]
    if older:
        msg = f"exists in verl {spans(older)} but not in {version} (removed)"
    else:
        msg = f"exists only in newer verl ({spans(found)}), not in {version}"
    hint = None
    moved = _renamed(key)
    if moved:
        new, why = moved
        if new and new in schema.leaf_paths(version, config_name, _choice(version, config_name, choice)):
            hint = f"renamed to '{new}' ({why})"
        else:
            hint = f"{why}; remove the override" if not new else why
    if hint is None:
        hint = f"pass --verl-version {found[0]} to check against that version"
    return msg, hint


def _choice(version: str, config_name: str, choice: str | None) -> str | None:
    return choice if choice in schema.load(version).choices(config_name) else None
