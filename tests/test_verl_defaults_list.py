"""A launch's own config files composed by their defaults lists as hydra-core 1.3 composes them: fixture trees
(written below, one folder each) and variants generated from them, composed by rftc.verl.primary.defaults and by
Hydra's compose (version_base=None, as veRL's entry modules declare it). Both must give the same config, or both
refuse (rftc with Hydra's own message)."""

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

# name -> {file: text}; the primary config is main.yaml
FIXTURES = {
    "extension": {
        "main.yaml": "defaults:\n  - grp@x: agent.yaml\n  - _self_\na: 1\n",
        "grp/agent.yaml": "max_turns: 3\n",
    },
    "extension-in-string": {"main.yaml": "defaults:\n  - sub/cfg.yaml\n  - _self_\n", "sub/cfg.yaml": "k: 1\n"},
    "self-first": {"main.yaml": "defaults:\n  - _self_\n  - grp: a\nk: 1\n", "grp/a.yaml": "k: 2\n"},
    "self-implicit-last": {"main.yaml": "defaults:\n  - grp: a\nx: 1\n", "grp/a.yaml": "x: 2\ny: 3\n"},
    "header-global": {"main.yaml": "defaults:\n  - grp: a\n  - _self_\n", "grp/a.yaml": "# @package _global_\nk: 1\n"},
    "header-named": {"main.yaml": "defaults:\n  - grp: a\n", "grp/a.yaml": "# comment\n# @package foo.bar\nk: 1\n"},
    "header-entry-wins": {"main.yaml": "defaults:\n  - grp@x: a\n", "grp/a.yaml": "# @package foo\nk: 1\n"},
    "here": {"main.yaml": "defaults:\n  - grp@_here_: a\n", "grp/a.yaml": "k: 1\n"},
    "global-entry": {"main.yaml": "defaults:\n  - grp@_global_.top: a\n", "grp/a.yaml": "k: 1\n"},
    "nested": {
        "main.yaml": "defaults:\n  - grp: a\n",
        "grp/a.yaml": "defaults:\n  - sub: b\n  - /other: c\n  - _self_\nk: 1\n",
        "grp/sub/b.yaml": "s: 1\n",
        "other/c.yaml": "o: 1\n",
    },
    "optional-missing": {"main.yaml": "defaults:\n  - optional grp: nothere\n  - _self_\nk: 1\n", "grp/a.yaml": "k: 2\n"},
    "missing-refused": {"main.yaml": "defaults:\n  - grp: nothere\n", "grp/a.yaml": "k: 2\n"},
    "null-option": {"main.yaml": "defaults:\n  - grp: null\n  - _self_\nk: 1\n", "grp/a.yaml": "k: 2\n"},
    "mandatory-option": {"main.yaml": "defaults:\n  - grp: ???\n", "grp/a.yaml": "k: 2\n"},
    "options-list": {
        "main.yaml": "defaults:\n  - grp: [a, b]\n",
        "grp/a.yaml": "k: 1\nl: 1\n",
        "grp/b.yaml": "k: 2\n",
    },
    "override": {
        "main.yaml": "defaults:\n  - grp: a\n  - _self_\n  - override grp: b\n",
        "grp/a.yaml": "k: 1\n",
        "grp/b.yaml": "k: 2\n",
    },
    "override-nested": {
        "main.yaml": "defaults:\n  - sub\n  - override grp: b\n",
        "sub.yaml": "defaults:\n  - grp: a\n",
        "grp/a.yaml": "k: 1\n",
        "grp/b.yaml": "k: 2\n",
    },
    "override-unmatched": {"main.yaml": "defaults:\n  - override grp: b\n", "grp/b.yaml": "k: 2\n"},
    "override-before": {
        "main.yaml": "defaults:\n  - override grp: b\n  - grp: a\n",
        "grp/a.yaml": "k: 1\n",
        "grp/b.yaml": "k: 2\n",
    },
    "multiple-values": {
        "main.yaml": "defaults:\n  - grp: a\n  - sub\n",
        "sub.yaml": "defaults:\n  - /grp: b\n",
        "grp/a.yaml": "k: 1\n",
        "grp/b.yaml": "k: 2\n",
    },
    "two-keys": {"main.yaml": "defaults:\n  - {grp: a, other: b}\n", "grp/a.yaml": "k: 1\n"},
    "bad-type": {"main.yaml": "defaults:\n  - grp: 3\n", "grp/a.yaml": "k: 1\n"},
    "not-a-list": {"main.yaml": "defaults:\n  grp: a\n", "grp/a.yaml": "k: 1\n"},
    "duplicate-self": {"main.yaml": "defaults:\n  - _self_\n  - _self_\nk: 1\n"},
    "self-package": {"main.yaml": "defaults:\n  - _self_@x\nk: 1\n"},
    "yml-refused": {"main.yaml": "defaults:\n  - grp: a.yml\n", "grp/a.yml": "k: 1\n"},
    "merge-order": {
        "main.yaml": "defaults:\n  - grp@m: a\n  - grp@m: b\n  - _self_\nm:\n  z: 0\n",
        "grp/a.yaml": "x: 1\nd: {p: 1}\n",
        "grp/b.yaml": "y: 2\nd: {q: 2}\n",
    },
    "config-default-package": {"main.yaml": "defaults:\n  - sub/cfg@pk\n", "sub/cfg.yaml": "k: 1\n"},
    "interpolated-choice": {
        "main.yaml": "defaults:\n  - db: mysql\n  - os: linux\n  - db_os: ${db}_${os}\n",
        "db/mysql.yaml": "d: 1\n", "os/linux.yaml": "o: 1\n", "db_os/mysql_linux.yaml": "both: 1\n",
    },
    "interpolated-overridden": {
        "main.yaml": "defaults:\n  - db: mysql\n  - db_os: ${db}\n  - override db: pg\n",
        "db/mysql.yaml": "d: 1\n", "db/pg.yaml": "d: 2\n", "db_os/pg.yaml": "both: 2\n",
    },
    "interpolated-unknown": {"main.yaml": "defaults:\n  - db_os: ${nothere}\n", "db_os/x.yaml": "k: 1\n"},
    "interpolated-in-list": {"main.yaml": "defaults:\n  - db: mysql\n  - grp: [a, '${db}']\n",
                             "db/mysql.yaml": "d: 1\n", "grp/a.yaml": "k: 1\n", "grp/mysql.yaml": "k: 2\n"},
}


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
    from support.paths import GOLDEN

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
    from support.paths import GOLDEN

    folder = GOLDEN / "launch-resolution" / "defaults-extension"
    done = rftc("lint", "run.sh", "--format", "concise", cwd=folder)
    assert done.stderr == (folder / "expected.txt").read_text() and done.returncode == 0
