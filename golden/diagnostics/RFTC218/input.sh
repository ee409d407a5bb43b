#!/usr/bin/env bash
set -x
python3 -m recipe.prime.main_prime \
    trainer.nnodes=2 \
    trainer.n_gpus_per_node=8
