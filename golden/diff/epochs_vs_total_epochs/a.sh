# veRL GRPO: 2 passes over the data (total_epochs 2), each rollout batch trained on once (ppo_epochs 1). b.yaml is
# its conversion with the two swapped, ppo_epochs 2 under trainer_config and buffer.total_epochs 1, as in
# agentscope-ai/Trinity-RFT#176 (raising ppo_epochs for more data passes)
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
