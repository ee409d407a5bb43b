"""`rftc run --engine trinity`: the compiled config goes to Trinity-RFT's own launcher, which joins the Ray cluster
rftc started for it, loads and validates the config itself and prints it. The reference environment
(.venv-trinity, trinity-rft 0.6.0 with the packages its validator needs) cannot run Trinity's explorer and
trainer, so the launch is checked up to there and the launcher's exit code comes back as rftc's."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from runtime_support import require, require_model
from trinity_ref import reference

require("ray")
MODEL = require_model()
ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not reference.available(), reason=reference.MISSING)


def _run(tmp_path, *extra):
    env = dict(os.environ, RFTC_CHECKPOINT_DIR=str(tmp_path / "ckpt"), RFTC_DATA_DIR=str(tmp_path / "data"),
               RFTC_MODEL_DIR=str(MODEL), HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", "rftc", "run", "examples/arith_grpo.sh", "--engine", "trinity",
                           "--trinity-python", str(reference.PYTHON), *extra], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def test_trinitys_launcher_loads_the_compiled_config_in_the_same_cluster(tmp_path):
    from rftc_runtime.arith_taskset import write

    write(tmp_path / "data")
    done = _run(tmp_path)
    out = done.stdout + done.stderr
    config = tmp_path / "ckpt" / "rftc-examples" / "arith_grpo" / "trinity_config.yaml"
    assert config.is_file() and "algorithm_type: grpo" in config.read_text()
    started = re.search(r"-m trinity\.cli\.launcher run --config (\S+)\n  in the Ray cluster at (\S+)", out)
    assert started and started[1] == str(config), out[-3000:]
    # Trinity's own process joined that cluster, then loaded, validated and printed the config
    assert f"Connecting to existing Ray cluster at address: {started[2]}" in out, out[-3000:]
    assert "Config(mode='both'" in out and "project='rftc-examples'" in out and "repeat_times=8" in out
    # past that point the reference environment lacks what Trinity's explorer and trainer import: the launcher
    # fails, and its exit code is rftc's
    assert done.returncode != 0 and "done:" not in done.stdout


def test_a_python_without_trinity_is_refused_before_anything_starts(tmp_path):
    env = dict(os.environ, RFTC_CHECKPOINT_DIR=str(tmp_path / "ckpt"), RFTC_MODEL_DIR=str(MODEL))
    done = subprocess.run([sys.executable, "-m", "rftc", "run", "examples/arith_grpo.sh", "--engine", "trinity",
                           "--trinity-python", sys.executable], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1 and "error[RFTC510] --engine trinity: trinity-rft cannot be imported" in done.stderr
    assert not (tmp_path / "ckpt").exists()


def test_the_dry_run_names_the_launch(tmp_path):
    done = _run(tmp_path, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert f"engine        Trinity-RFT's launcher: {reference.PYTHON} -m trinity.cli.launcher run --config " \
        f"{tmp_path}/ckpt/rftc-examples/arith_grpo/trinity_config.yaml" in done.stdout
