# a relative --config-path is relative to the entry module's folder (verl/trainer/), not to the script
cd scripts
python3 -m verl.trainer.main_ppo --config-path=. --config-name=here \
    data.train_files=train.parquet \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=4 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 \
    trainer.n_gpus_per_node=4
