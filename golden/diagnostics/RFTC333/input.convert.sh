# RFTC333
python3 -m verl.trainer.sft_trainer "data.train_files=[/data/a.parquet,/data/b.parquet]" model.path=/models/m \
    trainer.total_training_steps=10
