# RFTC124
python3 -m verl.trainer.main_ppo "$@"
