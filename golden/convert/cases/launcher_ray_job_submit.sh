# golden case: launcher_ray_job_submit (the launch behind `ray job submit --`, values through variables)
MODEL=Qwen/Qwen2.5-3B-Instruct
BS=256
ray job submit --address="http://127.0.0.1:8265" --runtime-env=verl/trainer/runtime_env.yaml -- \
    python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_files=$HOME/data/gsm8k/train.parquet \
    data.val_files=$HOME/data/gsm8k/test.parquet \
    data.train_batch_size=$BS \
    actor_rollout_ref.actor.ppo_mini_batch_size=$((BS / 4)) \
    actor_rollout_ref.model.path=$MODEL \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=4 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=2 \
    trainer.n_gpus_per_node=4 \
    trainer.nnodes=1 \
    trainer.total_epochs=3 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8
