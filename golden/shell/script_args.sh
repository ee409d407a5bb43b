#!/bin/bash
# Called as `bash script_args.sh NGPUS MODEL [overrides...]`.
if [ "$#" -lt 2 ]; then
    echo "usage: $0 NGPUS MODEL [overrides]"
    exit 1
fi
NGPUS=$1
MODEL=$2
shift 2
python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=$NGPUS actor_rollout_ref.model.path=$MODEL "$@"
