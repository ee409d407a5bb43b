"""The records of the diagnostics layer: a severity, a span of source, the one diagnostic record every stage
produces, and the declaration of a code (the catalogue, :mod:`rftc.diagnostics.catalogue`, holds them all).

Codes by stage: RFTC0xx general, 1xx shell, 2xx veRL/Hydra, 3xx mapping, 4xx Trinity checks, 5xx runtime.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace


class Severity(enum.IntEnum):
    INFO = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return {0: "info", 1: "warning", 2: "error"}[int(self)]


@dataclass(frozen=True, order=True)
class Span:
    """A region of a source file; lines and columns are 1-based, end is inclusive of end_col - 1."""

    file: str
    line: int
    col: int
    end_line: int | None = None
    end_col: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @property
    def last_line(self) -> int:
        return self.end_line or self.line


@dataclass(frozen=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    span: Span | None = None
    hint: str | None = None
    key: str | None = None  # the config key (dotted) the diagnostic is about, if any
    notes: tuple[str, ...] = field(default=())

    def with_severity(self, severity: Severity) -> "Diagnostic":
        return replace(self, severity=severity)

    def sort_key(self):
        s = self.span
        return (s.file if s else "", s.line if s else 0, s.col if s else 0, self.code)


@dataclass(frozen=True)
class Code:
    """A code's declaration in the catalogue: its default severity and its documentation."""

    code: str  # "RFTC123"
    name: str  # kebab-case slug, e.g. "unterminated-quote"
    severity: Severity
    summary: str  # one line
    explanation: str  # what it means, what happens if ignored, how to fix
    example: str = ""  # a small input that triggers it
    example_kind: str = "sh"  # "sh" (launch script), "yaml" (Trinity config), "overrides", "cli"
