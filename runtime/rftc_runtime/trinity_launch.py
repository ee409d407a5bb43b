"""``rftc run --engine trinity``: the compiled config run by Trinity-RFT's own launcher (``trinity run``), in the Ray
cluster ``rftc run`` would use (the one at ``--address``, or a local one started here for the launch). The path
for what this runtime does not cover (explorer_driven and async sync styles, Trinity's own workflows, agents).

Trinity's launcher requires a running cluster and joins it through ``RAY_ADDRESS``; it loads the YAML itself
(``load_config``, ``check_and_update``), so its own validation and defaults apply. A config that names rftc's
Trinity classes (rftc.trinity.verl_workflow, rftc.trinity.verl_algorithms) needs rftc importable beside
trinity-rft: the launcher gets this rftc on its PYTHONPATH.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import rftc


def launcher_command(python: str, config: str) -> list[str]:
    return [python, "-m", "trinity.cli.launcher", "run", "--config", config]


def missing(python: str) -> str | None:
    """Why ``python`` cannot run Trinity's launcher (None when it can)."""
    if python != sys.executable and not os.access(python, os.X_OK):
        return f"{python} is not an executable Python"
    probe = subprocess.run([python, "-c", "import trinity.cli.launcher"], capture_output=True, text=True)
    if probe.returncode:
        last = (probe.stderr.strip().splitlines() or ["import failed"])[-1]
        return f"trinity-rft cannot be imported by {python} ({last})"
    return None


def launch(config: str, python: str, address: str | None, cpus: int, gpus: int, stream=None) -> int:
    """Run Trinity's launcher on ``config`` in the cluster at ``address`` (or a local one started for it);
    returns its exit code."""
    import ray

    stream = stream or sys.stdout
    if address is None:
        ray.init(num_cpus=cpus, num_gpus=gpus, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
        address = ray.get_runtime_context().gcs_address
    env = dict(os.environ, RAY_ADDRESS=address, HF_HUB_OFFLINE=os.environ.get("HF_HUB_OFFLINE", "1"))
    here = str(Path(rftc.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([here] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    cmd = launcher_command(python, config)
    print(f"Trinity-RFT: {' '.join(cmd)}\n  in the Ray cluster at {address}", file=stream, flush=True)
    proc = subprocess.Popen(cmd, env=env)
    try:
        return proc.wait()
    except KeyboardInterrupt:  # the terminal's SIGINT reached the launcher too: let it stop, then go on stopping
        proc.wait()
        raise
    finally:
        if ray.is_initialized():
            ray.shutdown()
