# RFTC332
torchrun --nproc_per_node=2 -m verl.trainer.fsdp_sft_trainer data.train_files=/data/gsm8k/train.parquet \
    data.prompt_key=question data.response_key=answer model.partial_pretrain=/models/m \
    trainer.total_training_steps=10
