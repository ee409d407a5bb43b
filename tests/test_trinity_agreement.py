"""rftc check agrees with trinity-rft 0.6.0's own loader and validator.

Every config under golden/ (the guide's examples in golden/check/valid, the negative cases, the traps, convert
outputs, diagnostics inputs) goes once through Trinity's load_config + check_and_update in .venv-trinity
(tests/trinity_ref/validate.py) and once through `rftc check --format json` in one process each:

- verdicts agree on every config: Trinity raises  <=>  rftc reports at least one error. A manifest entry's
  "rftc_gap" records a disagreement rftc has yet to close: shown, not failed, and failed once rftc agrees so
  that the note goes;
- every negative case Trinity rejects is reported by rftc as an error at a line its manifest names
  (manifest.json: "lines", null for an error about the whole file);
- every trap Trinity accepts is reported by rftc with the trap's code at its line, and the test prints what
  Trinity would actually run (the expanded veRL config, or the value Trinity derives);
- verdicts also agree on RANDOM_EDITS seeded random edits of the valid configs.

Where Trinity's verdict depends on more than the file (a Ray cluster's size when the config leaves it out, model
weights for a dummy LoRA adapter, the Tinker service), the config is listed but not compared. rftc runs with
--env-strict because Trinity fails on an unset ${oc.env:VAR} without default.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from support import cli
from support.paths import NEGATIVE_BASE
from trinity_ref import reference

REPO = reference.REPO
NEGATIVE = REPO / "golden/check/negative"
TRAPS = REPO / "golden/check/traps"
CONFIGS = sorted(str(p.relative_to(REPO)) for p in (REPO / "golden").rglob("*")
                 if p.suffix in (".yaml", ".yml") and p.is_file())
# Random edits of valid configs: a scalar replaced by one of these, or a line deleted.
EDIT_VALUES = ["0", "-1", "1", "2", "3", "8", "100000000000", "0.5", "1.5", "-0.5", "yes", "null", "''", "abc",
               "${oc.env:HOME}", "${model.model_path}", "${oc.env:RFTC_UNSET_VAR,7}", "[1, 2]", "{a: 1}", "both",
               "train", "explore", "bench", "colocate", "sft", "dpo", "mix", "opmd", "k1", "none", "checkpoint",
               "memory", "trainer_driven", "fully_async", "external", "tinker", "megatron", "always", "shuffle",
               "wandb", "asynchronous"]
RANDOM_EDITS = 120


pytestmark = pytest.mark.skipif(not reference.available(), reason=reference.MISSING)


@pytest.fixture(scope="module")
def edited(tmp_path_factory) -> dict[str, str]:
    """RANDOM_EDITS configs, each one to three random edits of a valid one: path -> what was edited."""
    rng = random.Random(20260)
    bases = sorted((REPO / "golden/check/valid").glob("*.yaml")) + [NEGATIVE_BASE]
    folder = tmp_path_factory.mktemp("edited")
    configs = {}
    for i in range(RANDOM_EDITS):
        base = rng.choice(bases)
        lines, edits = base.read_text(encoding="utf-8").split("\n"), []
        for _ in range(rng.choice((1, 2, 3))):
            scalars = [j for j, line in enumerate(lines) if re.match(r"^\s*[a-z_]+: \S", line)]
            j = rng.choice(scalars)
            if rng.random() < 0.75:
                lines[j] = lines[j].split(":")[0] + ": " + rng.choice(EDIT_VALUES)
                edits.append(f"{lines[j].strip()!r}")
            else:
                edits.append(f"deleted {lines.pop(j).strip()!r}")
        path = folder / f"edit_{i:03d}.yaml"
        path.write_text("\n".join(lines), encoding="utf-8")
        configs[str(path)] = f"{base.name}: " + ", ".join(edits)
    return configs


@pytest.fixture(scope="module")
def trinity(edited):
    return reference.run(CONFIGS + list(edited), expand=True)


@pytest.fixture(scope="module")
def rftc(edited):
    paths = CONFIGS + list(edited)
    proc = cli.rftc("check", "--format", "json", "--env-strict", *paths, cwd=REPO)
    assert proc.returncode in (0, 1), f"rftc check exited {proc.returncode}:\n{proc.stderr[-4000:]}"
    by_file: dict[str, list[dict]] = {path: [] for path in paths}
    for record in json.loads(proc.stderr):
        by_file.setdefault(record["file"], []).append(record)
    return by_file


def _errors(records: list[dict]) -> list[dict]:
    return [r for r in records if r["severity"] == "error"]


def _verdict(passes: bool) -> str:
    return "passes" if passes else "fails"


def _table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header, *rows]]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def test_manifests_cover_every_case_and_match_trinity(trinity):
    """The golden expectations are Trinity's actual behaviour (checked without rftc): "trinity" is ok, fail (with
    "message" a part of Trinity's) or undecided (the verdict depends on more than the file)."""
    problems = []
    for folder in (NEGATIVE, TRAPS):
        expected = reference.manifest(folder)
        files = {str(p.relative_to(REPO)) for p in folder.glob("*.yaml")}
        problems += [f"{path}: no manifest entry" for path in sorted(files - set(expected))]
        for path, entry in sorted(expected.items()):
            first = (REPO / path).read_text(encoding="utf-8").splitlines()[0]
            if not first.startswith(("# rule:", "# trap:", "# base:")):
                problems.append(f"{path}: first line does not name the rule: {first!r}")
            got = trinity[path]
            verdict = "undecided" if got["undecided"] else "ok" if got["ok"] else "fail"
            if verdict != entry["trinity"]:
                problems.append(f"{path}: manifest says Trinity {entry['trinity']}, Trinity says {verdict} "
                                f"({got['error_type']}: {got['message']}; depends on: {got['undecided']})")
            elif verdict == "fail" and entry["message"] not in got["message"]:
                problems.append(f"{path}: Trinity's message {got['message']!r} lacks {entry['message']!r}")
    assert not problems, "\n".join(problems)


