"""The suite's shared fixtures (the shared helpers are in tests/support)."""

from __future__ import annotations

import pytest

from support import corpus


@pytest.fixture
def plain_terminal(monkeypatch):
    """rftc's output as a 200-column terminal without colour shows it: the width of the golden files."""
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture(scope="session")
def corpus_run(tmp_path_factory) -> dict:
    """The veRL corpus converted once per session (support.corpus.convert_corpus)."""
    return corpus.convert_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="session")
def corpus_trinity(corpus_run) -> dict:
    """Trinity's verdicts on the corpus's exit-0 configs, once per session (support.corpus.trinity_verdicts)."""
    return corpus.trinity_verdicts(corpus_run["converted"])
