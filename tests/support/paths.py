"""Where the tests' inputs are: the repository's golden files, and the shared corpora of launch scripts
(../shared/corpus from the repository root: veRL's own scripts, and users' scripts from their repositories)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden"
CORPUS = ROOT.parent / "shared" / "corpus" / "verl"
WILD = ROOT.parent / "shared" / "corpus" / "wild"

# the configs rftc check's tests edit: the guide's GRPO example, and the base of the negative cases
GRPO_EXAMPLE = GOLDEN / "check" / "valid" / "grpo_example.yaml"
NEGATIVE_BASE = GOLDEN / "check" / "negative" / "_base_grpo.yaml"
# veRL's recipe/ folder with the DAPO recipe's config: copied beside a launch of recipe.dapo.main_dapo
DAPO_RECIPE = GOLDEN / "convert" / "recipe" / "recipe"


needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the veRL corpus is not at {CORPUS}")
needs_wild = pytest.mark.skipif(not WILD.is_dir(), reason=f"the wild corpus is not at {WILD}")


def arguments(path: Path) -> list[str]:
    """The arguments a golden case's file gives (NAME.args, args.txt, cmd.txt): one a line; none without the file."""
    return [a for a in path.read_text().split("\n") if a] if path.is_file() else []
