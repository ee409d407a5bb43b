# RFTC334: an SFT warm-up, then GRPO
python3 -m verl.trainer.sft_trainer data.train_files=/data/chat/train.parquet model.path=/models/base \
    trainer.total_training_steps=10 trainer.n_gpus_per_node=8
