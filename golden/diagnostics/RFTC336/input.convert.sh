# RFTC336
python3 -m verl.trainer.sft_trainer data.train_files=/data/chat/train.parquet model.path=/models/m \
    trainer.total_training_steps=10 trainer.default_local_dir=$2
