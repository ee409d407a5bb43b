"""veRL's asynchronous trainer loops (rftc.verl.releases.modes) convert to the Trinity lag that reproduces them, and
no key of their sections is an info where its value changes what is trained."""

from __future__ import annotations

import pytest

from rftc import api, dotted
from rftc.mapping.draft import MAPPED
from rftc.mapping.offpolicy import THROUGHPUT
from rftc.verl.releases import schema
from support.cli import launch

BASE = ("algorithm.adv_estimator=grpo", "data.train_files=/data/gsm8k/train.parquet", "actor_rollout_ref.rollout.n=4",
        "data.train_batch_size=64", "actor_rollout_ref.actor.ppo_mini_batch_size=32",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8", "trainer.n_gpus_per_node=4")
SEPARATE = ("trainer.v1.trainer_mode=separate_async", "trainer.v1.separate_async.parameter_sync_step=2",
            "actor_rollout_ref.rollout.nnodes=1", "actor_rollout_ref.rollout.n_gpus_per_node=4")


def _compile(tmp_path, *overrides: str, release: str = "0.9.1"):
    script = launch(tmp_path, *BASE, *overrides)
    return api.compile(str(script), api.Options(verl_version=release))


def _sync(result) -> dict:
    return result.document["synchronizer"]


def test_separate_async_trains_one_batch_stale_on_its_own_gpus(tmp_path):
    """The case that converted to an on-policy config with an info: now one veRL batch (2 explorer steps of 32
    prompts) ahead, the explorer on the rollout's 4 GPUs beside the trainer's 4."""
    r = _compile(tmp_path, *SEPARATE)
    assert _sync(r)["sync_offset"] == 2 and _sync(r)["sync_interval"] == 2
    assert r.document["cluster"] == {"node_num": 2, "gpu_per_node": 4}
    rollout = r.document["explorer"]["rollout_model"]
    assert rollout["engine_num"] * rollout["tensor_parallel_size"] == 4
    assert not [d for d in r.diagnostics if d.key and d.key.startswith("trainer.v1") and d.severity.name == "INFO"]
    assert "RFTC341" in {d.code for d in r.diagnostics}  # partial rollout: a warning


def test_sync_mode_and_releases_before_v1_stay_on_policy(tmp_path):
    assert _sync(_compile(tmp_path, "trainer.v1.trainer_mode=sync"))["sync_offset"] == 0
    assert _sync(_compile(tmp_path, "trainer.use_v1=false", "trainer.v1.trainer_mode=colocate_async"))[
        "sync_offset"] == 0


@pytest.mark.parametrize("warm, gen, release, offset, differs", [
    (2, 64, "0.9.1", 4, False),  # two batches of 64 prompts = 4 explorer steps of 32
    (1.5, 64, "0.9.1", 2, False),  # whole chunks of gen_batch_size: 64 prompts
    (1.5, 32, "0.9.1", 3, False),  # 96 prompts = 3 explorer steps
    (1.25, 16, "0.9.1", 3, True),  # 80 prompts: Trinity runs 96 ahead (RFTC340)
    (2, 32, "0.9.0", 4, False),  # 0.9.0 adds whole batches: range(num_warmup_batches)
])
def test_colocate_async_window(tmp_path, warm, gen, release, offset, differs):
    r = _compile(tmp_path, "trainer.v1.trainer_mode=colocate_async", f"data.gen_batch_size={gen}",
                 f"trainer.v1.colocate_async.num_warmup_batches={warm}", release=release)
    assert _sync(r)["sync_offset"] == offset
    assert ("RFTC340" in {d.code for d in r.diagnostics}) == differs


@pytest.mark.parametrize("overrides, release, what", [
    ((*SEPARATE[:1], "trainer.v1.separate_async.parameter_sync_step=4", *SEPARATE[2:]), "0.9.1", "parameter_sync_step"),
    (("trainer.v1.trainer_mode=colocate_async", "trainer.v1.colocate_async.num_warmup_batches=1.5"), "0.9.0",
     "TypeError"),
    (("trainer.v1.trainer_mode=colocate_async", "trainer.v1.sampler.max_off_policy_threshold=null"), "0.9.0",
     "threshold: None"),
    (("trainer.v1.trainer_mode=colocate_async", "trainer.v1.sampler.max_off_policy_strategy=keep"), "0.9.1",
     "strategy: keep"),
])
def test_what_veRLs_async_trainers_assert_is_refused(tmp_path, overrides, release, what):
    r = _compile(tmp_path, *overrides, release=release)
    assert any(d.code == "RFTC313" and what in d.message for d in r.diagnostics), r.diagnostics


def _mode_for(key: str) -> str:
    return "separate_async" if ".separate_async." in key else "colocate_async"


def _other(value):
    """A value of the key's type other than its default."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if value == "drop":
        return "wait"
    return "x.y"


TREE = schema.load("0.9.1").tree("ppo_trainer")
V1_KEYS = sorted(k for k in schema.leaf_paths("0.9.1", "ppo_trainer") if k.startswith("trainer.v1.")
                 and k != "trainer.v1.trainer_mode" and not isinstance(dotted.get(TREE, k), dict))


def test_no_async_key_is_an_info_where_it_changes_training(tmp_path):
    """Every key under trainer.v1, set to another value in the loop that reads it: mapped into the config, a
    warning or error, inert for this launch (the ledger says why), or in THROUGHPUT (work placement only)."""
    assert len(V1_KEYS) >= 15, V1_KEYS
    for i, key in enumerate(V1_KEYS):
        folder = tmp_path / str(i)
        folder.mkdir()
        value = _other(dotted.get(TREE, key))
        extra = SEPARATE if _mode_for(key) == "separate_async" else ("trainer.v1.trainer_mode=colocate_async",)
        r = _compile(folder, *extra, f"{key}={value}")
        mine = [d for d in r.diagnostics if d.key == key]
        assert not [d for d in mine if d.severity.name == "INFO"], (key, mine)
        entry = r.ledger[key]
        assert mine or entry.status == MAPPED or key in THROUGHPUT or "not read" in entry.note \
            or "never reached" in entry.note or "sync_interval" in entry.note, (key, entry)


def test_one_step_off_and_fully_async_launches(tmp_path):
    """one_step_off_policy: one batch ahead (2 explorer steps of 32) on the rollout's GPUs; fully_async_policy: a
    step of ppo_mini_batch_size x require_batches prompts, weights every trigger_parameter_sync_step steps, and
    int(32 x 0.5 x 2) = 32 prompts ahead."""
    from rftc.verl.releases.modes import FULLY_ASYNC, ONE_STEP_OFF

    gpus = ("rollout.nnodes=1", "rollout.n_gpus_per_node=4")
    (tmp_path / "a").mkdir()
    script = launch(tmp_path / "a", *BASE, *gpus, module=ONE_STEP_OFF)
    r = api.compile(str(script), api.Options(verl_version="0.9.1"))
    assert _sync(r)["sync_offset"] == 2 and r.document["cluster"]["node_num"] == 2
    (tmp_path / "b").mkdir()
    script = launch(tmp_path / "b", *BASE, *gpus, "async_training.staleness_threshold=0.5",
                    "async_training.trigger_parameter_sync_step=2", "async_training.partial_rollout=False",
                    module=FULLY_ASYNC)
    r = api.compile(str(script), api.Options(verl_version="0.9.1"))
    assert (_sync(r)["sync_offset"], _sync(r)["sync_interval"]) == (1, 2)
    assert r.document["buffer"]["batch_size"] == 32
    assert "RFTC341" not in {d.code for d in r.diagnostics}


def test_the_fully_async_provenance_names_the_keys_its_arithmetic_multiplies(tmp_path):
    """A trainer step of ppo_mini_batch_size x require_batches = 32 x 2 prompts is 2 trainer steps of 32, the weights
    move every 3 such steps: each comment's formula names the keys and numbers it multiplies (require_batches is
    not the 64 prompts a step, nor the sync interval)."""
    from rftc.verl.releases.modes import FULLY_ASYNC

    script = launch(tmp_path, *[o for o in BASE if not o.startswith("data.train_batch_size")],
                    "data.train_batch_size=0", "data.gen_batch_size=1", "rollout.nnodes=1", "rollout.n_gpus_per_node=4",
                    "rollout.total_rollout_steps=6400", "trainer.test_freq=5", "async_training.require_batches=2",
                    "async_training.trigger_parameter_sync_step=3", module=FULLY_ASYNC)
    r = api.compile(str(script), api.Options(verl_version="0.9.1"))
    rb, mini, trigger = ("async_training.require_batches", "actor_rollout_ref.actor.ppo_mini_batch_size",
                         "async_training.trigger_parameter_sync_step")
    sync = r.provenance["synchronizer.sync_interval"]
    assert _sync(r)["sync_interval"] == 6 and set(sync.keys) == {rb, mini, trigger}
    assert sync.note.startswith("2*3: trainer steps a veRL step (64/32, 64 = 32*2 (ppo_mini_batch_size x "
                                "require_batches)) x trigger_parameter_sync_step")
    evals = r.provenance["explorer.eval_interval"]
    assert r.document["explorer"]["eval_interval"] == 30 and set(evals.keys) == {"trainer.test_freq", rb, mini, trigger}
    assert evals.note.startswith("5*2*3: test_freq x trainer steps a veRL step")
    total = r.provenance["buffer.total_steps"]
    assert r.document["buffer"]["total_steps"] == 200 and mini in total.keys
    assert total.note.startswith("6400//32: total_rollout_steps // prompts an explorer step")


ASYNC_TREE = schema.load("0.9.1").tree("fully_async_ppo_trainer")
ASYNC_KEYS = sorted(k for k in schema.leaf_paths("0.9.1", "fully_async_ppo_trainer")
                    if k.startswith(("async_training.", "rollout."))
                    and not isinstance(dotted.get(ASYNC_TREE, k), dict))


def test_no_fully_async_key_is_an_info_where_it_changes_training(tmp_path):
    """The same for every key of the fully async trainer's async_training and rollout sections."""
    from rftc.verl.releases.modes import FULLY_ASYNC

    assert len(ASYNC_KEYS) >= 12, ASYNC_KEYS
    base = [o for o in BASE if not o.startswith("data.train_batch_size")] + [
        "data.train_batch_size=0", "data.gen_batch_size=1", "rollout.nnodes=1", "rollout.n_gpus_per_node=4"]
    for i, key in enumerate(ASYNC_KEYS):
        folder = tmp_path / str(i)
        folder.mkdir()
        value = _other(dotted.get(ASYNC_TREE, key))
        script = launch(folder, *[o for o in base if not o.startswith(key + "=")], f"{key}={value}",
                        module=FULLY_ASYNC)
        r = api.compile(str(script), api.Options(verl_version="0.9.1"))
        mine = [d for d in r.diagnostics if d.key == key]
        assert not [d for d in mine if d.severity.name == "INFO"], (key, mine)
        entry = r.ledger[key]
        assert mine or entry.status == MAPPED or key in THROUGHPUT or "not read" in entry.note \
            or "sync_interval" in entry.note or "explorer" in entry.note or "as in Trinity" in entry.note, (key, entry)


