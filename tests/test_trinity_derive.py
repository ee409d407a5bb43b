"""The values Trinity computes, for the guide's two examples and the rules' edge cases."""

from rftc.trinity.derive import derive
from rftc.trinity.document import parse
from rftc.trinity.schema import TrinityConfig
from rftc.trinity.validate import CheckOptions, check_config
from support.paths import GOLDEN


def ir(name):
    doc, _ = parse((GOLDEN / "check" / "valid" / name).read_text(encoding="utf-8"), name)
    cfg, _ = check_config(doc.data, doc.locate, CheckOptions(path_checks=False, environ={"HOME": "/h"}))
    return cfg


def test_ppo_example():
    d = derive(ir("ppo_example.yaml"))
    assert d.algorithm.name == "ppo" and d.algorithm.use_critic
    assert d.functions["advantage_fn"] == "ppo" and d.functions["kl_loss_fn"] == "none"
    assert d.train_batch_size == 256 and d.repeat_times == 1
    assert (d.lengths.max_model_len, d.lengths.max_prompt_tokens, d.lengths.max_response_tokens) == (1536, 1024, 512)
    g = d.gpus
    assert (g.rollout_gpu_num, g.auxiliary_model_gpu_num, g.trainer_gpu_num, g.trainer_node_num) == (2, 2, 4, 1)
    assert d.eval_interval == 4 and d.sync_method == "nccl" and d.max_token_len_per_gpu == 3072
    assert d.lr_horizon is None and d.checkpoint_job_dir.endswith("checkpoints/verl_example/Qwen2-7B-Instruct_hybrid_rm")


def test_grpo_example():
    d = derive(ir("grpo_example.yaml"))
    assert d.functions == {"advantage_fn": "grpo", "policy_loss_fn": "ppo", "kl_penalty_fn": "none",
                           "kl_loss_fn": "low_var_kl", "entropy_loss_fn": "default", "sample_strategy": "default"}
    assert d.train_batch_size == 2048 and d.gpus.trainer_gpu_num == 6 and d.max_token_len_per_gpu == 24000


def test_defaults_fill_and_offline_rules():
    d = derive(TrinityConfig.model_validate({"algorithm": {"algorithm_type": "dpo"}, "mode": "train",
                                             "trainer": {"save_interval": 30}, "model": {"max_model_len": 100,
                                                                                         "max_response_tokens": 150}}))
    assert d.repeat_times == 2 and d.functions["kl_loss_fn"] == "k2" and d.train_batch_size is None
    assert d.sync_method == "checkpoint" and d.sync_interval == 30 and d.gpus is None
    assert (d.lengths.max_response_tokens, d.lengths.max_prompt_tokens) == (99, 1)


def test_gpu_split_edges():
    base = {"cluster": {"node_num": 2, "gpu_per_node": 8}, "explorer": {"rollout_model": {"engine_num": 2,
                                                                                         "tensor_parallel_size": 2}}}
    g = derive(TrinityConfig.model_validate(base)).gpus
    assert (g.trainer_gpu_num, g.trainer_node_num, g.trainer_gpu_num_per_node) == (12, None, None)
    g = derive(TrinityConfig.model_validate({**base, "mode": "train"})).gpus
    assert (g.explorer_gpu_num, g.trainer_node_num, g.trainer_gpu_num_per_node) == (0, 2, 8)
    g = derive(TrinityConfig.model_validate({"explorer": {"rollout_model": {"engine_type": "external"}}}),
               nodes=1, gpus_per_node=4).gpus
    assert g.rollout_gpu_num == 0 and g.from_options
