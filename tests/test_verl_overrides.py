"""Override parsing: Hydra's grammar, errors at the right column, sweeps, placeholders; shell-like splitting."""

import pytest
from hypothesis import given, settings, strategies as st

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Span
from rftc.shell.invocation import Arg
from rftc.verl import effective_config, invocation_from_text
from rftc.verl.overrides.parse import parse, sub_span
from rftc.verl.overrides.text import split_text
from support.paths import CORPUS, WILD, needs_corpus, needs_wild


def _parse(text):
    diags = Diagnostics()
    return parse(Arg(text, Span("<t>", 1, 1, 1, 1 + len(text))), diags), diags


@pytest.mark.parametrize("text,kind,key,value", [
    ("a.b=1", "change", "a.b", 1),
    ("+a=[1,'x',null]", "add", "a", [1, "x", None]),
    ("++a.b=1e-6", "force_add", "a.b", 1e-6),
    ("~a.b", "delete", "a.b", None),
    ("a='x,y'", "change", "a", "x,y"),
    ("a=${oc.env:HOME}/d", "change", "a", "${oc.env:HOME}/d"),
    ("a={x:1,y:[2]}", "change", "a", {"x": 1, "y": [2]}),
    ("a=", "change", "a", ""),
    ("a=null", "change", "a", None),
    ("hydra.run.dir=x", "hydra", "hydra.run.dir", "x"),
    ("hydra/job_logging=disabled", "hydra", "hydra/job_logging", "disabled"),  # Hydra's own config group
    ("actor@actor_rollout_ref.actor=mlite", "group", "actor", "mlite"),
], ids=lambda v: str(v))
def test_parses_like_hydra(text, kind, key, value):
    o, diags = _parse(text)
    assert not diags and (o.kind, o.key, o.value) == (kind, key, value)


@pytest.mark.parametrize("text,code,col", [
    ("trainer.experiment_name=x}", "RFTC200", 26),
    ("trainer.logger=[console", "RFTC200", 23),  # the input ends unclosed
    ("a=x,y", "RFTC201", 3),
    ("actor_rollout_ref.model.path=<path_to_model>", "RFTC202", 30),
])
def test_errors_carry_the_column(text, code, col):
    o, diags = _parse(text)
    assert o is None and [d.code for d in diags] == [code] and diags[0].span.col == col


def test_delete_with_value_keeps_it():
    o, _ = _parse("~a=3")
    assert (o.kind, o.value, o.has_value) == ("delete", 3, True)
    o, _ = _parse("~a")
    assert o.has_value is False


def test_split_text_keeps_columns_and_removes_quotes():
    args = split_text("a=1  'b=x y' c=\"q\\\"r\" d=e\\ f")
    assert [a.text for a in args] == ["a=1", "b=x y", 'c=q"r', "d=e f"]
    assert [a.span.col for a in args] == [1, 6, 14, 23]
    with pytest.raises(ValueError):
        split_text("a='open")


def test_sub_span_falls_back_to_the_word_when_quoted():
    arg = Arg("b=x y", Span("f", 3, 10, 3, 17))  # written as 'b=x y' (7 columns)
    assert sub_span(arg, 2) == arg.span
    plain = Arg("b=xy", Span("f", 3, 10, 3, 14))
    assert sub_span(plain, 2, 4) == Span("f", 3, 12, 3, 14)


def test_invocation_from_text_reads_hydra_flags():
    diags = Diagnostics()
    inv = invocation_from_text("--config-path=config --config-name ppo_megatron_trainer.yaml trainer.nnodes=2",
                               diags=diags)
    assert inv.config_path.text == "config" and inv.config_name.text == "ppo_megatron_trainer.yaml"
    assert [a.text for a in inv.overrides] == ["trainer.nnodes=2"]
    eff = effective_config(inv, diags=diags)
    assert eff.config_name == "ppo_megatron_trainer" and eff.get("model_engine") == "megatron"


_ALPHABET = st.sampled_from(list("abc.=+~,[]{}'\"$:<>/ _-0129\\") + ["${", "trainer.nnodes", "null", "oc.env"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=14).map("".join))
def test_any_override_text_gives_diagnostics_not_exceptions(text):
    diags = Diagnostics()
    inv = invocation_from_text(text, diags=diags)
    if inv is not None:
        effective_config(inv, verl_version="0.9.1", diags=diags)
    for d in diags:
        assert d.code.startswith("RFTC")


def _hydra_value(text):
    from rftc.verl.overrides.grammar import _hydra_parse

    o = _hydra_parse(text)
    return ("add" if o.is_add() else "force_add" if o.is_force_add() else "change"), o.key_or_group, o.value()


