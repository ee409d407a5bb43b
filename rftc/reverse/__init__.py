"""The way back: a Trinity-RFT config as a veRL main_ppo launch. ``overrides`` computes the Hydra overrides from
Trinity's expansion of the config (rftc.semantics.trinity), each with the Trinity keys and formula it came from;
``script`` writes them as a bash launch with a comment per override. What veRL cannot express is found by
composing the launch and comparing its semantic model with the config's (rftc.api.to_verl), never dropped."""
