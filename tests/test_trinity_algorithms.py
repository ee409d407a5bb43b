"""A converted config's algorithm as Trinity-RFT 0.6 runs it and as `rftc run` runs it: the config goes through
Trinity's load_config + check_and_update and its registries build the advantage and loss classes
(tests/trinity_ref/algorithms.py in .venv-trinity, with Trinity's verl 0.8.0); their advantages, loss and the
loss's gradient on one batch must equal the runtime's: veRL's own compute_advantage and ppo_loss (verl 0.9.1 here).

- veRL estimators Trinity lacks (gpg, reinforce_plus_plus_baseline, opo, grpo_passk) and veRL's gpg policy loss,
  which rftc's Trinity classes run;
- Trinity's algorithm types gspo, cispo and sapo, with their defaults and with other arguments: what the runtime
  runs equals Trinity's loss, and what it refuses (RFTC505) is what Trinity computes otherwise than veRL."""

from __future__ import annotations

import pytest

from runtime_support import require, verl_ppo_loss
from trinity_ref import reference

require("verl", "torch")

import torch  # noqa: E402
import yaml  # noqa: E402

from rftc.plugins import VERL_ESTIMATORS  # noqa: E402
from rftc.trinity.expand import expand  # noqa: E402
from rftc_runtime import algorithm  # noqa: E402
from runtime_support import settings  # noqa: E402
from trinity_ref.algorithms import batch  # noqa: E402

pytestmark = pytest.mark.skipif(not reference.available(), reason=reference.MISSING)


def _convert(tmp_path, estimator: str) -> dict:
    gpg = ["actor_rollout_ref.actor.policy_loss.loss_mode=gpg"] if estimator == "gpg" else []
    out = reference.convert_launch(tmp_path, f"algorithm.adv_estimator={estimator}", "actor_rollout_ref.rollout.n=5",
                                   "data.train_files=/d/gsm8k/train.parquet",
                                   "actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-mean", *gpg)
    return {"trinity": reference.harness("algorithms.py", str(out), cwd=tmp_path)[str(out)],
            "config": yaml.safe_load(out.read_text())}


def _runtime_loss(actor_config, advantages):
    """veRL's ppo_loss with ``actor_config`` on the harness's batch: (loss, gradient in the log-probs)."""
    data, log_prob, old_log_prob = batch()
    log_prob.requires_grad_()
    loss, _ = verl_ppo_loss(actor_config, log_prob, old_log_prob, advantages, data.batch["response_mask"])
    loss.backward()
    return float(loss.detach()), log_prob.grad


@pytest.mark.parametrize("estimator", VERL_ESTIMATORS)
def test_verl_estimator_runs_in_trinity_as_in_the_runtime(tmp_path, estimator):
    got = _convert(tmp_path, estimator)
    trinity = got["trinity"]
    # an algorithm type whose advantages Trinity computes in the trainer, on the whole batch, as veRL does
    assert trinity["algorithm_type"] == "reinforceplusplus" and trinity["in_trainer"]
    assert trinity["loss_agg_mode"] == "seq-mean-token-mean"

    alg = settings(got["config"]).algorithm
    bound = algorithm.bind(alg, mini_batch_size=20, micro_batch_size=20, grad_clip=1.0)
    data = batch()[0]
    data.batch["token_level_scores"] = data.batch.pop("token_level_rewards")
    algorithm.advantages(bound, data)
    ours = torch.tensor(trinity["advantages"])
    assert ours.abs().sum() > 0
    assert torch.allclose(ours, data.batch["advantages"], atol=1e-5), (ours, data.batch["advantages"])

    loss, grad = _runtime_loss(bound.actor_config, data.batch["advantages"])
    assert trinity["loss"] == pytest.approx(loss, abs=1e-5)
    torch.testing.assert_close(torch.tensor(trinity["grad"]), grad, atol=1e-6, rtol=1e-5)


