"""The YAML reader (positions, broken YAML, YAML 1.1 scalars) and the interpolation resolver."""

import pytest

from rftc.trinity.document import parse
from rftc.trinity.interpolation import resolve

TEXT = """\
model:
  model_path: Qwen/Qwen2.5  # comment
  max_model_len: 2048
buffer:
  explorer_input:
    tasksets:
      - name: a
        path: x
      - {name: b, path: y}
flag: yes
quoted: 'yes'
"""


def test_locate_keys_items_and_missing_paths():
    doc, diags = parse(TEXT, "c.yaml")
    assert not diags
    span = doc.locate(("model", "max_model_len"))
    assert (span.line, span.col, span.end_col) == (3, 3, 16)
    assert doc.locate(("buffer", "explorer_input", "tasksets", 1)).line == 9
    assert doc.locate(("buffer", "explorer_input", "tasksets", 1, "path")).col == 19
    # a path the file does not set is located at its nearest written ancestor
    assert doc.locate(("model", "max_prompt_tokens")).line == 1
    assert doc.locate(("trainer", "total_steps")).line == 1
    assert doc.locate(("model", "model_path"), value=True).col == 15


def test_yaml11_booleans_as_omegaconf_reads_them():
    doc, _ = parse(TEXT, "c.yaml")
    data = doc.data
    assert data["flag"] is True and data["quoted"] == "yes"


@pytest.mark.parametrize("text, line, col", [
    ("model:\n  model_path: 'abc\n", 2, 15),
    ("a: 1\na: 2\n", 2, 1),
    ("a: [1, 2\n", 1, 4),
    ("a:\n\t- b\n", 2, 1),
])
def test_broken_yaml_is_a_diagnostic_at_its_position(text, line, col):
    doc, diags = parse(text, "bad.yaml")
    assert doc is None
    [d] = diags
    assert d.code == "RFTC400" and (d.span.line, d.span.col) == (line, col)


def _no_default(path):
    raise KeyError(path)


def test_interpolations_resolve_like_omegaconf():
    data = {"model": {"model_path": "${oc.env:HOME_X}/m", "n": "${oc.env:MISSING_X,4}",
                      "d": "${oc.decode:${model.n}}", "r": "${.d}", "up": "${..top}", "sel": "${oc.select:nope,7}",
                      "esc": "\\${literal}", "lst": "${items[1]}"},
            "top": 1, "items": ["a", "b"]}
    res = resolve(data, _no_default, {"HOME_X": "/h"})
    m = res.data["model"]
    assert (m["model_path"], m["n"], m["d"], m["r"], m["up"], m["sel"], m["esc"], m["lst"]) == \
        ("/h/m", "4", 4, 4, 1, 7, "${literal}", "b")
    assert not res.errors and not res.missing_env


def test_missing_env_and_bad_references_are_reported_not_raised():
    data = {"a": "${oc.env:NOPE_RFTC}", "b": "${c.d}", "e": "${e}", "f": "${oc.nope:1}", "g": "${unclosed"}
    res = resolve(data, _no_default, {})
    assert res.missing_env == [(("a",), "NOPE_RFTC")]
    errs = dict(res.errors)
    assert errs[("b",)] == "Interpolation key 'c.d' not found"
    assert "Recursive" in errs[("e",)] and "Unsupported interpolation type oc.nope" in errs[("f",)]
    assert "Unterminated" in errs[("g",)]
    assert data["a"] == "${oc.env:NOPE_RFTC}"  # left as written


def test_reference_to_an_unset_field_takes_the_schema_default():
    from rftc.trinity.checks.structure import schema_default

    res = resolve({"model": {"critic_model_path": "${model.model_path}", "x": "${trainer.save_interval}"}},
                  schema_default, {})
    assert res.data["model"] == {"critic_model_path": "", "x": 0}
