#!/bin/bash
# Optional overrides held in arrays: a set array gives its words, an unset or empty one no word at all.
BASE=(data.train_files=x.parquet algorithm.adv_estimator=grpo actor_rollout_ref.model.path=m
      actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=4
      actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2
      actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2
      actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2)
NODES=(trainer.nnodes=2)
declare -a LORA
unset PROFILE
python3 -m verl.trainer.main_ppo "${BASE[@]}" "${NODES[@]+"${NODES[@]}"}" "${PROFILE[@]+"${PROFILE[@]}"}" \
    "${LORA[@]}" ${PROFILE[@]:+"${PROFILE[@]}"}
