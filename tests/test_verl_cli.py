"""rftc lint / rftc verl-config on override text: output, formats, exit codes."""

import json

import pytest
import yaml

from support.cli import rftc

pytestmark = pytest.mark.usefixtures("plain_terminal")


def test_lint_clean_and_error_exit_codes():
    ok = rftc("lint", "--overrides", "actor_rollout_ref.rollout.name=vllm trainer.nnodes=2")
    assert ok.returncode == 0 and ok.stdout == "" and ok.stderr == ""
    bad = rftc("lint", "--overrides", "actor_rollout_ref.rollout.name=vllm trainer.nnode=2", "--format", "concise")
    assert bad.returncode == 1
    assert bad.stderr.startswith("<overrides>:1:37: error[RFTC203] unknown key 'trainer.nnode'")


def test_lint_extra_overrides_after_double_dash_win():
    p = rftc("lint", "--overrides", "actor_rollout_ref.rollout.name=vllm trainer.nnodes=1", "--format", "concise",
             "--", "trainer.nnodes=2")
    assert p.returncode == 0 and "RFTC206" in p.stderr and "<command line>:1:1" in p.stderr


def test_lint_usage_errors():
    assert rftc("lint").returncode == 2
    assert rftc("lint", "--overrides", "a=1", "--env", "novalue").returncode == 2


def test_verl_config_yaml_has_provenance_comments_and_parses():
    p = rftc("verl-config", "--overrides", "actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=4 "
             "actor_rollout_ref.actor.use_dynamic_bsz=True critic.enable=False")
    assert p.returncode == 0, p.stderr
    assert "  n: 4  # actor_rollout_ref.rollout.n=4 (<overrides>:1:37)" in p.stdout.replace('"n"', "n")
    assert "rollout_n: 4  # follows actor_rollout_ref.rollout.n" in p.stdout
    doc = yaml.safe_load(p.stdout)
    assert doc["actor_rollout_ref"]["rollout"]["n"] == 4 and doc["trainer"]["nnodes"] == 1


def test_verl_config_reports_what_verl_refuses_at_startup():
    p = rftc("verl-config", "--overrides", "actor_rollout_ref.rollout.name=vllm algorithm.adv_estimator=grpo "
             "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8", "--diagnostics-format", "concise")
    assert p.returncode == 1 and p.stdout.startswith("# effective veRL config")  # the config is still shown
    assert p.stderr == ("<overrides>:1:1: error[RFTC221] [actor] Please set at least one of "
                        "'actor.ppo_micro_batch_size' or 'actor.ppo_micro_batch_size_per_gpu' if use_dynamic_bsz is "
                        "not enabled.\n")


def test_convert_refuses_a_script_without_a_launch(tmp_path):
    (tmp_path / "prep.sh").write_text("echo preparing data\n")
    out = tmp_path / "out.yaml"
    p = rftc("convert", str(tmp_path / "prep.sh"), "-o", str(out), "--format", "concise")
    assert p.returncode == 1 and not out.exists()
    assert "warning[RFTC112]" in p.stderr and "prep.sh:1:1: error[RFTC312] no training launch found" in p.stderr


def test_verl_config_json():
    p = rftc("verl-config", "--overrides", "actor_rollout_ref.rollout.name=vllm model_engine=megatron",
             "--format", "json", "--verl-version", "0.9.1")
    doc = json.loads(p.stdout)
    assert doc["verl_version"] == "0.9.1" and doc["values"]["actor_rollout_ref"]["actor"]["strategy"] == "megatron"
    assert doc["provenance"]["actor_rollout_ref.rollout.name"]["span"]["col"] == 1
    assert "(model_engine=megatron)" in doc["config_name"]


def test_verl_config_unknown_version_is_an_error():
    p = rftc("verl-config", "--overrides", "trainer.nnodes=2", "--verl-version", "0.2.1",
             "--diagnostics-format", "concise")
    assert p.returncode == 1 and "RFTC213" in p.stderr and p.stdout == ""


