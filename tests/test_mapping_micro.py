"""veRL's global micro-batch sizes (rftc.mapping.micro): each becomes trainer_config's per-GPU size, divided as the
script's release divides it, with the formula in its comment."""

from test_mapping_support import cfg, codes

from rftc.mapping.convert import map_config
from rftc.mapping.draft import Options

A, R, REF = "actor_rollout_ref.actor", "actor_rollout_ref.rollout", "actor_rollout_ref.ref"
JOB = ("algorithm.adv_estimator=grpo", "data.train_batch_size=64", f"{A}.ppo_mini_batch_size=64", f"{R}.n=4",
       f"{A}.use_kl_loss=True", f"{R}.tensor_model_parallel_size=2", "trainer.n_gpus_per_node=8")
TC = "trainer.trainer_config."


def _sizes(m) -> dict:
    """The micro-batch sizes of the actor, rollout and reference sections the conversion writes."""
    arr = m.config["trainer"]["trainer_config"]["actor_rollout_ref"]
    return {role: {k: v for k, v in (arr.get(role) or {}).items() if "micro_batch" in k} or arr.get(role)
            for role in ("actor", "rollout", "ref")}


def test_global_sizes_are_divided_by_the_world_over_sequence_parallelism():
    m = map_config(cfg(*JOB, f"{A}.ulysses_sequence_parallel_size=2", f"{A}.ppo_micro_batch_size=32",
                       f"{R}.log_prob_micro_batch_size=64", f"{REF}.log_prob_micro_batch_size=16",
                       release="0.3.0.post1"))
    assert m.ok, m.diagnostics
    assert _sizes(m) == {"actor": {"ppo_micro_batch_size_per_gpu": 8},
                         "rollout": {"log_prob_micro_batch_size_per_gpu": 16},
                         "ref": {"log_prob_micro_batch_size_per_gpu": 4}}
    origin = m.origins[f"{TC}{A}.ppo_micro_batch_size_per_gpu"]
    assert origin.keys == (f"{A}.ppo_micro_batch_size",)
    assert origin.note == "32 / (8 GPUs / SP 2) = 8 per GPU, as verl 0.3.0.post1's workers divide it"
    assert m.ledger[f"{A}.ppo_micro_batch_size"].status == "passed"


def test_megatron_divides_by_its_data_parallel_size_and_the_reference_follows_the_rollout():
    m = map_config(cfg(*JOB, "model_engine=megatron", f"{A}.megatron.tensor_model_parallel_size=2",
                       f"{A}.megatron.pipeline_model_parallel_size=2", f"{A}.ppo_micro_batch_size=8",
                       f"{R}.log_prob_micro_batch_size=16", release="0.4.0"))
    assert m.ok, m.diagnostics
    sizes = _sizes(m)
    assert sizes["actor"] == {"ppo_micro_batch_size_per_gpu": 4} and sizes["rollout"] == sizes["ref"] == {
        "log_prob_micro_batch_size_per_gpu": 8}
    assert m.origins[f"{TC}{R}.log_prob_micro_batch_size_per_gpu"].note.startswith(
        "16 / (8 GPUs / (TP 2 x PP 2 x CP 1)) = 8 per GPU")
    ref = m.origins[f"{TC}{REF}.log_prob_micro_batch_size_per_gpu"]
    assert ref.keys == (f"{R}.log_prob_micro_batch_size",) and ref.note.startswith("16 / (8 GPUs / (TP 2")


def test_a_size_that_divides_to_nothing():
    # verl 0.2's startup check refuses the actor's (RFTC221 there); the rollout's fails in its workers: said here
    m = map_config(cfg(*JOB, f"{A}.ppo_micro_batch_size=4", f"{R}.log_prob_micro_batch_size=4", release="0.2"))
    (d,) = [d for d in m.diagnostics if d.code == "RFTC221"]
    assert d.key == f"{R}.log_prob_micro_batch_size" and "4 / (8 GPUs / SP 1) = 0 per GPU" in d.message
    assert not m.ok
    # on a GPU count only assumed (RFTC318) the script runs on fewer GPUs: 1 a GPU
    m = map_config(cfg(*JOB[:-1], "trainer.n_gpus_per_node=${oc.env:N_GPUS}", f"{R}.log_prob_micro_batch_size=4",
                       f"{A}.ppo_micro_batch_size_per_gpu=1", release="0.2"), Options())
    assert m.ok and "RFTC318" in codes(m), m.diagnostics
    assert _sizes(m)["rollout"] == {"log_prob_micro_batch_size_per_gpu": 1}


def test_releases_whose_workers_read_only_per_gpu_sizes_get_nothing_from_a_global_one():
    m = map_config(cfg(*JOB, f"{A}.ppo_micro_batch_size_per_gpu=2", f"{R}.log_prob_micro_batch_size=16"))
    assert _sizes(m)["rollout"] is None  # veRL 0.9.1 itself fails (RFTC221)
    assert m.ledger[f"{R}.log_prob_micro_batch_size"].status == "implied"


def test_a_snapshot_that_may_read_only_per_gpu_sizes_is_converted_as_the_workers_that_divide():
    eff = cfg(*JOB, f"{A}.ppo_micro_batch_size=16", f"{R}.log_prob_micro_batch_size=16")
    eff.release, eff.source = "0.8.0.dev", "verl/"  # a checkout declaring 0.8.0.dev: its workers are not known
    m = map_config(eff)
    assert _sizes(m)["actor"] == {"ppo_micro_batch_size_per_gpu": 2}
    (d,) = [d for d in m.diagnostics if d.code == "RFTC326"]
    assert d.key == f"{A}.ppo_micro_batch_size" and "16 / (8 GPUs / SP 1) = 2 per GPU, as converted" in d.message
