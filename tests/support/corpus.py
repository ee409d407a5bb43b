"""The corpora converted once per test session (the fixtures corpus_run, corpus_trinity and wild_run in
tests/conftest.py), for tests/test_convert_corpus.py, test_convert_equivalence.py, test_convert_wild.py and
test_runtime_census.py: each launch's outcome, and Trinity-RFT 0.6.0's verdict on every config written with exit 0."""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

from support.cli import convert
from support.paths import CORPUS, WILD
from trinity_ref import reference


def convert_corpus(out: Path) -> dict:
    """Convert each corpus script with `rftc convert --out-dir`, each into a folder of its own under `out`
    (scripts in different folders share names): outcomes, problems, launches, and `converted`: (script, configs)
    for every exit-0 conversion. Prints the counts by outcome and by code."""
    scripts = sorted(CORPUS.rglob("*.sh"))
    outcomes, codes, bad, converted = Counter(), Counter(), [], []
    for i, script in enumerate(scripts):
        run = convert(script, out=out / f"{i:03d}", status=None)
        code, diags, text, configs = run.returncode, run.diagnostics, run.stderr, run.configs
        if "Traceback" in text or code == 3 or any(d["code"] == "RFTC002" for d in diags):
            outcomes["traceback/internal error"] += 1
            bad.append(f"{script}: {text[:300]}")
            continue
        if any(d["code"] == "RFTC312" for d in diags) and code != 0:
            outcomes["no launch rftc converts"] += 1
            continue
        if code == 0 and not configs:  # success must mean a config was written
            bad.append(f"{script}: exit 0 with no config written")
            continue
        errors = [d for d in diags if d["severity"] == "error"]
        for d in diags:
            codes[f"{d['code']} {d['severity']}"] += 1
        if code == 0:
            outcomes["converted (exit 0)"] += 1
            converted.append((script, configs))
        else:
            outcomes["diagnosed (exit 1)"] += 1
            stage = "veRL/shell stage" if all(d["code"] < "RFTC300" for d in errors) else "mapping stage"
            outcomes[f"  of which {stage}"] += 1
            unplaced = [d for d in errors if not d.get("line")]
            if unplaced:
                bad.append(f"{script}: error without a line: {unplaced[0]['message']}")
    launches = outcomes["converted (exit 0)"] + outcomes["diagnosed (exit 1)"] + outcomes["traceback/internal error"]
    print(f"\ncorpus: {len(scripts)} scripts, {launches} with launches rftc converts")
    for k, v in outcomes.most_common():
        print(f"  {k:28} {v}")
    print("diagnostics by code:")
    for k, v in sorted(codes.items()):
        print(f"  {k:28} {v}")
    return {"outcomes": outcomes, "bad": bad, "launches": launches, "converted": converted}


CONVERTS = "converts"


def wild_repo(script: Path) -> Path:
    """The repository of a script of the users' corpus: where its README says to run it from."""
    return WILD / script.relative_to(WILD).parts[0]


def convert_wild(out: Path) -> dict:
    """Every script of the users' corpus converted from its repository's root, so a launch composes the config of
    the veRL it imports: rows {script: (outcome, first error's message, diagnostics)}, the configs written with
    exit 0 (`converted`: (script, configs)), and the output of any traceback."""
    rows, converted, tracebacks = {}, [], []
    for i, script in enumerate(sorted(WILD.rglob("*.sh"))):
        name = str(script.relative_to(WILD))
        run = convert(script.relative_to(wild_repo(script)), out=out / f"{i:03d}", cwd=wild_repo(script),
                      status=None)
        code, diags, text, configs = run.returncode, run.diagnostics, run.stderr, run.configs
        if "Traceback" in text or any(d["code"] == "RFTC002" for d in diags):
            tracebacks.append(f"{name}: {text[-600:]}")
        errors = run.errors()
        if code == 0:
            rows[name] = (CONVERTS, "", diags)
            converted.append((name, configs))
        else:
            first = errors[0] if errors else {"code": f"exit {code}", "message": text[:200]}
            rows[name] = (first["code"], first["message"], diags)
    return {"rows": rows, "converted": converted, "tracebacks": tracebacks}


ENV_REF = re.compile(r"\$\{oc\.env:([^,}]+)")


def run_time_env(paths) -> dict[str, str]:
    """A value for every `${oc.env:NAME}` the configs keep symbolic, as the user's environment gives it when the
    config runs: this environment's own value where it has one (HOME, PWD), else a plausible one: an integer for
    RFTC_ARITH* (arithmetic the script does at run time on values only the environment has), a path /srv/NAME
    for every other name (folders, files and models in the corpus; also a valid string where a name is built)."""
    names = sorted({name for p in paths for name in ENV_REF.findall(Path(p).read_text(encoding="utf-8"))})
    return {n: os.environ.get(n) or ("4096" if n.startswith("RFTC_ARITH") else f"/srv/{n}") for n in names}


def trinity_verdicts(converted) -> dict:
    """Trinity's expanded verdict (tests/trinity_ref/validate.py --expand) on every config of `converted`, keyed
    by path (`records`), with run_time_env() supplied (`env`)."""
    paths = [str(c) for _, configs in converted for c in configs]
    env = run_time_env(paths)
    return {"env": env, "records": reference.run(paths, expand=True, env=env)}
