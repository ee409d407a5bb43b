#!/bin/bash
if [ "$BACKEND" = megatron ]; then
    strategy=megatron
else
    strategy=fsdp
fi
python3 -m mypkg.train run.strategy=$strategy
