"""The suite's skip policy (tests/conftest.py): under CI=true a skip whose reason is not on ALLOWED_SKIPS fails the
run and one on it does not, and the run lists every skip with its reason; outside CI a skip is a skip. Each case
runs pytest in a subprocess on a one-test file, with the suite's conftest.py as its plugin."""

import os
import subprocess
import sys

import pytest

from support.paths import ROOT

OFF_THE_LIST = 'def test_one():\n    pytest.skip("the verl reference is not built")\n'
ON_THE_LIST = ('@pytest.mark.skipif(True, reason="no NVIDIA GPU on this machine: the GPU path is untested here")\n'
               'def test_one():\n    pass\n')
WHOLE_MODULE = 'pytest.skip("the runtime is not installed in this Python", allow_module_level=True)\n'


def _pytest(tmp_path, test: str, ci: bool) -> subprocess.CompletedProcess:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # the folder is the run's root: the repository's ini is not read
    (tmp_path / "test_one.py").write_text("import pytest\n\n" + test)
    env = {k: v for k, v in os.environ.items() if k != "CI"} | ({"CI": "true"} if ci else {}) | {
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "tests"), os.environ.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "test_one.py"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("test, listed", [
    (OFF_THE_LIST, "REFUSED  test_one.py::test_one: the verl reference is not built"),
    (WHOLE_MODULE, "REFUSED  test_one.py: the runtime is not installed in this Python"),
], ids=["test", "module"])
def test_in_ci_a_skip_off_the_list_fails_the_run_and_is_named(tmp_path, test, listed):
    run = _pytest(tmp_path, test, ci=True)
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, run.stdout
    assert listed in run.stdout.splitlines(), run.stdout


def test_in_ci_a_skip_on_the_list_passes_and_is_listed(tmp_path):
    run = _pytest(tmp_path, ON_THE_LIST, ci=True)
    assert run.returncode == pytest.ExitCode.OK, run.stdout
    assert "allowed  test_one.py::test_one: no NVIDIA GPU on this machine: the GPU path is untested here" in run.stdout


def test_outside_ci_a_skip_is_a_skip(tmp_path):
    run = _pytest(tmp_path, OFF_THE_LIST, ci=False)
    assert run.returncode == pytest.ExitCode.OK, run.stdout
    assert "1 skipped" in run.stdout and "skips under CI=true" not in run.stdout