def test_sync_offset_option_replacing_the_loops_lag_is_a_warning(tmp_path):
    script = launch(tmp_path, *BASE, "trainer.v1.trainer_mode=colocate_async")
    r = api.compile(str(script), api.Options(verl_version="0.9.1", sync_offset=5))
    assert _sync(r)["sync_offset"] == 5
    assert any(d.code == "RFTC340" and "--sync-offset 5" in d.message for d in r.diagnostics)


@pytest.mark.parametrize("extra, key, code", [
    # main_ppo_v0 and the off-policy trainers read no trainer.v1 key
    (("trainer.use_v1=false",), "trainer.v1.sampler.sync_refill_failed_groups=true", None),
    # the v1 sync trainer samples from the replay buffer too: refilling failed groups acts there
    (("trainer.v1.trainer_mode=sync",), "trainer.v1.sampler.sync_refill_failed_groups=true", "RFTC342"),
    (("trainer.v1.trainer_mode=sync",), "trainer.v1.sampler.max_off_policy_threshold=1", None),
])
def test_v1_keys_follow_the_trainer_that_reads_them(tmp_path, extra, key, code):
    r = _compile(tmp_path, *extra, key)
    name = key.split("=")[0]
    assert [d.code for d in r.diagnostics if d.key == name] == ([code] if code else [])
    assert code or r.ledger[name].status == "implied"
