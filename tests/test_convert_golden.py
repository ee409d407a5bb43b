"""Golden conversions: golden/convert/**/NAME.sh compiles to NAME.yaml (stdout, byte for byte) with the
diagnostics in NAME.stderr (concise format); NAME.args holds extra arguments, one per line. The expected files
were written by reading the output and checking it against the rules, never regenerated to pass.

The guide's two worked examples must also equal the guide's own YAML (golden/convert/guide/) in every field the
guide sets, except the deviations golden/convert/DEVIATIONS.md explains (listed here with their reasons)."""

from pathlib import Path

import pytest

from support import paths
from support.cli import Run, rftc

GOLDEN = paths.GOLDEN / "convert"
CASES = sorted(GOLDEN.rglob("*.sh"))


pytestmark = pytest.mark.usefixtures("plain_terminal")


def run_convert(script: Path, *extra: str) -> Run:
    args = paths.arguments(script.with_suffix(".args"))  # last: they may end with `-- ARG ...`, the script's own
    return rftc("convert", script.name, "--format", "concise", *extra, *args, cwd=script.parent)


@pytest.mark.parametrize("script", CASES)
def test_golden_conversion(script):
    proc = run_convert(script)
    assert "Traceback" not in proc.stderr, proc.stderr
    expected_err = script.with_suffix(".stderr")
    assert proc.stderr == (expected_err.read_text() if expected_err.exists() else "")
    assert proc.stdout == script.with_suffix(".yaml").read_text()
    assert proc.returncode == (1 if "error[" in proc.stderr else 0)


# (path in the guide's YAML, reason) — each one is explained in golden/convert/DEVIATIONS.md
COMMON = {
    "synchronizer.sync_offset": "veRL is on-policy: offset 0, as the guide's text says (its examples show 1)",
    "explorer.eval_interval": "Trinity counts mini-batch steps: test_freq x sync_interval",
    "trainer.save_interval": "Trinity counts mini-batch steps: save_freq x sync_interval",
    "trainer.trainer_config.actor_rollout_ref.model.use_remove_padding":
        "frozen in trainer_config by Trinity 0.6: written as trainer.use_remove_padding",
    "trainer.trainer_config.trainer.critic_warmup":
        "Trinity 0.6 drops trainer_config.trainer: written as trainer.critic_warmup",
}
DEVIATIONS = {
    "ppo_example.yaml": {**COMMON, "trainer.trainer_config.critic.model.use_remove_padding":
                         "frozen in trainer_config by Trinity 0.6: written as trainer.use_remove_padding",
                         **{f"trainer.trainer_config.critic.model.fsdp_config.{k}":
                            "verl 0.8 (Trinity 0.6's) reads the critic's FSDP settings from critic.fsdp"
                            for k in ("param_offload", "optimizer_offload")}},
    "grpo_example.yaml": {**COMMON, "explorer.rollout_model.engine_num":
                          "2048 experiences do not split over 6 trainer GPUs: 2 engines, 4 trainer GPUs"},
}
PAIRS = [("run_qwen2-7b_rm.sh", "ppo_example.yaml"), ("run_deepseek7b_llm_seq_balance.sh", "grpo_example.yaml")]


def _leaves(node, path=""):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, f"{path}.{i}")
    else:
        yield path, node


def _get(node, path):
    for part in path.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return KeyError
    return node


@pytest.mark.parametrize("script,guide", PAIRS)
def test_guide_examples_match_the_guide(script, guide):
    proc = run_convert(GOLDEN / script)
    assert proc.returncode == 0, proc.stderr
    _compare_with_the_guide(proc.stdout, guide)


def _compare_with_the_guide(text: str, guide: str) -> None:
    from ruamel.yaml import YAML

    ours = YAML(typ="safe").load(text)
    theirs = YAML(typ="safe").load((GOLDEN / "guide" / guide).read_text())
    deviations = DEVIATIONS[guide]
    differ = {}
    for path, value in _leaves(theirs):
        got = _get(ours, path)
        same = got == value or (isinstance(value, str) and isinstance(got, float) and float(value) == got)
        if not same:
            differ[path] = (value, got)
    assert set(differ) == set(deviations), differ
    assert set(deviations) <= {line.split("`")[1] for line in (GOLDEN / "DEVIATIONS.md").read_text().splitlines()
                               if line.startswith("| `")}
