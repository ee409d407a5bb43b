import json

from rftc.diagnostics.model import Diagnostic, Severity, Span
from rftc.diagnostics.render import apply_policy, render
from support.cli import rftc

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


def _caret(out: str) -> tuple[str, str]:
    """The excerpt's source line and the part of it the carets are under."""
    lines = out.splitlines()
    i = next(i for i, line in enumerate(lines) if set(line.split("|", 1)[-1].strip()) == {"^"})
    shown, carets = lines[i - 1].split("| ", 1)[1], lines[i].split("| ", 1)[1]
    start = len(carets) - len(carets.lstrip())
    return shown, shown[start:len(carets)]


def test_a_very_long_line_shows_a_window_around_the_span():
    words = [f"key{i}=value{i}" for i in range(200)]
    line = " ".join(words)
    src = {"run.sh": line + "\n"}
    for i in (0, 1, 100, 199):
        col = line.index(words[i]) + 1
        out = render("full", [Diagnostic("RFTC203", Severity.ERROR, "m", Span("run.sh", 1, col, 1,
                                                                              col + len(words[i])))], src)
        assert max(len(text) for text in out.splitlines()) <= 100
        shown, under = _caret(out)
        assert under == words[i] and shown.startswith("..." if i > 1 else "key0=") \
            and shown.endswith("value199" if i == 199 else "...")
    # a span longer than the window: its start, the carets on under the ellipsis where it is cut
    out = render("full", [Diagnostic("RFTC217", Severity.WARNING, "m", Span("run.sh", 1, 1))], src)
    shown, under = _caret(out)
    assert shown == under and shown.endswith("...") and len(shown) == 96


def test_a_diagnostic_about_one_override_of_a_one_line_launch(tmp_path):
    """It underlines that override, not the line; the launch as a whole is its command."""
    overrides = [f"trainer.{k}={v}" for k, v in (("n_gpus_per_node", 8), ("nnodes", 1), ("total_epochs", 2))] * 20
    script = tmp_path / "one.sh"
    command = "python3 -m verl.trainer.main_ppo"
    script.write_text(f"{command} {' '.join(overrides)} trainer.foo_bar=3 {' '.join(overrides)}\n")
    proc = rftc("lint", str(script), "--color", "never")
    assert max(len(text) for text in proc.stderr.splitlines() if "|" in text) <= 100
    blocks = {b.split("]", 1)[0]: b for b in proc.stderr.split("\n\n")}
    col = script.read_text().index("trainer.foo_bar=3") + 1
    assert f"--> {script}:1:{col}\n" in blocks["error[RFTC203"]
    assert _caret(blocks["error[RFTC203"])[1] == "trainer.foo_bar"
    # rollout.name is unset: veRL's mandatory key, about the launch
    assert f"--> {script}:1:1\n" in blocks["warning[RFTC217"] and _caret(blocks["warning[RFTC217"])[1] == command


def test_a_multi_line_launch_points_at_its_lines(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("set -x\nHYDRA_FULL_ERROR=1 python3 -m verl.trainer.main_ppo \\\n    trainer.nnodes=1 \\\n"
                      "    trainer.foo_bar=3 $@\n")
    proc = rftc("lint", str(script), "--color", "never")
    blocks = {b.split("]", 1)[0]: b for b in proc.stderr.split("\n\n")}
    assert f"--> {script}:4:5\n" in blocks["error[RFTC203"]
    assert _caret(blocks["error[RFTC203"]) == ("    trainer.foo_bar=3 $@", "trainer.foo_bar")
    assert f"--> {script}:2:20\n" in blocks["warning[RFTC217"]
    assert _caret(blocks["warning[RFTC217"])[1] == "python3 -m verl.trainer.main_ppo"
