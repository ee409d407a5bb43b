# RFTC235: the fork's main reads its YAML with argparse, not Hydra: what config it builds is its own code's
python3 -m forkpkg.train cfg.yaml
