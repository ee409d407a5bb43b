#!/bin/bash
# A comment line inside a continued command: bash ends the command there, the rest runs on its own.
python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    trainer.nnodes=1 \
    # trainer.total_epochs is set below
    trainer.total_epochs=15 \
    trainer.save_freq=20
