#!/bin/bash
#SBATCH --job-name=grpo
#SBATCH --nodes=2                 # two nodes
#SBATCH --gres=gpu:8
set -euo pipefail
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.rollout.name=vllm \
    trainer.nnodes="$SLURM_JOB_NUM_NODES" \
    trainer.n_gpus_per_node="${SLURM_GPUS_ON_NODE:-1}"
