#!/bin/bash
# The forms a main_ppo launch takes in users' scripts: variables after `ray job submit --` (its entrypoint runs in
# a shell), the entry named by its file (directly or through a variable), and a fork's copy under its own package.
ray job submit --address="http://127.0.0.1:8265" \
    --runtime-env-json='{"env_vars": {"VLLM_USE_V1": "1"}}' \
    -- PYTHONUNBUFFERED=1 HYDRA_FULL_ERROR=1 python3 -m verl.trainer.main_ppo \
    trainer.project_name=submitted

python3 -u verl/trainer/main_ppo.py trainer.project_name=by_path

entry_file=verl/trainer/main_ppo.py
python3 $entry_file --config-name=ppo_trainer trainer.project_name=by_variable

python3 -m mypkg.verl.trainer.main_ppo trainer.project_name=forked

torchrun --nproc_per_node=8 ./recipe/dapo/main_dapo.py trainer.project_name=recipe_by_path
