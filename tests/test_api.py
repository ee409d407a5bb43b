"""rftc as a library (rftc.api): compile gives what `rftc convert` writes, and the IR it returns is the one
Trinity's loader gives for that YAML, so `rftc run` can train the IR without writing and reading the YAML back."""

import argparse
from pathlib import Path

import pytest

from rftc import api
from rftc.commands import convert
from support.paths import GOLDEN, arguments

CASES = [s for s in sorted((GOLDEN / "convert").rglob("*.sh")) if s.with_suffix(".yaml").read_text()]


def _options(script: Path) -> api.Options:
    """The options a golden case's NAME.args gives `rftc convert`."""
    parser = argparse.ArgumentParser()
    convert.add_arguments(parser)
    given = arguments(script.with_suffix(".args"))
    cut = given.index("--") if "--" in given else len(given)  # after `--`: the script's own arguments
    args = parser.parse_args(given[:cut])
    args.extra_args = given[cut + 1:] if cut < len(given) else None
    return convert.options(args)


@pytest.mark.parametrize("script", CASES, ids=lambda s: str(s.relative_to(GOLDEN / "convert")))
def test_compile_gives_the_golden_yaml_and_the_ir_trinity_loads_from_it(script, tmp_path, monkeypatch):
    monkeypatch.chdir(script.parent)
    result = api.compile(script.name, _options(script))
    assert result.ok, [(d.code, d.message) for d in result.diagnostics if d.severity.label == "error"]
    text = result.yaml()
    assert text == script.with_suffix(".yaml").read_text()
    written = tmp_path / "config.yaml"
    written.write_text(text)
    loaded = api.check(str(written))
    assert loaded.config is not None
    assert result.config.model_dump() == loaded.config.model_dump()


def test_compile_reports_what_the_script_gets_wrong_without_raising(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("python3 -m verl.trainer.main_ppo trainer.nnodes=2 no.such.key=1\n")
    result = api.compile(str(script))
    assert not result.ok  # veRL refuses the launch: rftc convert writes nothing
    assert "RFTC203" in [d.code for d in result.diagnostics]  # Hydra: the key is not in the config
    assert result.sources[str(script)] == script.read_text()


def test_compile_of_override_text_and_of_a_script_without_a_launch(tmp_path):
    result = api.compile(overrides="algorithm.adv_estimator=grpo data.train_batch_size=8")
    assert result.launch is not None and result.verl is not None and result.document is not None
    empty = tmp_path / "empty.sh"
    empty.write_text("echo nothing to train\n")
    nothing = api.compile(str(empty))
    assert nothing.config is None and [d.code for d in nothing.diagnostics] == ["RFTC112", "RFTC312"]


def test_a_launch_of_a_module_python_does_not_find_says_so(tmp_path):
    # `python3 -m mypkg.main_ppo` with no mypkg anywhere Python looks: "No module named mypkg"; with the package
    # but not the module, "No module named mypkg.main_ppo", as Python names the first part it cannot find
    script = tmp_path / "run.sh"
    script.write_text("python3 -m mypkg.main_ppo data.train_files=x\n")
    options = api.Options(cwd=str(tmp_path))

    def said() -> str:
        found = api.read([str(script)], options)
        api.trainings(found, [str(script)])
        [error] = [d for d in found.diagnostics if d.code == "RFTC312"]
        return error.message

    assert "Python does not find: there is no module mypkg in" in said() and '"No module named mypkg"' in said()
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    assert '"No module named mypkg.main_ppo"' in said()
    (tmp_path / "mypkg" / "main_ppo.py").write_text("print('not a trainer')\n")
    assert "does not find" not in said()  # it exists, and runs no trainer rftc converts


@pytest.mark.parametrize("options, message", [
    (dict(total_steps=0), "--total-steps must be positive"),
    (dict(sync_offset=-1), "--sync-offset must be >= 0"),
    (dict(verl_version="0.4.0", verl_source="/somewhere"), "not both"),
    (dict(cluster={"trainer.nnodes": 0}), "--nodes must be positive"),
])
def test_options_that_cannot_work_are_a_usage_error(options, message):
    with pytest.raises(api.UsageError, match=message):
        api.Options(**options)


def test_check_of_a_file_and_of_text():
    path = GOLDEN / "convert" / "run_deepseek7b_llm_seq_balance.yaml"
    from_file = api.check(str(path))
    assert from_file.ok and from_file.config.algorithm.algorithm_type
    from_text = api.check("editor.yaml", text=path.read_text())
    assert from_text.config.model_dump() == from_file.config.model_dump()
    broken = api.check("broken.yaml", text="mode: both\nbuffer: [1, 2\n")
    assert broken.config is None and broken.diagnostics.has_errors and broken.sources == {"broken.yaml":
                                                                                          "mode: both\nbuffer: [1, 2\n"}
