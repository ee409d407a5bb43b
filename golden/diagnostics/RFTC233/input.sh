# RFTC233: a fork's own entry module; Python finds forkpkg/train.py here, its @hydra.main names config/grpo.yaml
python3 -m forkpkg.train \
    trainer.n_gpus_per_node=4 actor_rollout_ref.rollout.name=vllm
