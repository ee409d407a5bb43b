"""The way back: a Trinity-RFT config as a veRL launch (``launch``): main_ppo, or for an SFT config the release's SFT
trainer under torchrun. ``overrides`` (main_ppo) and ``sft`` compute the Hydra overrides from Trinity's expansion of
the config (rftc.semantics.trinity), each with the Trinity keys and formula it came from; ``script`` writes them as a
bash launch with a comment per override. What veRL cannot express is found by composing the launch and comparing
its semantic model with the config's (rftc.compare.to_verl), never dropped."""
