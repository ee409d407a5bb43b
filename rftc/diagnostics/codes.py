"""Registry of diagnostic codes. Each stage declares its codes in its own ``codes.py`` as ``CODES``;
this module finds a code's declaration by its hundreds digit (RFTC1xx -> rftc.shell.codes, ...).

Every declared code has an entry in docs/diagnostics.md (generated) and a golden test in golden/diagnostics/.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from rftc.diagnostics.model import Severity

STAGE_MODULES = {
    "0": "rftc.diagnostics.codes",
    "1": "rftc.shell.codes",
    "2": "rftc.verl.codes",
    "3": "rftc.mapping.codes",
    "4": "rftc.trinity.codes",
    "5": "rftc_runtime.codes",
}


@dataclass(frozen=True)
class Code:
    code: str  # "RFTC123"
    name: str  # kebab-case slug, e.g. "unterminated-quote"
    severity: Severity
    summary: str  # one line
    explanation: str  # what it means, what happens if ignored, how to fix
    example: str = ""  # a small input that triggers it
    example_kind: str = "sh"  # "sh" (launch script), "yaml" (Trinity config), "overrides", "cli"


CODES = [
    Code("RFTC001", "input-unreadable", Severity.ERROR, "An input file cannot be read.",
         "The path does not exist, is a directory where a file was expected, or is not valid UTF-8 text. "
         "Nothing was compiled or checked for this input.", "rftc lint missing.sh", "cli"),
    Code("RFTC002", "internal-error", Severity.ERROR, "rftc hit an internal error on this input.",
         "This is a bug in rftc, not in your input. The input was not processed; please report it with the "
         "input attached. Set RFTC_DEBUG=1 to see the Python traceback.", "", "cli"),
]

_cache: dict[str, Code] = {}


def _load(module_name: str) -> None:
    try:
        mod = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            return  # that stage is not installed (e.g. the runtime package)
        raise
    for c in getattr(mod, "CODES", ()):
        _cache[c.code] = c


def lookup(code: str) -> Code:
    if code not in _cache:
        _load(STAGE_MODULES[code[4]])
    try:
        return _cache[code]
    except KeyError:
        raise KeyError(f"undeclared diagnostic code {code}") from None


def all_codes() -> list[Code]:
    for m in STAGE_MODULES.values():
        _load(m)
    return sorted(_cache.values(), key=lambda c: c.code)
