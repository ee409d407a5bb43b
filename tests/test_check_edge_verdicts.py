"""Edge cases of loading and naming whose verdicts were recorded by running trinity-rft 0.6.0's load_config +
check_and_update (tests/trinity_ref/validate.py) on each edit of golden/check/negative/_base_grpo.yaml: registry
names and string-valued choices are case-sensitive, numeric strings convert, floats do not become ints, an empty
section is a null, a non-string key is an unknown key."""

import pytest

from rftc.diagnostics.model import Severity
from rftc.trinity.document import parse
from rftc.trinity.validate import CheckOptions, check_config
from support.paths import NEGATIVE_BASE

BASE = NEGATIVE_BASE.read_text(encoding="utf-8")

# edit -> Trinity 0.6.0's outcome (None: passes; else the start of its error message)
CASES = [
    (("  algorithm_type: grpo", "  algorithm_type: GRPO"), "Invalid module key: GRPO"),
    (("  advantage_fn: grpo", "  advantage_fn: GRPO"), "Invalid module key: GRPO"),
    (("mode: both", "mode: BOTH"), "Invalid mode: BOTH"),
    (("  monitor_type: tensorboard", "  monitor_type: TensorBoard"), "Invalid module key: TensorBoard"),
    (("explorer:\n", "explorer:\n  concurrent_mode: Sequential\n"), "Invalid explorer.concurrent_mode: Sequential"),
    (("trainer:\n", "trainer:\n  save_hf_checkpoint: LAST\n"), "Invalid trainer.save_hf_checkpoint: LAST"),
    (("trainer:\n", "trainer:\n  trainer_type: VERL\n"), "Invalid trainer type: VERL"),
    (("  repeat_times: 8", "  repeat_times: 8.0"), "Value '8.0' of type 'float' could not be converted to Integer"),
    (("monitor:\n  monitor_type: tensorboard", "monitor:"), "field 'monitor' is not Optional"),
    (("mode: both", "mode: both\n1: x"), "Key '1' not in 'Config'"),
    (("  advantage_fn: grpo", "  advantage_fn: ppo.clip-higher"), "Cannot dynamically import clip-higher from ppo"),
    (("  advantage_fn: grpo", "  advantage_fn: 0.5"), "Cannot dynamically import 5 from 0"),
    (("  batch_size: 256", '  batch_size: "256"'), None),
    (("    lr: 1e-6", "    lr: 1"), None),
    (("name: grpo_base", "name: yes"), None),
    (("storage_type: file", "storage_type: FILE"), None),
    (("trainer:\n", "trainer:\n  trainer_strategy: deepspeed\n"), None),
]


@pytest.mark.parametrize("edit, trinity", CASES, ids=[c[0][1].strip().split("\n")[-1] for c in CASES])
def test_verdict_matches_trinity(edit, trinity):
    old, new = edit
    assert old in BASE
    doc, diags = parse(BASE.replace(old, new, 1), "c.yaml")
    _, more = check_config(doc.data, doc.locate, CheckOptions(path_checks=False))
    errors = [d for d in diags + more if d.severity is Severity.ERROR]
    if trinity is None:
        assert not errors, errors
    else:
        assert errors and errors[0].message.startswith(trinity), errors