# Algorithm sections Trinity and the runtime train alike: Trinity's defaults for each type (the algorithm's
# loss_agg_mode, token-mean, replaces the default arguments' own), other clip ranges and aggregations (arguments
# that name no loss_agg_mode keep the constructor's: gspo's seq-mean-token-mean).
RUN = {
    "gspo": {"algorithm_type": "gspo"},
    "gspo-clip": {"algorithm_type": "gspo", "loss_agg_mode": "seq-mean-token-sum", "policy_loss_fn_args": {
        "clip_range_low": 0.2, "clip_range_high": 0.3, "loss_agg_mode": "token-mean"}},
    "gspo-constructor-agg": {"algorithm_type": "gspo", "loss_agg_mode": "seq-mean-token-sum",
                             "policy_loss_fn_args": {"clip_range_low": 0.05, "clip_range_high": 0.1}},
    "cispo": {"algorithm_type": "cispo"},
    "cispo-clip": {"algorithm_type": "cispo", "loss_agg_mode": "seq-mean-token-mean",
                   "policy_loss_fn_args": {"clip_range_low": 0.2, "clip_range_high": 0.2, "enable_mask_clip": False,
                                           "mask_clip_range_low": 0.1, "mask_clip_range_high": 0.1}},
    "cispo-token-sum": {"algorithm_type": "cispo", "loss_agg_mode": "seq-mean-token-sum",
                        "policy_loss_fn_args": {"clip_range_low": 0.5, "clip_range_high": 0.3}},
    "sapo-ppo-loss": {"algorithm_type": "sapo", "policy_loss_fn": "ppo",
                      "policy_loss_fn_args": {"clip_range_low": 0.2, "clip_range_high": 0.28}},
}
# Sections the runtime refuses: the RFTC505 item, and veRL's loss of that name (the ActorConfig fields bind would
# set for it) that Trinity's differs from.
REFUSED = {
    "sapo": ({"algorithm_type": "sapo"}, "policy_loss_fn: sapo", {"loss_mode": "sapo"}),
    "sapo-tau": ({"algorithm_type": "sapo", "loss_agg_mode": "seq-mean-token-mean",
                  "policy_loss_fn_args": {"tau_pos": 2.0, "tau_neg": 3.0}}, "policy_loss_fn: sapo",
                 {"loss_mode": "sapo", "tau_pos": 2.0, "tau_neg": 3.0}),
    "cispo-mask-clip": ({"algorithm_type": "cispo", "policy_loss_fn_args": {
        "clip_range_low": 1.0, "clip_range_high": 0.28, "enable_mask_clip": True, "mask_clip_range_low": 0.1,
        "mask_clip_range_high": 0.1}}, "policy_loss_fn_args.enable_mask_clip: true", {}),
    "gspo-token-sum-norm": ({"algorithm_type": "gspo", "loss_agg_mode": "seq-mean-token-sum-norm",
                             "policy_loss_fn_args": {"clip_range_low": 0.2, "clip_range_high": 0.3,
                                                     "loss_agg_mode": "token-mean"}},
                            "loss_agg_mode: seq-mean-token-sum-norm", {}),
    "ppo-sequence-masking": ({"algorithm_type": "grpo", "policy_loss_fn": "ppo", "policy_loss_fn_args": {
        "clip_range": 0.2, "enable_sequence_masking": True, "delta_sequence_masking": 0.05}},
        "policy_loss_fn_args.enable_sequence_masking: true", {}),
    "ppo-fallback": ({"algorithm_type": "grpo", "policy_loss_fn": "ppo",
                      "policy_loss_fn_args": {"clip_range": 0.2, "fallback_to_policy_gradient": True}},
                     "policy_loss_fn_args.fallback_to_policy_gradient: true", {}),
}

# Policy-loss arguments as Trinity's constructors take them: a given *_args alone (the constructor's defaults fill the
# rest, default_args() only where it is unset), each clip bound from clip_range_low/high else clip_range.
ARGS = {
    "gspo-default-args": {"algorithm_type": "gspo"},
    "gspo-clip-range": {"algorithm_type": "gspo", "policy_loss_fn_args": {"clip_range": 0.2}},
    "gspo-high-only": {"algorithm_type": "gspo", "policy_loss_fn_args": {"clip_range_high": 0.3}},
    "ppo-default-args": {"algorithm_type": "grpo", "policy_loss_fn": "ppo"},
    "ppo-low-over-range": {"algorithm_type": "grpo", "policy_loss_fn": "ppo",
                           "policy_loss_fn_args": {"clip_range": 0.3, "clip_range_low": 0.1}},
    "ppo-high-only": {"algorithm_type": "grpo", "policy_loss_fn": "ppo",
                      "policy_loss_fn_args": {"clip_range_high": 0.3}},
    "ppo-empty-args": {"algorithm_type": "grpo", "policy_loss_fn": "ppo", "policy_loss_fn_args": {}},
}


@pytest.fixture(scope="module")
def loss_types(tmp_path_factory):
    """Each section of RUN, REFUSED and ARGS in the config `rftc convert` writes for a gspo launch, as Trinity runs it:
    {name: (config, Trinity's record)}."""
    folder = tmp_path_factory.mktemp("loss_types")
    base = yaml.safe_load(reference.convert_launch(
        folder, "algorithm.adv_estimator=grpo", "actor_rollout_ref.actor.policy_loss.loss_mode=gspo",
        "actor_rollout_ref.rollout.n=5", "data.train_files=/d/gsm8k/train.parquet").read_text())
    assert base["algorithm"]["algorithm_type"] == "gspo"
    kept = {k: v for k, v in base["algorithm"].items() if k not in ("algorithm_type", "advantage_fn", "policy_loss_fn")}
    configs = {}
    for name, section in {**RUN, **{k: v[0] for k, v in REFUSED.items()}, **ARGS}.items():
        configs[name] = {**base, "algorithm": {**kept, **section}}
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(configs[name]))
    records = reference.harness("algorithms.py", *(f"{name}.yaml" for name in configs), cwd=folder)
    return {name: (cfg, records[f"{name}.yaml"]) for name, cfg in configs.items()}


