# RFTC230: run from a fork's checkout; `python3 -m verl...` imports its verl/ and composes its own config
python3 -m verl.trainer.main_ppo \
    data.train_batch_size=128 \
    max_turns=4
