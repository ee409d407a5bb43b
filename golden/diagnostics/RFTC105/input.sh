#!/bin/bash
python3 -m mypkg.train run.steps=10
    +optim.lr=0.1 optim.warmup=5
