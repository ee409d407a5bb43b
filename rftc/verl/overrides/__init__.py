"""A launch's Hydra overrides: override text split and read as a launch (text.py), what Hydra's override grammar
makes of each override (grammar.py), the overrides as records with their positions in the script (parse.py),
applied to a composed config with Hydra's struct-mode rules (apply.py), and OmegaConf's interpolations resolved on
plain dicts (resolve.py)."""
