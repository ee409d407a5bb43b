"""The veRL entry modules rftc knows: those whose config it composes (ENTRY_POINTS, the recipes), and the RL
trainers `rftc convert` maps (CONVERTED): veRL's main_ppo, and the DAPO recipe's main_dapo. RayDAPOTrainer is
main_ppo's RayPPOTrainer (the same config, startup checks and workers) with dynamic sampling
(algorithm.filter_groups, data.gen_batch_size) and the dapo reward manager built from
reward_model.overlong_buffer. The recipe is not in the wheels: it lives beside the `verl` package in a checkout
(recipe/dapo, recipe/dapo/src before 0.4), and its @hydra.main composes `config/dapo_trainer.yaml` there, which
extends ppo_trainer."""

MAIN_PPO = "verl.trainer.main_ppo"
# recipe entry module -> (its folder below the sys.path root, the config_name of its @hydra.main)
RECIPES = {"recipe.dapo.main_dapo": ("recipe/dapo", "dapo_trainer"),
           "recipe.dapo.src.main_dapo": ("recipe/dapo/src", "dapo_trainer")}
RECIPE_CONFIG_PATH = "config"  # the recipes' @hydra.main config_path, relative to the module
CONVERTED = (MAIN_PPO, *RECIPES)
# Entry module -> (its directory inside the verl package, the config_name its @hydra.main declares).
ENTRY_POINTS = {
    "verl.trainer.main_ppo": ("verl/trainer", "ppo_trainer"),
    "verl.experimental.fully_async_policy.fully_async_main": ("verl/experimental/fully_async_policy",
                                                              "fully_async_ppo_trainer"),
    "verl.experimental.one_step_off_policy.main_ppo": ("verl/experimental/one_step_off_policy",
                                                       "one_step_off_ppo_trainer"),
}

# The SFT trainers `rftc convert` maps (rftc/mapping/sft.py), with the config their @hydra.main composes:
# fsdp_sft_trainer (verl 0.1 to 0.7.0) composes sft_trainer; the engine trainer sft_trainer (0.6.0 on) and its
# Ray launcher sft_trainer_ray (0.7.0 on) compose sft_trainer_engine.
SFT_TRAINERS = {
    "verl.trainer.fsdp_sft_trainer": ("verl/trainer", "sft_trainer"),
    "verl.trainer.sft_trainer": ("verl/trainer", "sft_trainer_engine"),
    "verl.trainer.sft_trainer_ray": ("verl/trainer", "sft_trainer_engine"),
}
SFT_CONFIGS = frozenset(name for _, name in SFT_TRAINERS.values())


def entry_of(module: str | None) -> tuple[str, str] | None:
    """(folder below the sys.path root, config_name) of a verl entry point or a recipe rftc composes; None for
    other modules."""
    return ENTRY_POINTS.get(module) or SFT_TRAINERS.get(module) or RECIPES.get(module)


def is_sft(invocation) -> bool:
    """Whether the launch (an Invocation, or None for plain overrides) runs one of veRL's SFT trainers."""
    return invocation is not None and invocation.module in SFT_TRAINERS


def is_dapo(invocation) -> bool:
    """Whether the launch (an Invocation, or None for plain overrides) runs the DAPO recipe's trainer."""
    return invocation is not None and invocation.module in RECIPES
