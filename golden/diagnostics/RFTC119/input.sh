#!/bin/bash
# a checkpoint search with more branches than rftc explores
for i in $(seq 1 800); do
    if [ -f "/ckpt/step_$i/done" ]; then LAST=$i; fi
    if [ -f "/ckpt/step_$i/best" ]; then BEST=$i; fi
done
python3 -m mypkg.train run.resume=$LAST
