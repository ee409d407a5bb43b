"""`rftc convert --to verl` of SFT configs, and the SFT round trips, as properties of the SFT semantic model
(rftc.semantics.model.SftRun), as tests/test_convert_back.py does for main_ppo:

- Trinity -> veRL -> Trinity: every golden SFT config (golden/convert/sft), back to its script's release and to the
  newest bundled one, then converted again, trains what it trained, except in the quantities `--to verl` reported
  veRL cannot express (RFTC601);
- veRL -> Trinity -> veRL: every golden SFT script, and every SFT launch of the corpus (../shared/corpus/verl) that
  converts with exit 0, trains what its way back trains, except in those reported quantities and those the
  forward conversion documents (golden/convert/DEVIATIONS.md, BY_VALUE);
- the launch is the release's SFT trainer under torchrun (fsdp_sft_trainer up to verl 0.7.0, sft_trainer after);
- golden/reverse/sft/NAME.args holds the arguments of `rftc convert --to verl`, NAME.sh the launch it writes and
  NAME.stderr its diagnostics (read by hand).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rftc import api, compare
from rftc.semantics.model import SftRun, differences
from rftc.semantics.trinity import from_trinity, view
from rftc.semantics.verl import from_verl
from rftc.trinity.document import parse
from rftc.verl.trainers import SFT_TRAINERS, is_sft
from support import paths
from support.cli import rftc
from support.paths import CORPUS, needs_corpus
from test_convert_back import RELEASE, _unexpressed
from test_convert_equivalence import MICRO_LABEL, _args, explain

SFT = paths.GOLDEN / "convert" / "sft"
SCRIPTS = sorted(SFT.glob("*.sh"))
BACK = paths.GOLDEN / "reverse" / "sft"


def _model(config: Path, rows: int | None):
    checked = api.check(str(config))
    assert checked.config is not None, [str(d) for d in checked.diagnostics]
    run = from_trinity(view(checked.config, parse(config.read_text(), str(config))[0]), dataset_rows=rows,
                       cwd=str(config.parent))
    assert isinstance(run, SftRun)
    return run


def _back(config: Path, tmp_path: Path, release: str | None, rows: int | None):
    launch = compare.to_verl(str(config), release, dataset_size=rows)
    assert launch.text is not None and not launch.diagnostics.has_errors, [str(d) for d in launch.diagnostics]
    script = tmp_path / "run.sh"
    script.write_text(launch.text)
    return launch, script


def _rows(script: Path) -> int | None:
    return _args(script).dataset_size


@pytest.mark.parametrize("newest", [False, True], ids=["own release", "newest"])
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.stem)
def test_trinity_to_verl_to_trinity(script, newest, tmp_path):
    config, rows = script.with_suffix(".yaml"), _rows(script)
    release = None if newest else RELEASE.search(config.read_text()).group(1)
    launch, back = _back(config, tmp_path, release, rows)
    # no --cwd: $PWD stays the run's, as in the config (${oc.env:PWD}); the rows are given
    result = api.compile(str(back), api.Options(verl_version=launch.release, dataset_size=rows))
    assert result.config is not None, [str(d) for d in result.diagnostics if d.severity.label == "error"]
    again = tmp_path / "again.yaml"
    again.write_text(result.yaml())
    found = {q.label for q, _, _ in differences(_model(config, rows), _model(again, rows))}
    assert found <= _unexpressed(launch), f"lost without a report: {found - _unexpressed(launch)}"


def _round_trip(script: Path, eff, config: Path, tmp_path: Path, rows: int | None, total_steps: int | None,
                cwd: Path) -> list[str]:
    """veRL -> Trinity -> veRL for one converted SFT launch: the differences neither `--to verl` reports nor the
    forward conversion documents."""
    launch, back = _back(config, tmp_path, eff.verl_version, rows)
    composed = api.compile(str(back), api.Options(verl_version=eff.verl_version))  # $PWD stays the run's
    assert composed.verl is not None, [str(d) for d in composed.diagnostics if d.severity.label == "error"]
    kw = dict(total_steps=total_steps, dataset_rows=rows, cwd=str(cwd))
    before, after = from_verl(eff, **kw), from_verl(composed.verl, **kw)
    assert isinstance(before, SftRun) and isinstance(after, SftRun)
    return [f"{script.name}: {q.label}: {a} -> {b}" for q, a, b in differences(before, after)
            if q.label not in _unexpressed(launch) and explain(script.name, q.label, a.value, {}) is None]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.stem)
def test_verl_to_trinity_to_verl(script, tmp_path):
    from rftc.commands import convert

    args = _args(script)
    original = api.compile(str(script), convert.options(args))
    assert original.verl is not None
    assert not _round_trip(script, original.verl, script.with_suffix(".yaml"), tmp_path, args.dataset_size,
                           args.total_steps, script.parent)


@pytest.mark.parametrize("release,module", [("0.7.0", "verl.trainer.fsdp_sft_trainer"), ("0.4.1", "verl.trainer."
                                            "fsdp_sft_trainer"), ("0.7.1", "verl.trainer.sft_trainer"),
                                            ("0.9.1", "verl.trainer.sft_trainer")])
def test_the_launch_is_the_releases_sft_trainer_under_torchrun(release, module, tmp_path):
    launch, back = _back(SFT / "multiturn_qwen_05_sp2.yaml", tmp_path, release, None)
    assert re.search(rf"^torchrun --standalone --nnodes=1 --nproc_per_node=\d+ -m {re.escape(module)} ",
                     launch.text, re.M)
    [inv] = api.read([str(back)], api.Options()).launches
    assert is_sft(inv) and inv.module == module and inv.launcher == "torchrun"
    lines = launch.text.splitlines()
    words = [i for i, line in enumerate(lines) if line.startswith("    '") or line.startswith('    "')]
    assert words and all(lines[i - 1].startswith("    # ") for i in words)


def test_several_nodes_rendezvous_at_the_first(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text((SFT / "multiturn_qwen_05_sp2.yaml").read_text().replace("node_num: 1 ", "node_num: 2 ", 1))
    launch, back = _back(config, tmp_path, None, None)
    assert "torchrun --nnodes=2 --nproc_per_node=" in launch.text and '--node_rank="${NODE_RANK:-0}"' in launch.text
    [inv] = api.read([str(back)], api.Options()).launches
    assert inv.launcher_sizes["nnodes"].text == "2"


@pytest.mark.parametrize("case", sorted(BACK.glob("*.args")), ids=lambda p: p.stem)
@pytest.mark.usefixtures("plain_terminal")
def test_golden_way_back(case):
    proc = rftc("convert", "--to", "verl", "--format", "concise", *paths.arguments(case), cwd=case.parent)
    assert proc.stdout == case.with_suffix(".sh").read_text()
    assert proc.stderr == case.with_suffix(".stderr").read_text()
    assert proc.returncode == 0


def _corpus_sft_launches():
    """(script, launch) for every launch of an SFT trainer in the corpus (a text filter on the trainers' module
    names first, then the launches the shell stage finds)."""
    names = tuple(m.rsplit(".", 1)[1] for m in SFT_TRAINERS)
    for script in sorted(CORPUS.rglob("*.sh")):
        if any(n in script.read_text(errors="replace") for n in names):
            found = api.read([str(script)], api.Options())
            for inv in found.launches:
                if is_sft(inv) and api.composable(inv):
                    yield script, inv, found


@needs_corpus
def test_corpus_verl_to_trinity_to_verl(tmp_path):
    """Every SFT launch of the corpus that converts with exit 0 (19) comes back training what it trained."""
    lost, compared = [], 0
    for i, (script, inv, found) in enumerate(_corpus_sft_launches()):
        result = api.compile_launch(inv, api.Options())
        own = [d for d in result.diagnostics + found.diagnostics if d.severity.label == "error"]
        if result.config is None or own:
            continue
        config = tmp_path / f"{i:02d}.yaml"
        config.write_text(result.yaml())
        compared += 1
        lost += _round_trip(script, result.verl, config, tmp_path, None, None, script.parent)
    assert compared == 19 and not lost, (compared, "\n".join(lost))


def _edited(tmp_path: Path, name: str, *edits: tuple[str, str]) -> Path:
    text = (SFT / name).read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    config = tmp_path / "c.yaml"
    config.write_text(text)
    return config


def test_what_the_trainer_cannot_express_is_reported_and_the_rest_comes_back(tmp_path):
    """A data order veRL's sampler does not have and a system prompt its datasets have no key for are RFTC601 (and the
    micro-batch loss, which Trinity adds up where the engine trainer normalises by the step: tests/test_diff_micro.py);
    the thinking switch goes back as the engine trainer's enable_thinking_default (which replaces the chat-template
    argument) and converts again to the same."""
    config = _edited(tmp_path, "vlm_qwen3_vl_2b.yaml", ("selector_type: shuffle", "selector_type: sequential"),
                     ("        enable_thinking: true", "        enable_thinking: false"),
                     ("        prompt_type: messages", "        prompt_type: messages\n"
                      "        system_prompt: You are helpful."))
    launch, back = _back(config, tmp_path, None, 833)
    assert _unexpressed(launch) == {"data order", "tokens with loss", MICRO_LABEL}
    assert "'data.enable_thinking_default=False'" in launch.text
    result = api.compile(str(back), api.Options(verl_version=launch.release, dataset_size=833))
    again = tmp_path / "again.yaml"
    again.write_text(result.yaml())
    found = {q.label for q, _, _ in differences(_model(config, 833), _model(again, 833))}
    assert found == {"data order", "tokens with loss"}


@pytest.mark.parametrize("release,name,edits,label", [
    # the engine trainer reads chat messages only
    ("0.9.1", "gsm8k_qwen_05_peft.yaml", (), "tokens with loss"),
    # fsdp_sft_trainer has fixed micro-batches only
    ("0.7.0", "vlm_qwen3_vl_2b.yaml", (), "micro-batch per GPU"),
    # veRL's multi-turn datasets train every assistant turn
    ("0.9.1", "vlm_qwen3_vl_2b.yaml", (("enable_concatenated_multi_turn: true", "enable_concatenated_multi_turn: "
                                        "false"),), "tokens with loss")])
def test_a_trainer_without_the_configs_setting_is_rftc601(release, name, edits, label, tmp_path):
    launch, _ = _back(_edited(tmp_path, name, *edits), tmp_path, release, 833)
    assert label in _unexpressed(launch)


def test_verl_0_4_0_reads_the_columns_text_when_told(tmp_path):
    # its config nests the single-turn columns by default (prompt_dict_keys ['question']): the launch clears them
    launch, _ = _back(SFT / "gsm8k_qwen_05_peft.yaml", tmp_path, "0.4.0", 7473)
    assert "'data.prompt_dict_keys=[]'" in launch.text and "'data.response_dict_keys=[]'" in launch.text
    assert "tokens with loss" not in _unexpressed(launch)
    launch, _ = _back(SFT / "gsm8k_qwen_05_peft.yaml", tmp_path, "0.4.1", 7473)
    assert "dict_keys" not in launch.text


def test_a_config_with_stages_has_no_launch_back():
    """veRL has no pipeline of trainers, and where a stage's model comes from is known only once the one before it
    has run: RFTC603, at the config's stages, and no script (docs/diff.md)."""
    launch = compare.to_verl(str(paths.GOLDEN / "pipeline" / "sft_grpo" / "expected.yaml"))
    assert launch.text is None
    [stages] = [d for d in launch.diagnostics if d.code == "RFTC603"]
    assert stages.severity.label == "error" and stages.span.line == 79
