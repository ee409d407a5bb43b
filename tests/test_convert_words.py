"""Words as bash makes them, through `rftc convert`: golden/launch-resolution/words/ holds one launch per kind of
word (arrays tested for being set, a value only the caller gives left unquoted, nested arithmetic, a launch held in
a heredoc and run by `srun ... bash -c`, an empty word). bash runs each script with the launched programs printing
their arguments; rftc must find the same words, and the conversion goes as veRL would run them."""

from __future__ import annotations

import pytest

from rftc.shell import analyze
from support.bash import BASH, launches, run
from support.cli import convert
from support.paths import GOLDEN
from test_mapping_support import MICRO_WARNING

FOLDER = GOLDEN / "launch-resolution" / "words"
SCRIPTS = sorted(p.name for p in FOLDER.glob("*.sh"))


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("name", SCRIPTS)
def test_the_words_bash_passes(name, tmp_path):
    ran = launches(run([name], tmp_path, cwd=FOLDER).stdout)
    found = analyze((FOLDER / name).read_text(), name, cwd=str(FOLDER)).invocations
    assert [["-m", i.module] + [a.text for a in i.args] for i in found] == ran and len(ran) == 1


def _convert(name: str, tmp_path, *options: str, status: int = 0):
    """The conversion and its warnings and errors at a line of the script (those of veRL's defaults, such as the
    RFTC305 of its prompt truncation, have none; the micro-batch loss's RFTC305 aside: tests/test_diff_micro.py)."""
    done = convert(name, *options, out=tmp_path, cwd=FOLDER, status=status)
    return done, {(d["code"], d["line"]) for d in done.diagnostics if d["severity"] != "info" and d["line"]
                  and MICRO_WARNING not in d["message"]}


def test_a_set_array_gives_its_words_an_unset_or_empty_one_none(tmp_path):
    done, found = _convert("arrays.sh", tmp_path)
    assert done.config["cluster"]["node_num"] == 2 and not found


def test_an_unquoted_value_only_the_caller_gives_is_left_out_and_named(tmp_path):
    done, found = _convert("unquoted.sh", tmp_path)
    assert found == {("RFTC123", 8)} and done.config["cluster"]["node_num"] == 1
    (words,) = [d["message"] for d in done.diagnostics if d["code"] == "RFTC123"]
    assert words.startswith("$EXTRA_ARGS is not set in the script")
    given, found = _convert("unquoted.sh", tmp_path / "given", "--env",
                            "EXTRA_ARGS=trainer.total_epochs=3 trainer.nnodes=4")  # two words; nnodes=1 comes after
    assert found == {("RFTC206", 8)}  # trainer.nnodes=4 is set again after it, as the launch reads
    assert given.config["buffer"]["total_epochs"] == 3 and given.config["cluster"]["node_num"] == 1


def test_nested_arithmetic_is_arithmetic(tmp_path):
    done, found = _convert("arith.sh", tmp_path)
    assert not found and done.config["synchronizer"]["sync_interval"] == 1  # train_batch_size 8*2*16 = 256, mini 256


def test_a_launch_held_in_a_heredoc_is_followed_to_its_lines(tmp_path):
    done, found = _convert("heredoc.sh", tmp_path)
    assert not found and done.config["name"] == "run-2-16" and done.config["cluster"]["node_num"] == 2
    text = done.configs[0].read_text()
    assert "# trainer.nnodes (heredoc.sh:10)" in text and "# data.train_files (heredoc.sh:5)" in text


def test_an_empty_word_fails_where_hydra_fails(tmp_path):
    done, _ = _convert("empty_alt.sh", tmp_path, status=1)
    (error,) = done.errors()
    assert (error["code"], error["line"], error["col"]) == ("RFTC200", 8, 5)
    assert "Hydra cannot parse the override ''" in error["message"]
