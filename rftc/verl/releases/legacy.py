"""Legacy reward keys (verl <= 0.8 layout). verl 0.9's main_ppo still composes them (legacy_reward_impl.yaml
keeps them as null placeholders) but no longer runs ``migrate_legacy_reward_impl``, so setting them has no
effect there. This table is that function's mapping, legacy prefix -> new prefix."""

from __future__ import annotations

from rftc.diagnostics.collector import Diagnostics
from rftc.verl.effective import Provenance

LEGACY_TO_NEW = [
    ("reward_model.num_workers", "reward.num_workers"),
    ("reward_model.reward_manager", "reward.reward_manager.name"),
    ("reward_model.reward_loop_source", "reward.reward_manager.source"),
    ("reward_model.reward_loop_module_path", "reward.reward_manager.module.path"),
    ("reward_model.reward_loop_class_name", "reward.reward_manager.module.name"),
    ("reward_model.enable_resource_pool", "reward.reward_model.enable_resource_pool"),
    ("reward_model.enable", "reward.reward_model.enable"),
    ("reward_model.n_gpus_per_node", "reward.reward_model.n_gpus_per_node"),
    ("reward_model.nnodes", "reward.reward_model.nnodes"),
    ("reward_model.model.path", "reward.reward_model.model_path"),
    ("reward_model.reward_kwargs", "reward.reward_kwargs"),
    ("reward_model.rollout", "reward.reward_model.rollout"),
    ("custom_reward_function", "reward.custom_reward_function"),
    ("sandbox_fusion", "reward.sandbox_fusion"),
]
LEGACY_ROOTS = ("reward_model", "custom_reward_function", "sandbox_fusion")
# Entry modules that no longer migrate the legacy keys, from the first verl version that stopped.
IGNORED_SINCE = {"verl.trainer.main_ppo": (0, 9)}


def new_name(key: str) -> str | None:
    for old, new in LEGACY_TO_NEW:
        if key == old or key.startswith(old + "."):
            return new + key[len(old):]
    return None


def ignores_legacy(module: str, version: str) -> bool:
    since = IGNORED_SINCE.get(module)
    return since is not None and tuple(int(p) for p in version.split(".")[:2]) >= since


def report(provenance: dict[str, Provenance], version: str, diags: Diagnostics) -> None:
    """RFTC212 for every legacy key the launch sets (each override reported once, at its first key)."""
    seen: set = set()
    for key, prov in provenance.items():
        if not prov.user_set or key.split(".", 1)[0] not in LEGACY_ROOTS or (prov.span, prov.text) in seen:
            continue
        seen.add((prov.span, prov.text))
        new = new_name(key)
        diags.add("RFTC212", f"'{key}' has no effect under verl {version} main_ppo (legacy reward key)",
                  prov.span, key=key,
                  hint=f"set '{new}' instead" if new else "move the setting into the 'reward' section")
