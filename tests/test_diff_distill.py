"""`rftc diff` names on-policy distillation's teacher and objective, and the auxiliary models a workflow queries, on
both sides: veRL's distillation.* (verl 0.8.0 on), Trinity-RFT's on_policy_distill with its teacher the first
auxiliary model. A launch with one override changed at a time (a setting the release does not read, one that
distillation without task rewards drops), a Trinity config with one field changed at a time, the feature off on
both sides, and a launch and its own conversion, which train alike."""

from __future__ import annotations

import json

import pytest
import yaml

from rftc.plugins import DISTILL_WORKFLOW
from support.cli import launch, rftc
from support.paths import GOLDEN
from test_convert_equivalence import MICRO_WARNING
from test_diff_optimizer import BASE, TRINITY, _with, report
from test_diff_steps import _differences

D, L = "distillation", "distillation.distillation_loss"
T = "distillation.teacher_models.teacher_model"
A = "actor_rollout_ref.actor"
# what Trinity's on_policy_distill trains: k1 as the advantage, no task rewards, no clamp, one teacher
DISTILL = (f"{D}.enabled=True", f"{D}.nnodes=1", f"{D}.n_gpus_per_node=2", f"{T}.model_path=/t",
           f"{L}.loss_mode=k1", f"{L}.use_policy_gradient=True", f"{L}.use_task_rewards=False")


@pytest.mark.parametrize("release", ["0.8.0", "0.9.1"])
@pytest.mark.parametrize("changed, quantities", [
    ((f"{L}.loss_max_clamp=5.0",), {"distillation"}),
    ((f"{L}.loss_mode=k3",), {"distillation"}),
    ((f"{L}.loss_mode=kl",), set()),  # veRL's kl is k1 (kl_penalty_forward)
    ((f"{L}.distillation_loss_coef=0.5",), set()),  # read only with the task rewards' loss
    ((f"{L}.topk=8", f"{L}.log_prob_min_clamp=-5.0"), set()),  # read by the top-k loss only
    ((f"{L}.clip_ratio_high=0.28",), {"clip_high"}),  # the distillation's PPO clip is the run's
    ((f"{L}.use_policy_gradient=False",),  # backpropagated: no policy loss, no advantage
     {"distillation", "policy_loss", "clip_low", "clip_high", "clip_ratio_c", "advantage"}),
    ((f"{L}.use_task_rewards=True",),  # the task rewards' GRPO loss comes back beside it
     {"distillation", "advantage", "advantage_args", "norm_adv_by_std", "reward", "data_columns"}),
    ((f"{T}.model_path=/t2",), {"teacher"}),
    ((f"{T}.inference.dtype=float16",), {"teacher"}),
    ((f"{T}.inference.max_model_len=4096",), set()),  # the teacher's window: a run that trains fits in it
    ((f"{A}.use_kl_loss=True", f"{A}.entropy_coeff=0.01", f"{A}.clip_ratio_high=0.28"), set()),  # dropped
])
def test_one_override_of_a_distillation_launch_is_its_quantity(tmp_path, release, changed, quantities):
    assert _differences(tmp_path, DISTILL, (*DISTILL, *changed), "--verl-version", release) == quantities


def test_verl_0_9_asks_the_teacher_at_temperature_1_whatever_it_says(tmp_path):
    """teacher_manager._get_teacher_sampling_params: prompt log-probs at 1.0 (0.8.0 stops at start otherwise)."""
    changed = (*DISTILL, f"{T}.inference.temperature=0.7")
    assert _differences(tmp_path, DISTILL, changed, "--verl-version", "0.9.1") == set()


def test_distillation_off_is_none_on_both_sides(tmp_path):
    """A launch without distillation (and one that spells the default out) and a Trinity config without a
    distillation advantage or auxiliary models: none for all three quantities, equal."""
    assert _differences(tmp_path, (), (f"{D}.enabled=False", f"{T}.model_path=/t", f"{L}.loss_mode=k3"),
                        "--verl-version", "0.9.1") == set()
    script = launch(tmp_path, *BASE)
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(TRINITY))
    done = rftc("diff", script, config, "--format", "json", "--verl-version", "0.9.1")
    assert not {"teacher", "distillation", "auxiliary_models"} & {
        d["quantity"] for d in json.loads(done.stdout)["differences"]}, done.stdout


