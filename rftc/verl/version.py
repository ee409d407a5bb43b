"""Which verl version a launch's overrides are checked against, and what another version says about a key
the chosen one does not have (removed, renamed, or not yet added)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from rftc.diagnostics.model import Diagnostics
from rftc.verl import releases, schema


@dataclass
class Attempt:
    """The launch composed under one version: its diagnostics, result, and how many overrides it rejects."""

    version: str
    diags: Diagnostics
    result: Any
    rejected_keys: list[str]
    retired_keys: list[str] = field(default_factory=list)  # overrides of removed keys that change nothing there

    @property
    def rejected(self) -> int:
        return len(self.rejected_keys)


def choose(candidates: list[str], attempt: Callable[[str], Attempt | None]) -> tuple[Attempt | None, list]:
    """The newest candidate (candidates come newest first) under which nothing is rejected or retired; else the
    one rejecting the fewest, then retiring the fewest, the newer on a tie. Stops at the first clean one."""
    tried = []
    for v in candidates:
        a = attempt(v)
        if a is None:
            continue
        tried.append(a)
        if a.rejected == 0 and not a.retired_keys:
            break
    if not tried:
        return None, tried
    return min(tried, key=lambda a: (a.rejected, len(a.retired_keys), candidates.index(a.version))), tried


def _outcome(a: Attempt) -> str:
    parts = [f"rejects {a.rejected} key(s) ({', '.join(a.rejected_keys[:3])})"] if a.rejected else []
    if a.retired_keys:
        parts.append(f"drops {len(a.retired_keys)} removed key(s) set to what it always does "
                     f"({', '.join(a.retired_keys[:3])})")
    return " and ".join(parts)


def note(best: Attempt, tried: list[Attempt], explicit: bool) -> str:
    """Which version was used and why (EffectiveConfig.version_note)."""
    v = best.version
    if explicit:
        return f"verl {v} (chosen with --verl-version)"
    if best.rejected == 0 and not best.retired_keys and v == schema.versions()[0]:
        return f"verl {v}: the newest bundled version; every key the launch sets exists in it"
    others = ", ".join(f"{a.version} {_outcome(a)}" for a in tried if a is not best)
    if best.rejected == 0 and not best.retired_keys:
        return f"checked against verl {v}, the newest bundled version where every key the launch sets exists: " \
               f"{others}"
    if best.rejected == 0:
        return f"no bundled verl version has every key the launch sets; checked against verl {v}, which " \
               f"{_outcome(best)} (RFTC220)" + (f"; {others}" if others else "")
    return f"no bundled verl version accepts every key the launch sets; checked against verl {v}, which " \
           f"{_outcome(best)}" + (f"; {others}" if others else "")

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
    older = [v for v in found if releases.key(v) < releases.key(version)]
    if older:
        msg = f"exists in verl {', '.join(sorted(older, key=releases.key))} but not in {version} (removed)"
    else:
        msg = f"exists only in newer verl ({', '.join(sorted(found, key=releases.key))}), not in {version}"
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
