#!/bin/bash
python3 -m mypkg.train \
    run.name='demo \
    run.steps=10
