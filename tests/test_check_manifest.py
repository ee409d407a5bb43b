"""Agreement with the verdicts recorded from trinity-rft 0.6.0 itself (golden/check/*/manifest.json, written by
running Trinity's load_config + check_and_update on each file): rftc's verdict must equal Trinity's, each Trinity
failure must be reported on one of the recorded lines, and each trap with its code. Trinity itself runs in the
reference-environment tests; this one needs only the manifests."""

import json

import pytest

from rftc.diagnostics.model import Severity
from rftc import api
from rftc.trinity.validate import CheckOptions
from support.paths import GOLDEN, ROOT


def _cases():
    """The cases whose Trinity verdict the file decides ("ok" or "fail"; an "undecided" one depends on more than
    the file: tests/test_trinity_agreement.py lists those)."""
    for folder in ("negative", "traps"):
        path = GOLDEN / "check" / folder / "manifest.json"
        for name, entry in sorted(json.loads(path.read_text(encoding="utf-8")).items()):
            if entry["trinity"] in ("ok", "fail"):
                yield pytest.param(folder, name, entry, id=f"{folder}/{name}")


@pytest.mark.parametrize("folder, name, entry", list(_cases()))
def test_verdict_and_line_agree_with_trinity(folder, name, entry):
    path = str((GOLDEN / "check" / folder / name).relative_to(ROOT))
    # Trinity fails on a missing environment variable; rftc does so under --env-strict (the CI default is lenient)
    options = CheckOptions(env_strict=True, base_dir=str(ROOT))
    diags = api.check(str(ROOT / path), options).diagnostics
    errors = [d for d in diags if d.severity is Severity.ERROR]
    assert ("fail" if errors else "ok") == entry["trinity"], [(d.code, d.message) for d in diags]
    lines = set(entry.get("lines", []))
    if entry["trinity"] == "fail" and lines:
        assert any(d.span and d.span.line in lines for d in errors), [(d.code, d.span) for d in errors]
    if "code" in entry:
        hits = [d for d in diags if d.code == entry["code"]]
        assert hits and (not lines or any(d.span.line in lines for d in hits)), [(d.code, d.span) for d in diags]
