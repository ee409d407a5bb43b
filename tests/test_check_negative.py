"""One negative case per rule: a small edit of the guide's GRPO example, with the code and line rftc must
report. Errors are what Trinity 0.6.0 rejects; warnings and infos leave the verdict "passes", as Trinity's is.

Each edit replaces numbered lines of golden/check/valid/grpo_example.yaml (1-based, inclusive) with new text.
"""

import pytest

from rftc.diagnostics.model import Severity
from rftc.trinity.document import parse
from rftc.trinity.validate import CheckOptions, check_config
from support.paths import GOLDEN, GRPO_EXAMPLE

BASE = GRPO_EXAMPLE.read_text(encoding="utf-8").splitlines()
ENV = {"HOME": "/home/user"}


def edited(edits: dict) -> str:
    lines = list(BASE)
    for (first, last), text in sorted(edits.items(), reverse=True):
        lines[first - 1:last] = text.split("\n")
    return "\n".join(lines) + "\n"


def check(text: str, **opts):
    doc, diags = parse(text, "c.yaml")
    if doc is None:
        return diags
    options = CheckOptions(path_checks=opts.pop("path_checks", False), environ=opts.pop("environ", ENV), **opts)
    _, more = check_config(doc.data, doc.locate, options)
    return diags + more


def at(line, text):
    return {(line, line): text}


def after(line, text):
    return {(line, line): BASE[line - 1] + "\n" + text}


