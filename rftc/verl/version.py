"""Which verl version a launch's overrides are checked against, and what another version says about a key
the chosen one does not have (removed, renamed, or not yet added)."""

from __future__ import annotations

from rftc.verl import schema

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
    older = [v for v in found if schema._vkey(v) < schema._vkey(version)]
    if older:
        msg = f"exists in verl {', '.join(sorted(older, key=schema._vkey))} but not in {version} (removed)"
    else:
        msg = f"exists only in newer verl ({', '.join(sorted(found, key=schema._vkey))}), not in {version}"
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
