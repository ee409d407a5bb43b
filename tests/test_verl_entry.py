"""A launch's entry module resolved as Python and Hydra resolve it (rftc.verl.checkout.modules, rftc.verl.trainers,
rftc.verl.primary.locate): differential tests against Python's own importlib.util.find_spec, run in a subprocess
with the script's PYTHONPATH and working directory on fixture trees written here (rftc itself never imports a
user's module), and against hydra-core's search path and compose for config paths; then every reproduction of
../shared/repro/launch-resolution of these classes converts or fails as the real tools do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rftc import api
from rftc.diagnostics.collector import Diagnostics
from rftc.verl.checkout.modules import find_spec, main_file, search_path
from rftc.verl.compose import effective_config
from rftc.verl.primary.hydra_main import parse, trainer
from support.cli import convert, launch

REPRO = Path(__file__).resolve().parents[2] / "shared" / "repro" / "launch-resolution"
needs_repro = pytest.mark.skipif(not REPRO.is_dir(), reason=f"the reproductions are not at {REPRO}")

# Python's own answer: the spec's origin and search locations, or None where it finds no module
_FIND_SPEC = """import importlib.util, json, sys
try:
    s = importlib.util.find_spec(sys.argv[1])
except ModuleNotFoundError:
    s = None
print(json.dumps(None if s is None else [s.origin, list(s.submodule_search_locations or [])]))"""


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        if not name.endswith("/"):
            (root / name).write_text(text)
    return root


def _launch(root: Path, exports: str, module: str):
    """The launch of ``python3 -m module`` after ``exports``, as rftc reads it from a script run in ``root``."""
    (root / "run.sh").write_text(f"{exports}\npython3 -m {module}\n")
    found = api.read([str(root / "run.sh")], api.Options(cwd=str(root)))
    return found.launches[0]


def _python(root: Path, exports: str, module: str):
    """importlib.util.find_spec(module) in a Python started by bash after ``exports`` in ``root``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    script = f'{exports}\nexec "$0" -s -c "$1" "$2"'
    out = subprocess.run(["bash", "-c", script, sys.executable, _FIND_SPEC, module], cwd=root, env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def _real(paths) -> list[str]:
    return [os.path.realpath(p) for p in paths]


# (files of the tree; the script's exports; the module): each a rule of Python's path finder
CASES = {
    "regular package in the working directory": (
        {"rfx_a/__init__.py": "", "rfx_a/main.py": ""}, "", "rfx_a.main"),
    "a regular package on PYTHONPATH before a namespace folder here": (
        {"rfx_b/main.py": "", "lib/rfx_b/__init__.py": "", "lib/rfx_b/main.py": ""},
        'export PYTHONPATH="lib:$PYTHONPATH"', "rfx_b.main"),
    "namespace folders merged: the module is in the second": (
        {"rfx_c/other.py": "", "lib/rfx_c/main.py": ""}, "export PYTHONPATH=lib", "rfx_c.main"),
    "a module file before a namespace folder of the same name": (
        {"rfx_d.py": "", "lib/rfx_d/": ""}, "export PYTHONPATH=lib", "rfx_d"),
    "a package before a module file of the same name": (
        {"rfx_e/__init__.py": "", "rfx_e.py": ""}, "", "rfx_e"),
    "PYTHONPATH entries in order, a relative and an empty one": (
        {"a/rfx_f.py": "", "b/rfx_f/__init__.py": ""}, 'PYTHONPATH="b:a:"; export PYTHONPATH', "rfx_f"),
    "the working directory before PYTHONPATH": (
        {"rfx_g.py": "", "lib/rfx_g/__init__.py": ""}, "export PYTHONPATH=lib", "rfx_g"),
    "a submodule only in its package's folder": (
        {"rfx_h/__init__.py": "", "lib/rfx_h/main.py": ""}, "export PYTHONPATH=lib", "rfx_h.main"),
    "a module is no package": ({"rfx_i.py": ""}, "", "rfx_i.main"),
    "no such module": ({}, "", "rfx_j.main"),
    "PYTHONPATH set in a branch bash takes": (
        {"lib/rfx_k/__init__.py": "", "lib/rfx_k/main.py": ""},
        'if [ -d lib ]; then export PYTHONPATH=lib; fi', "rfx_k.main"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_module_found_as_python_finds_it(case, tmp_path):
    files, exports, module = CASES[case]
    root = _tree(tmp_path, files)
    theirs = _python(root, exports, module)
    spec = find_spec(module, search_path(_launch(root, exports, module)))
    ours = None if spec is None else [str(spec.file) if spec.file else None, [str(f) for f in spec.folders]]
    if theirs is None or ours is None:
        assert ours == theirs
    else:
        assert _real(filter(None, [ours[0]])) == _real(filter(None, [theirs[0]]))
        assert _real(ours[1]) == _real(theirs[1])


def test_python_m_package_runs_its_main(tmp_path):
    root = _tree(tmp_path, {"rfx_m/__init__.py": "", "rfx_m/__main__.py": ""})
    spec = find_spec("rfx_m", search_path(_launch(root, "", "rfx_m")))
    assert _real([main_file(spec)]) == _real([_python(root, "", "rfx_m.__main__")[0]])


def test_an_editable_install_of_the_repository_is_after_pythonpath(tmp_path):
    """What `pip install -e` of the repository (src/ layout) and of a nested project put on sys.path: searched after
    the working directory and PYTHONPATH, as site-packages is."""
    root = _tree(tmp_path, {"pyproject.toml": "", "src/rfx_n/__init__.py": "", "sub/setup.py": "",
                            "sub/rfx_o/__init__.py": "", "lib/rfx_n/__init__.py": ""})
    inv = _launch(root, "export PYTHONPATH=lib", "rfx_n")
    path = search_path(inv)
    assert [p.folder for p in path] == [root, root / "lib", root / "src", root / "sub"]
    assert find_spec("rfx_n", path).file == root / "lib" / "rfx_n" / "__init__.py"
    assert find_spec("rfx_o", path).file == root / "sub" / "rfx_o" / "__init__.py"


FORK_MAIN = '''import hydra
from verl.trainer.main_ppo import run_ppo


@hydra.main(config_path="{path}", config_name="fork", version_base=None)
def main(config):
    run_ppo(config)
'''
FORK_CONFIG = "defaults:\n  - ppo_trainer\n  - _self_\nalgorithm:\n  adv_estimator: grpo\ndata:\n  train_batch_size: 64\n"
OVERRIDES = ("data.train_files=x.parquet actor_rollout_ref.model.path=m actor_rollout_ref.rollout.name=vllm "
             "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 "
             "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 "
             "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2")


@pytest.mark.parametrize("name", ["rfx_agents.recipe.search.main_ppo", "rfx_agents/recipe/search/main_ppo.py"])
def test_a_recipe_part_of_the_project_s_own_module_is_not_verl_s_recipe_package(name, tmp_path):
    """`python3 -m rfx_agents.recipe.search.main_ppo` runs the project's file (rfx_agents.recipe and its search are
    namespace packages), as Python's find_spec says; its @hydra.main composes the config beside it. It is not
    veRL's `recipe` package, whose recipes rftc composes by name."""
    root = _tree(tmp_path, {"rfx_agents/__init__.py": "",
                            "rfx_agents/recipe/search/main_ppo.py": FORK_MAIN.format(path="config"),
                            "rfx_agents/recipe/search/config/fork.yaml": FORK_CONFIG})
    origin, _ = _python(root, "", "rfx_agents.recipe.search.main_ppo")
    (root / "run.sh").write_text(f"python3 {'' if name.endswith('.py') else '-m '}{name} {OVERRIDES}\n")
    inv = api.read([str(root / "run.sh")], api.Options(cwd=str(root))).launches[0]
    assert inv.fork is not None and inv.kind == "main_ppo", inv
    assert os.path.realpath(root / inv.fork.file) == os.path.realpath(origin)
    diags = Diagnostics()
    eff = effective_config(inv, diags=diags)
    assert eff is not None and not diags.errors and eff.values["data"]["train_batch_size"] == 64


@pytest.mark.parametrize("config_path", ["config", "./config", "../conf", "../pkg_conf/../conf"])
def test_fork_config_is_where_hydra_looks_and_composes_as_hydra_does(config_path, tmp_path):
    """Hydra's own search path of the fork's @hydra.main (compute_search_path_dir on the file Python runs), and its
    compose there with the launch's overrides (veRL's ppo_trainer reached through the search path): rftc composes
    the same folder and the same values."""
    from hydra._internal.utils import compute_search_path_dir

    import verl_reference as reference

    folder = "rfx_fork/trainer/config" if "config" in config_path else "rfx_fork/conf"
    root = _tree(tmp_path, {"rfx_fork/__init__.py": "", "rfx_fork/trainer/__init__.py": "",
                            "rfx_fork/trainer/main.py": FORK_MAIN.format(path=config_path),
                            f"{folder}/fork.yaml": FORK_CONFIG})
    inv = _launch(root, "", f"rfx_fork.trainer.main {OVERRIDES}")
    assert inv.fork is not None and inv.kind == "main_ppo"
    diags = Diagnostics()
    eff = effective_config(inv, diags=diags)
    assert eff is not None, diags
    hydra_dir = compute_search_path_dir(str(root / "rfx_fork/trainer/main.py"), None, config_path)
    assert os.path.realpath(hydra_dir) == os.path.realpath(root / folder)
    theirs = reference.compose(Path(hydra_dir), "fork", [a.text for a in inv.overrides], eff.release)
    assert eff.values == theirs


def test_relative_config_path_of_verl_main_is_relative_to_verl_trainer_and_hydra_fails_there(tmp_path):
    """`--config-path=.` with veRL's main_ppo: Hydra looks in the folder of the file Python runs (verl/trainer/ of
    the installed veRL), not beside the script, and finds no such config; rftc says so, naming verl/trainer/."""
    import importlib.util

    from hydra import compose, initialize_config_dir
    from hydra._internal.utils import compute_search_path_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import MissingConfigException

    verl = importlib.util.find_spec("verl")  # the top-level package only: nothing of verl is imported
    if verl is None:
        pytest.skip("verl is not installed in this environment")
    main_ppo = Path(next(iter(verl.submodule_search_locations))) / "trainer" / "main_ppo.py"
    hydra_dir = compute_search_path_dir(str(main_ppo), None, ".")
    assert Path(hydra_dir) == main_ppo.parent
    GlobalHydra.instance().clear()
    with pytest.raises(MissingConfigException), initialize_config_dir(config_dir=hydra_dir, version_base=None):
        compose(config_name="cfg")
    (tmp_path / "cfg.yaml").write_text(FORK_CONFIG)
    inv = _launch(tmp_path, "", f"verl.trainer.main_ppo --config-path=. --config-name=cfg {OVERRIDES}")
    diags = Diagnostics()
    assert effective_config(inv, diags=diags) is None
    assert [(d.code, "in verl/trainer/:" in d.message) for d in diags.errors] == [("RFTC209", True)]


TRAINERS = {
    "veRL's run_ppo": ("from verl.trainer.main_ppo import run_ppo\nrun_ppo(c)\n",
                       (("verl.trainer.main_ppo.run_ppo",), ())),
    "veRL's trainer through a module alias": (
        "import verl.trainer.ppo.ray_trainer as rt\nrt.RayPPOTrainer(config=c).fit()\n",
        (("verl.trainer.ppo.ray_trainer.RayPPOTrainer",), ())),
    "the fork's class of veRL's name": (
        "import verl\nfrom myfork.ray_trainer import RayPPOTrainer\nRayPPOTrainer(config=c)\n",
        ((), ("myfork.ray_trainer.RayPPOTrainer",))),
    "a subclass defined in the module": (
        "from verl.trainer.ppo.ray_trainer import RayPPOTrainer\nclass MyTrainer(RayPPOTrainer):\n    pass\n"
        "MyTrainer(config=c)\n", ((), ("MyTrainer (m.py:2)",))),
    "veRL's trainer through a variable": (
        "from verl.trainer.ppo.ray_trainer import RayPPOTrainer\ndef main(c):\n    trainer_cls = RayPPOTrainer\n"
        "    trainer_cls(c).fit()\n", (("verl.trainer.ppo.ray_trainer.RayPPOTrainer",), ())),
    "a class chosen in branches": (
        "from verl.trainer.ppo.ray_trainer import RayPPOTrainer\nclass MyTrainer(RayPPOTrainer):\n    pass\n"
        "if c.mine:\n    cls = MyTrainer\nelse:\n    cls = RayPPOTrainer\ncls(c)\n",
        (("verl.trainer.ppo.ray_trainer.RayPPOTrainer",), ("MyTrainer (m.py:2)",))),
    "a class chosen in a conditional expression": (
        "import verl.trainer.ppo.ray_trainer as rt\nfrom myfork.t import FastTrainer\n"
        "t = FastTrainer if fast else rt.RayPPOTrainer\nt(c)\n",
        (("verl.trainer.ppo.ray_trainer.RayPPOTrainer",), ("myfork.t.FastTrainer",))),
    "a fork's class in its copy of veRL's package": (
        "from verl.trainer.ppo.ray_trainer import RayPPOTrainer\nfrom verl.trainer.ppo.agent_trainer import "
        "AgentTrainer\nAgentTrainer(c).fit()\n", ((), ("verl.trainer.ppo.agent_trainer.AgentTrainer",))),
    "no veRL at all": ("from transformers import Trainer\nTrainer(model)\n", None),
    "no trainer": ("import verl\nprint(1)\n", None),
}


@pytest.mark.parametrize("case", sorted(TRAINERS))
def test_the_trainer_a_module_runs_is_read_from_its_source(case, tmp_path):
    source, expected = TRAINERS[case]
    (tmp_path / "m.py").write_text(source)
    found = trainer(parse(tmp_path / "m.py"), "m.py")
    assert (None if found is None else (found.verl, found.own)) == expected


# reproduction -> (its folder, the script, rftc's exit status, a code and a text its diagnostics must hold)
REPRODUCTIONS = {
    "C1": ("c1", "run.sh", 0, "RFTC233", "myfork/trainer/main_ppo.py"),
    "C1 simulated": ("c1", "run_sim.sh", 0, None, ""),
    "C6": ("c6", "run.sh", 0, "RFTC230", "lib/verl/ (found through the PYTHONPATH entry 'lib'"),
    "C9": ("myrepo", "run.sh", 0, "RFTC236", "'/workspace/myrepo/cfg'"),
    "C13": ("c13/scripts", "run.sh", 1, "RFTC209", "in verl/trainer/:"),
}


@needs_repro
@pytest.mark.parametrize("case", sorted(REPRODUCTIONS))
def test_reproduction_converts_or_fails_as_the_real_tools_do(case, tmp_path):
    folder, script, status, code, text = REPRODUCTIONS[case]
    run = convert(script, out=tmp_path, cwd=REPRO / folder, status=status)
    if code is not None:
        assert any(d["code"] == code and text in d["message"] for d in run.diagnostics), run.diagnostics
    if status == 1:
        assert [d["code"] for d in run.errors()] == [code]


@needs_repro
def test_a_fork_entry_module_composes_what_naming_its_config_folder_composes(tmp_path):
    """C1: `python3 -m myfork.trainer.main_ppo` composes the config its @hydra.main names, which run_sim.sh names
    explicitly to veRL's main_ppo: the same config, value for value."""
    configs = [convert(s, out=tmp_path / s, cwd=REPRO / "c1").configs for s in ("run.sh", "run_sim.sh")]
    values = [[line.split("#")[0].rstrip() for line in c[0].read_text().splitlines() if not line.startswith("#")]
              for c in configs]
    assert values[0] == values[1]


def test_config_dir_is_from_the_working_directory_not_the_entry_module(tmp_path):
    """--config-dir, unlike --config-path, is a folder Hydra adds to its search path as os.path.abspath reads it:
    from the working directory."""
    (tmp_path / "cfgdir").mkdir()
    (tmp_path / "cfgdir" / "cfg.yaml").write_text(FORK_CONFIG)
    inv = _launch(tmp_path, "", f"verl.trainer.main_ppo --config-dir=cfgdir --config-name=cfg {OVERRIDES}")
    diags = Diagnostics()
    eff = effective_config(inv, diags=diags)
    assert inv.config_dir and eff is not None and not diags.errors
    assert eff.values["data"]["train_batch_size"] == 64


def test_the_launch_s_config_flags_replace_the_fork_s_decorator_as_in_hydra(tmp_path):
    """`--config-path` (relative to the entry module's file, as Hydra's _run_hydra reads it) and `--config-name`
    given to a fork's module replace its @hydra.main's."""
    from hydra._internal.utils import compute_search_path_dir

    root = _tree(tmp_path, {"rfx_p/__init__.py": "", "rfx_p/main.py": FORK_MAIN.format(path="config"),
                            "rfx_p/config/fork.yaml": FORK_CONFIG,
                            "rfx_p/other/alt.yaml": FORK_CONFIG.replace("64", "96")})
    inv = _launch(root, "", f"rfx_p.main --config-path=other --config-name=alt {OVERRIDES}")
    diags = Diagnostics()
    eff = effective_config(inv, diags=diags)
    assert eff is not None and eff.values["data"]["train_batch_size"] == 96
    hydra_dir = compute_search_path_dir(str(root / "rfx_p/main.py"), None, "other")
    assert os.path.realpath(hydra_dir) == os.path.realpath(root / "rfx_p/other")


def test_a_fork_main_without_a_config_folder_is_explained_not_composed(tmp_path):
    root = _tree(tmp_path, {"rfx_q.py": FORK_MAIN.replace('config_path="{path}", ', "")})
    (root / "run.sh").write_text("python3 -m rfx_q x=1\n")
    found = api.read([str(root / "run.sh")], api.Options(cwd=str(root)))
    assert found.launches[0].fork is None
    assert [d.code for d in found.diagnostics.errors] == ["RFTC235"]
    assert "names no config_path" in found.diagnostics.errors[0].message


def test_a_container_path_is_found_by_its_longest_tail_in_the_repository_only(tmp_path):
    root = _tree(tmp_path, {"cfg/x.yaml": FORK_CONFIG, "repo/pyproject.toml": "", "repo/cfg/x.yaml": FORK_CONFIG,
                            "repo/conf/cfg/x.yaml": FORK_CONFIG.replace("64", "96")})
    inv = _launch(root / "repo", "", f"verl.trainer.main_ppo --config-path=/workspace/repo/conf/cfg --config-name=x "
                  f"{OVERRIDES}")
    diags = Diagnostics()
    eff = effective_config(inv, diags=diags)
    assert eff is not None and eff.values["data"]["train_batch_size"] == 96  # conf/cfg, not the shorter cfg
    [said] = [d for d in diags if d.code == "RFTC236"]
    assert "'/workspace/repo/conf/cfg'" in said.message and "conf/cfg" in said.message.split("repository, ")[1]
    (root / "repo" / "cfg" / "x.yaml").unlink()
    (root / "repo" / "cfg").rmdir()
    inv = _launch(root / "repo", "", f"verl.trainer.main_ppo --config-path=/mnt/data/cfg --config-name=x {OVERRIDES}")
    diags = Diagnostics()
    assert effective_config(inv, diags=diags) is None  # the cfg/ beside the repository is not its
    assert [d.code for d in diags.errors] == ["RFTC210"]


# the off-policy trainers' launch in the releases that shipped them as recipes, with what their startup needs
ASYNC_LAUNCH = ("data.train_files=data/train.parquet", "data.train_batch_size=0", "data.gen_batch_size=1",
                "actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct", "actor_rollout_ref.hybrid_engine=False",
                "actor_rollout_ref.rollout.name=vllm", "actor_rollout_ref.rollout.mode=async",
                "actor_rollout_ref.rollout.n=8", "actor_rollout_ref.actor.ppo_mini_batch_size=32",
                "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
                "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2",
                "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2", "critic.ppo_micro_batch_size_per_gpu=2",
                "trainer.nnodes=1", "trainer.n_gpus_per_node=4", "rollout.nnodes=1", "rollout.n_gpus_per_node=4",
                "rollout.total_rollout_steps=3200", "async_training.staleness_threshold=0.5",
                "async_training.trigger_parameter_sync_step=4")


@pytest.mark.parametrize("module, moved, pinned, release", [
    ("recipe.fully_async_policy.fully_async_main", "verl.experimental.fully_async_policy.fully_async_main", None,
     "0.7.0"),
    ("recipe.fully_async_policy.fully_async_main", "verl.experimental.fully_async_policy.fully_async_main", "0.7.0",
     "0.7.0"),
    ("recipe.fully_async_policy.fully_async_main", "verl.experimental.fully_async_policy.fully_async_main", "0.6.1",
     "0.6.1"),
    ("recipe.one_step_off_policy.main_ppo", "verl.experimental.one_step_off_policy.main_ppo", "0.5.0", "0.5.0"),
])
def test_a_release_era_trainer_name_converts_as_that_trainer(module, moved, pinned, release, tmp_path):
    """A1: the off-policy trainers under the recipe names of the releases that shipped them (not in any wheel:
    recipe/ beside the package) run the trainer 0.7.1 moved to verl.experimental; converted as it, with its
    bundled config and the semantics of the release pinned, else the last that shipped the name."""
    words = ASYNC_LAUNCH if "fully_async" in module else [
        "data.train_batch_size=64" if w == "data.train_batch_size=0" else w for w in ASYNC_LAUNCH
        if not w.startswith(("async_training.", "rollout.total_rollout_steps", "data.gen_batch_size"))]
    launch(tmp_path, *words, module=module)
    found = api.read([str(tmp_path / "run.sh")], api.Options(cwd=str(tmp_path)))
    (inv,) = found.launches
    assert (inv.module, inv.named) == (moved, module)
    result = api.verl_config(inv, api.Options(cwd=str(tmp_path), verl_version=pinned))
    assert result.verl is not None and result.verl.release == release, list(result.diagnostics)
    (d,) = [d for d in result.diagnostics if d.code == "RFTC229"]
    assert f"semantics of verl {release}" in d.message and moved in d.message
    pins = ("--verl-version", pinned) if pinned else ()
    convert(tmp_path / "run.sh", *pins, out=tmp_path / "out", cwd=tmp_path)


def test_a_release_era_trainer_name_under_a_release_that_did_not_ship_it_is_refused(tmp_path):
    launch(tmp_path, *ASYNC_LAUNCH, module="recipe.fully_async_policy.fully_async_main")
    run = convert(tmp_path / "run.sh", "--verl-version", "0.8.0", out=tmp_path / "out", cwd=tmp_path, status=1)
    (d,) = run.errors()
    assert d["code"] == "RFTC229" and "does not exist in verl 0.8.0" in d["message"]