CASES = [
    ("unknown key", at(66, "  ppo_max_token_len_per_gpu: 24000"), "RFTC401", 66),
    ("wrong type", at(30, "  batch_size: lots"), "RFTC402", 30),
    ("section given a scalar", {(50, 55): "explorer: fast"}, "RFTC402", 50),
    ("bad enum", at(58, "  sync_style: eventually"), "RFTC403", 58),
    ("missing interpolation key", at(19, "  model_path: ${model.base_path}"), "RFTC404", 19),
    ("auto field", after(53, "    gpu_per_engine: 2"), "RFTC406", 54),
    ("deprecated key", after(9, "    warmup_style: constant"), "RFTC407", 10),
    ("mode", at(4, "mode: trainer"), "RFTC410", 4),
    ("algorithm type", at(6, "  algorithm_type: grpo_v2"), "RFTC411", 6),
    ("advantage fn", at(10, "  advantage_fn: gae"), "RFTC412", 10),
    ("monitor", at(83, "  monitor_type: console"), "RFTC412", 83),
    ("sft in both mode", at(6, "  algorithm_type: sft"), "RFTC413", 6),
    ("sft without data", {**at(4, "mode: train"), **at(6, "  algorithm_type: sft")}, "RFTC414", 6),
    ("sft without save_interval", {**at(4, "mode: train"), **at(6, "  algorithm_type: sft"), **at(64, "  save_interval: 0"),
                                   **after(31, "  trainer_input:\n    experience_buffer: {path: org/sft-data}")},
     "RFTC415", 66),
    ("sync method forced", {**at(4, "mode: explore"), **after(58, "  sync_method: nccl")}, "RFTC416", 59),
    ("lengths exceed", after(21, "  max_model_len: 800"), "RFTC420", 22),
    ("max_model_len unknown", at(21, "  enable_thinking: false"), "RFTC421", 20),
    ("length derived", at(20, "  max_model_len: 1024"), "RFTC422", 21),
    ("external model", after(22, "  external_model: {enable: true, model_name: gpt}"), "RFTC423", 23),
    ("two LoRA adapters", after(22, "  lora_configs: [{lora_rank: 8}, {lora_rank: 8}]"), "RFTC424", 23),
    ("cluster from Ray", {(25, 26): "  ray_address: auto"}, "RFTC430", 24),
    ("no trainer GPU", at(53, "    engine_num: 4"), "RFTC431", 26),
    ("trainer partial nodes", {**at(25, "  node_num: 2"), **at(53, "    engine_num: 2")}, "RFTC432", 53),
    ("explorer exceeds cluster", {**at(4, "mode: explore"), **at(53, "    engine_num: 5")}, "RFTC433", 26),
    ("colocate on 8 GPUs", at(4, "mode: colocate"), "RFTC434", 26),
    ("engine across nodes", at(54, "    tensor_parallel_size: 12"), "RFTC435", 54),
    ("TP zero", at(54, "    tensor_parallel_size: 0"), "RFTC436", 54),
    ("auxiliary model path", after(55, "  auxiliary_models:\n    - engine_num: 1"), "RFTC437", 57),
    ("sync interval zero", at(60, "  sync_interval: 0"), "RFTC440", 60),
    ("over-rollout ratio", {**after(51, "  over_rollout: {ratio: 1.5}"), **at(58, "  sync_style: explorer_driven")},
     "RFTC442", 52),
    ("over-rollout with fixed sync", after(51, "  over_rollout: {ratio: 0.5}"), "RFTC443", 52),
    ("concurrent mode", after(51, "  concurrent_mode: threads"), "RFTC444", 52),
    ("train mode without train_batch_size", {**at(4, "mode: train"), **at(31, "  # set by the explorer")},
     "RFTC450", 28),
    ("taskset and tasksets", after(32, "    taskset: {path: openai/gsm8k}"), "RFTC451", 34),
    ("no taskset", {(33, 40): "    tasksets: []"}, "RFTC452", 32),
    ("taskset path", at(36, "        subset_name: main"), "RFTC453", 34),
    ("selector", after(37, "        data_selector: {selector_type: curriculum}"), "RFTC454", 38),
    ("auxiliary buffer path", after(31, "  trainer_input:\n    auxiliary_buffers:\n      sft: {storage_type: file}"),
     "RFTC455", 34),
    ("fully async with eval", at(58, "  sync_style: fully_async"), "RFTC456", 41),
    ("save_hf_checkpoint", after(64, "  save_hf_checkpoint: best"), "RFTC460", 65),
    ("trainer type", after(64, "  trainer_type: deepspeed"), "RFTC461", 65),
    ("legacy batch divisibility", at(31, "  train_batch_size: 2047"), "RFTC462", 31),
    ("legacy SP divisibility", after(64, "  ulysses_sequence_parallel_size: 4"), "RFTC463", 65),
    ("token budget", at(66, "  max_token_len_per_gpu: 512"), "RFTC464", 66),
    ("micro batch", {**at(31, "  train_batch_size: 1920"), **at(65, "  use_dynamic_bsz: false"),
                     **after(72, "        ppo_micro_batch_size_per_gpu: 7")}, "RFTC465", 73),
    ("unknown workflow", after(37, "        default_workflow_type: math_workflw"), "RFTC470", 38),
    ("unknown reward", after(37, "        default_reward_fn_type: gsm8k_reward"), "RFTC471", 38),
    ("unknown engine", after(53, "    engine_type: trt"), "RFTC472", 54),
    ("unknown *_args key", at(14, "    kl_coeff: 0.001"), "RFTC473", 14),
    ("dropped trainer_config section", {}, "RFTC474", 79),
    ("frozen trainer_config key", {}, "RFTC475", 70),
    ("megatron in trainer_config", after(72, "        strategy: megatron"), "RFTC476", 73),
    ("unknown trainer_config key", after(72, "        ppo_epoch: 2"), "RFTC477", 73),
    ("group algorithm at one rollout", at(7, "  repeat_times: 1"), "RFTC478", 7),
    ("warmup ratio without horizon", after(9, "    lr_warmup_steps_ratio: 0.1"), "RFTC479", 10),
    ("cosine without horizon", after(9, "    lr_scheduler_type: cosine"), "RFTC479", 10),
    ("default KL loss", {(12, 14): "  # no KL settings"}, "RFTC480", 6),
    ("loss_agg_mode", after(12, "  loss_agg_mode: token_mean"), "RFTC482", 13),
    ("top_k", after(22, "  top_k: 20"), "RFTC483", 23),
    ("train taskset repeat_times", after(37, "        repeat_times: 4"), "RFTC484", 38),
    ("mix without expert data", at(6, "  algorithm_type: mix"), "RFTC485", 6),
    ("eval interval rounded", {}, "RFTC441", 51),
]


