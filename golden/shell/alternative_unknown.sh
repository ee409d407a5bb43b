#!/usr/bin/env bash
# `${VAR:+word}` on variables the script never sets: where the same value also uses the variable plainly (kept as
# ${oc.env:NAME}, which needs it set) the alternative is taken, as in run_qwen2-7b_math_trtllm.sh (RFTC116);
# elsewhere the variable is unset, as for ${VAR:-default}; a variable given with --env decides it (WANDB_GROUP).
TP=2
EXP_NAME=trtllm-qwen2-7b-tp${TP}-8gpus${EXP_NAME_SUFFIX:+"-"}${EXP_NAME_SUFFIX}
export LD_PRELOAD="/usr/lib/libjemalloc.so.2${LD_PRELOAD:+:$LD_PRELOAD}"
TAG=${RUN_TAG+tagged}

python3 -m verl.trainer.main_ppo \
    trainer.experiment_name=$EXP_NAME \
    trainer.project_name=demo${WANDB_GROUP:+_${WANDB_GROUP}} \
    trainer.default_local_dir=ckpt/${TAG:-plain} \
    trainer.nnodes=${NNODES:+2}
