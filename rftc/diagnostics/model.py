"""The one diagnostic record every stage produces, and the collector that gathers them.

Codes by stage: RFTC1xx shell, 2xx veRL/Hydra, 3xx mapping, 4xx Trinity checks, 5xx runtime.
Each code is declared once (see :mod:`rftc.diagnostics.codes`) with its default severity and docs.
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


class Diagnostics(list):
    """A list of :class:`Diagnostic` with helpers to add by code."""

    def add(self, code: str, message: str, span: Span | None = None, *, hint: str | None = None,
            key: str | None = None, notes=(), severity: Severity | None = None) -> Diagnostic:
        from rftc.diagnostics.codes import lookup

        d = Diagnostic(code, severity if severity is not None else lookup(code).severity, message, span,
                       hint, key, tuple(notes))
        self.append(d)
        return d

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self if d.severity is Severity.ERROR]

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self)


class RftcError(Exception):
    """Raised to stop a stage with diagnostics already recorded (never shown as a traceback)."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = list(diagnostics)
