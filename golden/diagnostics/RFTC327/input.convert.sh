# RFTC327: run from the fork's checkout, whose verl/ config adds max_turns and retriever.*
python3 -m verl.trainer.main_ppo \
    actor_rollout_ref.actor.state_masking=True \
    max_turns=4 \
    retriever.topk=5
