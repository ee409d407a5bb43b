#!/usr/bin/env bash
# `--config_path` (underscore) is not one of Hydra's options: its parser refuses the command line
python3 -m verl.trainer.main_ppo \
  --config_path=cfg/ppo.yaml \
  actor_rollout_ref.rollout.name=vllm
