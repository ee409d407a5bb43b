"""A launch's primary config: which config it composes (locate.py: --config-path, --config-name, else what its
entry module's @hydra.main names, read from a checkout's copy by hydra_main.py), and the launch's own config
files, composed with Hydra's defaults list over the config they start from (files.py)."""
