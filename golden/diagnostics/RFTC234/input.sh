# RFTC234: the fork's entry module trains with a trainer class of its own (forkpkg/train.py: MyRayTrainer)
python3 -m forkpkg.train \
    trainer.n_gpus_per_node=4 actor_rollout_ref.rollout.name=vllm
