"""The suite's skip policy and shared fixtures (the shared helpers are in tests/support).

In CI (CI=true in the environment: .ci/run sets it) a skip fails the run unless its reason is on ALLOWED_SKIPS:
anything else that skips there is a test that did not run, and CI must not pass on it. Only what depends on the
machine may skip: the GPU path where there is no NVIDIA GPU. Such a run ends with every skip and its reason,
allowed or refused. Outside CI skips behave as usual: a checkout without the reference environments or the corpora
skips the tests that need them, each saying how to get them.
"""

from __future__ import annotations

import os
import re

import pytest

from support import corpus

# the reasons a test may skip for in CI (regular expressions, matched at the start of the reason)
ALLOWED_SKIPS = (
    r"no NVIDIA GPU on this machine",
    r"the NCCL sync needs a GPU for the trainer and one for the engine",
)


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def allowed(reason: str) -> bool:
    return any(re.match(pattern, reason) for pattern in ALLOWED_SKIPS)


_SKIPPED: list[tuple[str, str]] = []  # (test or module, reason) of every skip in this run


def _record(report) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        where, _, reason = report.longrepr
        _SKIPPED.append((report.nodeid or where, reason.removeprefix("Skipped: ")))


def pytest_collectreport(report):
    _record(report)  # a module that skips as a whole (pytest.skip(allow_module_level=True))


def pytest_runtest_logreport(report):
    _record(report)


def pytest_terminal_summary(terminalreporter):
    if in_ci() and _SKIPPED:
        terminalreporter.section("skips under CI=true (allowed: ALLOWED_SKIPS in tests/conftest.py)")
        for where, reason in sorted(_SKIPPED, key=lambda skip: (allowed(skip[1]), skip)):
            terminalreporter.line(f"{'allowed' if allowed(reason) else 'REFUSED'}  {where}: {reason}")


def pytest_sessionfinish(session):
    refused = any(not allowed(reason) for _, reason in _SKIPPED)
    if in_ci() and refused and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


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
def wild_run(tmp_path_factory) -> dict:
    """The users' corpus converted once per session (support.corpus.convert_wild)."""
    return corpus.convert_wild(tmp_path_factory.mktemp("wild"))


@pytest.fixture(scope="session")
def corpus_trinity(corpus_run) -> dict:
    """Trinity's verdicts on the corpus's exit-0 configs, once per session (support.corpus.trinity_verdicts)."""
    return corpus.trinity_verdicts(corpus_run["converted"])
