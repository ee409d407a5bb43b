"""The veRL entry modules rftc knows: those whose config it composes (ENTRY_POINTS, the recipes), the RL trainers
`rftc convert` maps (CONVERTED: veRL's main_ppo, its off-policy trainers, the DAPO recipe's main_dapo) and veRL's
SFT trainers (SFT_TRAINERS). RayDAPOTrainer is main_ppo's RayPPOTrainer (the same config, startup checks and
workers) with dynamic sampling (algorithm.filter_groups, data.gen_batch_size) and the dapo reward manager built from
reward_model.overlong_buffer. The recipe is not in the wheels: it lives beside the `verl` package in a checkout
(recipe/dapo, recipe/dapo/src before 0.4), and its @hydra.main composes `config/dapo_trainer.yaml` there, which
extends ppo_trainer.

A fork's own entry module (`python3 -m myfork.trainer.main_ppo`) is resolved from its source (resolve): one that
runs veRL's PPO trainer is converted as main_ppo on the config its @hydra.main names."""

from rftc.shell.launches import RECIPES  # the bash reader tells veRL's recipes from a project's own by them

MAIN_PPO = "verl.trainer.main_ppo"
RECIPE_CONFIG_PATH = "config"  # the recipes' @hydra.main config_path, relative to the module
# veRL's off-policy trainers: main_ppo's config and workers under a loop of their own (rftc.verl.releases.modes)
OFF_POLICY = ("verl.experimental.one_step_off_policy.main_ppo", "verl.experimental.fully_async_policy.fully_async_main")
CONVERTED = (MAIN_PPO, *RECIPES, *OFF_POLICY)
# The off-policy trainers under their release-era names: recipes of the repository (recipe/, beside the verl package;
# no wheel ships them) until 0.7.1 moved them into the package: name -> (the module it became, the first and last
# release that shipped it, what it is)
RECIPE_ERA = {
    "recipe.one_step_off_policy.main_ppo": (OFF_POLICY[0], "0.5.0", "0.7.0", "one-step-off"),
    "recipe.fully_async_policy.fully_async_main": (OFF_POLICY[1], "0.6.1", "0.7.0", "fully asynchronous"),
}
MOVED_IN = "0.7.1"  # the first release whose wheel has their config folders (verl/experimental/*/config)
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


# the SFT trainers whose world is torchrun's: they read no trainer.nnodes or n_gpus_per_node
TORCHRUN_TRAINERS = ("verl.trainer.fsdp_sft_trainer", "verl.trainer.sft_trainer")


def torchrun_world(invocation) -> bool:
    """Whether torchrun starts the launch's processes (an SFT trainer of TORCHRUN_TRAINERS under torchrun), so
    that its --nnodes and --nproc_per_node, not trainer.nnodes and n_gpus_per_node, are the GPUs it runs on."""
    return invocation is not None and invocation.launcher == "torchrun" and invocation.module in TORCHRUN_TRAINERS


def is_dapo(invocation) -> bool:
    """Whether the launch (an Invocation, or None for plain overrides) runs the DAPO recipe's trainer."""
    return invocation is not None and invocation.module in RECIPES


def converts(inv) -> bool:
    """Whether `rftc convert` maps the launch: veRL's main_ppo, a recipe it knows, or a fork's own entry module
    resolved to one that runs veRL's PPO trainer (resolve)."""
    return inv.module in CONVERTED or inv.fork is not None


def maps(inv) -> bool:
    """Whether `rftc convert` maps the launch: an RL trainer it converts, or one of veRL's SFT trainers."""
    return converts(inv) or inv.module in SFT_TRAINERS


def module_of(inv) -> str:
    """The veRL entry module whose semantics the launch follows (a fork's own one: main_ppo's)."""
    return MAIN_PPO if inv.fork is not None else inv.module


