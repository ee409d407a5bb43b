"""The trainer's advantages equal veRL core_algos' on the same tensors, and Trinity's algorithm names reach veRL's
ppo_loss as core_algos computes them (needs verl and torch: the runtime environment built by
scripts/setup-runtime.sh). tests/test_runtime_engine.py checks a whole step through the workers."""


import pytest

from runtime_support import require, settings, verl_ppo_loss

require("verl", "torch")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from verl.trainer.ppo import core_algos  # noqa: E402

from rftc_runtime import algorithm  # noqa: E402
from rftc_runtime.batch import collate  # noqa: E402
from rftc_runtime.experience import Experience  # noqa: E402


def _exps(rewards, group_size=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    out = []
    for i, r in enumerate(rewards):
        n = 1 + i % 5
        out.append(Experience(i // group_size, i // group_size, [1, 2, 3][: 1 + i % 3],
                              torch.randint(5, 50, (n,), generator=g).tolist(),
                              (-torch.rand(n, generator=g)).tolist(), float(r)))
    return out


def _proto(data, **extra):
    from verl import DataProto

    tensors = {k: data[k] for k in ("token_level_scores", "response_mask", "responses")}
    tensors["old_log_probs"] = data["rollout_log_probs"]
    tensors.update(extra)
    return DataProto.from_dict(tensors=tensors, non_tensors={"uid": data["uid"]})


def _bound(**alg):
    a = settings({"algorithm": {"algorithm_type": "grpo", "repeat_times": 4, **alg}}).algorithm
    assert algorithm.unsupported(a) == []
    return algorithm.bind(a, mini_batch_size=8, micro_batch_size=8, grad_clip=1.0)


REWARDS = [1, 0, 0, 1, 0, 0, 0, 1]


def test_grpo_advantages_equal_core_algos():
    data = collate(_exps(REWARDS), pad_id=0)
    proto = _proto(data)
    algorithm.advantages(_bound(), proto)
    index = np.array([str(i // 4) for i in range(8)], dtype=object)
    want, _ = core_algos.compute_grpo_outcome_advantage(data["token_level_scores"], data["response_mask"], index)
    torch.testing.assert_close(proto.batch["advantages"], want)
    # Each response's advantage is its reward's z-score within its group, on every response token.
    first = proto.batch["advantages"][0, 0].item()
    group = torch.tensor(REWARDS[:4], dtype=torch.float32)
    assert first == pytest.approx(((group[0] - group.mean()) / (group.std() + 1e-6)).item(), rel=1e-5)


@pytest.mark.parametrize("name,verl_fn", [("rloo", "compute_rloo_outcome_advantage"),
                                           ("reinforceplusplus", "compute_reinforce_plus_plus_outcome_advantage")])
def test_other_advantages_equal_core_algos(name, verl_fn):
    from verl.trainer.config import AlgoConfig

    data = collate(_exps(REWARDS), pad_id=0)
    proto = _proto(data)
    algorithm.advantages(_bound(advantage_fn=name), proto)
    kwargs = {"config": AlgoConfig(gamma=1.0)}
    if name == "rloo":
        kwargs["index"] = np.array([str(i // 4) for i in range(8)], dtype=object)
    want, _ = getattr(core_algos, verl_fn)(data["token_level_scores"], data["response_mask"], **kwargs)
    torch.testing.assert_close(proto.batch["advantages"], want)


def test_kl_in_reward_uses_verl_penalty():
    data = collate(_exps(REWARDS), pad_id=0)
    ref = data["rollout_log_probs"] - 0.1 * data["response_mask"]
    proto = _proto(data, ref_log_prob=ref)
    algorithm.advantages(_bound(kl_penalty_fn="k1", kl_penalty_fn_args={"kl_coef": 0.5}), proto)
    kld = core_algos.kl_penalty(data["rollout_log_probs"], ref, "k1") * data["response_mask"]
    torch.testing.assert_close(proto.batch["token_level_rewards"], data["token_level_scores"] - 0.5 * kld)


@pytest.mark.parametrize("agg", ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum"])
def test_trinitys_names_reach_verls_ppo_loss(agg):
    """The ActorConfig bound from Trinity's names gives veRL's ppo_loss (what the actor's worker runs) the
    clip ranges, KL, entropy coefficient and aggregation core_algos computes with them."""
    g = torch.Generator().manual_seed(1)
    n, T = 6, 7
    mask = (torch.arange(T)[None, :] < torch.tensor([7, 3, 5, 1, 6, 2])[:, None])
    old = -torch.rand(n, T, generator=g)
    new = old + 0.3 * torch.randn(n, T, generator=g)
    adv = torch.randn(n, 1, generator=g).expand(n, T).clone()
    ref = old - 0.05
    ent = torch.rand(n, T, generator=g)
    b = _bound(loss_agg_mode=agg, kl_loss_fn="low_var_kl", kl_loss_fn_args={"kl_coef": 0.01},
               entropy_loss_fn_args={"entropy_coef": 0.002},
               policy_loss_fn_args={"clip_range_low": 0.2, "clip_range_high": 0.28, "loss_agg_mode": agg})
    loss, _ = verl_ppo_loss(b.actor_config, new, old, adv, mask, ref_log_prob=ref, entropy=ent)
    pg, _, _, _ = core_algos.compute_policy_loss(old, new, adv, mask, cliprange=0.2, cliprange_low=0.2,
                                                 cliprange_high=0.28, clip_ratio_c=3.0, loss_agg_mode=agg)
    kl = core_algos.agg_loss(core_algos.kl_penalty(new, ref, "low_var_kl"), mask, agg)
    en = core_algos.agg_loss(ent, mask, agg)
    torch.testing.assert_close(loss, pg - 0.002 * en + 0.01 * kl)


@pytest.mark.parametrize("algorithm_type,args,expected", [
    ("gspo", None, ("gspo", 0.2, 3e-4, 4e-4, "token-mean")),  # Trinity's default_args, the algorithm's aggregation
    ("gspo", {"clip_range_low": 0.1, "clip_range_high": 0.3}, ("gspo", 0.2, 0.1, 0.3, "seq-mean-token-mean")),
    ("cispo", None, ("cispo", 0.2, 1.0, 0.28, "token-mean")),
    ("cispo", {"clip_range_high": 5.0, "loss_agg_mode": "token-mean"}, ("cispo", 0.2, 1.0, 5.0, "seq-mean-token-sum")),
])
def test_gspo_and_cispo_bind_veRLs_loss_with_trinitys_arguments(algorithm_type, args, expected):
    """Arguments given without a loss_agg_mode keep the constructor's (gspo: seq-mean-token-mean); given with one,
    Trinity replaces it with the algorithm's. tests/test_trinity_algorithms.py checks the losses agree."""
    agg = {} if args is None or "loss_agg_mode" not in args else {"loss_agg_mode": "seq-mean-token-sum"}
    b = _bound(algorithm_type=algorithm_type, kl_loss_fn="none", policy_loss_fn_args=args, **agg)
    c = b.actor_config
    assert (c.policy_loss.loss_mode, c.clip_ratio, c.clip_ratio_low, c.clip_ratio_high, c.loss_agg_mode) == expected


def test_unsupported_names_are_reported():
    a = settings({"algorithm": {"algorithm_type": "grpo", "advantage_fn": "opmd", "kl_loss_fn": "corrected_k3"}}).algorithm
    assert algorithm.unsupported(a) == ["advantage_fn: opmd", "kl_loss_fn: corrected_k3"]


@pytest.mark.parametrize("bypass", [False, True])
def test_the_trainer_recomputes_the_old_log_probs_with_the_actor_unless_bypassed(bypass):
    # bypass_old_logprobs false (what rftc convert writes where veRL recomputes them): the actor's forward pass
    # gives the old log-probs; true (Trinity's default): the rollout's are used as they are
    from rftc_runtime.trainer import Trainer

    s = settings({"algorithm": {"algorithm_type": "grpo", "repeat_times": 4, "kl_loss_fn": "none",
                                "bypass_old_logprobs": bypass}})
    trainer = Trainer(s, plan=None, total_steps=1)
    trainer.bound, trainer.pad_id, trainer.groups = _bound(kl_loss_fn="none"), 0, {"actor": None}
    inferred, trained = [], {}

    def infer(role, data, key, **meta):
        inferred.append((role, key))
        return data["rollout_log_probs"] - 1.0

    def train(role, data, keys, epochs, **meta):
        trained.update({k: data[k] for k in keys})
        return {}

    trainer._infer, trainer._train = infer, train
    exps = _exps(REWARDS)
    trainer.train_step(exps)
    rollout = collate(exps, pad_id=0)["rollout_log_probs"]
    assert inferred == ([] if bypass else [("actor", "log_probs")])
    torch.testing.assert_close(trained["old_log_probs"], rollout if bypass else rollout - 1.0)