@pytest.mark.parametrize("name, edits, code, line", CASES, ids=[c[0] for c in CASES])
def test_negative_case(name, edits, code, line):
    diags = check(edited(edits))
    hits = [d for d in diags if d.code == code]
    assert hits, f"{code} not reported; got {[(d.code, d.span.line if d.span else None) for d in diags]}"
    assert line in [d.span.line for d in hits]
    has_errors = any(d.severity is Severity.ERROR for d in diags)
    assert has_errors == (hits[0].severity is Severity.ERROR), [(d.code, d.severity.label) for d in diags]


def test_the_guide_examples_pass_apart_from_the_documented_traps():
    for name, expected in (("grpo_example.yaml", {"RFTC441", "RFTC462", "RFTC474", "RFTC475"}),
                           ("ppo_example.yaml", {"RFTC441", "RFTC474", "RFTC475", "RFTC479"})):
        diags = check((GOLDEN / "check" / "valid" / name).read_text(encoding="utf-8"))
        assert not [d for d in diags if d.severity is Severity.ERROR], diags
        assert {d.code for d in diags} == expected, name


def test_missing_env_var_is_a_warning_or_with_env_strict_an_error():
    text = edited(at(19, "  model_path: ${oc.env:RFTC_UNSET_VAR_X}/m"))
    [d] = [d for d in check(text) if d.code == "RFTC405"]
    assert d.severity is Severity.WARNING and d.span.line == 19
    strict = check(text, env_strict=True)
    assert [d.severity for d in strict if d.code == "RFTC405"] == [Severity.ERROR]


def test_local_paths_are_checked_unless_disabled(tmp_path):
    text = edited(at(19, f"  model_path: {tmp_path}/missing-model"))
    assert [d.span.line for d in check(text, path_checks=True) if d.code == "RFTC481"] == [19, 36, 44]
    (tmp_path / "missing-model").mkdir()
    assert [d.span.line for d in check(text, path_checks=True) if d.code == "RFTC481"] == [36, 44]
    assert not [d for d in check(text) if d.code == "RFTC481"]


def test_cluster_size_from_options():
    text = edited({(25, 26): "  ray_address: auto", **at(53, "    engine_num: 4")})
    assert not [d for d in check(text) if d.code == "RFTC431"]
    hits = [d for d in check(text, nodes=1, gpus_per_node=8) if d.code == "RFTC431"]
    assert hits and "total available GPUs are 8" in hits[0].message


def test_check_config_takes_a_dict_without_positions():
    """The entry point `rftc convert` uses: a generated dict and no locator."""
    cfg, diags = check_config({"model": {"model_path": "m", "max_model_len": 1024}, "cluster": {"node_num": 1,
                                "gpu_per_node": 2}, "buffer": {"explorer_input": {"taskset": {"path": "x"}}},
                               "algorithm": {"kl_loss_fn": "none"}})
    assert cfg is not None and not diags.has_errors
    cfg, diags = check_config({"buffer": {"batch_size": "lots"}})
    assert cfg is None and [d.code for d in diags] == ["RFTC402"] and diags[0].span is None


def test_a_key_in_the_wrong_section_names_where_it_belongs():
    [d] = [d for d in check(edited(after(30, "  max_model_len: 2048"))) if d.code == "RFTC401"]
    assert d.message == "Key 'max_model_len' not in 'BufferConfig' (full_key: buffer.max_model_len)"
    assert d.hint.startswith("`max_model_len` is a field of `model`, `explorer.rollout_model`")
