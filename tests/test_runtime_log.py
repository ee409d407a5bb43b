"""rftc run's terminal shows rftc's own lines: what libraries print in the driver's process while it trains (Ray's
notices, veRL's import warnings, torch's logging, native code writing to the file descriptor, child processes)
goes to the run's log. Run in a process of its own, whose standard error is a real file descriptor as a
terminal's is. Pure Python, runs in every environment."""

import subprocess
import sys

PROBE = r"""
import logging, os, subprocess, sys, warnings
from rftc_runtime import runlog

with runlog.redirected(sys.argv[1]) as terminal:
    warnings.warn("torchtitan engine is not available", UserWarning)
    logging.basicConfig(format="INFO:%(message)s")
    logging.getLogger("verl.probe").warning("Platform override from VERL_PLATFORM: cpu")
    print("Token authentication is enabled for this Ray cluster.", file=sys.stderr)
    os.write(2, b"W1125 is_fx_tracing will return true\n")
    subprocess.run([sys.executable, "-c", "import sys; sys.stderr.write('a child process\\n')"], check=True)
    print("warning[RFTC504]: step 1: 2 response(s) cut at max_tokens", file=terminal)
print("after the run", file=sys.stderr)
"""


def test_what_libraries_print_goes_to_the_log_and_rftc_lines_to_the_terminal(tmp_path):
    log = tmp_path / "job" / "run.log"
    done = subprocess.run([sys.executable, "-c", PROBE, str(log)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "warning[RFTC504]: step 1: 2 response(s) cut at max_tokens\nafter the run\n"
    written = log.read_text()
    for line in ("torchtitan engine is not available", "Platform override from VERL_PLATFORM: cpu",
                 "Token authentication is enabled", "is_fx_tracing", "a child process"):
        assert line in written
