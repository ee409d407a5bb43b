"""PPO's critic: GAE and the value loss equal veRL core_algos' on the same tensors, values are read at veRL's
positions, the trainer runs veRL's order (values, GAE, critic, actor after critic_warmup) and checkpoints carry
the critic. Needs verl and torch (the runtime environment built by scripts/setup-runtime.sh); the trainer tests
use a tiny random model with the bundled model's tokenizer."""

import copy
from pathlib import Path

import pytest

from runtime_support import model_dir, require

require("verl", "torch")

import torch  # noqa: E402
from verl.trainer.ppo import core_algos  # noqa: E402

from rftc_runtime import algorithm, checkpoints  # noqa: E402
from rftc_runtime.batch import collate  # noqa: E402
from rftc_runtime.experience import Experience  # noqa: E402
from rftc_runtime.settings import Critic, _algorithm, from_mapping  # noqa: E402

MODEL = model_dir()


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
    a = _algorithm({"algorithm_type": "ppo", "kl_loss_fn": "none", **alg})
    return algorithm.bind(a, mini_batch_size=8, micro_batch_size=8, grad_clip=1.0,
                          critic=critic or Critic(micro_batch_size=8))


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
def test_value_loss_equals_core_algos_and_micro_batches_add_up(agg):
    g = torch.Generator().manual_seed(1)
    n, T = 8, 6
    mask = torch.arange(T)[None, :] < torch.tensor([6, 3, 5, 1, 6, 2, 4, 0])[:, None]
    values = torch.randn(n, T, generator=g)
    vpreds = values + torch.randn(n, T, generator=g)  # far enough for the clip to matter
    returns = torch.randn(n, T, generator=g)
    b = _bound(Critic(micro_batch_size=3, cliprange_value=0.3, loss_agg_mode=agg))
    info = algorithm.global_batch_info(mask)
    loss, metrics = algorithm.value_loss(b, vpreds, values, returns, mask, info)
    want, clipfrac = core_algos.compute_value_loss(vpreds, returns, values, mask, cliprange_value=0.3,
                                                   loss_agg_mode=agg)
    torch.testing.assert_close(loss, want)
    assert 0.0 < metrics["critic/vf_clipfrac"] == pytest.approx(clipfrac.item())
    assert metrics["critic/vpred_mean"] == pytest.approx(vpreds[mask].mean().item(), rel=1e-6)
    parts = sum(algorithm.value_loss(b, vpreds[i:i + 3], values[i:i + 3], returns[i:i + 3], mask[i:i + 3], info)[0]
                for i in range(0, n, 3))
    torch.testing.assert_close(parts, want)


def test_trinitys_critic_config_reaches_verls():
    b = _bound(Critic(micro_batch_size=4, cliprange_value=0.2, ppo_epochs=2))
    cfg = b.critic_config
    assert (cfg.cliprange_value, cfg.loss_agg_mode, cfg.ppo_epochs, cfg.ppo_micro_batch_size_per_gpu) == (
        0.2, "token-mean", 2, 4)
    assert (cfg.optim.lr, cfg.optim.clip_grad, cfg.optim.lr_scheduler_type) == (1e-5, 1.0, "constant")
    grpo = algorithm.bind(_algorithm({"algorithm_type": "grpo"}), 8, 8, 1.0)
    assert grpo.critic_config is None


# --- with a model -------------------------------------------------------------------------------------------
needs_tokenizer = pytest.mark.skipif(not (MODEL / "tokenizer.json").is_file(),
                                     reason=f"no tokenizer at {MODEL}: bash scripts/setup-runtime.sh")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A 2-layer Llama with the bundled model's tokenizer: the same code paths in a fraction of a second."""
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    path = tmp_path_factory.mktemp("tiny")
    tok = AutoTokenizer.from_pretrained(MODEL)
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                         pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id, bos_token_id=tok.bos_token_id)
    LlamaForCausalLM(config).save_pretrained(path)
    tok.save_pretrained(path)
    return path


@needs_tokenizer
def test_values_are_read_where_verls_critic_reads_them(tiny_model):
    from tensordict import TensorDict
    from verl.workers.utils.padding import no_padding_2_padding

    from rftc_runtime.critic import load_value_model, values

    model = load_value_model(str(tiny_model)).eval()
    assert type(model).__name__ == "LlamaForTokenClassification" and model.config.num_labels == 1
    assert model.config.classifier_dropout == 0.0
    data = collate(_exps(), pad_id=0)
    with torch.no_grad():
        got = values(model, data, autocast_bf16=False)
        # veRL's engine: each sequence unpadded (prompt + response), its per-token values concatenated, the
        # response's values cut out by no_padding_2_padding (one position to the left, zero past its end).
        flat = []
        for i in range(len(data["input_ids"])):
            ids = data["input_ids"][i][data["attention_mask"][i].bool()][None]
            flat.append(model(input_ids=ids).logits[0, :, 0])
        P = data["input_ids"].shape[1] - data["responses"].shape[1]
        td = TensorDict({"prompts": data["input_ids"][:, :P], "responses": data["responses"],
                         "attention_mask": data["attention_mask"]}, batch_size=[len(flat)])
        want = no_padding_2_padding(torch.cat(flat), td)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-4)


