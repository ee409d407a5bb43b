#!/bin/bash
until nvidia-smi > /dev/null 2>&1; do
    sleep 2
done
for ((i = 0; i < NODES; i++)); do
    echo "node $i"
done
python3 -m mypkg.train run.steps=10
