# golden case: trainer_checkpoints_resume
python3 -m verl.trainer.main_ppo \
    data.train_files=$HOME/data/gsm8k/train.parquet \
    data.val_files=$HOME/data/gsm8k/test.parquet \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1 \
    algorithm.adv_estimator=grpo \
    trainer.project_name=proj \
    trainer.experiment_name=exp1 \
    trainer.default_local_dir=/ckpt/proj/exp1 \
    trainer.resume_mode=disable \
    trainer.max_actor_ckpt_to_keep=3 \
    trainer.val_before_train=False \
    trainer.balance_batch=False \
    trainer.total_epochs=2 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 $@
