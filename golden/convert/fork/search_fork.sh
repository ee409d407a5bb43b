# A launch run from the root of a veRL fork (verl/ here: upstream 0.6.1's config plus a retriever, multi-turn
# rollouts and a state mask, and an actor config of its own in the `actor` group). The fork's config is written
# for rftc's tests from verl 0.6.1's composed config (Apache-2.0); its own keys are retriever.*, max_turns and
# actor_rollout_ref.actor.state_masking.
MODEL=Qwen/Qwen2.5-3B-Instruct

python3 -m verl.trainer.main_ppo \
    actor@actor_rollout_ref.actor=my_actor \
    algorithm.adv_estimator=grpo \
    data.train_files=/data/nq_hotpotqa/train.parquet \
    data.val_files=/data/nq_hotpotqa/test.parquet \
    data.train_batch_size=512 \
    data.max_prompt_length=4096 \
    data.max_response_length=500 \
    actor_rollout_ref.model.path=$MODEL \
    actor_rollout_ref.actor.optim.lr=1e-6 \
    actor_rollout_ref.actor.ppo_mini_batch_size=256 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.actor.use_kl_loss=True \
    actor_rollout_ref.actor.kl_loss_coef=0.001 \
    actor_rollout_ref.actor.state_masking=True \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=5 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16 \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=16 \
    max_turns=4 \
    retriever.url=http://127.0.0.1:8000/retrieve \
    retriever.topk=3 \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1 \
    trainer.total_epochs=1 \
    trainer.project_name=search_r1 \
    trainer.experiment_name=nq_hotpotqa_grpo
