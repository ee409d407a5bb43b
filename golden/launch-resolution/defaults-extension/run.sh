# A defaults entry written with its extension (`grp@...: agent.yaml`): Hydra 1.3 adds `.yaml` only to a name
# without it, so this composes cfg/grp/agent.yaml under actor_rollout_ref.agent.
python3 -m verl.trainer.main_ppo --config-path="$(pwd)/cfg" --config-name=main data.train_files=x.parquet \
  algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=4 actor_rollout_ref.model.path=m \
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2