def resolve(inv, diags):
    """A launch of a module rftc does not know by name (`python3 -m myfork.trainer.main_ppo`, `python3
    path/to/main_ppo.py`), resolved as Python and Hydra resolve it: the file Python runs
    (rftc.verl.checkout.modules), read with ast, never imported. A Hydra app that runs veRL's PPO trainer comes
    back as a main_ppo launch on the config its @hydra.main names (RFTC233; a trainer class of the fork's own:
    RFTC234). Not a Hydra app, or a name Hydra cannot read statically: RFTC235, and None. None, saying nothing,
    when Python finds no such module or it runs no veRL PPO trainer: the launch is not one rftc converts."""
    import dataclasses
    import os
    from pathlib import Path

    from rftc.shell.invocation import ForkEntry
    from rftc.shell.launches import hydra_split
    from rftc.verl.checkout.modules import find_spec, launch_dir, main_file, search_path
    from rftc.verl.primary import hydra_main
    from rftc.verl.primary.files import display

    args = inv.args
    if inv.module:
        spec = find_spec(inv.module, search_path(inv))
        file = main_file(spec) if spec is not None else None
        found = f"found in {spec.entry.why}" if spec is not None else ""
    elif args and args[0].text.endswith(".py") and not args[0].symbolic:
        file = launch_dir(inv) / args[0].text
        file, found, args = (file if file.is_file() else None), "", args[1:]
    else:
        return None
    tree = hydra_main.parse(file) if file is not None else None
    runs = hydra_main.trainer(tree, display(file)) if tree is not None else None
    if runs is None:
        return None
    name = inv.module or inv.args[0].text
    shown = display(file)
    what_runs = f"the entry module {name} is {shown} ({found})" if inv.module else f"the entry file {shown}"
    resolved = dataclasses.replace(inv, kind="main_ppo", args=list(args))
    hydra_split(resolved)  # --config-path and --config-name replace what the decorator says
    declared = hydra_main.declared_in(tree)
    if declared is None:
        return _without_hydra(inv, tree, file, what_runs, runs, name, diags)
    path = resolved.config_path.text if resolved.config_path is not None else declared and declared.config_path
    config = resolved.config_name.text if resolved.config_name is not None else declared and declared.config_name
    if not declared.literal or not path or not config:
        why = (f"names its config through a value rftc cannot read (@hydra.main at line {declared.line})"
               if not declared.literal else
               f"has no config folder: its @hydra.main (line {declared.line}) names no config_path" if not path
               else f"names no config: its @hydra.main (line {declared.line}) has no config_name")
        diags.add("RFTC235", f"{what_runs}; it {why}, so its config is not composed", inv.span,
                  hint="convert a launch of verl.trainer.main_ppo with the config it loads: --config-path DIR "
                       "--config-name NAME")
        return None
    resolved.fork = ForkEntry(str(file.resolve()), declared.config_path, declared.config_name,
                              f"{shown}:{declared.line}")
    what = " and ".join(runs.verl) or "a trainer class of its own"
    folder = path if path.startswith("/") else display(Path(os.path.normpath(file.parent / path)))
    given = [flag for flag, a in (("--config-path", resolved.config_path), ("--config-name", resolved.config_name))
             if a is not None]
    named = f"its @hydra.main ({resolved.fork.named_by})" + (f" with the launch's {' and '.join(given)}" * bool(given))
    diags.add("RFTC233", f"{what_runs}; {named} composes '{config}' in {folder.rstrip('/')}/, and it runs {what}: "
              "converted as verl.trainer.main_ppo", inv.span)
    resolved.own_trainers = runs.own  # RFTC234 names them once the config is composed (own_trainer)
    return resolved


def own_trainer(eff, diags) -> None:
    """RFTC234: the launch trains with a trainer class of the fork's own, which the conversion does not follow:
    the class and the keys whose meaning only its code knows (those of its config no veRL release has)."""
    inv = eff.invocation
    if inv is None or not inv.own_trainers:
        return
    from pathlib import Path

    from rftc.verl.checkout.upstream import upstream_keys
    from rftc.verl.primary.files import display

    # a fork's folder composed on a release's config: the keys its files or the launch set that no release has
    keys = sorted(eff.fork_keys or {k for k in eff.user_keys() if k not in upstream_keys()
                                    and not isinstance(eff.get(k, None), dict)})
    shown = ", ".join(keys[:8]) + (f" and {len(keys) - 8} more" if len(keys) > 8 else "")
    meaning = f"; the keys of its config no veRL release has ({shown}) mean only what its code does" * bool(keys)
    name = inv.module or display(Path(inv.fork.file))
    diags.add("RFTC234", f"{name} trains with {', '.join(inv.own_trainers)}, the fork's own trainer class, not "
              f"veRL's RayPPOTrainer: the conversion follows veRL's main_ppo, and what the class changes (its "
              f"losses, batches, advantages) is not in the converted config{meaning}", inv.span,
              hint="read the class before training with the converted config")


def checkout_main(inv, package, diags):
    """A launch of veRL's main_ppo where the veRL it imports is a checkout (``package``: its `verl` folder): the
    checkout's own verl/trainer/main_ppo.py is read, as a module of another name is (resolve). Without
    @hydra.main its own code composes the config; a trainer class of its own is named (RFTC234)."""
    from rftc.verl.primary import hydra_main
    from rftc.verl.primary.files import display

    file = package / "trainer" / "main_ppo.py"
    tree = hydra_main.parse(file) if file.is_file() else None
    runs = hydra_main.trainer(tree, display(file)) if tree is not None else None
    if runs is None:
        return inv
    if hydra_main.declared_in(tree) is None:
        return _without_hydra(inv, tree, file, f"the entry module {inv.module} is the checkout's {display(file)}",
                              runs, inv.module, diags) or inv
    inv.own_trainers = runs.own
    return inv