def _advantages(alg):
    data = batch()[0]
    data.batch["token_level_scores"] = data.batch.pop("token_level_rewards")
    algorithm.advantages(algorithm.bind(alg, mini_batch_size=20, micro_batch_size=20, grad_clip=1.0), data)
    return data.batch["advantages"]


@pytest.mark.parametrize("name", RUN)
def test_loss_types_run_as_trinity_trains_them(loss_types, name):
    cfg, trinity = loss_types[name]
    alg = settings(cfg).algorithm
    assert algorithm.unsupported(alg) == []
    assert (alg.algorithm_type, alg.policy_loss_fn) == (trinity["algorithm_type"], trinity["policy_loss_fn"])
    # the arguments Trinity builds the loss with are the runtime's (which add the constructor's defaults)
    assert alg.loss_agg_mode == trinity["loss_agg_mode"]
    assert {**alg.policy_loss_fn_args, **trinity["policy_loss_fn_args"]} == alg.policy_loss_fn_args
    adv = _advantages(alg)
    torch.testing.assert_close(torch.tensor(trinity["advantages"]), adv, atol=1e-5, rtol=1e-5)
    bound = algorithm.bind(alg, mini_batch_size=20, micro_batch_size=20, grad_clip=1.0)
    loss, grad = _runtime_loss(bound.actor_config, adv)
    assert trinity["loss"] == pytest.approx(loss, abs=1e-6)
    torch.testing.assert_close(torch.tensor(trinity["grad"]), grad, atol=1e-7, rtol=1e-5)
    assert grad.abs().sum() > 0


@pytest.mark.parametrize("name", REFUSED)
def test_what_trinity_computes_otherwise_is_refused(loss_types, name):
    import dataclasses

    from verl.workers.config.actor import PolicyLossConfig

    cfg, trinity = loss_types[name]
    _, item, verl_fields = REFUSED[name]
    alg = settings(cfg).algorithm
    assert [i.split(" (")[0] for i in algorithm.unsupported(alg)] == [item]
    # veRL's loss of that name, as the runtime would run it, computes another gradient
    runnable = alg.model_copy(update={"policy_loss_fn": "ppo"}) if alg.policy_loss_fn not in algorithm.POLICY_LOSS \
        else alg
    config = algorithm.bind(runnable, mini_batch_size=20, micro_batch_size=20, grad_clip=1.0).actor_config
    fields = dict(verl_fields)
    if "loss_mode" in fields:
        fields["policy_loss"] = PolicyLossConfig(loss_mode=fields.pop("loss_mode"))
    _, grad = _runtime_loss(dataclasses.replace(config, **fields), _advantages(runnable))
    assert not torch.allclose(torch.tensor(trinity["grad"]), grad, atol=1e-4)


def test_verls_sapo_is_told_from_trinitys_and_not_converted(loss_types, tmp_path):
    """veRL's sapo loss is the gate of the ratio, aggregated seq-mean-token-mean; Trinity's of the same name is the
    detached gate times the log-prob (REFUSED's sapo sections: other gradients on the harness's batch). rftc diff
    of a sapo launch against Trinity's sapo with the same taus reports the policy loss, and convert writes nothing
    (RFTC344)."""
    from rftc.compare import diff
    from support.cli import convert, launch

    cfg, trinity = loss_types["sapo-tau"]
    assert trinity["policy_loss_fn"] == "sapo" and trinity["loss_agg_mode"] == "seq-mean-token-mean"
    sapo = ("algorithm.adv_estimator=grpo", "actor_rollout_ref.rollout.n=5", "data.train_files=/d/gsm8k/train.parquet",
            "actor_rollout_ref.actor.policy_loss.loss_mode=sapo", "actor_rollout_ref.actor.tau_pos=2.0",
            "actor_rollout_ref.actor.tau_neg=3.0")
    script = launch(tmp_path, *reference.LAUNCH, *sapo)
    config = tmp_path / "sapo.yaml"
    config.write_text(yaml.safe_dump(cfg))
    found = {q.name: (a.value, b.value) for q, a, b in diff(str(script), str(config)).differences}
    assert found["policy_loss"] == ("verl sapo", "sapo")
    assert "sapo_tau" not in found
    done = convert(script, out=tmp_path / "out", cwd=tmp_path, status=1)
    assert [d["code"] for d in done.diagnostics if d["severity"] == "error"] == ["RFTC344"] and not done.configs
    # in bypass mode veRL trains its PPO-clip loss whatever loss_mode says: that converts
    (tmp_path / "bypass").mkdir()
    bypass = reference.convert_launch(tmp_path / "bypass", *sapo, "algorithm.rollout_correction.bypass_mode=True")
    assert yaml.safe_load(bypass.read_text())["algorithm"]["policy_loss_fn"] == "ppo"


