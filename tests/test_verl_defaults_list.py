"""A launch's own config files composed by their defaults lists as hydra-core 1.3 composes them: fixture trees
(tests/fixtures/defaults_list, one folder each) and variants generated from them, composed by
rftc.verl.primary.defaults and by Hydra's compose (version_base=None, as veRL's entry modules declare it). Both
must give the same config, or both refuse (rftc with Hydra's own message)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from rftc import api
from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.model import Span
from rftc.verl.overrides.apply import Applied
from rftc.verl.primary.defaults import compose_file
from rftc.verl.primary.files import Primary, layered
from support.paths import GOLDEN

# one folder per case, its primary config main.yaml
FOLDERS = Path(__file__).parent / "fixtures" / "defaults_list"
FIXTURES = {d.name: {str(f.relative_to(d)): f.read_text() for f in sorted(d.rglob("*")) if f.is_file()}
            for d in sorted(FOLDERS.iterdir())}


def _variants() -> dict[str, dict[str, str]]:
    """Each way of naming one group file (extension or not, package or not, optional, absolute) with each header."""
    out = {}
    forms = itertools.product(["", ".yaml"], ["", "@pkg", "@_here_", "@_global_", "@a.b"], ["", "optional "],
                              ["", "/"], [None, "_global_", "hdr", "hdr.x"])
    for i, (ext, pkg, opt, slash, header) in enumerate(forms):
        head = f"# @package {header}\n" if header else ""
        out[f"v{i:03d}"] = {
            "main.yaml": f"defaults:\n  - {opt}{slash}grp{pkg}: opt{ext}\n  - _self_\ntop: 1\n",
            "grp/opt.yaml": f"{head}v: {i}\n",
        }
    return out


CASES = {**FIXTURES, **_variants()}


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _by_rftc(folder: Path):
    primary = Primary(None, [], name="main")
    diags = Diagnostics()
    if not compose_file(folder, "main", primary, set(), Span("run.sh", 1, 1), diags):
        return "refused", " ".join(d.message for d in diags)
    applied = Applied({})
    layered(applied, primary, None)
    return "composed", applied.tree


def _by_hydra(folder: Path):
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    try:
        with initialize_config_dir(config_dir=str(folder), version_base=None):
            return "composed", OmegaConf.to_container(compose("main"), resolve=False)
    except Exception as exc:  # noqa: BLE001 - whatever Hydra raises is its refusal
        return "refused", str(exc)


@pytest.mark.parametrize("case", sorted(CASES))
def test_rftc_composes_what_hydra_composes(case, tmp_path):
    folder = _write(tmp_path, CASES[case])
    ours, theirs = _by_rftc(folder), _by_hydra(folder)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "composed":
        assert ours[1] == theirs[1]
    else:  # Hydra's own words, first line
        assert theirs[1].splitlines()[0].strip() in ours[1], (ours[1], theirs[1])


def test_fixtures_cover_every_form():
    """The fixtures exercise both outcomes and each entry form the module reads."""
    text = "".join(f for files in FIXTURES.values() for f in files.values())
    for form in ("optional ", "override ", "@_here_", "@_global_", "# @package", "???", "null", "[a, b]", "/other",
                 ".yaml"):
        assert form in text, form


def test_an_entry_written_with_its_extension_converts_as_hydra_composes_it(tmp_path):
    """golden/launch-resolution/defaults-extension (C2): `grp@actor_rollout_ref.agent: agent.yaml` is composed, by
    Hydra (with veRL's config on the search path, as the file's hydra.searchpath says) and by rftc alike."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from support.cli import convert
    folder = GOLDEN / "launch-resolution" / "defaults-extension"
    with initialize_config_dir(config_dir=str(folder / "cfg"), version_base=None):
        hydra = OmegaConf.to_container(compose("main"), resolve=False)
    found = api.read([str(folder / "run.sh")], api.Options(cwd=str(folder)))
    eff = api.verl_config(found.launches[0]).verl
    assert eff.values["actor_rollout_ref"]["agent"] == hydra["actor_rollout_ref"]["agent"] == {"max_turns": 3}
    done = convert("run.sh", out=tmp_path, cwd=folder)
    assert done.returncode == 0 and not [d for d in done.diagnostics if d["severity"] == "error"]


def test_a_refusal_is_reported_at_the_entry_hydra_refuses(tmp_path):
    folder = _write(tmp_path, {"main.yaml": "a: 1\ndefaults:\n  - _self_\n  - grp: b\n", "grp/a.yaml": "k: 1\n"})
    diags = Diagnostics()
    assert not compose_file(folder, "main", Primary(None, []), set(), Span("run.sh", 1, 1), diags)
    (d,) = diags
    assert (d.code, d.span.file, d.span.line, d.span.col) == ("RFTC211", str(folder / "main.yaml"), 4, 5)
    assert "Could not find 'grp/b'" in d.message and "Available options in 'grp':\n\ta" in d.message


def test_the_bundled_config_is_named_with_or_without_its_extension(tmp_path):
    for entry in ("ppo_trainer", "ppo_trainer.yaml", "/ppo_trainer"):
        folder = _write(tmp_path / entry.strip("/"), {"main.yaml": f"defaults:\n  - {entry}\n  - _self_\nk: 1\n"})
        primary = Primary(None, [])
        assert compose_file(folder, "main", primary, {"ppo_trainer"}, Span("run.sh", 1, 1), Diagnostics())
        assert primary.base == "ppo_trainer" and primary.layers[0] == "<base>"


@pytest.mark.usefixtures("plain_terminal")
def test_golden_lint_output_of_the_extension_case():
    from support.cli import rftc
    folder = GOLDEN / "launch-resolution" / "defaults-extension"
    done = rftc("lint", "run.sh", "--format", "concise", cwd=folder)
    assert done.stderr == (folder / "expected.txt").read_text() and done.returncode == 0
