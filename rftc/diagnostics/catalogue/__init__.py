"""The catalogue of diagnostic codes: each stage's codes in a module of its own here (RFTC0xx general,
1xx shell, 2xx veRL and Hydra, 3xx mapping, 4xx Trinity checks, 5xx runtime, 6xx diff and the way back), with
severity, summary, explanation and an example each.

Every declared code has an entry in docs/diagnostics.md (generated) and a golden test in golden/diagnostics/.
"""

from __future__ import annotations

from rftc.diagnostics.catalogue import diff, general, mapping, runtime, shell, trinity, verl
from rftc.diagnostics.model import Code

CATALOGUE: dict[str, Code] = {c.code: c for stage in (general, shell, verl, mapping, trinity, runtime, diff)
                              for c in stage.CODES}


def lookup(code: str) -> Code:
    try:
        return CATALOGUE[code]
    except KeyError:
        raise KeyError(f"undeclared diagnostic code {code}") from None


def all_codes() -> list[Code]:
    return sorted(CATALOGUE.values(), key=lambda c: c.code)
