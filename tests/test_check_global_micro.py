"""RFTC466: a global micro-batch size in trainer_config, which Trinity's verl>=0.8 workers do not read."""

from rftc.diagnostics.catalogue import lookup
from rftc.trinity.document import parse
from rftc.trinity.validate import CheckOptions, check_config

BASE = lookup("RFTC466").example  # 2 GPUs: 1 for the trainer


def _found(text: str) -> list:
    doc, diags = parse(text, "c.yaml")
    _, more = check_config(doc.data, doc.locate, CheckOptions(path_checks=False))
    return [d for d in diags + more if d.code == "RFTC466"]


def test_the_hint_is_the_per_gpu_size_the_verl_legacy_path_makes_of_it():
    (d,) = _found(BASE.replace("{node_num: 1, gpu_per_node: 2}", "{node_num: 1, gpu_per_node: 4}")
                  .replace("  batch_size: 16", "  batch_size: 24"))  # 3 trainer GPUs
    assert d.key == "trainer.trainer_config.actor_rollout_ref.actor.ppo_micro_batch_size"
    assert "trainer's 3 data-parallel ranks" in d.message
    assert d.hint == "write `ppo_micro_batch_size_per_gpu: 2` instead"


def test_every_section_in_either_layout_and_both_sizes():
    text = BASE.replace("    actor_rollout_ref:\n      actor: {ppo_micro_batch_size: 8}\n",
                        "    rollout: {log_prob_micro_batch_size: 8}\n"
                        "    critic: {ppo_micro_batch_size: 4, ppo_micro_batch_size_per_gpu: 4}\n")
    found = {d.key.rsplit(".", 2)[-2]: d for d in _found(text)}
    assert set(found) == {"rollout", "critic"}
    assert "refuse both" in found["critic"].message and found["critic"].hint == "remove `ppo_micro_batch_size`"


def test_dynamic_batch_sizes_read_no_micro_batch_size():
    assert _found(BASE.replace("use_dynamic_bsz: false", "use_dynamic_bsz: true")) == []