def test_verdicts_agree(trinity, rftc, capsys):
    gaps = {path: entry["rftc_gap"] for folder in (NEGATIVE, TRAPS)
            for path, entry in reference.manifest(folder).items() if "rftc_gap" in entry}
    rows, disagree, closed = [], [], []
    for path in CONFIGS:
        t, errors = trinity[path], _errors(rftc[path])
        if t["undecided"]:
            rows.append((path, "depends on " + t["undecided"], _verdict(not errors), "not compared"))
            continue
        same = t["ok"] == (not errors)
        if path in gaps:  # a disagreement the manifest records as a gap rftc has yet to close
            rows.append((path, _verdict(t["ok"]), _verdict(not errors), "" if same else "KNOWN GAP: " + gaps[path]))
            if same:
                closed.append(f"{path}: rftc now agrees; remove \"rftc_gap\" from its manifest entry")
            continue
        rows.append((path, _verdict(t["ok"]), _verdict(not errors), "" if same else "DISAGREE"))
        if not same:
            why = f"Trinity: {t['error_type']}: {t['message']}" if not t["ok"] else "Trinity accepts it"
            got = "; ".join(f"{e['line']}:{e['col']} {e['code']} {e['message']}" for e in errors) or "no errors"
            disagree.append(f"{path}\n    {why}\n    rftc: {got}")
    with capsys.disabled():
        print("\n" + _table(rows, ("config", "trinity 0.6.0", "rftc check", "")))
    assert not disagree, f"{len(disagree)} of {len(CONFIGS)} verdicts differ:\n" + "\n".join(disagree)
    assert not closed, "\n".join(closed)


def test_random_edits_agree(edited, trinity, rftc):
    """Verdicts agree on random edits of the valid configs too (seeded, so a failure reproduces)."""
    disagree, decided = [], 0
    for path, edit in edited.items():
        t, errors = trinity[path], _errors(rftc[path])
        if t["undecided"]:
            continue
        decided += 1
        if t["ok"] != (not errors):
            why = f"Trinity: {t['error_type']}: {t['message']}" if not t["ok"] else "Trinity accepts it"
            got = "; ".join(f"{e['line']} {e['code']} {e['message']}" for e in errors) or "no errors"
            disagree.append(f"{path} ({edit})\n    {why}\n    rftc: {got}")
    assert decided > RANDOM_EDITS // 2
    assert not disagree, f"{len(disagree)} of {decided} random edits disagree:\n" + "\n".join(disagree)


def test_trinity_failures_reported_at_the_expected_line(trinity, rftc):
    misplaced = []
    for path, entry in sorted(reference.manifest(NEGATIVE).items()):
        if entry["trinity"] != "fail" or not _errors(rftc[path]):
            continue  # verdict mismatches are test_verdicts_agree's to report
        lines = {e["line"] for e in _errors(rftc[path])}
        if not lines & set(entry["lines"]):
            misplaced.append(f"{path}: Trinity: {trinity[path]['message'].splitlines()[0]}\n"
                             f"    expected an error at line {' or '.join(map(str, entry['lines']))} (None: the file), "
                             f"rftc reports errors at {sorted(lines, key=lambda x: (x is None, x))}")
    assert not misplaced, "\n".join(misplaced)


def _consequence(record: dict, keys: list[str]) -> str:
    shown = []
    for key in keys:
        if key == "trainer_start":
            start = record.get("trainer_start", {})
            failure = f"{start.get('error_type')}: {str(start.get('message')).splitlines()[-2:]}"
            shown.append("trainer start: " + ("ok" if start.get("ok") else failure))
        elif key in record.get("derived", {}):
            shown.append(f"{key}={json.dumps(record['derived'][key])}")
        else:
            shown.append(f"veRL {key}={json.dumps(record.get('verl', {}).get(key, '<absent>'))}")
    return "; ".join(shown)


def test_traps_pass_trinity_and_rftc_warns(trinity, rftc, capsys):
    rows, problems = [], []
    for path, entry in sorted(reference.manifest(TRAPS).items()):
        t, records = trinity[path], rftc[path]
        at_line = [r for r in records if r["code"] == entry["code"] and r["line"] in entry["lines"]]
        if not t["ok"]:
            problems.append(f"{path}: Trinity rejects it ({t['error_type']}: {t['message']}); not a trap")
        if _errors(records):
            problems.append(f"{path}: rftc reports errors where Trinity passes: "
                            + "; ".join(f"{e['line']} {e['code']}" for e in _errors(records)))
        if not at_line:
            problems.append(f"{path}: no {entry['code']} at line {' or '.join(map(str, entry['lines']))}; rftc: "
                            + ("; ".join(f"{r['line']} {r['code']}" for r in records) or "nothing"))
        rows.append((path.rsplit("/", 1)[-1], entry["code"], "yes" if at_line else "NO",
                     _consequence(t, entry["show"]) or "-", entry["consequence"]))
    with capsys.disabled():
        print("\n" + _table(rows, ("trap", "code", "rftc warns", "what Trinity runs", "consequence")))
    assert not problems, "\n".join(problems)
