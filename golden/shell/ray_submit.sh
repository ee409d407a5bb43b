#!/bin/bash
# Submitted to a Ray cluster from the repository root, with a runtime env beside the script.
WORKING_DIR=${WORKING_DIR:-"${PWD}"}
RUNTIME_ENV=${RUNTIME_ENV:-"${WORKING_DIR}/verl/trainer/runtime_env.yaml"}
export VLLM_USE_V1=1

ray job submit --no-wait --runtime-env="${RUNTIME_ENV}" \
    --working-dir "${WORKING_DIR}" \
    -- python3 -m recipe.dapo.main_dapo \
    data.train_batch_size=512 \
    trainer.default_local_dir="${WORKING_DIR}/ckpts"
