"""What `rftc run` runs of what `rftc convert` writes: every config both corpora convert with exit 0
(../shared/corpus/verl, and the users' scripts from their repositories' roots) planned as `rftc run --smoke
--dry-run` plans it. Each runs, or is refused for a reason the census in docs/runtime.md counts (its table is checked
against this run); none is refused for an algorithm type, loss, KL, advantage or sync setting the conversion wrote,
which this runtime runs."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from rftc import api
from rftc_runtime import smoke as sm
from rftc_runtime.plan import make_plan
from rftc_runtime.settings import Settings
from runtime_support import model_dir
from support.corpus import wild_repo
from support.paths import CORPUS, ROOT, WILD, needs_corpus, needs_wild

pytestmark = [needs_corpus, needs_wild]
RUNS = "runs"
# what convert writes that decides the algorithm and its schedule: never refused
ALGORITHM_KEYS = re.compile(r"^algorithm\.|^synchronizer\.sync_(style|method|offset|interval)")


def reason(config: Path, cwd: Path, folder: Path) -> tuple[str, str]:
    """(code, config key with list indices dropped) of the first refusal of the config's smoke run, or RUNS."""
    import contextlib

    loaded = api.check(str(config))
    if not loaded.ok:
        first = next(d for d in loaded.diagnostics if d.severity.name == "ERROR")
        return first.code, "the config does not load"
    with contextlib.chdir(cwd):  # the run starts where the launch did: relative reward files are found from there
        smoke = sm.prepare(loaded.config, config, model=model_dir(), folder=folder)
        plan = make_plan(Settings.of(smoke.config, source=str(smoke.written)), gpus=0)
    errors = [e for e in plan.errors if e[0] != "RFTC507"]  # the smoke model stands in for every model
    if not errors:
        return RUNS, ""
    code, _, _, key = errors[0]
    return code, re.sub(r"\.\d+(?=\.|$)", "", key or "")


@pytest.fixture(scope="module")
def census(corpus_run, wild_run, tmp_path_factory) -> dict[str, Counter]:
    out = tmp_path_factory.mktemp("census")
    counts = {"verl": Counter(), "wild": Counter()}
    for corpus, converted, cwd in (("verl", corpus_run["converted"], lambda s: CORPUS),
                                   ("wild", wild_run["converted"], lambda s: wild_repo(WILD / s))):
        for script, configs in converted:
            for config in configs:
                counts[corpus][reason(Path(config), cwd(script), out / str(sum(map(len, counts.values()))))] += 1
    for corpus, found in counts.items():
        print(f"\n{corpus}: " + ", ".join(f"{c} {k}: {n}" for (c, k), n in found.most_common()))
    return counts


def documented() -> dict[tuple[str, str], tuple[int, int]]:
    """docs/runtime.md's census table: (code, key) -> (veRL corpus, users' scripts)."""
    text = (ROOT / "docs" / "runtime.md").read_text(encoding="utf-8")
    table = text.split("<!-- census -->")[1]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[3].isdigit():
            rows[(cells[0], cells[1])] = (int(cells[3]), int(cells[4]))
    return rows


def test_the_census_is_the_one_docs_runtime_md_shows(census):
    found = {k: (census["verl"][k], census["wild"][k]) for k in set(census["verl"]) | set(census["wild"])}
    found = {(code if code != RUNS else "-", key or "-"): n for (code, key), n in found.items()}
    assert found == documented()


def test_nothing_convert_writes_for_the_algorithm_is_refused(census):
    refused = [(code, key) for counts in census.values() for code, key in counts if ALGORITHM_KEYS.match(key)]
    assert not refused