def _settings(model_dir, job, **trainer):
    return from_mapping({
        "algorithm": {"algorithm_type": "ppo", "repeat_times": 4, "kl_loss_fn": "none",
                      "advantage_fn_args": {"gamma": 1.0, "lam": 0.95}, "optimizer": {"lr": 1e-3}},
        "model": {"model_path": str(model_dir)},
        "buffer": {"batch_size": 2, "explorer_input": {"taskset": {"path": str(job)}}},
        "trainer": {**trainer, "trainer_config": {"critic": {"optim": {"lr": 1e-3},
                                                             "ppo_micro_batch_size_per_gpu": 3}}},
        "checkpoint_root_dir": str(job),
    })


def _params(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _same(a, b) -> bool:
    return all(torch.equal(a[k], b[k]) for k in a)


@needs_tokenizer
def test_trainer_updates_the_critic_and_holds_the_actor_during_warmup(tiny_model, tmp_path):
    from rftc_runtime.trainer import HFTrainEngine

    s = _settings(tiny_model, tmp_path, critic_warmup=2)
    trainer = HFTrainEngine(s, total_steps=3, threads=1, dtype="float32")
    trainer.prepare()
    actor, critic = _params(trainer.model), _params(trainer.critic[0])
    m1 = trainer.train_step(_exps())
    for key in ("critic/vf_loss", "critic/vf_clipfrac", "critic/vpred_mean", "critic/grad_norm", "critic/lr",
                "time/critic"):
        assert key in m1, key
    assert m1["critic/lr"] == 1e-3 and m1["critic/grad_norm"] > 0
    assert "actor/pg_loss" not in m1 and "time/update" not in m1  # step 1 < critic_warmup 2: actor held
    assert _same(actor, _params(trainer.model)) and not _same(critic, _params(trainer.critic[0]))
    m2 = trainer.train_step(_exps(seed=1))
    assert "actor/pg_loss" in m2 and not _same(actor, _params(trainer.model))

    trainer.save_checkpoint(block_until_saved=True)
    step = checkpoints.step_dir(Path(s.checkpoint_job_dir), 2)
    assert (step / "trainer.pt").is_file() and (step / checkpoints.CRITIC).is_file()
    saved_actor, saved_critic = _params(trainer.model), _params(trainer.critic[0])
    saved_opt = copy.deepcopy(trainer.critic[1].state_dict()["state"])
    saved_sched = trainer.critic[2].state_dict()
    trainer.train_step(_exps(seed=2))  # moves both past the checkpoint

    again = HFTrainEngine(s, total_steps=3, threads=1, dtype="float32")
    assert again.prepare()["train_step"] == 2
    assert _same(saved_actor, _params(again.model)) and _same(saved_critic, _params(again.critic[0]))
    opt = again.critic[1].state_dict()["state"]
    assert all(torch.equal(opt[i]["exp_avg"], saved_opt[i]["exp_avg"]) for i in saved_opt)
    assert again.critic[2].state_dict() == saved_sched != trainer.critic[2].state_dict()


@needs_tokenizer
def test_a_checkpoint_without_a_critic_is_not_resumed_as_ppo(tiny_model, tmp_path):
    from rftc_runtime.trainer import HFTrainEngine

    s = _settings(tiny_model, tmp_path)
    trainer = HFTrainEngine(s, total_steps=2, threads=1, dtype="float32")
    trainer.prepare()
    trainer.critic = None  # as a run without a critic saves
    trainer.save_checkpoint(block_until_saved=True)
    with pytest.raises(ValueError, match="has no critic"):
        HFTrainEngine(s, total_steps=2, threads=1, dtype="float32").prepare()


@needs_tokenizer
def test_the_actors_lr_schedule_steps_once_per_training_step_whatever_ppo_epochs(tiny_model, tmp_path):
    # veRL's engine worker steps the scheduler on the last mini-batch of an update, not once per epoch
    from rftc_runtime.trainer import HFTrainEngine

    s = from_mapping({
        "algorithm": {"algorithm_type": "grpo", "repeat_times": 4, "kl_loss_fn": "none",
                      "optimizer": {"lr": 1e-3, "lr_warmup_steps": 4}},
        "model": {"model_path": str(tiny_model)},
        "buffer": {"batch_size": 2, "explorer_input": {"taskset": {"path": str(tmp_path)}}},
        "trainer": {"trainer_config": {"actor_rollout_ref": {"actor": {"ppo_epochs": 2}}}},
        "checkpoint_root_dir": str(tmp_path),
    })
    assert s.ppo_epochs == 2
    trainer = HFTrainEngine(s, total_steps=8, threads=1, dtype="float32")
    trainer.prepare()
    lrs = [trainer.train_step(_exps())["actor/lr"] for _ in range(2)]
    assert lrs == pytest.approx([1e-3 / 4, 2e-3 / 4])  # linear warmup over 4 steps, one scheduler step per train step
