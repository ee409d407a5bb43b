#!/bin/bash
HEAD_IP=$(hostname -I | awk '{print $1}')
if [ "$HEAD_IP" = "$MASTER_ADDR" ]; then
    ray start --head
    python3 -m mypkg.train run.nodes=2
else
    ray start --address="$MASTER_ADDR:6379" --block
fi
