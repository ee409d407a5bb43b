# RFTC337
python3 -m verl.trainer.sft_trainer data.train_files=/data/captions/train.parquet model.path=/models/vl \
    trainer.total_training_steps=10 data.messages_key=conversation
