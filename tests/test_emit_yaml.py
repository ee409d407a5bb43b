"""The YAML writer: its own layout (fast_body) equals ruamel.yaml's (ruamel_body) byte for byte, on every golden
conversion and on scalars chosen to be awkward; shapes it does not write go through ruamel."""

from hypothesis import given, settings
from hypothesis import strategies as st

from rftc.emit import yaml as ey
from rftc.mapping.draft import Origin
from support.cli import rftc
from support.paths import GOLDEN


class _Cfg:
    def prov(self, key):
        from rftc.verl.effective import Provenance

        return Provenance("default", None, "")


AWKWARD = ["", " ", "true", "False", "null", "~", "1e-6", "0x10", "1_000", ".inf", "2024-01-01", "a: b", "a #b",
           "#x", "- x", "*x", "&x", "!x", "'q'", '"q"', "x'y", "${oc.env:HOME}/d", "{a}", "[a]", "a,b", "%x", "@x",
           "`x", "two\nlines", "end\n", "yes", "on", "é", "tab\tin", "trailing ", "a  b", "1.0", "-1", "+1", "0o7", ".5", "NaN", "Null"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.sampled_from(AWKWARD),
                    st.floats(allow_nan=False, allow_infinity=False, width=32),
                    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=12))
keys = st.text("abcdefghij_", min_size=1, max_size=8)
trees = st.recursive(scalars, lambda c: st.one_of(st.lists(scalars, max_size=3),
                                                  st.dictionaries(keys, c, max_size=4),
                                                  st.lists(st.dictionaries(keys, c, min_size=1, max_size=3),
                                                           max_size=2)), max_leaves=20)


def _both(config, origins):
    expected = ey.ruamel_body(config, origins, _Cfg())
    try:
        got = ey.fast_body(config, origins, _Cfg())
    except ey._Unusual:
        return
    assert got == expected


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(keys, trees, min_size=1, max_size=5), st.data())
def test_fast_layout_equals_ruamel(config, data):
    paths = []

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                paths.append(f"{path}.{k}" if path else k)
                walk(v, paths[-1])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}.{i}")

    walk(config, "")
    chosen = data.draw(st.lists(st.sampled_from(paths), unique=True)) if paths else []
    origins = {p: Origin((), "x" * data.draw(st.integers(1, 70))) for p in chosen}
    _both(config, origins)


def test_unusual_shapes_go_through_ruamel():
    for config in ({"a": [[1, 2]]}, {"c": [None]}):
        try:
            ey.fast_body(config, {}, _Cfg())
        except ey._Unusual:
            continue
        raise AssertionError(f"{config} should be unusual")
    cfg = _Cfg()
    cfg.verl_version, cfg.config_name, cfg.version_note, cfg.source = "0.9.1", "ppo_trainer", "", ""
    text = ey.emit({"a": [[1, 2]], "b": "two\nlines"}, {}, cfg, source="s.sh")
    assert text.endswith(ey.ruamel_body({"a": [[1, 2]], "b": "two\nlines"}, {}, cfg))


def test_golden_conversions_agree(monkeypatch, tmp_path):
    seen = []
    real = ey.emit

    def both(config, origins, cfg, **kw):
        seen.append(ey.fast_body(config, origins, cfg) == ey.ruamel_body(config, origins, cfg))
        return real(config, origins, cfg, **kw)

    monkeypatch.setattr(ey, "emit", both)
    for script in sorted((GOLDEN / "convert").rglob("*.sh")):
        rftc("convert", script, "--out-dir", tmp_path, "--dataset-size", "1000")
    assert len(seen) >= 25 and all(seen)
