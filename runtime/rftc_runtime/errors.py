"""The one exception the runtime raises for a user-facing failure: a diagnostic code and message."""

from __future__ import annotations


class RuntimeFailure(Exception):
    def __init__(self, code: str, message: str, hint: str | None = None, key: str | None = None):
        super().__init__(message)
        self.code, self.message, self.hint, self.key = code, message, hint, key