# Trinity's on_policy_distill as rftc convert writes it: the teacher the first auxiliary model, rftc's distillation
# workflow on veRL's chat messages, the trainer's own old log-probs
TRINITY_DISTILL = _with(algorithm={**TRINITY["algorithm"], "algorithm_type": "on_policy_distill",
                                   "bypass_old_logprobs": False},
                        cluster={"node_num": 1, "gpu_per_node": 4},
                        explorer={"rollout_model": {"engine_num": 1},
                                  "auxiliary_models": [{"model_path": "/t", "engine_num": 1}]},
                        buffer={**TRINITY["buffer"], "explorer_input": {"taskset": {
                            **TRINITY["buffer"]["explorer_input"]["taskset"], "default_workflow_type": DISTILL_WORKFLOW,
                            "workflow_args": {"temperature": 1.0}}}})


def _distill(**changes) -> dict:
    """TRINITY_DISTILL with ``changes``: algorithm, teacher (the auxiliary model's fields), taskset fields."""
    out = json.loads(json.dumps(TRINITY_DISTILL))
    out["algorithm"].update(changes.get("algorithm", {}))
    out["explorer"]["auxiliary_models"][0].update(changes.get("teacher", {}))
    out["buffer"]["explorer_input"]["taskset"].update(changes.get("taskset", {}))
    out["explorer"]["auxiliary_models"] += changes.get("more", [])
    return out


@pytest.mark.parametrize("changes, quantities", [
    (dict(algorithm={"bypass_old_logprobs": True}), {"distillation", "logprob_source"}),  # the rollout's log-probs
    (dict(algorithm={"kl_penalty_fn": "k1"}), set()),  # the distillation advantage reads no reward
    (dict(teacher={"model_path": "/t2"}), {"teacher"}),
    (dict(teacher={"dtype": "float16"}), {"teacher"}),
    (dict(teacher={"rope_theta": 50000.0}), {"teacher"}),
    (dict(teacher={"seed": 7, "temperature": 0.5, "max_model_len": 4096}), set()),  # log-probs sample nothing
    (dict(taskset={"workflow_args": {"temperature": 0.7}}), {"teacher"}),
    # Trinity's own workflow sends the prompt column's text as one user message
    (dict(taskset={"default_workflow_type": "on_policy_distill_workflow"}), {"data_columns"}),
    (dict(more=[{"model_path": "/judge", "engine_num": 1}]), set()),  # the distillation workflow asks the teacher only
])
def test_one_field_of_a_trinity_distillation_config_is_its_quantity(tmp_path, changes, quantities):
    assert _differences(tmp_path, TRINITY_DISTILL, _distill(**changes), ext=".yaml") == quantities


def test_trinitys_kl_coef_weighs_the_distillation(tmp_path):
    """kl_coef is the distillation objective's weight (not another argument of the advantage)."""
    found = report(tmp_path, TRINITY_DISTILL, _distill(algorithm={"advantage_fn_args": {"kl_coef": 0.5}}), ext=".yaml")
    assert {d["quantity"] for d in found} == {"distillation"}


def test_trinity_epochs_over_a_step_take_the_students_log_probs_of_its_start(tmp_path):
    """With ppo_epochs 2, Trinity's advantage keeps the old log-probs of the trainer step's start, where veRL's
    takes the policy each epoch trains."""
    changed = _distill()
    changed["trainer"] = {"trainer_config": {"actor_rollout_ref": {"actor": {"ppo_epochs": 2}}}}
    assert "distillation" in _differences(tmp_path, TRINITY_DISTILL, changed, ext=".yaml")


# Trinity's RULER workflow asks the first auxiliary model to judge a group's responses
JUDGE = _with(cluster={"node_num": 1, "gpu_per_node": 4},
              explorer={"rollout_model": {"engine_num": 1},
                        "auxiliary_models": [{"model_path": "/judge", "engine_num": 1}]},
              buffer={**TRINITY["buffer"], "explorer_input": {"taskset": {
                  **TRINITY["buffer"]["explorer_input"]["taskset"], "default_workflow_type": "math_ruler_workflow"}}})


