"""veRL's advantage estimators and policy loss that Trinity-RFT 0.6 does not register, for the configs
``rftc convert`` writes (``advantage_fn: rftc.trinity.verl_algorithms.VerlAdvantageFn``, ``policy_loss_fn:
rftc.trinity.verl_algorithms.GPGPolicyLossFn``; Trinity imports them by these dotted paths, so rftc must be
installed beside trinity-rft). The advantage is computed by veRL's own estimator function, called as veRL's
``compute_advantage`` calls it; the config's algorithm_type computes advantages in the trainer, where Trinity
hands the whole batch (with each response's task id as ``uid``) to the advantage function. Imported only by
Trinity: it needs trinity-rft and verl."""

from __future__ import annotations

from typing import Dict, Tuple

import torch

from trinity.algorithm.advantage_fn import AdvantageFn
from trinity.algorithm.policy_loss_fn import PolicyLossFn
from trinity.algorithm.utils import aggregate_loss


class VerlAdvantageFn(AdvantageFn):
    """``estimator``: a veRL AdvantageEstimator name (gpg, reinforce_plus_plus_baseline, opo, grpo_passk); the
    other arguments are veRL's algorithm settings its functions read from their config."""

    def __init__(self, estimator: str, gamma: float = 1.0, lam: float = 1.0,
                 norm_adv_by_std_in_grpo: bool = True) -> None:
        from verl.trainer.ppo import core_algos

        self.fn = core_algos.get_adv_estimator_fn(estimator)  # raises for a name veRL does not register
        self.config = {"adv_estimator": estimator, "gamma": gamma, "lam": lam,
                       "norm_adv_by_std_in_grpo": norm_adv_by_std_in_grpo}

    def __call__(self, exps, **kwargs) -> Tuple[object, Dict]:
        from verl.trainer.config import AlgoConfig

        # veRL's compute_advantage for every estimator but gae and grpo
        advantages, returns = self.fn(token_level_rewards=exps.batch["token_level_rewards"],
                                      response_mask=exps.batch["response_mask"],
                                      index=exps.non_tensor_batch["uid"], config=AlgoConfig(**self.config))
        exps.batch["advantages"], exps.batch["returns"] = advantages, returns
        return exps, {}

    @classmethod
    def default_args(cls) -> Dict:
        return {"estimator": "reinforce_plus_plus_baseline"}


class GPGPolicyLossFn(PolicyLossFn):
    """veRL's ``gpg`` policy loss: ``-log_prob * advantages`` (no ratio, no clipping), aggregated with
    ``loss_agg_mode`` as Trinity aggregates its own losses."""

    def __init__(self, backend: str = "verl", loss_agg_mode: str = "token-mean") -> None:
        super().__init__(backend=backend)
        self.loss_agg_mode = loss_agg_mode

    def __call__(self, logprob: torch.Tensor, action_mask: torch.Tensor, advantages: torch.Tensor,
                 **kwargs) -> Tuple[torch.Tensor, Dict]:
        loss = aggregate_loss(-logprob * advantages, action_mask, loss_agg_mode=self.loss_agg_mode)
        return loss, {"pg_loss": loss.detach().item()}

    @classmethod
    def default_args(cls) -> Dict:
        return {"loss_agg_mode": "token-mean"}
