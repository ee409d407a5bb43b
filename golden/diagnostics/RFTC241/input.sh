#!/usr/bin/env bash
# oc.decode of an environment variable the script does not set: OmegaConf decodes the default
python3 -m verl.trainer.main_ppo \
  actor_rollout_ref.rollout.name=vllm \
  "trainer.total_epochs='\${oc.decode:\${oc.env:EPOCHS,3}}'"
