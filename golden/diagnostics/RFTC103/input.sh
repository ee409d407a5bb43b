#!/bin/bash
python3 -m mypkg.train \
    run.steps=10 \  # steps
    optim.lr=0.1
