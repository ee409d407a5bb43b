# PYTHONPATH set by the script: lib/libfork (a regular package) is imported, not the namespace folder libfork/
export PYTHONPATH="lib:$PYTHONPATH"
python3 -m libfork.main \
    data.train_files=train.parquet trainer.n_gpus_per_node=4
