# RFTC312
python3 -m recipe.prime.main_prime data.train_files=x.parquet
