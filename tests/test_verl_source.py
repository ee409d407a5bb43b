"""The config of the veRL a launch imports: finding the checkout as Python would, the release it is, composing
its folder with hydra-core (group choices included), the keys a fork adds, and the cache."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Span
from rftc.shell.invocation import Arg, Invocation
from rftc.verl import effective_config
from rftc.verl.checkout import find as source, upstream as release
from rftc.verl.checkout.config_folder import FolderSchema
from rftc.verl.releases import schema
import verl_reference as reference
from support.cli import launch, records, rftc
from trinity_ref.reference import LAUNCH
from verl_checkout import FORK, write_checkout

MAIN = "verl.trainer.main_ppo"
pytestmark = pytest.mark.usefixtures("plain_terminal")


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RFTC_CACHE_DIR", str(tmp_path / "cache"))


def _inv(overrides=(), *, script="", cwd=None, entry_file=None, config_name=None, config_path=None) -> Invocation:
    args = [Arg(t, Span("<case>", 1, i + 1, 1, i + 1 + len(t))) for i, t in enumerate(overrides)]
    flag = lambda v: Arg(v, Span("<case>", 1, 1)) if v else None  # noqa: E731
    return Invocation(0, MAIN, "main_ppo", "python", Span("<case>", 1, 1), args, list(args), flag(config_path),
                      flag(config_name), cwd=str(cwd) if cwd else None, script=str(script), entry_file=entry_file)


# ---- finding the verl package ---------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["verl", "src/verl", "verl/verl"])
def test_the_launch_directory_is_searched_as_python_imports_verl(tmp_path, layout):
    package = write_checkout(tmp_path / "repo", layout=layout)
    (tmp_path / "repo" / "setup.py").write_text("")  # a project that installs its copy (src/, verl/verl)
    found = source.find(_inv(cwd=tmp_path / "repo"))
    assert found is not None and found.package == package.resolve()


def test_a_checkout_in_a_subfolder_counts_only_in_a_project(tmp_path):
    write_checkout(tmp_path / "repo", layout="verl/verl")
    (tmp_path / "repo" / "verl" / "pyproject.toml").write_text("")
    assert source.find(_inv(cwd=tmp_path / "repo")) is None  # no project here installs it: Python never imports it
    (tmp_path / "repo" / "setup.py").write_text("")
    assert source.find(_inv(cwd=tmp_path / "repo")) is not None


def test_the_search_stops_at_the_repository_the_script_belongs_to(tmp_path):
    write_checkout(tmp_path / "other", layout="verl/verl")  # a sibling repository that installs its checkout
    (tmp_path / "other" / "setup.py").write_text("")
    write_checkout(tmp_path)  # and a verl/ above both
    script = tmp_path / "mine" / "scripts" / "run.sh"
    script.parent.mkdir(parents=True)
    script.write_text("python3 -m verl.trainer.main_ppo\n")
    (tmp_path / "mine" / "pyproject.toml").write_text("")
    assert source.find(_inv(script=script, cwd="/no/such/dir")) is None


def test_the_script_folder_and_its_parents_follow_the_launch_directory(tmp_path):
    package = write_checkout(tmp_path / "repo")
    script = tmp_path / "repo" / "scripts" / "train" / "run.sh"
    script.parent.mkdir(parents=True)
    script.write_text("python3 -m verl.trainer.main_ppo\n")
    # the script cds to a folder of its author's machine: the repository the script is in is what it runs
    found = source.find(_inv(script=script, cwd="/no/such/cluster/path"))
    assert found.package == package.resolve() and "parent folder of the script" in found.how
    # the launch directory comes first
    near = write_checkout(tmp_path / "elsewhere")
    assert source.find(_inv(script=script, cwd=tmp_path / "elsewhere")).package == near.resolve()


def test_a_relative_cd_from_an_unknown_start_is_taken_from_where_rftc_runs(tmp_path, monkeypatch):
    package = write_checkout(tmp_path / "repo" / "sub")
    monkeypatch.chdir(tmp_path / "repo")
    assert source.find(_inv(cwd="${oc.env:PWD}/sub")).package == package.resolve()
    assert source.find(_inv()) is None  # rftc's own directory has no verl/


def test_an_entry_named_by_path_reads_the_config_beside_its_file(tmp_path):
    package = write_checkout(tmp_path / "a" / "third_party")
    write_checkout(tmp_path / "a")  # the launch directory has another copy: the path named wins
    found = source.find(_inv(cwd=tmp_path / "a", entry_file="third_party/verl/trainer/main_ppo.py"))
    assert found.package == package.resolve() and "entry file" in found.how


def test_verl_source_names_a_folder_its_verl_or_its_src_verl(tmp_path):
    for layout in ("verl", "src/verl"):
        package = write_checkout(tmp_path / layout.replace("/", "_"), layout=layout)
        assert source.from_dir(package.parent if layout == "verl" else package.parents[1]).package == package
        assert source.from_dir(package).package == package
    assert source.from_dir(tmp_path) is None
    proc = rftc("lint", "--overrides", "trainer.nnodes=1", "--verl-source", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 2 and "no veRL config there" in proc.stderr
    proc = rftc("lint", "--overrides", "trainer.nnodes=1", "--verl-source", str(package), "--verl-version",
                 "0.9.1", cwd=tmp_path)
    assert proc.returncode == 2 and "not both" in proc.stderr


def _read(folder: Path, text: str, *, cwd: Path | None = None):
    """The launch of folder/run.sh (``text``), read as `rftc` run from ``cwd`` (default: the folder) reads it."""
    from rftc import api

    (folder / "run.sh").write_text(text)
    return api.read([str(folder / "run.sh")], api.Options(cwd=str(cwd or folder))).launches[0]


STANDARD = "actor_rollout_ref.rollout.name=vllm trainer.n_gpus_per_node=4"


def test_a_verl_folder_of_yaml_alone_is_a_namespace_folder_python_passes_over(tmp_path):
    """A `verl/` with no __init__.py and no module: Python imports the installed veRL (a regular package wins over
    a namespace folder), so Hydra composes that package's config, never this YAML; rftc composes a bundled
    release and says so. The same folder with a module in it is one Python may import."""
    package = write_checkout(tmp_path, fork=False)
    (package / "__init__.py").unlink()
    inv = _read(tmp_path, f"python3 -m verl.trainer.main_ppo {STANDARD}\n")
    passed = []
    assert source.find(inv, passed) is None and [p.code for p in passed] == ["RFTC238"]
    diags = Diagnostics()
    eff = effective_config(inv, diags=diags)
    assert eff.source == "" and not any(d.code == "RFTC230" for d in diags)
    [said] = [d for d in diags if d.code == "RFTC238"]
    assert "verl/ has no __init__.py and no Python module" in said.message and \
        f"checked against the bundled verl {eff.verl_version}" in said.message
    (package / "trainer" / "main_ppo.py").write_text("")
    assert source.find(inv).package == package.resolve()


def test_of_two_nested_checkouts_the_one_of_the_script_s_project_is_imported(tmp_path):
    """A repository with two veRL projects: the script belongs to tasks/, whose install puts tasks/ on sys.path,
    so tasks/verl is the veRL that runs, not base/verl, the first by name; a script of neither names both."""
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\n")
    for name in ("base", "tasks"):
        write_checkout(tmp_path / name)
        (tmp_path / name / "setup.py").write_text("")
    (tmp_path / "tasks" / "examples").mkdir()
    found = source.find(_read(tmp_path / "tasks" / "examples", f"python3 -m verl.trainer.main_ppo {STANDARD}\n",
                              cwd=tmp_path))
    assert found.package == (tmp_path / "tasks" / "verl").resolve()
    assert "the project that holds the script" in found.how and "base/" in found.how
    found = source.find(_read(tmp_path, f"python3 -m verl.trainer.main_ppo {STANDARD}\n"))
    assert found.package == (tmp_path / "base" / "verl").resolve()
    assert "assumed, the first by name" in found.how and "tasks/" in found.how


@pytest.mark.parametrize("entry", ["{path_to_this_repo}/third_party/verl", "/workspace/repo/third_party/verl"])
def test_a_pythonpath_entry_of_another_machine_is_found_by_its_tail_and_said(tmp_path, entry):
    """A placeholder the user fills in, or the path the repository has in a container: the entry's tail is in
    the repository, and the veRL there (a fork with its own key) is composed, with RFTC236 naming both."""
    package = write_checkout(tmp_path / "third_party" / "verl", layout="verl")
    (tmp_path / "pyproject.toml").write_text("")
    inv = _read(tmp_path, f"export PYTHONPATH={entry}:$PYTHONPATH\npython3 -m verl.trainer.main_ppo {STANDARD} "
                "max_turns=4\n")
    diags = Diagnostics()
    eff = effective_config(inv, diags=diags)
    assert eff.source.endswith("/third_party/verl/verl/") and eff.get("max_turns") == 4 and not diags.errors
    [said] = [d for d in diags if d.code == "RFTC236"]
    assert f"'{entry}'" in said.message and said.message.endswith("third_party/verl/verl/")
    assert source.find(inv).package == package.resolve()


def test_a_pythonpath_entry_not_here_is_named_with_the_release_checked_instead(tmp_path):
    """The veRL the script puts first on PYTHONPATH is a git submodule not checked out here (or a path no tail of
    which is in the repository): the diagnostic names it, its url and branch, and the bundled release the launch
    was checked against instead."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / ".gitmodules").write_text('[submodule "verl"]\n\tpath = verl\n\turl = https://example.org/f/verl-'
                                          'fork.git\n\tbranch = my-feature\n')
    (tmp_path / "scripts").mkdir()
    inv = _read(tmp_path / "scripts", 'ROOT="$(cd "$(dirname "$0")/.." && pwd)"\ncd "$ROOT"\nexport PYTHONPATH='
                f'"$ROOT/verl:/opt/elsewhere/lib:$PYTHONPATH"\npython3 -m verl.trainer.main_ppo {STANDARD}\n',
                cwd=tmp_path)
    diags = Diagnostics()
    eff = effective_config(inv, diags=diags)
    said = [d.message for d in diags if d.code == "RFTC239"]
    assert len(said) == 2 and all(f"checked against the bundled verl {eff.verl_version}" in m for m in said)
    assert "the git submodule verl/ (https://example.org/f/verl-fork.git, branch my-feature), not checked out" \
        in said[0]
    assert "'/opt/elsewhere/lib'" in said[1] and "no tail of it is in the repository" in said[1]


