#!/bin/bash
# Overrides kept in multi-line strings, reused for the critic with ${VAR//a/b}, split unquoted at the launch.
set -x
tp=2
ACTOR_CONFIG="
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=$tp \
    actor_rollout_ref.actor.megatron.param_offload=True"
CRITIC_CONFIG="${ACTOR_CONFIG//actor_rollout_ref.actor/critic}"
adv=gae
if [[ $adv == "gae" ]]; then
    ACTOR_CONFIG="$ACTOR_CONFIG $CRITIC_CONFIG"
fi
NAME=exp-${adv^^}-$(date +%m%d)

python3 -m verl.trainer.main_ppo --config-path=./config --config-name=ppo_megatron_trainer \
    algorithm.adv_estimator=$adv \
    trainer.experiment_name=$NAME \
    $ACTOR_CONFIG
