#!/usr/bin/env bash
# Build the reference for the veRL-stage differential tests and benchmark: download the verl wheel of every
# release (no dependencies; tests/test_verl_semantics.py reads their code) and unpack their config YAMLs into
# .cache/verl-ref/<version>/. Idempotent and quick.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
"$PY" scripts/gen_verl_schemas.py --unpack-only "$@"