def test_a_submodule_not_checked_out_is_named_with_the_commit_the_repository_records(tmp_path):
    """The gitlink in the repository's index is the commit `git submodule update` checks out."""
    import subprocess

    (tmp_path / ".gitmodules").write_text('[submodule "verl"]\n\tpath = verl\n\turl = https://example.org/f/verl.git\n')
    commit = "3c1f0e9a7b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e"
    for argv in (["init", "-q"], ["update-index", "--add", "--cacheinfo", f"160000,{commit},verl"]):
        subprocess.run(["git", "-C", str(tmp_path), *argv], check=True)
    inv = _read(tmp_path, f"export PYTHONPATH=verl\npython3 -m verl.trainer.main_ppo {STANDARD}\n")
    diags = Diagnostics()
    effective_config(inv, diags=diags)
    [said] = [d.message for d in diags if d.code == "RFTC239"]
    assert f"the git submodule verl/ (https://example.org/f/verl.git, commit {commit}), not checked out" in said


# ---- the release a checkout is ----------------------------------------------------------------------------------

def _release(tmp_path, version, keys_of, name="c") -> release.Release:
    package = write_checkout(tmp_path / name, version=version, release=keys_of, fork=False)
    keys = schema.key_paths(FolderSchema.of(source.from_dir(package)).compose("ppo_trainer").tree)
    return release.identify(package, keys)


