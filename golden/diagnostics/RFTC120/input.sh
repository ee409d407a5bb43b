#!/bin/bash
export PYTHONPATH=<your_path>/verl:$PYTHONPATH
python3 -m mypkg.train run.steps=10
