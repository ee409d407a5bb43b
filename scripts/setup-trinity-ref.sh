#!/usr/bin/env bash
# Builds .venv-trinity: trinity-rft 0.6.0's own config loader and validator (load_config + check_and_update)
# on a CPU, plus verl 0.8.0 so PPO-family algorithms validate and build_verl_config() expands configs.
# tests/test_trinity_agreement.py compares `rftc check` against it.
#
# trinity-rft and verl are installed without their dependencies (those pull vllm, CUDA wheels, wandb,
# streamlit, ...); tests/trinity_ref/requirements.txt pins exactly what the loader, the validator and verl's
# config import path need (see requirements.in for why each is there). torch is the machine's local CPU wheel.
#
# Idempotent: a finished build whose inputs have not changed is kept; otherwise the venv is synced to the lock.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv-trinity
LOCK=tests/trinity_ref/requirements.txt
PY=${PYTHON:-python3.11}   # trinity-rft 0.6.0 needs Python >=3.10,<3.13; the local CPU torch wheel is cp311
WHEELS=${TRINITY_REF_WHEELS:-/opt/wheels}   # where the local CPU torch wheel lies
UV_VERSION=0.13.9
STAMP="$VENV/.built"
KEY=$(cat "$0" "$LOCK" | sha256sum | cut -d' ' -f1)

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$KEY" ]; then
  echo "$VENV is up to date"
  exit 0
fi

start=$(date +%s)
[ -x "$VENV/bin/python" ] || "$PY" -m venv --without-pip "$VENV"
# uv installs the pinned set in seconds where pip takes minutes; it lives beside the venv's site-packages so
# that `uv pip sync` (which removes anything not pinned) leaves it alone.
if [ ! -x "$VENV/uv/bin/uv" ]; then
  "$PY" -m pip install -q --disable-pip-version-check --target "$VENV/uv" "uv==$UV_VERSION"
fi
# --no-deps semantics: sync installs exactly the listed distributions and nothing they declare. Bytecode is
# compiled here because the tests may run with PYTHONDONTWRITEBYTECODE set, which makes every import of torch,
# transformers and ray compile from source again (about 3x slower).
"$VENV/uv/bin/uv" pip sync --python "$VENV/bin/python" --find-links "$WHEELS" --compile-bytecode \
  "$LOCK" <(printf 'trinity-rft==0.6.0\nverl==0.8.0\n')

# The reference must accept a GRPO and a PPO config (PPO needs verl) and reject a broken one, or agreement
# with it means nothing.
"$VENV/bin/python" tests/trinity_ref/validate.py golden/check/negative/_base_grpo.yaml \
    golden/check/traps/warmup_ratio_without_total_steps.yaml golden/check/negative/mode_invalid.yaml 2>/dev/null \
  | "$VENV/bin/python" -c 'import json, sys
got = [json.loads(line) for line in sys.stdin]
if [r["ok"] for r in got] != [True, True, False]:
    sys.exit("reference self-test failed (expected pass, pass, fail):\n" + "\n".join(
        "  %s: ok=%s %s: %s" % (r["path"], r["ok"], r["error_type"], r["message"]) for r in got))'

echo "$KEY" > "$STAMP"
echo "$VENV built in $(( $(date +%s) - start ))s"
