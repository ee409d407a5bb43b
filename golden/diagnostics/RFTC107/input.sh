#!/bin/bash
name=run-$(date +%Y%m%d)
python3 -m mypkg.train run.name=$name run.gpus=$(nvidia-smi -L | wc -l)
