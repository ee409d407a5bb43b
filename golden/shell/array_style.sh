#!/usr/bin/env bash
# Array style of newer veRL scripts: one array per section, += in branches, a launcher array.
set -xeuo pipefail

backend=${BACKEND:-megatron}
NNODES=${NNODES:-2}
use_uv=${USE_UV:-1}

if [ "$use_uv" = 1 ]; then
    LAUNCH=(uv run --frozen python3)
else
    LAUNCH=(python3)
fi

DATA=(
    data.train_files="['$HOME/data/a.parquet', '$HOME/data/b.parquet']"
    data.train_batch_size=$((64 * NNODES))   # scales with nodes
)

ACTOR=(
    actor_rollout_ref.actor.optim.lr=1e-6
)
case "$backend" in
    megatron)
        ACTOR+=(actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2)
        ENGINE=megatron ;;
    fsdp|fsdp2)
        ACTOR+=(actor_rollout_ref.actor.strategy=$backend)
        ENGINE=dp ;;
esac

"${LAUNCH[@]}" -m verl.trainer.main_ppo \
    model_engine=$ENGINE \
    "${DATA[@]}" \
    "${ACTOR[@]}" \
    trainer.nnodes=$NNODES "$@"
