"""The trainer on veRL's training workers: TrainingWorkers with the FSDP engine in a Ray worker group on the CPU
platform, one Ray cluster and a tiny model shared by the tests (a worker group starts in tens of seconds).

- the plan names what the driver builds (engine classes, strategy, dtypes, device, ranks, backend);
- an actor step through the workers equals a bare loop of veRL's functions on the same batch and weights, in
  float32 and in bfloat16 (RFTC_CPU_BF16 forces the precision: the other tests train in float32 on any CPU);
- two ranks in one group give the loss and gradient norm of one rank;
- a checkpoint written by the engines resumes model, optimizer and LR schedule: the next step is the same;
- the exported weights are the model's full Hugging Face state dict, in the rollout engine's dtype;
- PPO's critic trains alone until critic_warmup, and is checkpointed beside the actor.
Needs the runtime environment (bash scripts/setup-runtime.sh) for verl, ray and the bundled tokenizer."""

import copy
import dataclasses
import os
import sys

import pytest

from runtime_support import experiences, reference_actor_step, require, require_model, tiny_model

require("verl", "ray", "torch")
require_model()
pytestmark = pytest.mark.slow

import ray  # noqa: E402
import torch  # noqa: E402

from rftc_runtime import checkpoints, verl_cpu  # noqa: E402
from rftc_runtime.plan import CPU_BF16, engine_words, make_plan  # noqa: E402
from runtime_support import settings  # noqa: E402
from rftc_runtime.trainer import Trainer  # noqa: E402


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tiny_model(tmp_path_factory.mktemp("tiny"))
    env = {**verl_cpu.environment(), "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "OMP_NUM_THREADS": "1"}
    saved = dict(os.environ)
    os.environ.update(verl_cpu.environment())
    # a slot per rank: the one-rank trainers in float32 and bfloat16, a two-rank one beside them
    ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": env})
    yield path
    ray.shutdown()
    os.environ.clear()  # later tests' subprocesses (Trinity's own verl among them) must not load the CPU plugin
    os.environ.update(saved)


def _settings(model, job, algorithm="grpo", **extra):
    alg = {"algorithm_type": algorithm, "repeat_times": 4, "optimizer": {"lr": 1e-3},
           **({"kl_loss_fn": "low_var_kl", "kl_loss_fn_args": {"kl_coef": 0.1}} if algorithm == "grpo" else
              {"kl_loss_fn": "none"})}
    return settings({
        "algorithm": alg, "model": {"model_path": str(model)},
        "buffer": {"batch_size": 2, "explorer_input": {"taskset": {"path": str(job)}}},
        "trainer": {"trainer_config": {"actor_rollout_ref": {"actor": {"ppo_micro_batch_size_per_gpu": 2}},
                                       "critic": {"ppo_micro_batch_size_per_gpu": 2, "optim": {"lr": 1e-3}}},
                    **extra},
        "checkpoint_root_dir": str(job)})


def _trainer(s, ranks: int = 1, precision: str = "float32") -> Trainer:
    """A trainer computing in ``precision`` whatever this CPU has natively."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv(CPU_BF16, "1" if precision == "bfloat16" else "0")
        plan = make_plan(s, gpus=0)
    assert (plan.dtype, plan.train_dtype) == (precision, precision)
    if ranks != 1:  # the plan gives a CPU one rank; a group of two is what a 2-GPU trainer would be
        plan = dataclasses.replace(plan, trainer_ranks=ranks, trainer_nodes=[ranks], threads=ranks)
    trainer = Trainer(s, plan, total_steps=4)
    trainer.prepare()
    return trainer


BATCH = experiences(2, 4, 5, vocab=1000)
NEXT = experiences(2, 4, 5, vocab=1000, seed=1)


def _first_step(model, job, precision: str):
    s = _settings(model, job)
    trainer = _trainer(s, precision=precision)
    first = trainer.train_step(BATCH)
    return s, trainer, first


@pytest.fixture(scope="module")
def grpo(model, tmp_path_factory):
    """A GRPO trainer in float32 after its first step: (settings, trainer, the step's metrics)."""
    s, trainer, first = _first_step(model, tmp_path_factory.mktemp("grpo"), "float32")
    yield s, trainer, first
    trainer.shutdown()


@pytest.fixture(scope="module")
def grpo_bf16(model, tmp_path_factory):
    """The same in bfloat16."""
    s, trainer, first = _first_step(model, tmp_path_factory.mktemp("grpo_bf16"), "bfloat16")
    yield s, trainer, first
    trainer.shutdown()


PRECISIONS = {"float32": "grpo", "bfloat16": "grpo_bf16"}  # precision -> the fixture of a trainer in it


def test_the_installed_verl_and_torch_are_the_releases_the_cpu_patches_were_checked_with():
    assert verl_cpu.check_versions() is None


@pytest.mark.parametrize("precision", PRECISIONS)
def test_the_plan_names_what_the_driver_builds(precision, request):
    s, trainer, _ = request.getfixturevalue(PRECISIONS[precision])
    plan = trainer.plan
    text = plan.describe(s)
    built = trainer.describe()
    assert sorted(built) == sorted(r.name for r in plan.roles) == ["actor", "ref"]
    for role in plan.roles:
        for rank, facts in enumerate(built[role.name]):
            words = engine_words(facts["engine"], facts["strategy"], facts["compute_dtype"], facts["param_dtype"],
                                 facts["forward_only"])
            assert words == plan.engine_words(role) and f"{role.name:<9} {words}" in text
            assert (facts["rank"], facts["world_size"], facts["device"]) == (rank, plan.trainer_ranks, "cpu")
            assert f"{facts['world_size']} rank(s) on CPU (veRL platform cpu), {facts['backend']}" in text
            assert f"{facts['worker']} (veRL TrainingWorker)" in text


# rel. tolerance of (loss, pg_loss, grad_norm) against the bare loop in float32: bfloat16 keeps 8 bits of mantissa,
# its gradient norm is within a few percent (2% on this batch)
TOLERANCE = {"float32": (1e-4, 1e-4, 1e-3), "bfloat16": (1e-2, 1e-2, 5e-2)}


@pytest.mark.parametrize("precision", PRECISIONS)
def test_an_actor_step_equals_a_bare_loop_of_verls_functions(precision, request, model):
    from transformers import AutoModelForCausalLM
    from verl.trainer.ppo import core_algos

    from rftc_runtime.batch import collate

    s, trainer, first = request.getfixturevalue(PRECISIONS[precision])
    data = collate(BATCH, trainer.pad_id)
    data["old_log_probs"] = data["rollout_log_probs"]
    data["advantages"], _ = core_algos.compute_grpo_outcome_advantage(data["token_level_scores"],
                                                                      data["response_mask"], data["uid"])
    hf = AutoModelForCausalLM.from_pretrained(model, dtype=torch.float32, attn_implementation="sdpa")
    R = data["responses"].shape[1]
    with torch.no_grad():  # the reference model is the policy before its first update
        ref = torch.log_softmax(hf(input_ids=data["input_ids"], attention_mask=data["attention_mask"],
                                   position_ids=data["position_ids"]).logits[:, -R - 1:-1], -1)
        ref = ref.gather(-1, data["responses"][..., None])[..., 0]
    o = s.algorithm.optimizer
    optimizer = torch.optim.AdamW(hf.parameters(), lr=o.lr, betas=o.betas, weight_decay=o.weight_decay)
    loss, pg_loss, grad_norm = reference_actor_step(hf, optimizer, data, copy.deepcopy(trainer.bound.actor_config),
                                                    ref_log_prob=ref)
    loss_rel, pg_rel, norm_rel = TOLERANCE[precision]
    assert first["actor/pg_loss"] == pytest.approx(pg_loss, rel=pg_rel)
    assert first["actor/loss"] == pytest.approx(loss, rel=loss_rel)
    assert first["actor/grad_norm"] == pytest.approx(grad_norm, rel=norm_rel)
    assert first["train/experiences"] == 8 and first["actor/lr"] == pytest.approx(o.lr)


def test_two_ranks_give_the_loss_of_one(grpo, model, tmp_path):
    _, _, first = grpo
    two = _trainer(_settings(model, tmp_path), ranks=2)
    try:
        assert [f["world_size"] for f in two.describe()["actor"]] == [2, 2]
        m = two.train_step(BATCH)
    finally:
        two.shutdown()
    for key in ("actor/pg_loss", "actor/loss", "actor/kl_loss", "actor/grad_norm", "train/advantage_mean"):
        assert m[key] == pytest.approx(first[key], rel=1e-4, abs=1e-7), key


def test_a_checkpoint_resumes_model_optimizer_and_schedule(grpo):
    s, trainer, _ = grpo
    trainer.save_checkpoint(block_until_saved=True, extra={"reader_position": 7})
    latest = checkpoints.latest(s.checkpoint_job_dir)
    assert latest.name == "global_step_1" and checkpoints.state(latest) == {"train_step": 1, "reader_position": 7}
    assert (latest / "actor" / "model_world_size_1_rank_0.pt").is_file() and not (latest / "ref").exists()
    assert "different number of trainer ranks" in checkpoints.missing_role(latest, "actor", 2)
    expected = trainer.train_step(NEXT)
    weights = ray.get(trainer.upload_state_dict())
    again = _trainer(s)
    try:
        assert again._step == 1
        got = again.train_step(NEXT)
        resumed = ray.get(again.upload_state_dict())
    finally:
        again.shutdown()
    for key in ("actor/pg_loss", "actor/grad_norm", "actor/lr", "train/step"):
        assert got[key] == pytest.approx(expected[key], rel=1e-5), key
    assert all(torch.allclose(resumed[k], weights[k], atol=1e-6) for k in weights)  # same optimizer moments


@pytest.mark.parametrize("precision", PRECISIONS)
def test_the_exported_weights_are_the_full_hugging_face_state_dict(precision, request, model):
    from transformers import AutoModelForCausalLM

    _, trainer, _ = request.getfixturevalue(PRECISIONS[precision])
    exported = ray.get(trainer.upload_state_dict())
    hf = AutoModelForCausalLM.from_pretrained(model).state_dict()
    assert {k: tuple(v.shape) for k, v in exported.items()} == {k: tuple(v.shape) for k, v in hf.items()}
    assert {v.dtype for v in exported.values()} == {getattr(torch, precision)}
    weight = "model.layers.0.mlp.up_proj.weight"
    assert not torch.equal(exported[weight], hf[weight].to(exported[weight].dtype))


def test_ppo_trains_the_critic_alone_until_critic_warmup_and_checkpoints_it(model, tmp_path):
    s = _settings(model, tmp_path, "ppo", critic_warmup=2)
    trainer = _trainer(s)
    try:
        assert sorted(trainer.describe()) == ["actor", "critic"]
        before = ray.get(trainer.upload_state_dict())
        m1 = trainer.train_step(BATCH)
        for key in ("critic/vf_loss", "critic/vf_clipfrac", "critic/vpred_mean", "critic/grad_norm", "critic/lr",
                    "critic/returns_mean", "time/critic"):
            assert key in m1, key
        assert m1["critic/grad_norm"] > 0 and m1["critic/lr"] == pytest.approx(1e-3)
        assert "actor/pg_loss" not in m1  # step 1 < critic_warmup 2: the actor is held
        held = ray.get(trainer.upload_state_dict())
        assert all(torch.equal(before[k], held[k]) for k in before)
        m2 = trainer.train_step(NEXT)
        assert "actor/pg_loss" in m2 and "critic/vf_loss" in m2
        trainer.save_checkpoint(block_until_saved=True)
    finally:
        trainer.shutdown()
    latest = checkpoints.latest(s.checkpoint_job_dir)
    assert (latest / "critic" / "optim_world_size_1_rank_0.pt").is_file()
    assert (latest / "actor" / "optim_world_size_1_rank_0.pt").is_file()
    assert "has no critic" in checkpoints.missing_role(latest.with_name("nowhere"), "critic", 1)