@pytest.mark.parametrize("version, keys_of, expected, upstream", [
    ("0.5.0", "0.5.0", "0.5.0", "0.5.0"),  # a release's own config
    ("0.6.1", "0.7.0", "0.6.1", "0.7.0"),  # main after 0.6.1 carrying 0.7.0's keys, version not yet bumped
    ("0.7.0.dev", "0.6.1", "0.7.0.dev", "0.6.1"),  # the 0.7.0 development line before its config changed
    ("0.7.0.dev", "0.7.0", "0.7.0.dev", "0.7.0"),
    ("0.5.0.dev", "0.5.0", "0.5.0.dev", "0.5.0"),
    ("0.1", "0.5.0", "0.1", "0.2"),  # a window of 0.1 and the release after it
    ("0.10.0", "0.9.1", "0.10.0", "0.9.1"),  # no bundled release of that line: the closest of all
    (None, "0.7.1", "0.7.1", "0.7.1"),  # no version: the closest bundled config
    ("not a version", "0.6.1", "0.6.1", "0.6.1"),
])
def test_a_fork_follows_the_release_it_declares_and_is_compared_with_the_closest_upstream(tmp_path, version, keys_of,
                                                                                           expected, upstream):
    rel = _release(tmp_path, version, keys_of)
    assert (rel.release, rel.upstream) == (expected, upstream), rel.describe()
    assert rel.declared == version


