#!/bin/bash
# the device is whatever the machine that runs the script has
DEVICE=$(python3 -c 'import torch_npu' 2>/dev/null && echo npu || echo gpu)
case "$DEVICE" in
    gpu) GPUS=8 ;;
    npu) GPUS=16 ;;
    *) echo "unsupported device $DEVICE"; exit 1 ;;
esac
python3 -m mypkg.train run.gpus=$GPUS
