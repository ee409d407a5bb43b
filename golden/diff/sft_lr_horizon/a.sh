# veRL SFT (the engine trainer): 500 optimizer steps, cosine with 5% warmup. b.yaml is its conversion with
# trainer.total_steps taken out, as Trinity's config reference advises ("DO NOT SET, automatically set from
# buffer.total_steps"): nothing sets it, and Trinity's scheduler warms up over sys.maxsize steps instead of 500,
# so the learning rate stays near 0 for the whole run
torchrun --standalone --nnodes=1 --nproc_per_node=8 -m verl.trainer.sft_trainer \
    data.train_files=$HOME/data/gsm8k_sft/train.parquet \
    data.train_batch_size=64 \
    data.max_length=2048 \
    model.path=Qwen/Qwen2.5-1.5B-Instruct \
    optim.lr=1e-5 \
    optim.lr_scheduler_type=cosine \
    optim.lr_warmup_steps_ratio=0.05 \
    trainer.total_epochs=3 \
    trainer.total_training_steps=500
