# RFTC331
torchrun --nproc_per_node=2 -m verl.trainer.fsdp_sft_trainer data.train_files=/data/chat/train.parquet \
    data.multiturn.enable=true model.partial_pretrain=/models/m trainer.total_training_steps=10 \
    data.micro_batch_size_per_gpu=2
