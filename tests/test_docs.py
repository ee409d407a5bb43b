"""The README and docs/ stay true: every relative link resolves (file and heading), the README's example is what
`rftc convert` prints for its golden input, and the README's two commands are the ones users and CI run."""

import re
from pathlib import Path

import pytest

from support.cli import rftc
from support.paths import GOLDEN, ROOT

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)


def _anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text())
    return {_anchor(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.M)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page):
    for target in LINK.findall(FENCE.sub("", page.read_text())):
        if re.match(r"\w+://", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), f"{page.name}: link to missing {target}"
        if anchor and dest.suffix == ".md":
            assert anchor in _anchors(dest), f"{page.name}: no heading #{anchor} in {dest.name}"


def _section(title: str) -> str:
    text = README.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def test_readme_is_a_front_page():
    lines = README.read_text().splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines: move detail to docs/"


def test_readme_opens_with_the_two_commands():
    blocks = [body.strip() for lang, body in FENCE.findall(_section("The two commands"))]
    assert blocks == ["bash scripts/setup-runtime.sh && .venv-run/bin/rftc run examples/arith_grpo.sh",
                      "bash scripts/setup-dev.sh && .venv-run/bin/python -m pytest"]
    assert blocks[1] in (ROOT / ".ci" / "run").read_text()


@pytest.mark.usefixtures("plain_terminal")
def test_readme_example_is_real_output():
    """The script shown is the golden input, the diagnostics and the YAML are what rftc prints for it (the YAML
    trimmed only at whole lines, marked `...`)."""
    (_, script), (_, console), (_, yaml) = FENCE.findall(_section("Example"))
    cases = GOLDEN / "convert" / "cases"
    assert script == (cases / "batch_sync_interval.sh").read_text()
    command, *stderr = console.splitlines()
    assert command == "$ cd golden/convert/cases && rftc convert batch_sync_interval.sh > config.yaml"
    proc = rftc("convert", "batch_sync_interval.sh", cwd=cases)
    assert proc.returncode == 0 and proc.stderr.splitlines() == stderr
    shown = iter(proc.stdout.splitlines())
    for line in yaml.splitlines():
        assert line == "..." or line in shown, f"not rftc's output, or out of order: {line!r}"


def test_diff_example_is_real_output():
    """docs/diff.md's table is the one `rftc diff` prints for its golden pair (golden/diff/CASE/expected.txt, which
    tests/test_diff.py checks against the command), its groups named as rftc.semantics.model.GROUPS in order."""
    from rftc.semantics.model import GROUPS

    page = (ROOT / "docs" / "diff.md").read_text()
    [console] = [body for lang, body in FENCE.findall(page) if body.startswith("$ cd golden/diff/")]
    command, *table = console.splitlines()
    case = command.removeprefix("$ cd ").split(" && ")[0]
    assert command == f"$ cd {case} && rftc diff a.sh b.yaml"
    assert "\n".join(table) + "\n" == (ROOT / case / "expected.txt").read_text()
    assert "under their group's heading (" + ", ".join(GROUPS[:-1]) + f", {GROUPS[-1]})" in " ".join(page.split())


def test_diff_gives_every_quantity_its_formula():
    """docs/diff.md's tables give every quantity of the model (RL and SFT) a row: the words of its label, before a
    parenthesis, are a row's (rows may join quantities: "warmup steps, ratio")."""
    from rftc.semantics.model import SftRun, TrainingRun, quantities

    page = (ROOT / "docs" / "diff.md").read_text()
    rows = [set(re.findall(r"[\w-]+", r.lower())) for r in re.findall(r"^\| ([^|`]+?) \|", page, flags=re.M)]
    missing = [q.label for kind in (TrainingRun, SftRun) for q in quantities(kind)
               if not any(set(re.findall(r"[\w-]+", q.label.split(" (")[0].lower())) <= r for r in rows)]
    assert not missing


# a file of the repository as the pages name it: modules anywhere (rftc/api.py in prose or in the architecture
# block); tests, scripts, benchmarks and data outside code blocks (a transcript may show a user's own scripts/)
MODULE = re.compile(r"(?<![\w./~-])((?:rftc|runtime|grammar)/[\w./-]*\.(?:py|lark))")
FILE = re.compile(r"(?<![\w./~-])((?:tests|scripts|bench|golden|examples|docs)/[\w./-]*\.(?:py|sh|md|yaml|args))")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_files_a_page_names_exist(page):
    text = page.read_text()
    named = MODULE.findall(text) + FILE.findall(FENCE.sub("", text))
    assert not [p for p in named if not (ROOT / p).exists()]