def test_a_literal_version_in_the_package_counts_without_a_version_file(tmp_path):
    package = write_checkout(tmp_path, version=None, fork=False)
    (package / "__init__.py").write_text("import os\n__version__ = '0.5.0'\n")
    rel = release.identify(package, frozenset())
    assert (rel.release, rel.upstream, rel.declared, rel.declared_in) == ("0.5.0", "0.5.0", "0.5.0",
                                                                         "verl/__init__.py")


# ---- composing the checkout's config ---------------------------------------------------------------------------

def test_a_fork_key_composes_and_its_value_is_the_launch_s(tmp_path):
    package = write_checkout(tmp_path)
    diags = Diagnostics()
    eff = effective_config(_inv(["actor_rollout_ref.rollout.name=vllm", "max_turns=5",
                                 "actor_rollout_ref.actor.state_masking=true"], cwd=tmp_path), diags=diags)
    assert not diags.has_errors, [d.message for d in diags.errors]
    assert eff.get("max_turns") == 5 and eff.get("retriever.topk") == FORK["retriever"]["topk"]
    assert eff.source == f"{package}/" and eff.release == eff.verl_version == "0.5.0"
    assert eff.fork_keys == {"max_turns", "retriever.url", "retriever.topk", "actor_rollout_ref.actor.state_masking"}
    info = next(d for d in diags if d.code == "RFTC230")
    assert str(package) in info.message and "declares verl 0.5.0 in verl/version/version" in info.message
    assert "retriever.topk, retriever.url" in info.notes[0]  # the fork's keys the launch leaves at their defaults


def test_group_choices_compose_as_hydra_composes_them(tmp_path):
    package = write_checkout(tmp_path)
    overrides = ["actor_rollout_ref.rollout.name=vllm", "actor@actor_rollout_ref.actor=my_actor",
                 "actor_rollout_ref.actor.ppo_mini_batch_size=64"]
    diags = Diagnostics()
    eff = effective_config(_inv(overrides, cwd=tmp_path), diags=diags)
    assert not diags.has_errors, [d.message for d in diags.errors]
    assert eff.get("actor_rollout_ref.actor.ppo_epochs") == 3
    theirs = reference.compose(package / "trainer" / "config", "ppo_trainer", overrides)
    assert eff.values == theirs
    bad = Diagnostics()
    assert effective_config(_inv(["actor@actor_rollout_ref.actor=no_such"], cwd=tmp_path), diags=bad) is None
    err = next(d for d in bad if d.code == "RFTC207")
    assert "no_such" in err.message and "actor" in err.hint


def test_what_a_group_choice_or_the_checkout_changes_is_the_launch_s_to_map(tmp_path):
    package = write_checkout(tmp_path)  # ppo_trainer of 0.5.0, which the checkout declares
    actor = package / "trainer" / "config" / "actor" / "dp_actor.yaml"
    actor.write_text(actor.read_text().replace("clip_ratio: 0.2", "clip_ratio: 0.3"))
    inv = _inv(["actor_rollout_ref.rollout.name=vllm", "actor@actor_rollout_ref.actor=my_actor"], cwd=tmp_path)
    eff = effective_config(inv, diags=Diagnostics())
    chosen = eff.prov("actor_rollout_ref.actor.ppo_epochs")  # my_actor's 3: the launch chose it
    assert eff.get("actor_rollout_ref.actor.ppo_epochs") == 3 and chosen.text == "actor@actor_rollout_ref.actor=my_actor"
    eff = effective_config(_inv(["actor_rollout_ref.rollout.name=vllm"], cwd=tmp_path), diags=Diagnostics())
    changed = eff.prov("actor_rollout_ref.actor.clip_ratio")  # upstream 0.5.0 says 0.2: the checkout's own value
    assert eff.get("actor_rollout_ref.actor.clip_ratio") == 0.3 and changed.kind == "config-file"
    assert changed.span.file.endswith("dp_actor.yaml") and actor.read_text().splitlines()[changed.span.line - 1] \
        .strip() == "clip_ratio: 0.3"
    assert not eff.user_set("actor_rollout_ref.actor.ppo_epochs")  # as upstream's: left to the defaults
    trainer = package / "trainer" / "config" / "ppo_trainer.yaml"
    moved = yaml.safe_load(trainer.read_text())
    moved["critic"]["_target_"] = "verl.workers.config.FSDPCriticConfig"  # the class moved, no setting changed
    trainer.write_text(yaml.safe_dump(moved, sort_keys=False))
    eff = effective_config(_inv(["actor_rollout_ref.rollout.name=vllm"], cwd=tmp_path), diags=Diagnostics())
    assert eff.get("critic._target_") == "verl.workers.config.FSDPCriticConfig"
    assert not eff.user_set("critic._target_")


