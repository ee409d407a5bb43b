#!/bin/bash
# The launch is written in a heredoc, held in a variable, and run by a new shell on the allocated node.
N=2
cmd=$(cat <<EOF
python3 -m verl.trainer.main_ppo data.train_files=x.parquet algorithm.adv_estimator=grpo \
    actor_rollout_ref.model.path=m actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=4 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 \
    trainer.nnodes=$N trainer.experiment_name=run-$N-$((N * 8))
EOF
)
srun --nodes=$N --ntasks=1 bash -c "$cmd"
