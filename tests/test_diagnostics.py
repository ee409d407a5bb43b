import json

from rftc.diagnostics.model import Diagnostic, Severity, Span
from rftc.diagnostics.render import apply_policy, render

SRC = {"run.sh": "python3 -m verl.trainer.main_ppo \\\n    data.train_batch_size=abc \\\n    trainer.nnodes=1\n"}
D = Diagnostic("RFTC001", Severity.ERROR, "bad value", Span("run.sh", 2, 27, 2, 30), hint="use an integer",
               key="data.train_batch_size")


def test_full_shows_source_line_and_caret():
    out = render("full", [D], SRC)
    assert out.splitlines() == [
        "error[RFTC001]: bad value",
        " --> run.sh:2:27",
        "  |",
        "2 |     data.train_batch_size=abc \\",
        "  |                           ^^^",
        "  = help: use an integer",
    ]


def test_concise_and_json():
    assert render("concise", [D], SRC) == "run.sh:2:27: error[RFTC001] bad value\n"
    rec = json.loads(render("json", [D], SRC))[0]
    assert (rec["code"], rec["line"], rec["col"], rec["key"]) == ("RFTC001", 2, 27, "data.train_batch_size")


def test_github_annotation_escapes():
    out = render("github", [Diagnostic("RFTC001", Severity.WARNING, "a\nb", Span("x,y.sh", 3, 1))])
    assert out == "::warning file=x%2Cy.sh,line=3,col=1,title=RFTC001::a%0Ab\n"


def test_sarif_has_rule_and_region():
    doc = json.loads(render("sarif", [D], SRC))
    run = doc["runs"][0]
    assert run["tool"]["driver"]["rules"][0]["id"] == "RFTC001"
    assert run["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 2


def test_inline_suppression_disable_and_strict():
    src = {"a.sh": "x=1  # rftc: disable=RFTC001\ny=2\n"}
    d1 = Diagnostic("RFTC001", Severity.WARNING, "m", Span("a.sh", 1, 1))
    d2 = Diagnostic("RFTC001", Severity.WARNING, "m", Span("a.sh", 2, 1))
    assert apply_policy([d1, d2], src) == [d2]
    assert apply_policy([d1, d2], src, disable=["RFTC001"]) == []
    assert apply_policy([d2], src, strict=True)[0].severity is Severity.ERROR
