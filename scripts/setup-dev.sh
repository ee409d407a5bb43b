#!/usr/bin/env bash
# Sets up everything the test suite needs, from scratch, idempotently:
#   .venv            rftc with its test dependencies (editable)
# Each reference environment the tests compare against is built by its own script below.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then "$PY" -m venv .venv; fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'
