# golden case: v1_separate_async: veRL 0.9's main_ppo with a standalone rollout on 4 GPUs beside the trainer's 4,
# a step of parameter_sync_step = 4 mini-batch updates (train_batch_size = 4 x ppo_mini_batch_size), one batch
# of prompts ahead (num_warmup_batches 1, veRL's default)
python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_files=$HOME/data/gsm8k/train.parquet \
    data.train_batch_size=128 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct \
    actor_rollout_ref.actor.ppo_mini_batch_size=32 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=4 \
    actor_rollout_ref.rollout.nnodes=1 \
    actor_rollout_ref.rollout.n_gpus_per_node=4 \
    actor_rollout_ref.rollout.checkpoint_engine.backend=nccl \
    trainer.total_epochs=3 \
    trainer.n_gpus_per_node=4 \
    trainer.v1.trainer_mode=separate_async \
    trainer.v1.separate_async.parameter_sync_step=4
