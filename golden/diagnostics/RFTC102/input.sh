#!/bin/bash
python3 -m mypkg.train \
    run.steps=10 \
    # the learning rate
    optim.lr=0.1 \
    optim.warmup=5
