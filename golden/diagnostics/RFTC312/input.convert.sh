# RFTC312
python3 -m verl.trainer.fsdp_sft_trainer data.train_files=x.parquet