def test_an_unknown_key_on_a_bundled_release_names_verl_source(tmp_path):
    diags = Diagnostics()
    effective_config(_inv(["actor_rollout_ref.rollout.name=vllm", "max_turns=5"], cwd=tmp_path), diags=diags)
    err = next(d for d in diags if d.code == "RFTC203")
    assert any("--verl-source" in n for n in err.notes)


def test_bundled_and_verl_version_leave_the_checkout_aside(tmp_path):
    write_checkout(tmp_path)
    for kwargs in ({"source": source.BUNDLED}, {"verl_version": "0.9.1"}):
        diags = Diagnostics()
        eff = effective_config(_inv(["actor_rollout_ref.rollout.name=vllm"], cwd=tmp_path), diags=diags, **kwargs)
        assert eff.source == "" and not any(d.code == "RFTC230" for d in diags)


def test_a_config_folder_hydra_cannot_compose_is_reported_not_raised(tmp_path):
    package = write_checkout(tmp_path)
    (package / "trainer" / "config" / "ppo_trainer.yaml").write_text("defaults:\n  - no_such_file\n  - _self_\n")
    diags = Diagnostics()
    assert effective_config(_inv(["trainer.nnodes=1"], cwd=tmp_path), diags=diags) is None
    assert any(d.code == "RFTC211" and "no_such_file" in d.message for d in diags)


def test_a_changed_file_is_composed_again_and_the_cache_is_on_disk(tmp_path):
    package = write_checkout(tmp_path)
    inv = _inv(["actor_rollout_ref.rollout.name=vllm"], cwd=tmp_path)
    assert effective_config(inv, diags=Diagnostics()).get("max_turns") == 2
    cached = list((tmp_path / "cache" / "verl-configs").glob("*.json.gz"))
    assert cached
    config = package / "trainer" / "config" / "ppo_trainer.yaml"
    config.write_text(config.read_text().replace("max_turns: 2", "max_turns: 7"))
    assert effective_config(inv, diags=Diagnostics()).get("max_turns") == 7


def test_a_relative_config_path_resolves_against_the_entry_module_in_the_checkout(tmp_path):
    package = write_checkout(tmp_path / "fork")
    custom = package / "trainer" / "config_custom"
    custom.mkdir()
    (custom / "mine.yaml").write_text("defaults:\n  - ppo_trainer\n  - _self_\nmax_turns: 9\n")
    diags = Diagnostics()
    eff = effective_config(_inv(["actor_rollout_ref.rollout.name=vllm"], config_path="config_custom",
                                config_name="mine"), source=source.from_dir(tmp_path / "fork"), diags=diags)
    assert not diags.has_errors, [d.message for d in diags.errors]
    assert eff.get("max_turns") == 9 and eff.user_set("max_turns")


def _multi_turn(package: Path) -> None:
    """A second config of the fork, with a key its ppo_trainer lacks."""
    (package / "trainer" / "config" / "ppo_trainer_mt.yaml").write_text(
        "defaults:\n  - ppo_trainer\n  - _self_\nmulti_turn_rounds: 3\n")


MAIN_PY = """import hydra
from hydra import main as hydra_main


@hydra_main(config_path={path!r}, config_name={name}, version_base=None)
def main(config):
    run_ppo(config)
"""


@pytest.mark.parametrize("path,name", [("config", "'ppo_trainer_mt'"), (None, "'ppo_trainer_mt'"),
                                       ("./config", "\"ppo_trainer_mt\"")])