def test_convert_out_dir_writes_only_the_launches_without_errors(tmp_path):
    base = ("python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_files=/d/train.parquet "
            "actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=4 trainer.n_gpus_per_node=4 "
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 "
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8")
    (tmp_path / "good.sh").write_text(base + "\n")
    (tmp_path / "typo.sh").write_text(base + " actor_rollout_ref.model.torch_dtype=bf16\n")  # veRL rejects it
    out = tmp_path / "out"
    p = rftc("convert", str(tmp_path / "good.sh"), str(tmp_path / "typo.sh"), "--out-dir", str(out), "--format",
             "concise")
    assert p.returncode == 1 and "typo.sh:1:" in p.stderr and "error[RFTC203]" in p.stderr
    assert sorted(f.name for f in out.iterdir()) == ["good.yaml"]  # no config that silently drops the key
    # an error the user disables no longer stops the config, as with -o
    p = rftc("convert", str(tmp_path / "typo.sh"), "--out-dir", str(out), "--disable", "RFTC203")
    assert p.returncode == 0 and (out / "typo.yaml").is_file()


def test_convert_cluster_options_give_what_only_the_environment_knows(tmp_path):
    script = tmp_path / "tiny.sh"
    script.write_text("python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_files=/d/train.parquet "
                      "actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=4 "
                      "actor_rollout_ref.actor.use_dynamic_bsz=True "
                      "actor_rollout_ref.rollout.tensor_model_parallel_size=$ROLLOUT_TP_SIZE "
                      "trainer.n_gpus_per_node=$N_GPUS trainer.nnodes=$NODES\n")
    p = rftc("convert", str(script), "--format", "concise")
    assert p.returncode == 0 and p.stderr.count("warning[RFTC318]") == 3  # assumed, loudly
    c = yaml.safe_load(p.stdout)
    assert c["cluster"] == {"node_num": 1, "gpu_per_node": 8}
    assert c["explorer"]["rollout_model"]["tensor_parallel_size"] == 2
    p = rftc("convert", str(script), "--format", "concise", "--nodes", "2", "--gpus-per-node", "4", "--rollout-tp", "1")
    assert p.returncode == 0 and "RFTC318" not in p.stderr
    c = yaml.safe_load(p.stdout)
    assert c["cluster"] == {"node_num": 2, "gpu_per_node": 4}
    assert c["explorer"]["rollout_model"]["tensor_parallel_size"] == 1
    assert rftc("convert", str(script), "--rollout-tp", "0").returncode == 2
    assert rftc("convert", str(script), "--werror").returncode == 1  # an assumption is an error under --werror


def test_a_stray_word_after_a_broken_continuation_is_hydra_s_parse_error(tmp_path):
    # `\ # TODO` escapes the blank: bash passes ' #', 'TODO', ... to the launch, which Hydra cannot parse
    script = tmp_path / "run.sh"
    script.write_text("python3 -m verl.trainer.main_ppo \\\n    data.train_files=/d/train.parquet \\ # TODO fix\n"
                      "    actor_rollout_ref.rollout.n=4\n")
    p = rftc("convert", str(script), "--format", "concise")
    assert p.returncode == 1
    assert f"{script}:2:39: error[RFTC200] Hydra cannot parse the override ' #'" in p.stderr
    assert "error[RFTC200] Hydra cannot parse the override 'TODO'" in p.stderr
    assert "warning[RFTC105]" in p.stderr  # the line after it runs on its own


def test_one_config_of_a_script_that_trains_several_times_is_its_first_launch(tmp_path):
    script = tmp_path / "sweep.sh"
    script.write_text("for lr in 1e-6 2e-6 5e-6; do\n  python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo "
                      "data.train_files=/d/train.parquet actor_rollout_ref.rollout.name=vllm "
                      "actor_rollout_ref.rollout.n=4 actor_rollout_ref.actor.use_dynamic_bsz=True "
                      "trainer.n_gpus_per_node=4 actor_rollout_ref.actor.optim.lr=$lr\ndone\n")
    p = rftc("convert", str(script), "--format", "concise")
    assert p.returncode == 0, p.stderr
    assert ("sweep.sh:2:3: warning[RFTC232] the script launches training 3 times: #0 (line 2, lr=1e-6), "
            "#1 (line 2, lr=2e-6), #2 (line 2, lr=5e-6); this config is #0's, the first it runs") in p.stderr
    assert p.stdout.startswith("# Trinity-RFT 0.6.0 config compiled by rftc from sweep.sh (launch at line 2, lr=1e-6)")
    assert "    lr: 1e-06 " in p.stdout
    p = rftc("convert", str(script), "--invocation", "2", "--format", "concise")
    assert p.returncode == 0 and "RFTC232" not in p.stderr and "    lr: 5e-06 " in p.stdout
    p = rftc("verl-config", str(script), "--diagnostics-format", "concise")
    assert p.returncode == 0 and "RFTC232" in p.stderr and "      lr: 1e-06  # actor_rollout_ref.actor.optim.lr=1e-6" in p.stdout
    out = tmp_path / "out"
    p = rftc("convert", str(script), "--out-dir", str(out))
    assert p.returncode == 0 and "RFTC232" not in p.stderr and len(list(out.iterdir())) == 3
    # several scripts make one config of stages, each the first launch of its script
    script.with_name("other.sh").write_text(script.read_text().replace("1e-6 2e-6 5e-6", "1e-5"))
    p = rftc("convert", str(script), str(script.with_name("other.sh")), "--format", "concise")
    assert p.returncode == 0 and "RFTC232" in p.stderr and "RFTC334" in p.stderr
    stages = p.stdout[p.stdout.index("\nstages:"):]
    assert "stage_name: sweep" in stages and "lr: 1e-06 " in stages and "    lr: 1e-05 " in p.stdout
