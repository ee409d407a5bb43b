#!/bin/bash
# A curriculum: one launch per stage, run by nested loops (each stage resumes from the previous one).
MODEL=/models/qwen2.5-1.5b
train_stage() {
    local round=$1
    local group=$2
    python3 -m verl.trainer.main_ppo \
        data.train_files=/data/$group/train.parquet \
        actor_rollout_ref.model.path=$MODEL \
        trainer.experiment_name=curriculum_r${round}_${group}
}
for ((round = 1; round <= 2; round++)); do
    for group in plus minus; do
        if [ ! -f "/data/$group/train.parquet" ]; then
            echo "missing data for $group"
            exit 1
        fi
        train_stage $round $group
    done
done
