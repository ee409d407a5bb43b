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
CODES.append(
    Code("RFTC601", "verl-cannot-express", Severity.WARNING,
         "veRL cannot train what the Trinity config trains in one of the quantities of the semantic model.",
         "`rftc convert --to verl` composes the launch it writes, as `rftc verl-config` would, and compares what it "
         "trains with what the config trains (docs/diff.md). This quantity differs: veRL has no setting for it (an "
         "explorer running ahead with sync_offset, an LR horizon of sys.maxsize, a Trinity-only loss or "
         "workflow, experiences per step that are not whole groups of repeat_times), so the launch trains "
         "differently there. Change the config so veRL can express it, or accept the difference the message names.",
         "rftc convert --to verl offpolicy.yaml", "cli"))
