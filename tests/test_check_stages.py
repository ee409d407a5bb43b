"""Multi-stage configs are validated per stage, as Trinity runs them; diagnostics point into the stage."""

from rftc.trinity.document import parse
from rftc.trinity.validate import CheckOptions, check_config

TEXT = """\
cluster: {node_num: 1, gpu_per_node: 2}
model: {model_path: Qwen/Qwen2.5-0.5B-Instruct, max_model_len: 2048}
algorithm: {algorithm_type: grpo, repeat_times: 8, kl_loss_fn: none}
buffer:
  batch_size: 16
  explorer_input:
    taskset: {path: openai/gsm8k, default_workflow_type: math_workflow}
stages:
  - stage_name: sft_warmup
    mode: train
    algorithm: {algorithm_type: sft}
    buffer:
      train_batch_size: 32
      trainer_input:
        experience_buffer: {path: org/sft, storage_type: file}
    trainer: {save_interval: 10}
  - stage_name: rft
    algorithm: {algorithm_type: grpo, repeat_times: 1, kl_loss_fn: none}
"""


def check(text):
    doc, diags = parse(text, "c.yaml")
    _, more = check_config(doc.data, doc.locate, CheckOptions(path_checks=False))
    return diags + more


def test_each_stage_is_checked_with_its_own_sections():
    diags = check(TEXT)
    assert [(d.code, d.span.line, d.notes[-1]) for d in diags] == [("RFTC478", 18, "in stage 1 (rft)")]


def test_a_stage_error_fails_the_file_and_global_only_problems_do_not_repeat():
    diags = check(TEXT.replace("    trainer: {save_interval: 10}\n", "").replace(", max_model_len: 2048", ""))
    codes = [(d.code, d.span.line) for d in diags]
    assert ("RFTC415", 11) in codes and ("RFTC421", 2) in codes
    assert codes.count(("RFTC421", 2)) == 1
