#!/usr/bin/env bash
# `--cfg job` prints the composed config and exits: nothing trains
python3 -m verl.trainer.main_ppo --cfg job \
  actor_rollout_ref.rollout.name=vllm trainer.total_epochs=3