def _judge(**changes) -> dict:
    """JUDGE with ``changes``: judge (the auxiliary model's fields), model fields, the taskset's workflow."""
    out = json.loads(json.dumps(JUDGE))
    out["explorer"]["auxiliary_models"][0].update(changes.get("judge", {}))
    out["model"].update(changes.get("model", {}))
    out["buffer"]["explorer_input"]["taskset"].update(changes.get("taskset", {}))
    return out


@pytest.mark.parametrize("changes, quantities", [
    (dict(judge={"dtype": "float16"}), {"auxiliary_models"}),
    (dict(judge={"temperature": 0.5}), {"auxiliary_models"}),
    (dict(judge={"tensor_parallel_size": 2}), set()),  # placement
    # a judge takes the model's top_k where it leaves its own unset (the rollout's comes from its taskset)
    (dict(model={"top_k": 20}), {"auxiliary_models"}),
    # rftc's reward workflow queries no auxiliary model: a converted reward model is none, as veRL's
    (dict(taskset={"default_workflow_type": "rftc.trinity.verl_workflow.VerlRewardWorkflow"}),
     {"auxiliary_models", "reward", "data_columns"}),
])
def test_one_field_of_a_judge_is_its_quantity(tmp_path, changes, quantities):
    assert _differences(tmp_path, JUDGE, _judge(**changes), ext=".yaml") == quantities


def test_a_model_no_workflow_queries_is_none(tmp_path):
    """A config whose workflow queries no auxiliary model (rftc's reward workflow) equals one without any."""
    base = _judge(taskset={"default_workflow_type": "rftc.trinity.verl_workflow.VerlRewardWorkflow"})
    without = json.loads(json.dumps(base))
    del without["explorer"]["auxiliary_models"]
    assert _differences(tmp_path, base, without, ext=".yaml") == set()


@pytest.mark.parametrize("release", ["0.8.0", "0.9.1"])
def test_a_distillation_launch_and_its_conversion_train_alike(tmp_path, release):
    """The conversion writes on_policy_distill, the teacher and the workflow, and warns of nothing but the
    micro-batches Trinity adds up; rftc diff finds no other quantity that differs (the batch's two mini-batches are
    two trainer steps, each recomputing the old log-probs: the student's in the advantage are the policy each step
    trains, as veRL's)."""
    script = launch(tmp_path, *BASE, *DISTILL, f"{A}.use_kl_loss=True",
                    "actor_rollout_ref.rollout.tensor_model_parallel_size=1")
    out = tmp_path / "out.yaml"
    done = rftc("convert", script, "--verl-version", release, "--format", "concise", "-o", out, cwd=tmp_path)
    # no warning but that Trinity adds up its micro-batches' losses (tests/test_diff_micro.py)
    assert done.returncode == 0 and [w for w in done.stderr.splitlines() if "warning" in w
                                     and MICRO_WARNING not in w] == [], done.stderr
    written = yaml.safe_load(out.read_text())
    assert written["algorithm"]["algorithm_type"] == "on_policy_distill"
    assert written["explorer"]["auxiliary_models"][0]["model_path"] == "/t"
    diff = rftc("diff", script, out, "--verl-version", release, "--format", "json", cwd=tmp_path)
    assert [d["quantity"] for d in json.loads(diff.stdout)["differences"]] == ["microbatch_loss"], diff.stdout


def test_the_way_back_writes_verls_distillation(tmp_path):
    """The golden conversion goes back to a launch of veRL's distillation that trains as it does: no RFTC601 but
    the micro-batch loss veRL cannot add up (tests/test_diff_micro.py)."""
    done = rftc("convert", "--to", "verl", GOLDEN / "convert" / "cases" / "algo_distill_k1.yaml", "--format",
                "concise", "-o", tmp_path / "back.sh", cwd=tmp_path)
    assert done.returncode == 0 and [w for w in done.stderr.splitlines() if "RFTC601" in w
                                     and "micro-batch loss" not in w] == [], done.stderr
    text = (tmp_path / "back.sh").read_text()
    for override in ("distillation.enabled=True", f"{L}.loss_mode=k1", f"{L}.use_task_rewards=False",
                     f"{L}.clip_ratio_high=0.28", f"{T}.model_path=Qwen/Qwen2.5-7B-Instruct",
                     "algorithm.adv_estimator=grpo"):
        assert override in text, override
