#!/bin/bash
# What only the machine that runs the script knows: its node's role, a model directory, a tool's presence.
MODEL_PATH=${MODEL_PATH:-}
[ -z "$MODEL_PATH" ] && { echo "set MODEL_PATH"; exit 1; }
if [ -d /opt/fast_ckpt ]; then
    SAVE_DIR=/opt/fast_ckpt
else
    SAVE_DIR=/tmp/ckpt
fi
LOGGER=$(command -v wandb >/dev/null && echo wandb || echo console)
if [ "$NODE_RANK" = 0 ]; then
    python3 -m verl.trainer.main_ppo \
        actor_rollout_ref.model.path=$MODEL_PATH \
        trainer.default_local_dir=$SAVE_DIR \
        trainer.logger=$LOGGER
else
    python3 -m verl.trainer.main_ppo trainer.val_only=True
fi
