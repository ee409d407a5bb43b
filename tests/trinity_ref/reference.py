"""The rftc side's handle on the Trinity-RFT 0.6.0 reference environment (.venv-trinity).

validate.py runs inside that environment; this module runs inside rftc's and drives it by subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PYTHON = REPO / ".venv-trinity" / "bin" / "python"
VALIDATE = Path(__file__).with_name("validate.py")
SETUP = "bash scripts/setup-trinity-ref.sh"
MISSING = f"the Trinity-RFT 0.6.0 reference environment .venv-trinity is absent: build it with `{SETUP}`"


def available() -> bool:
    return PYTHON.is_file() and (REPO / ".venv-trinity" / ".built").is_file()


def run(paths: list[str], *, expand: bool = False, timeout: float = 900,
        env: dict[str, str] | None = None) -> dict[str, dict]:
    """Trinity's verdict on each config (paths relative to the repository root), keyed by path; `env` adds
    environment variables for the validator (the values of the configs' ${oc.env:NAME} interpolations).

    Large batches are split over one validator process per core (each pays Trinity's few seconds of imports once).
    """
    # PYTHONPATH: configs that name rftc's Trinity classes need rftc importable beside trinity-rft
    env = dict(os.environ, **(env or {}), HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    workers = max(1, min(os.cpu_count() or 1, len(paths) // 20))
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for i in range(workers):
            out, err = open(f"{tmp}/{i}.out", "w+"), open(f"{tmp}/{i}.err", "w+")
            cmd = [str(PYTHON), str(VALIDATE), *(["--expand"] if expand else []), *paths[i::workers]]
            runs.append((subprocess.Popen(cmd, stdout=out, stderr=err, cwd=REPO, env=env), out, err))
        for proc, out, err in runs:
            with out, err:
                if proc.wait(timeout=timeout) != 0:
                    err.seek(0)
                    raise RuntimeError(f"the reference validator failed (exit {proc.returncode}):\n"
                                       + err.read()[-4000:])
                out.seek(0)
                records += [json.loads(line) for line in out if line.strip()]
    return {r["path"]: r for r in records}


def manifest(folder: Path) -> dict[str, dict]:
    """A golden folder's manifest.json, keyed by path relative to the repository root."""
    entries = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return {str((folder / name).relative_to(REPO)): entry for name, entry in entries.items()}