@pytest.mark.parametrize("name", ARGS)
def test_policy_loss_arguments_are_what_trinitys_constructors_make_of_them(loss_types, name, tmp_path):
    """rftc check reports RFTC488 exactly where Trinity's constructor raises, and no argument it takes as unknown
    (RFTC473); where it builds the loss, the semantic model's clip bounds are those the loss is built with."""
    from rftc.api import check
    from rftc.compare import training_run

    cfg, trinity = loss_types[name]
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    codes = [d.code for d in check(str(path)).diagnostics]
    assert "RFTC473" not in codes
    assert ("RFTC488" in codes) == ("raises" in trinity), (codes, trinity.get("raises"))
    if "raises" not in trinity:
        run = training_run(str(path)).run
        assert [run.clip_low.value, run.clip_high.value] == trinity["clip"]


# veRL launches whose policy loss convert maps by name, with settings it writes: (overrides, the launch's own
# ActorConfig fields for veRL's loss). The converted config, as Trinity builds it, trains the same gradient.
ACTOR = "actor_rollout_ref.actor"
BY_NAME = {
    "vanilla": ((f"{ACTOR}.clip_ratio_low=0.1", f"{ACTOR}.clip_ratio_high=0.3", f"{ACTOR}.clip_ratio_c=2.5",
                 f"{ACTOR}.loss_agg_mode=seq-mean-token-sum"),
                {"loss_mode": "vanilla", "clip_ratio_low": 0.1, "clip_ratio_high": 0.3, "clip_ratio_c": 2.5,
                 "loss_agg_mode": "seq-mean-token-sum"}),
    "gspo": ((f"{ACTOR}.policy_loss.loss_mode=gspo", f"{ACTOR}.clip_ratio_low=0.05", f"{ACTOR}.clip_ratio_high=0.1",
              f"{ACTOR}.loss_agg_mode=seq-mean-token-mean"),
             {"loss_mode": "gspo", "clip_ratio_low": 0.05, "clip_ratio_high": 0.1,
              "loss_agg_mode": "seq-mean-token-mean"}),
    "cispo": ((f"{ACTOR}.policy_loss.loss_mode=cispo", f"{ACTOR}.clip_ratio_low=0.2", f"{ACTOR}.clip_ratio_high=0.3"),
              {"loss_mode": "cispo", "clip_ratio_low": 0.2, "clip_ratio_high": 0.3, "loss_agg_mode": "token-mean"}),
    "gpg": ((f"{ACTOR}.policy_loss.loss_mode=gpg", f"{ACTOR}.loss_agg_mode=seq-mean-token-mean"),
            {"loss_mode": "gpg", "loss_agg_mode": "seq-mean-token-mean"}),
}


@pytest.mark.parametrize("mode", BY_NAME)
def test_losses_convert_maps_by_name_train_as_verl_does(tmp_path, mode):
    """rftc convert of a grpo launch with veRL's loss_mode and its settings; Trinity's loss on the converted config
    (the harness) and veRL's own loss with the launch's settings give the same gradient on one batch."""
    import dataclasses

    from verl.workers.config.actor import PolicyLossConfig

    overrides, fields = BY_NAME[mode]
    out = reference.convert_launch(tmp_path, "algorithm.adv_estimator=grpo", "actor_rollout_ref.rollout.n=5",
                                   "data.train_files=/d/gsm8k/train.parquet", *overrides)
    trinity = reference.harness("algorithms.py", str(out), cwd=tmp_path)[str(out)]
    alg = settings(yaml.safe_load(out.read_text())).algorithm
    config = algorithm.bind(alg, mini_batch_size=20, micro_batch_size=20, grad_clip=1.0).actor_config
    fields = dict(fields)
    verl = dataclasses.replace(config, policy_loss=PolicyLossConfig(loss_mode=fields.pop("loss_mode")), **fields)
    loss, grad = _runtime_loss(verl, torch.tensor(trinity["advantages"]))
    assert grad.abs().sum() > 0
    assert trinity["loss"] == pytest.approx(loss, abs=1e-6)
    torch.testing.assert_close(torch.tensor(trinity["grad"]), grad, atol=1e-7, rtol=1e-5)
