"""Diagnostic codes of every stage (RFTC0xx): the input itself, and rftc's own failures."""

from rftc.diagnostics.model import Code, Severity

CODES = [
    Code("RFTC001", "input-unreadable", Severity.ERROR, "An input file cannot be read.",
         "The path does not exist, is a directory where a file was expected, or is not valid UTF-8 text. "
         "Nothing was compiled or checked for this input.", "rftc lint missing.sh", "cli"),
    Code("RFTC002", "internal-error", Severity.ERROR, "rftc hit an internal error on this input.",
         "This is a bug in rftc, not in your input. The input was not processed; please report it with the "
         "input attached. Set RFTC_DEBUG=1 to see the Python traceback.", "", "cli"),
]
