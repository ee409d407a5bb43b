#!/bin/bash
eval "export NODES=2"
python3 -m mypkg.train run.steps=10
