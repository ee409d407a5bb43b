"""Property test: random edits of a valid config (deleted keys, wrong types, shuffled sections, broken YAML,
huge numbers, unicode) never raise; every diagnostic has a code, a message and a position in the file."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rftc.diagnostics.catalogue import lookup
from rftc.trinity.document import parse
from rftc.trinity.validate import CheckOptions, check_config
from support.paths import GRPO_EXAMPLE

BASE = GRPO_EXAMPLE.read_text(encoding="utf-8").splitlines()
VALUES = st.one_of(
    st.integers(min_value=-(10 ** 30), max_value=10 ** 30), st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(), st.none(), st.text(max_size=12), st.sampled_from(["${oc.env:X}", "${model.nope}", "${", "{a: 1}",
                                                                     "[1, 2", "!!binary AA==", "~", "0x1F", "1e999"]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))


def _dump(value):
    import json
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


@st.composite
def edited_config(draw):
    lines = list(BASE)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        i = draw(st.integers(min_value=0, max_value=len(lines) - 1))
        action = draw(st.sampled_from(["delete", "value", "shuffle", "unicode", "indent", "raw"]))
        line = lines[i]
        if action == "delete":
            del lines[i]
        elif action == "value" and ":" in line:
            key = line.split(":", 1)[0]
            lines[i] = f"{key}: {_dump(draw(VALUES))}"
        elif action == "shuffle":
            rng = random.Random(draw(st.integers()))
            blocks, cur = [], []
            for ln in lines:
                if ln and not ln[0].isspace() and cur:
                    blocks.append(cur)
                    cur = []
                cur.append(ln)
            blocks.append(cur)
            rng.shuffle(blocks)
            lines = [ln for b in blocks for ln in b]
        elif action == "unicode":
            lines[i] = line + draw(st.text(min_size=1, max_size=8))
        elif action == "indent":
            lines[i] = " " * draw(st.integers(min_value=0, max_value=5)) + line.lstrip()
        else:
            lines[i] = draw(st.text(max_size=30))
        if not lines:
            break
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_config())
def test_random_edits_never_raise(text):
    nlines = text.count("\n") + 1
    doc, diags = parse(text, "c.yaml")
    if doc is not None:
        _, more = check_config(doc.data, doc.locate, CheckOptions(path_checks=False, environ={}))
        diags = diags + more
    for d in diags:
        assert lookup(d.code) and d.message
        assert d.span is not None and 1 <= d.span.line <= nlines and d.span.col >= 1


@settings(max_examples=60, deadline=None)
@given(st.recursive(VALUES, lambda children: st.one_of(st.lists(children, max_size=3),
                                                      st.dictionaries(st.sampled_from(
                                                          ["mode", "model", "buffer", "algorithm", "cluster",
                                                           "explorer", "trainer", "trainer_config", "taskset",
                                                           "tasksets", "batch_size", "x"]), children, max_size=4)),
                    max_leaves=20))
def test_arbitrary_data_never_raises(data):
    check_config(data, None, CheckOptions(path_checks=False, environ={}))
