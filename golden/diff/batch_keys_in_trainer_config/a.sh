# veRL GRPO: 256 prompts per step, optimizer steps of 64 prompts x 8 responses. b.yaml is its conversion with the
# batch keys written as veRL names them under trainer.trainer_config, where Trinity drops or freezes them, and
# buffer.batch_size 256 (agentscope-ai/Trinity-RFT#391)
python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_files=$HOME/data/gsm8k/train.parquet \
    data.train_batch_size=256 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct \
    actor_rollout_ref.actor.ppo_mini_batch_size=64 \
    actor_rollout_ref.actor.use_dynamic_bsz=True \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=8 \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1 \
    trainer.total_epochs=2
