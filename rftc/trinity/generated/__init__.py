"""Data generated from other packages' wheels by scripts/ (never edited by hand): the veRL keys Trinity-RFT's
trainer_config accepts."""
