#!/bin/bash
MODEL_PATH=${MODEL_PATH:-}
if [ -z "$MODEL_PATH" ]; then
    echo "MODEL_PATH is not set"
    exit 1
fi
python3 -m mypkg.train run.model=$MODEL_PATH