def _without_hydra(inv, tree, file, what_runs: str, runs, name: str, diags):
    """A fork main without @hydra.main: the config its own code composes (rftc.verl.primary.argparse_main) from
    the launch's words, read from its source; RFTC235 naming the line rftc cannot follow."""
    import dataclasses
    from pathlib import Path

    from rftc.shell.invocation import ForkEntry
    from rftc.verl.checkout.modules import launch_dir
    from rftc.verl.primary.argparse_main import Dotlist, Unfollowed, read
    from rftc.verl.primary.files import display

    words = inv.args if inv.module else inv.args[1:]
    shown = display(file)
    try:
        plan = read(tree, file, words, launch_dir(inv))
    except Unfollowed as exc:
        diags.add("RFTC235", f"{what_runs}; it has no @hydra.main and composes its config in its own code, which "
                  f"rftc cannot follow at {shown}:{exc.line}: {exc.why}, so its config is not composed", inv.span,
                  hint="convert a launch of verl.trainer.main_ppo with the config it loads: --config-path DIR "
                       "--config-name NAME")
        return None
    resolved = dataclasses.replace(inv, kind="main_ppo", args=[], overrides=[], config_path=None,
                                   config_name=None)
    resolved.fork = ForkEntry(str(file.resolve()), None, None, f"{shown}:{plan.trainer_line}", plan)
    parts = [f"the launch's {len(s.words)} dotlist word(s)" if isinstance(s, Dotlist) else
             f"'{s.word.text if s.word is not None else display(Path(s.path))}'" for s in plan.steps]
    what = " and ".join(runs.verl) or "a trainer class of its own"
    diags.add("RFTC233", f"{what_runs}; it has no @hydra.main: its own code composes its config with OmegaConf "
              f"({' merged with '.join(parts) or 'an empty config'}) and gives it to its trainer at "
              f"{resolved.fork.named_by}, and it runs {what}: converted as verl.trainer.main_ppo", inv.span)
    resolved.own_trainers = runs.own  # RFTC234 names them once the config is composed (own_trainer)
    return resolved


def release_era(inv):
    """A launch of an off-policy trainer under its release-era module name, as the trainer it is: the module it
    became (its config and semantics are that trainer's), the name kept for the messages; other launches as
    they are."""
    import dataclasses

    era = RECIPE_ERA.get(inv.module)
    return inv if era is None else dataclasses.replace(inv, module=era[0], kind="experimental", named=inv.module)


def era_releases(inv, pinned: str | None, diags) -> tuple[str, str] | None:
    """For a launch of a release-era trainer name: (the release whose bundled config is composed, the release whose
    semantics apply). The releases that shipped the name bundle no config for it (it is beside the package, in
    recipe/): the trainer's config is the one its module became, first bundled in MOVED_IN, with the semantics of
    the release pinned, else of the last that shipped it (RFTC229). A pinned release that did not ship the name:
    RFTC229 as an error, and None."""
    from rftc.verl.releases import order

    module, first, last, what = RECIPE_ERA[inv.named]
    line = order.parse(pinned).line if pinned and order.parse(pinned) is not None else None
    shipped = f"veRL {first} to {last} ship their {what} trainer as {inv.named}, a recipe of the repository " \
              f"(recipe/, beside the verl package, in no wheel); {MOVED_IN} moved it to {module}"
    if line is not None and not order.parse(first).line <= line <= order.parse(last).line:
        diags.add("RFTC229", f"{inv.named} does not exist in verl {pinned}: {shipped}", inv.span,
                  severity=_error(), hint=f"convert with --verl-version {last} (or {first} to {last}), or launch "
                  f"{module} as verl {pinned} names it")
        return None
    release = pinned if line is not None else last
    diags.add("RFTC229", f"{shipped}: the launch is converted as that trainer, with the config {MOVED_IN}'s wheel "
              f"bundles for it and the semantics of verl {release}", inv.span,
              hint=f"pin the release the job runs with --verl-version ({first} to {last}); the checkout's own "
                   f"recipe/{inv.named.split('.')[1]}/config is not read: compare it with {MOVED_IN}'s")
    return MOVED_IN, release


def _error():
    from rftc.diagnostics.model import Severity

    return Severity.ERROR
