#!/usr/bin/env bash
# CI style: every value is an environment knob with a default; a reward file is written with a heredoc.
set -xeuo pipefail

NUM_GPUS=${NUM_GPUS:-8}
MODEL_ID=${MODEL_ID:-Qwen/Qwen2.5-0.5B}
MODEL_PATH=${MODEL_PATH:-${HOME}/models/${MODEL_ID}}
micro=2
mini=$((micro * NUM_GPUS))
exp_name="$(basename "${MODEL_ID,,}")-minimal"
output_file="$(pwd)/output.txt"

cat <<EOF > reward.py
def reward(data_source, solution_str, ground_truth, extra_info=None):
    return 0.1 if "${MODEL_ID}" else 0.0
EOF

python3 -m verl.trainer.main_ppo \
    data.train_batch_size=$((mini * 2)) \
    actor_rollout_ref.model.path="${MODEL_PATH}" \
    actor_rollout_ref.actor.ppo_mini_batch_size=${mini} \
    trainer.experiment_name="${exp_name}" \
    trainer.n_gpus_per_node="${NUM_GPUS}" $@ \
    | tee "${output_file}"
