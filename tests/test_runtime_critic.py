"""PPO's critic: GAE equals veRL core_algos' on the same tensors, and Trinity's critic settings reach veRL's
CriticConfig and value_loss (what the critic's worker runs) as core_algos computes them. Needs verl and torch (the
runtime environment built by scripts/setup-runtime.sh); tests/test_runtime_engine.py runs the critic's worker."""

import pytest

from runtime_support import require, settings, verl_value_loss

require("verl", "torch")

import torch  # noqa: E402
from verl.trainer.ppo import core_algos  # noqa: E402

from rftc_runtime import algorithm  # noqa: E402
from rftc_runtime.batch import collate  # noqa: E402
from rftc_runtime.experience import Experience  # noqa: E402
from rftc.trinity.workers import Critic  # noqa: E402


def _exps(n=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    out = []
    for i in range(n):
        r = 1 + i % 5
        out.append(Experience(i // 4, i // 4, torch.randint(5, 50, (1 + i % 3,), generator=g).tolist(),
                              torch.randint(5, 50, (r,), generator=g).tolist(),
                              (-torch.rand(r, generator=g)).tolist(), float(i % 2)))
    return out


def _bound(critic=None, **alg):
    a = settings({"algorithm": {"algorithm_type": "ppo", "kl_loss_fn": "none", **alg}}).algorithm
    return algorithm.bind(a, mini_batch_size=8, micro_batch_size=8, grad_clip=1.0,
                          critic=critic or Critic(model_path="", micro_batch_size=8))


def test_gae_advantages_and_returns_equal_core_algos():
    from verl import DataProto

    data = collate(_exps(), pad_id=0)
    mask = data["response_mask"]
    values = torch.randn(mask.shape, generator=torch.Generator().manual_seed(3)) * mask
    proto = DataProto.from_dict(tensors={"token_level_scores": data["token_level_scores"], "response_mask": mask,
                                         "responses": data["responses"], "values": values,
                                         "old_log_probs": data["rollout_log_probs"]},
                                non_tensors={"uid": data["uid"]})
    algorithm.advantages(_bound(advantage_fn_args={"gamma": 0.9, "lam": 0.8}), proto)
    adv, ret = core_algos.compute_gae_advantage_return(data["token_level_scores"], values, mask, gamma=0.9, lam=0.8)
    torch.testing.assert_close(proto.batch["advantages"], adv)
    torch.testing.assert_close(proto.batch["returns"], ret)
    # With gamma = lam = 1 the return of every response token is the outcome reward (undiscounted, no bootstrap).
    algorithm.advantages(_bound(), proto)
    rewards = data["token_level_scores"].sum(-1, keepdim=True).expand_as(mask)
    torch.testing.assert_close(proto.batch["returns"][mask.bool()], rewards[mask.bool()])


@pytest.mark.parametrize("agg", ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum"])
def test_value_loss_equals_core_algos(agg):
    g = torch.Generator().manual_seed(1)
    n, T = 8, 6
    mask = torch.arange(T)[None, :] < torch.tensor([6, 3, 5, 1, 6, 2, 4, 1])[:, None]
    values = torch.randn(n, T, generator=g)
    vpreds = values + torch.randn(n, T, generator=g)  # far enough for the clip to matter
    returns = torch.randn(n, T, generator=g)
    b = _bound(Critic(model_path="", micro_batch_size=3, cliprange_value=0.3, loss_agg_mode=agg))
    loss, metrics = verl_value_loss(b.critic_config, vpreds, values, returns, mask)
    want, clipfrac = core_algos.compute_value_loss(vpreds, returns, values, mask, cliprange_value=0.3,
                                                   loss_agg_mode=agg)
    torch.testing.assert_close(loss, want)
    assert 0.0 < metrics["critic/vf_clipfrac"] == pytest.approx(clipfrac.item())
    assert metrics["critic/vpred_mean"] == pytest.approx(vpreds[mask].mean().item(), rel=1e-6)


def test_trinitys_critic_config_reaches_verls():
    b = _bound(Critic(model_path="", micro_batch_size=4, cliprange_value=0.2, ppo_epochs=2))
    cfg = b.critic_config
    assert (cfg.cliprange_value, cfg.loss_agg_mode, cfg.ppo_epochs, cfg.ppo_micro_batch_size_per_gpu) == (
        0.2, "token-mean", 2, 4)
    assert (cfg.optim.lr, cfg.optim.clip_grad, cfg.optim.lr_scheduler_type) == (1e-5, 1.0, "constant")
    grpo = algorithm.bind(settings({"algorithm": {"algorithm_type": "grpo"}}).algorithm, 8, 8, 1.0)
    assert grpo.critic_config is None