def test_the_checkout_s_entry_module_names_the_config_it_composes(tmp_path, path, name):
    package = write_checkout(tmp_path)
    _multi_turn(package)
    main_py = package / "trainer" / "main_ppo.py"
    main_py.write_text(MAIN_PY.format(path=path, name=name))
    diags = Diagnostics()
    eff = effective_config(_inv(["actor_rollout_ref.rollout.name=vllm"], cwd=tmp_path), diags=diags)
    assert not diags.has_errors, [d.message for d in diags.errors]
    assert eff.get("multi_turn_rounds") == 3  # ppo_trainer_mt, though the launch names no config
    info = next(d for d in diags if d.code == "RFTC230")
    assert "'ppo_trainer_mt' (named by" in info.message and "main_ppo.py:5's @hydra.main" in info.message
    assert not any(d.code == "RFTC231" for d in diags)
    named = effective_config(_inv(["actor_rollout_ref.rollout.name=vllm"], cwd=tmp_path, config_name="ppo_trainer"),
                             diags=Diagnostics())
    assert named.get("multi_turn_rounds", None) is None  # --config-name on the command line wins, as in Hydra


def test_without_the_entry_module_the_only_config_with_the_launch_s_keys_is_composed_with_a_warning(tmp_path):
    package = write_checkout(tmp_path)
    _multi_turn(package)
    overrides = ["actor_rollout_ref.rollout.name=vllm", "multi_turn_rounds=5"]
    diags = Diagnostics()
    eff = effective_config(_inv(overrides, cwd=tmp_path), diags=diags)
    assert not diags.has_errors, [d.message for d in diags.errors]
    assert eff.get("multi_turn_rounds") == 5 and eff.config_name == "ppo_trainer_mt"
    warn = next(d for d in diags if d.code == "RFTC231")
    assert "'ppo_trainer' lacks multi_turn_rounds" in warn.message and "no verl/trainer/main_ppo.py" in warn.message
    assert warn.hint.startswith("name it with --config-name ppo_trainer_mt")
    # a launch ppo_trainer accepts composes ppo_trainer, without a warning
    plain = Diagnostics()
    assert effective_config(_inv(overrides[:1], cwd=tmp_path), diags=plain).config_name == "ppo_trainer"
    assert not any(d.code == "RFTC231" for d in plain)
    # two configs with the key: nothing is chosen, the error names one of them
    (package / "trainer" / "config" / "ppo_trainer_mt2.yaml").write_text(
        "defaults:\n  - ppo_trainer\n  - _self_\nmulti_turn_rounds: 4\n")
    both = Diagnostics()
    assert effective_config(_inv(overrides, cwd=tmp_path), diags=both) is None or both.has_errors
    err = next(d for d in both if d.code == "RFTC203")
    assert "--config-name ppo_trainer_mt" in err.hint and not any(d.code == "RFTC231" for d in both)


def test_an_entry_module_that_names_its_config_by_a_variable_is_not_read(tmp_path):
    package = write_checkout(tmp_path)
    _multi_turn(package)
    (package / "trainer" / "main_ppo.py").write_text(MAIN_PY.format(path="config", name="CONFIG_NAME"))
    diags = Diagnostics()
    eff = effective_config(_inv(["actor_rollout_ref.rollout.name=vllm", "multi_turn_rounds=5"], cwd=tmp_path),
                           diags=diags)
    assert eff.config_name == "ppo_trainer_mt"
    assert "verl/trainer/main_ppo.py has no @hydra.main rftc can read" in next(
        d for d in diags if d.code == "RFTC231").message


# ---- the conversion of a fork's launch --------------------------------------------------------------------------

