# RFTC231: a fork's checkout with only its config folder (no verl/trainer/main_ppo.py); max_turns is only in
# its ppo_trainer_mt.yaml
python3 -m verl.trainer.main_ppo \
    data.train_batch_size=128 \
    max_turns=4