def _same(a, b):
    """Equal, with the same types all the way down (a NaN equals a NaN)."""
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and a != a:
        return isinstance(b, float) and b != b
    return type(a) is type(b) and a == b


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["", "+", "++"]), st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}(\.[A-Za-z0-9_]{1,5}){0,2}",
                                                        fullmatch=True),
       st.from_regex(r"[A-Za-z0-9_./eE-]{1,9}", fullmatch=True))
def test_fast_path_types_values_exactly_as_hydra(prefix, key, value):
    from rftc.verl.overrides.grammar import _simple

    text = f"{prefix}{key}={value}"
    fast = _simple(text)
    if fast is not None:
        assert _same(fast, _hydra_value(text)), text


@needs_corpus
def test_fast_path_agrees_with_hydra_on_the_corpus_overrides():
    import re

    from rftc.verl.overrides.grammar import _simple

    words = {w for f in CORPUS.rglob("*.sh") for w in re.findall(r"^\s*(\+{0,2}[a-z_][\w.]*=\S+?)\s*\\?$",
                                                                  f.read_text(errors="replace"), re.M)}
    fast = [w for w in words if _simple(w) is not None]
    assert len(fast) > 500
    assert [w for w in fast if not _same(_simple(w), _hydra_value(w))] == []


# Values near the fast path's edge: primitives of every token kind, quoted strings holding quotes, backslashes and
# commas, lists with blanks around their brackets and commas, nested lists; and stray characters that make a text
# Hydra's parser's to read (blanks, braces, parentheses, equals signs, sweeps).
_PIECE = st.sampled_from(["a", "Z", "_", "0", "1", "7", "-", "+", ".", "/", ":", "%", "*", "@", "?", "|", "$", "e",
                          "E", "inf", "NaN", "null", "True", "fAlse", "1_0", "0_1", "${oc.env:HOME}", "${a.b}",
                          "${oc.select:a,[1]}", "${", "}", "{", "(", ")", "=", "~", " ", "\t", "\\", ","])
_PRIMITIVE = st.lists(_PIECE, min_size=1, max_size=6).map("".join)
_QUOTED = st.builds(lambda q, s: q + s + q, st.sampled_from(["'", '"']), st.text("ab ,[]{}:=$'\"\\", max_size=6))


def _lists(inner):
    return st.builds(lambda items, sep, opening, closing: opening + sep.join(items) + closing,
                     st.lists(inner, max_size=4), st.sampled_from([",", ", ", " ,", " , "]),
                     st.sampled_from(["[", "[ "]), st.sampled_from(["]", " ]"]))


_VALUE = st.recursive(st.one_of(_PRIMITIVE, _QUOTED), _lists, max_leaves=8)


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(["", "+", "++", "~"]), st.sampled_from(["a", "trainer.logger", "a.0.b", "hydra.run.dir",
                                                               "actor@pkg", "group/option"]), _VALUE)
def test_fast_path_reads_every_text_it_accepts_as_hydra_does(prefix, key, value):
    from rftc.verl.overrides.grammar import _simple

    text = f"{prefix}{key}={value}"
    fast = _simple(text)
    if fast is not None:
        assert _same(fast, _hydra_value(text)), text


@pytest.mark.parametrize("text", ["a.b=1", "a=", "+a=[]", "++a.b=[ 1 , 'x y' ]", 'a=["console","wandb"]',
                                  "a=[[1,2],[3]]", "a=${oc.env:HOME}/data/train.parquet", "a='x,y'",
                                  "a=http://host:8000/v1", "a=1e-6", "a=-inf", "a=Null", "a=$${x}"])
def test_the_shapes_scripts_write_take_the_fast_path(text):
    from rftc.verl.overrides.grammar import _simple

    assert _simple(text) is not None and _same(_simple(text), _hydra_value(text))


@needs_corpus
@needs_wild
def test_fast_path_agrees_with_hydra_on_every_override_the_corpora_launch_with():
    """Every override of every launch the shell stage finds in both corpora: what the fast path reads, it reads as
    Hydra's parser does, and it reads nearly all of them (a conversion imports hydra-core only for the rest)."""
    from rftc.shell import analyze
    from rftc.verl.overrides.grammar import _simple

    words = {a.text for r in (CORPUS, WILD) for f in sorted(r.rglob("*.sh"))
             for inv in analyze(f.read_text(errors="replace"), str(f)).invocations for a in inv.overrides}
    fast = [w for w in words if _simple(w) is not None]
    assert len(fast) > 0.99 * len(words) and len(fast) > 2000
    assert [w for w in fast if not _same(_simple(w), _hydra_value(w))] == []