def test_a_fork_s_keys_are_reported_once_each_and_the_conversion_goes_on(tmp_path):
    write_checkout(tmp_path)
    launch(tmp_path, *LAUNCH, "algorithm.adv_estimator=grpo", "actor_rollout_ref.rollout.n=2", "max_turns=5",
           "retriever.topk=8")
    proc = rftc("convert", "run.sh", "-o", "out.yaml", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    diags = records(proc.stderr)
    fork = [d for d in diags if d["code"] == "RFTC327"]
    assert sorted(d["key"] for d in fork) == ["max_turns", "retriever.topk"]
    assert all(d["severity"] == "warning" and "a feature of the veRL fork at verl/," in d["message"] for d in fork)
    assert any("max_turns=5" in d["message"] for d in fork)
    assert (tmp_path / "out.yaml").is_file()
    ledger = rftc("convert", "run.sh", "-o", "out.yaml", "--report", "--format", "concise", cwd=tmp_path).stderr
    rows = [line for line in ledger.splitlines() if line.startswith("│ max_turns") or "│ retriever.topk" in line]
    assert len(rows) == 2 and all("reported" in r and "RFTC327" in r for r in rows), ledger[-3000:]


def test_a_fork_s_keys_dropped_from_a_run_that_would_not_learn_stop_the_conversion(tmp_path):
    """GRPO with one rollout per task (RFTC478) from a fork whose config declares keys rftc cannot read (one may be
    the group size its code reads in place of rollout.n): an error naming them, and nothing written."""
    package = write_checkout(tmp_path)
    config = package / "trainer" / "config" / "ppo_trainer.yaml"
    config.write_text(config.read_text() + "policy_rollout_n: 8\n")
    launch(tmp_path, *LAUNCH, "algorithm.adv_estimator=grpo")
    proc = rftc("convert", "run.sh", "-o", "out.yaml", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    (d,) = [d for d in records(proc.stderr) if d["code"] == "RFTC343"]
    assert d["severity"] == "error" and "policy_rollout_n=8" in d["message"] and "max_turns=2" in d["message"]
    assert "url" not in d["message"]  # counts only: a URL cannot be a group size
    assert any(r["code"] == "RFTC478" for r in records(proc.stderr)) and not (tmp_path / "out.yaml").exists()


FORK_TRAINER = """\"\"\"The fork's trainer: it counts environments, not prompts; ppo_mini_batch_size is unchecked.\"\"\"


class RayPPOTrainer:
    def _validate_config(self):
        n_gpus = self.config.trainer.n_gpus_per_node * self.config.trainer.nnodes
        assert self.config.data.train_batch_size * self.config.actor_rollout_ref.rollout.n % n_gpus == 0
{check}"""


@pytest.mark.parametrize("has_check", [False, True])
def test_upstream_s_startup_check_is_the_fork_s_only_where_its_trainer_has_it(has_check, tmp_path):
    """V1: the fork's own ray_trainer.py decides; a check its code never reads is upstream's, not the fork's."""
    package = write_checkout(tmp_path, version="0.3.1.dev", release="0.3.0.post1")  # its checks are certain
    check = "        c = self.config\n        assert c.data.train_batch_size >= c.actor_rollout_ref.actor.ppo_mini_batch_size\n"
    trainer = package / "trainer" / "ppo" / "ray_trainer.py"
    trainer.parent.mkdir(parents=True)
    trainer.write_text(FORK_TRAINER.format(check=check if has_check else ""))
    launch(tmp_path, *LAUNCH, "actor_rollout_ref.actor.ppo_mini_batch_size=8", "actor_rollout_ref.rollout.n=2")
    diags = records(rftc("convert", "run.sh", "-o", "out.yaml", "--format", "json", cwd=tmp_path).stderr)
    mini = [d for d in diags if "must be >= actor.ppo_mini_batch_size (8)" in d["message"]]
    assert [d["code"] for d in mini] == ["RFTC221" if has_check else "RFTC228"], diags
    if not has_check:
        assert mini[0]["severity"] == "warning" and "upstream veRL" in mini[0]["message"]
        assert "verl/trainer/ppo/ray_trainer.py) never reads ppo_mini_batch_size" in mini[0]["message"]
        (batch,) = [d for d in diags if d["code"] == "RFTC302"]
        assert "fork's trainer makes of the batch is known only from its code" in batch["message"]


def test_a_checkout_s_main_ppo_with_a_trainer_class_of_its_own_is_a_warning_naming_it_and_its_keys(tmp_path):
    """`python3 -m verl.trainer.main_ppo` runs the checkout's main_ppo.py, whose @hydra.main trains with a class of
    the fork's (in its copy of veRL's package): RFTC234 names the class and the fork's own keys."""
    package = write_checkout(tmp_path)
    (package / "trainer" / "main_ppo.py").write_text(
        "import hydra\nfrom verl.trainer.ppo.agent_trainer import AgentTrainer\n\n\n"
        "@hydra.main(config_path='config', config_name='ppo_trainer', version_base=None)\n"
        "def main(config):\n    AgentTrainer(config).fit()\n")
    launch(tmp_path, *LAUNCH, "algorithm.adv_estimator=grpo", "actor_rollout_ref.rollout.n=2", "max_turns=5")
    proc = rftc("convert", "run.sh", "-o", "out.yaml", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (d,) = [d for d in records(proc.stderr) if d["code"] == "RFTC234"]
    assert d["severity"] == "warning" and "verl.trainer.ppo.agent_trainer.AgentTrainer" in d["message"]
    assert "max_turns, retriever.topk, retriever.url" in d["message"]


def test_without_the_fork_s_config_its_keys_stay_errors(tmp_path):
    launch(tmp_path, *LAUNCH, "max_turns=5")
    proc = rftc("convert", "run.sh", "-o", "out.yaml", "--format", "concise", cwd=tmp_path)
    assert proc.returncode == 1 and "error[RFTC203] unknown key 'max_turns'" in proc.stderr


def test_hydra_main_is_read_from_the_source_without_importing_it(tmp_path):
    from rftc.verl.primary import hydra_main as entry

    f = tmp_path / "m.py"
    f.write_text("import hydra\nimport no_such_module\n\n@hydra.main('cfg', 'mine', None)\ndef main(c): ...\n")
    got = entry.declared(f)
    assert (got.config_path, got.config_name, got.literal, got.line) == ("cfg", "mine", True, 4)
    f.write_text("import hydra\nNAME = 'x'\n@hydra.main(config_path='config', config_name=NAME)\ndef main(c): ...\n")
    assert entry.declared(f).literal is False
    f.write_text("def main(:\n")
    assert entry.declared(f) is None  # a file Python cannot parse: nothing is read from it
    assert entry.declared(tmp_path / "absent.py") is None
    f.write_text("from omegaconf import main\n@main(config_name='x')\ndef run(c): ...\n")
    assert entry.declared(f) is None  # not hydra's


def test_a_launch_naming_only_the_config_path_takes_the_name_from_the_checkout_s_entry_module(tmp_path):
    package = write_checkout(tmp_path)
    _multi_turn(package)
    (package / "trainer" / "main_ppo.py").write_text(MAIN_PY.format(path="config", name="'ppo_trainer_mt'"))
    eff = effective_config(_inv(["actor_rollout_ref.rollout.name=vllm"], cwd=tmp_path, config_path="config"),
                           diags=Diagnostics())
    assert eff.get("multi_turn_rounds") == 3  # as Hydra: --config-path alone keeps the decorator's config_name



def test_a_forks_sampling_default_is_carried_into_the_conversion(tmp_path):
    """A fork's own config (here one over its ppo_trainer, as --config-name picks it) may default top_p otherwise
    than veRL and Trinity (1.0): the conversion sets it, or Trinity would sample from another nucleus."""
    package = write_checkout(tmp_path / "repo")
    (package / "trainer" / "config" / "own.yaml").write_text(
        "defaults:\n  - ppo_trainer\n  - _self_\n\nactor_rollout_ref:\n  rollout:\n    top_p: 0.9\n")
    (tmp_path / "repo" / "run.sh").write_text(
        "python3 -m verl.trainer.main_ppo --config-name=own algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=4 "
        "actor_rollout_ref.actor.use_dynamic_bsz=True actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True "
        "actor_rollout_ref.ref.log_prob_use_dynamic_bsz=True\n")
    proc = rftc("convert", "run.sh", "--dataset-size", "1000", cwd=tmp_path / "repo")
    top_p = [line for line in proc.stdout.splitlines() if line.strip().startswith("top_p:")]
    assert top_p and "0.9" in top_p[0] and "its veRL config's default" in top_p[0], proc.stderr


def test_a_fork_before_0_4_0_clips_at_clip_ratio_whatever_its_config_declares(tmp_path):
    """Before 0.4.0 the PPO loss reads clip_ratio only: a fork's clip_ratio_low/high (here -1, unset) are not its
    clip range, as the conversion reads them too."""
    import contextlib

    from rftc import api
    from rftc.semantics.verl import from_verl

    package = write_checkout(tmp_path / "repo", version="0.3.0.post1", release="0.3.0.post1")
    actor = package / "trainer" / "config" / "actor" / "dp_actor.yaml"
    actor.write_text(actor.read_text() + "clip_ratio_low: -1\nclip_ratio_high: -1\n")
    launch(tmp_path / "repo", "algorithm.adv_estimator=grpo", "actor_rollout_ref.rollout.n=4")
    with contextlib.chdir(tmp_path / "repo"):
        eff = api.compile("run.sh", api.Options(dataset_size=1000)).verl
    assert eff.values["actor_rollout_ref"]["actor"]["clip_ratio_low"] == -1
    run = from_verl(eff, dataset_rows=1000)
    assert (run.clip_low.value, run.clip_high.value) == (0.2, 0.2)
