"""Diagnostic codes of `rftc diff` and the way back from Trinity to veRL (RFTC6xx)."""

from rftc.diagnostics.model import Code, Severity

CODES = [
    Code("RFTC600", "nothing-to-compare", Severity.ERROR,
         "One side of `rftc diff` has no training run to compare.",
         "rftc diff compares what two configs train, so each side must be a veRL launch that composes (a main_ppo "
         "launch script) or a Trinity-RFT config that Trinity would load and validate. This side is neither: its "
         "own diagnostics, printed with this one, say why. Nothing is compared; fix that side first (rftc lint or "
         "rftc check shows the same diagnostics).",
         "rftc diff run.sh broken.yaml", "cli"),
]
