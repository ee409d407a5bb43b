"""`rftc check` as a user runs it: inputs (files, directories, stdin), formats, exit codes, severity policy,
suppression, --explain, --fix (comments and order kept), and `rftc schema`."""

import io
import json
import sys
from pathlib import Path

from support.cli import rftc

GOOD = """\
# a small valid config
cluster: {node_num: 1, gpu_per_node: 2}
model: {model_path: Qwen/Qwen2.5-0.5B-Instruct, max_model_len: 2048}
algorithm: {algorithm_type: grpo, repeat_times: 8, kl_loss_fn: none}
buffer:
  batch_size: 16
  explorer_input:
    taskset: {path: openai/gsm8k, default_workflow_type: math_workflow}
"""


def run(*argv):
    done = rftc("check", *argv)
    return done.returncode, done.stdout, done.stderr


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_clean_file_exits_0(tmp_path):
    assert run(write(tmp_path, "ok.yaml", GOOD)) == (0, "", "")


def test_errors_exit_1_with_concise_position(tmp_path):
    path = write(tmp_path, "bad.yaml", GOOD.replace("batch_size: 16", "batch_size: lots"))
    code, _, err = run(path, "--format", "concise")
    assert code == 1
    assert err == (f"{path}:6:3: error[RFTC402] Value 'lots' of type 'str' could not be converted to Integer "
                   "(full_key: buffer.batch_size)\n")


def test_usage_errors_exit_2(tmp_path):
    assert run()[0] == 2
    assert run(str(tmp_path))[0] == 2  # a directory without YAML files
    assert run("x.yaml", "--nodes", "2")[0] == 2
    assert run("x.yaml", "--gpus-per-node", "zero")[0] == 2


def test_directories_and_many_files(tmp_path):
    (tmp_path / "sub").mkdir()
    write(tmp_path, "a.yaml", GOOD)
    write(tmp_path / "sub", "b.yml", GOOD.replace("repeat_times: 8", "repeat_times: 1"))
    write(tmp_path, "notes.txt", "not yaml")
    code, _, err = run(str(tmp_path), "--format", "concise")
    assert code == 0 and err.count("RFTC478") == 1 and "b.yml:4:" in err


def test_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(GOOD + "mode: trian\n"))
    code, _, err = run("-", "--format", "concise")
    assert code == 1 and err.startswith("<stdin>:9:1: error[RFTC410] Invalid mode: trian")


def test_json_records_are_stable(tmp_path):
    path = write(tmp_path, "c.yaml", GOOD.replace("repeat_times: 8", "repeat_times: 1"))
    code, _, err = run(path, "--format", "json")
    [rec] = json.loads(err)
    assert code == 0
    assert list(rec) == ["code", "severity", "message", "file", "line", "col", "end_line", "end_col", "hint", "key",
                         "notes", "url"]
    assert (rec["code"], rec["severity"], rec["line"], rec["col"], rec["key"]) == \
        ("RFTC478", "warning", 4, 35, "algorithm.repeat_times")


def test_full_github_and_sarif_formats(tmp_path):
    path = write(tmp_path, "c.yaml", GOOD.replace("repeat_times: 8", "repeat_times: 1"))
    _, _, full = run(path, "--format", "full", "--color", "never")
    assert "warning[RFTC478]" in full and f"--> {path}:4:35" in full and "^" in full
    _, _, gh = run(path, "--format", "github")
    assert gh.startswith(f"::warning file={path},line=4,col=35")
    _, _, sarif = run(path, "--format", "sarif")
    assert json.loads(sarif)["runs"][0]["results"][0]["ruleId"] == "RFTC478"


def test_strict_disable_and_inline_suppression(tmp_path):
    text = GOOD.replace("repeat_times: 8", "repeat_times: 1")
    path = write(tmp_path, "c.yaml", text)
    assert run(path, "--strict")[0] == 1
    assert run(path, "--strict", "--disable", "RFTC478") == (0, "", "")
    quiet = write(tmp_path, "q.yaml", text.replace("kl_loss_fn: none}", "kl_loss_fn: none}  # rftc: disable=RFTC478"))
    assert run(quiet, "--strict") == (0, "", "")


def test_explain():
    code, out, _ = run("--explain", "RFTC479")
    assert code == 0 and "lr-schedule-no-horizon" in out and "sys.maxsize" in out
    assert run("--explain", "RFTC999")[0] == 2


def test_cluster_options_and_env_strict(tmp_path):
    text = GOOD.replace("cluster: {node_num: 1, gpu_per_node: 2}\n", "")
    path = write(tmp_path, "c.yaml", text)
    assert "RFTC430" in run(path, "--format", "concise")[2]
    big = write(tmp_path, "big.yaml", text.replace("max_model_len: 2048}", "max_model_len: 2048}\n"
                                                  "explorer: {rollout_model: {engine_num: 3}}"))
    code, _, err = run(big, "--format", "concise", "--nodes", "1", "--gpus-per-node", "2")
    assert code == 1 and "RFTC431" in err
    env = write(tmp_path, "env.yaml", GOOD.replace("Qwen/Qwen2.5-0.5B-Instruct", "'${oc.env:RFTC_UNSET_XYZ}/m'"))
    assert run(env)[0] == 0
    assert run(env, "--env-strict")[0] == 1


def test_fix_rewrites_deprecated_keys_and_aliases_keeping_comments(tmp_path):
    text = """\
# top comment
algorithm:
  algorithm_type: grpo  # the algorithm
  kl_loss_fn: none
  optimizer:
    lr: 1e-6
    warmup_style: constant  # keep me
cluster: {node_num: 1, gpu_per_node: 2}
model: {model_path: m/m, max_model_len: 2048}
buffer:
  batch_size: 4
  explorer_input:
    tasksets:
      - path: openai/gsm8k
        task_selector:
          selector_type: shuffle
explorer:
  runner_num: 4
synchronizer:
  sync_method: Online
"""
    path = write(tmp_path, "c.yaml", text)
    code, _, err = run(path, "--fix", "--fix-repeat-times", "8", "--format", "concise")
    fixed = Path(path).read_text()
    assert code == 0, err
    assert "warmup_style" not in fixed and "    lr_scheduler_type: constant # keep me\n" in fixed
    assert "        data_selector:\n          selector_type: shuffle\n" in fixed
    assert "runner_num" not in fixed and "\nexplorer" not in fixed and "sync_method: nccl" in fixed
    assert "  repeat_times: 8\n" in fixed
    assert fixed.startswith("# top comment\nalgorithm:\n  algorithm_type: grpo  # the algorithm\n")
    assert "RFTC407" not in err and "RFTC478" not in err
    assert run(path, "--fix")[0] == 0 and Path(path).read_text() == fixed  # idempotent


def test_fix_repeat_times_needs_fix():
    assert run("x.yaml", "--fix-repeat-times", "8")[0] == 2


def test_schema_command():
    done = rftc("schema")
    assert done.returncode == 0
    schema = json.loads(done.stdout)
    assert "TrainerConfig" in schema["$defs"] and schema["additionalProperties"] is False
