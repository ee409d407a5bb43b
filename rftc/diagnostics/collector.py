"""The collector every stage reports into: a list of diagnostics, each added by its code, with the code's
default severity from the catalogue."""

from __future__ import annotations

from rftc.diagnostics.catalogue import lookup
from rftc.diagnostics.model import Diagnostic, Severity, Span


class Diagnostics(list):
    """A list of :class:`Diagnostic` with helpers to add by code."""

    def add(self, code: str, message: str, span: Span | None = None, *, hint: str | None = None,
            key: str | None = None, notes=(), severity: Severity | None = None) -> Diagnostic:
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
