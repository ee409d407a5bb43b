"""rftc.verl.semantics against each release's own code: for every release and fact, the code the table names is
taken from that release's wheel (ast) and run on stand-ins with the config Hydra composes from the wheel's own
files (tests/verl_wheel_code.py); its result must be the behaviour the table gives for that release. Then the
reading of development snapshots (what a checkout's or fork's verl/version/version says)."""

from __future__ import annotations

import ast
import re
import types

import pytest

from rftc.mapping.algorithm import ESTIMATORS, UNAVAILABLE
from rftc.verl.releases import schema, semantics
from verl_wheel_code import (advantage_estimator, calls, compose, conditions, define, evaluate, first_source, function,
                             holds, require, run, source, statements, stores, uses_reference, utils)

RELEASES = schema.versions()
WORLD = 8  # data-parallel GPUs of the stand-in workers


def _sem(release: str) -> semantics.Semantics:
    return semantics.resolve(release, snapshot=False)


# -- batch units -------------------------------------------------------------------------------------------------

def _world(namespace: dict) -> dict:
    """Stand-ins for the ways the workers ask for the data-parallel world size."""
    namespace["torch"] = types.SimpleNamespace(distributed=types.SimpleNamespace(get_world_size=lambda: WORLD))
    namespace["mpu"] = types.SimpleNamespace(get_data_parallel_world_size=lambda: WORLD)
    return namespace


def _mini_statements(release: str, role: str, megatron: bool):
    """(code, statements, per-GPU result?) that set the mini-batch size: the legacy worker's __init__ where the
    wheel has one, else the trainer's update step (0.8.0 on, where it computes the global mini-batch)."""
    workers = ("verl/trainer/ppo/workers/{}_workers.py", "verl/workers/{}_workers.py")
    path, src = first_source(release, *(p.format("megatron" if megatron else "fsdp") for p in workers))
    cls = "ActorRolloutRefWorker" if role == "actor" else "CriticWorker"
    if src is not None:
        init = function(src, "__init__", cls)
        return f"{path} {cls}.__init__", statements(init, stores_mini), True
    src = source(release, "verl/trainer/ppo/ray_trainer.py")
    fn = function(src, f"_update_{role}", "RayPPOTrainer")
    assert fn is not None, f"verl {release}: no {cls} and no RayPPOTrainer._update_{role}"
    return f"ray_trainer.py RayPPOTrainer._update_{role}", statements(fn, lambda n: isinstance(
        n, ast.Assign) and ast.unparse(n.targets[0]) == "ppo_mini_batch_size"), False


def stores_mini(n) -> bool:
    if not isinstance(n, (ast.Assign, ast.AugAssign)):
        return False
    target = n.targets[0] if isinstance(n, ast.Assign) else n.target
    return ast.unparse(target).endswith(".ppo_mini_batch_size")


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("role,megatron,fact", [("actor", False, "actor_mini_unit"),
                                                 ("actor", True, "megatron_actor_mini_unit"),
                                                 ("critic", False, "critic_mini_unit")])
def test_mini_batch_unit(release, role, megatron, fact):
    """The responses one optimizer step takes for ppo_mini_batch_size=64 and rollout.n=8: 64 (responses) or 512
    (prompts), as the release's worker (or trainer) normalizes it."""
    require(release)
    where, stmts, per_gpu = _mini_statements(release, role, megatron)
    assert stmts, f"verl {release}: {where} sets no ppo_mini_batch_size"
    n = ["actor_rollout_ref.rollout.n=8"] if "n" in compose(release, [])["actor_rollout_ref"]["rollout"] else []
    cfg = compose(release, ["actor_rollout_ref.actor.ppo_mini_batch_size=64", "critic.ppo_mini_batch_size=64", *n],
                  "ppo_megatron_trainer" if megatron else "ppo_trainer")
    node = cfg.actor_rollout_ref if role == "actor" else cfg.critic
    stand_in = types.SimpleNamespace(config=node if per_gpu else cfg, ulysses_sequence_parallel_size=1,
                                     device_mesh=types.SimpleNamespace(size=lambda: WORLD, shape=(WORLD,)))
    ns = run(stmts, _world({"self": stand_in}))
    section = node.actor if role == "actor" else node
    result = section.ppo_mini_batch_size * WORLD if per_gpu else ns["ppo_mini_batch_size"]
    responses = 64 * (8 if n else 1)
    expected = responses if _sem(release).value(fact) == "prompts" else 64
    assert result == expected, f"verl {release} {where}: {result} responses per optimizer step, the table says " \
                               f"{_sem(release).value(fact)}"


# -- KL and the reference policy ---------------------------------------------------------------------------------

def _has(release: str, key: str) -> bool:
    """Whether the release's trainer config has ``key`` (rftc's bundled schema of it, read at collection)."""
    node = schema.load(release).tree("ppo_trainer")
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


# (release, use_kl_loss, use_kl_in_reward): a switch is set on only where the release has it
KL_CASES = [(release, kl_loss, kl_reward) for release in RELEASES
            for kl_loss, kl_reward in [(False, False), (True, False), (False, True), (True, True)]
            if (not kl_loss or _has(release, "actor_rollout_ref.actor.use_kl_loss"))
            and (not kl_reward or _has(release, "algorithm.use_kl_in_reward"))]


def _kl_config(release: str, kl_loss: bool, kl_reward: bool):
    keys = compose(release, [])
    ovs = []
    if "use_kl_loss" in keys.actor_rollout_ref.actor:
        ovs.append(f"actor_rollout_ref.actor.use_kl_loss={kl_loss}")
    elif kl_loss:
        return None
    if "use_kl_in_reward" in keys.algorithm:
        ovs.append(f"algorithm.use_kl_in_reward={kl_reward}")
    elif kl_reward:
        return None
    return compose(release, ovs)


@pytest.mark.parametrize("release,kl_loss,kl_reward", KL_CASES)
def test_kl_in_reward_and_reference_policy(release, kl_loss, kl_reward):
    require(release)
    cfg = _kl_config(release, kl_loss, kl_reward)
    assert cfg is not None, f"verl {release}'s config has not the switches its schema has"
    ref = uses_reference(release, cfg)
    sem = _sem(release)
    assert ref == {"always": True, "kl_term": kl_loss or kl_reward}[sem.value("reference_policy")]
    fit = function(source(release, "verl/trainer/ppo/ray_trainer.py"), "fit", "RayPPOTrainer")
    guards = conditions(fit, calls("apply_kl_penalty"))
    assert len(guards) == 1
    in_reward = holds(guards[0], {"self": types.SimpleNamespace(config=cfg, use_reference_policy=ref)})
    expected = {"always": True, "without_kl_loss": not kl_loss,
                "use_kl_in_reward": kl_reward}[sem.value("kl_in_reward")]
    assert in_reward == expected


# -- the policy loss ---------------------------------------------------------------------------------------------

def _policy_loss(release: str):
    """The release's vanilla PPO policy loss, run on CPU tensors: f(ratio, advantage per token, lengths) -> loss."""
    import torch

    src = source(release, "verl/trainer/ppo/core_algos.py")
    tf = source(release, "verl/utils/torch_functional.py")
    verl_f = types.SimpleNamespace(**define(tf, ["masked_mean", "masked_sum", "masked_var", "masked_whiten"],
                                            {"torch": torch}))
    names = [n.name for n in ast.parse(src).body if isinstance(n, ast.FunctionDef)]
    ns = define(src, names, {"torch": torch, "verl_F": verl_f, "np": __import__("numpy"),
                             "AlgoConfig": type("AlgoConfig", (), {})})
    fn = ns.get("compute_policy_loss_vanilla") or ns["compute_policy_loss"]

    def loss(ratio: float, advantages: list[list[float]], mask: list[list[float]]) -> float:
        adv = torch.tensor(advantages)
        m = torch.tensor(mask)
        old = torch.zeros_like(adv)
        new = torch.full_like(adv, float(torch.log(torch.tensor(ratio))))
        args = {"old_log_prob": old, "log_prob": new, "advantages": adv, "eos_mask": m, "response_mask": m,
                "cliprange": 0.2, "cliprange_low": 0.2, "cliprange_high": 0.2, "clip_ratio_c": 3.0,
                "loss_agg_mode": "token-mean"}
        import inspect

        params = inspect.signature(fn).parameters
        if "config" in params:
            args["config"] = types.SimpleNamespace(clip_ratio=0.2, clip_ratio_low=0.2, clip_ratio_high=0.2,
                                                   clip_ratio_c=3.0, loss_agg_mode="token-mean",
                                                   get=lambda k, d=None: d, global_batch_info={}, tis_imp_ratio_cap=-1)
        out = fn(**{k: v for k, v in args.items() if k in params})
        return float(out[0])

    return loss


@pytest.mark.parametrize("release", RELEASES)
def test_dual_clip_and_token_mean(release):
    """A token with ratio 10 and advantage -1: the PPO clip keeps 10, dual clip (c=3) bounds it at 3. Two
    responses of 1 and 3 tokens: token-mean weighs the four tokens alike."""
    require(release)
    loss = _policy_loss(release)
    sem = _sem(release)
    assert loss(10.0, [[-1.0]], [[1.0]]) == pytest.approx(3.0 if sem.value("dual_clip") else 10.0)
    assert "token-mean" in sem.value("loss_agg_modes")
    # advantages 1 (one token) and 2 (three tokens), ratio 1: token-mean (1 + 3*2)/4, not seq-mean (1 + 2)/2
    assert loss(1.0, [[1.0, 0, 0], [2.0, 2.0, 2.0]], [[1, 0, 0], [1, 1, 1]]) == pytest.approx(-7 / 4)


# -- the trainer loop --------------------------------------------------------------------------------------------

def _validations(release: str):
    fit = function(source(release, "verl/trainer/ppo/ray_trainer.py"), "fit", "RayPPOTrainer")
    return conditions(fit, calls("_validate"))


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("setting", [None, False])
def test_validation_before_training(release, setting):
    """The first validation, before the loop: verl 0.1 always runs it, later releases read val_before_train."""
    require(release)
    cfg = compose(release, [] if setting is None else [f"++trainer.val_before_train={setting}"])
    stand_in = types.SimpleNamespace(config=cfg, val_reward_fn=object())
    ran = holds(_validations(release)[0], {"self": stand_in})
    expected = True if _sem(release).value("val_before_train") == "always" or setting is None else setting
    assert ran == expected


@pytest.mark.parametrize("release", RELEASES)
def test_which_prompts_the_dataset_leaves_out_and_how_it_cuts_the_others(release):
    """RLHFDataset drops the prompts over max_prompt_length always (verl 0.1, 0.2) or where filter_overlong_prompts
    is set (the ifs around its filter); torch_functional asserts the truncation is one it knows, for every row."""
    require(release)
    tree = ast.parse(source(release, "verl/utils/dataset/rl_dataset.py"))
    guards = conditions(tree, lambda n: (calls("filter")(n) or calls("apply")(n)) and "max_prompt_length" in
                        ast.unparse(n))
    dropped = {flag: [holds(g, {"self": types.SimpleNamespace(filter_overlong_prompts=flag), "processor": None})
                      for g in guards] for flag in (False, True)}
    assert len(guards) == 1, f"verl {release}: {len(guards)} filters of over-long prompts"
    expected = {"always": {False: [True], True: [True]}, "read": {False: [False], True: [True]}}
    assert dropped == expected[_sem(release).value("prompt_filter")]
    check = statements(ast.parse(source(release, "verl/utils/torch_functional.py")),
                       lambda n: isinstance(n, ast.Assert) and "truncation in" in ast.unparse(n.test))
    assert tuple(evaluate(check[0].test.comparators[0], {})) == _sem(release).value("truncation_modes")


@pytest.mark.parametrize("release", RELEASES)
def test_val_only_ends_the_run_after_the_first_validation(release):
    """trainer.val_only: from verl 0.2 RayPPOTrainer.fit returns after the first validation where it is set (inside
    the val_before_train block, so only where that validation runs); verl 0.1 never reads it and trains."""
    require(release)
    fit = function(source(release, "verl/trainer/ppo/ray_trainer.py"), "fit", "RayPPOTrainer")
    ends = [g for g in statements(fit, lambda n: isinstance(n, ast.If) and "val_only" in ast.unparse(n.test))
            if any(isinstance(s, ast.Return) for s in g.body)]
    inside = [g for g in statements(fit, lambda n: isinstance(n, ast.If) and "val_before_train" in ast.unparse(
        n.test)) if any(e in list(ast.walk(g)) for e in ends)]
    assert (bool(ends), bool(inside)) == ((True, True) if _sem(release).value("val_only") == "read" else (False, False))


@pytest.mark.parametrize("release", RELEASES)
def test_negative_test_freq(release):
    """test_freq=-1 in the loop: verl 0.1 validates after every step, later releases never."""
    require(release)
    cfg = compose(release, ["trainer.test_freq=-1"])
    guards = _validations(release)[1]
    ran = [holds(guards, {"self": types.SimpleNamespace(config=cfg, val_reward_fn=object(), global_steps=step),
                          "global_steps": step, "is_last_step": False}) for step in (1, 2, 3)]
    expected = {"every_step": [True] * 3, "off": [False] * 3}[_sem(release).value("test_freq_nonpositive")]
    assert ran == expected


@pytest.mark.parametrize("release,estimator,enable", [
    (release, estimator, enable) for release in RELEASES
    for estimator, enable in [("gae", None), ("grpo", None), ("grpo", True), ("gae", False)]
    if enable is None or _has(release, "critic.enable")])  # critic.enable is set only where the release has it
def test_critic_used(release, estimator, enable):
    require(release)
    cfg = compose(release, [f"algorithm.adv_estimator={estimator}"]
                  + ([] if enable is None else [f"critic.enable={enable}"]))
    ns = utils(release)
    if "need_critic" in ns:
        used = bool(ns["need_critic"](cfg))
    else:  # before 0.6.0 the trainer decides, where it sets self.use_critic = True
        src = source(release, "verl/trainer/ppo/ray_trainer.py")
        trainer = next(n for n in ast.parse(src).body if isinstance(n, ast.ClassDef) and n.name == "RayPPOTrainer")
        guards = [g for g in conditions(trainer, stores("self.use_critic"))]
        setters = statements(trainer, stores("self.use_critic"))
        stand_in = types.SimpleNamespace(config=cfg)
        ns = {"self": stand_in, "AdvantageEstimator": advantage_estimator(release)}
        used = any(holds(g, ns) and ast.unparse(s.value) == "True" for g, s in zip(guards, setters))
    expected = enable if enable is not None else estimator == "gae"
    assert used == expected
    assert _sem(release).value("critic_used") == ("enable_or_gae" if "need_critic" in utils(release) else "gae")


# -- advantage estimators ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("release", RELEASES)
def test_the_mapping_knows_every_estimator_of_every_release(release):
    """RFTC304 calls a name outside ESTIMATORS and UNAVAILABLE a fork's own: no release may have it."""
    require(release)
    found = advantage_estimator(release)
    if found is not None:
        names = {e.value for e in found}
    else:  # before the enum: the trainer compares strings
        tree = ast.parse(source(release, "verl/trainer/ppo/ray_trainer.py"))
        names = {c.value for n in ast.walk(tree) if isinstance(n, ast.Compare) and "adv_estimator" in ast.unparse(n)
                 for c in [n.left, *n.comparators] if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    assert "gae" in names
    assert names <= set(ESTIMATORS) | set(UNAVAILABLE), names - set(ESTIMATORS) - set(UNAVAILABLE)


# -- development snapshots ---------------------------------------------------------------------------------------

A = "actor_rollout_ref.actor"


def test_a_pypi_release_is_certain():
    sem = semantics.resolve("0.1", snapshot=False)
    assert sem.value("actor_mini_unit") == "responses" and sem.doubt("actor_mini_unit") is None
    assert semantics.resolve("0.2.0.post1", snapshot=False).value("actor_mini_unit") == "prompts"


def test_a_snapshot_declaring_a_release_follows_it_and_doubts_the_next_line():
    # a fork declaring 0.1 whose config has rollout.n (first released in 0.2): 0.2's changes may be in it
    sem = semantics.resolve("0.1", snapshot=True, keys=frozenset({"actor_rollout_ref.rollout.n"}))
    assert sem.value("actor_mini_unit") == "responses"
    d = sem.doubt("actor_mini_unit")
    assert d is not None and d.other == "prompts" and d.change.since == "0.2" and "2997e5d" in d.change.note


def test_a_snapshots_own_keys_settle_what_they_can():
    keys = frozenset({f"{A}.use_kl_loss", f"{A}.ppo_micro_batch_size_per_gpu"})
    sem = semantics.resolve("0.1", snapshot=True, keys=keys)
    assert sem.value("kl_in_reward") == "without_kl_loss" and sem.doubt("kl_in_reward") is None
    assert sem.value("startup_checks") == "trainer"  # 0.2's checks read the per-GPU keys as attributes
    bare = semantics.resolve("0.1", snapshot=True, keys=frozenset())
    assert bare.value("startup_checks") is None and bare.doubt("startup_checks") is None
    # verl 0.4.0's code reads critic.rollout_n and algorithm.use_kl_in_reward as attributes
    old = semantics.resolve("0.3.0.post1", snapshot=True, keys=frozenset())
    assert old.value("critic_mini_unit") == "responses" and old.doubt("critic_mini_unit") is None
    new = semantics.resolve("0.3.0.post1", snapshot=True, keys=frozenset({"critic.rollout_n",
                                                                          "algorithm.use_kl_in_reward"}))
    assert new.value("critic_mini_unit") == "prompts" and new.value("kl_in_reward") == "use_kl_in_reward"


def test_a_dev_snapshot_is_read_at_its_number_with_its_own_line_in_doubt():
    sem = semantics.resolve("0.2.0.dev", snapshot=True, keys=frozenset())
    assert sem.value("actor_mini_unit") == "prompts"
    assert sem.doubt("actor_mini_unit").other == "responses"
    assert sem.value("check_mini_within_batch") is False  # 0.3.0.post0's check: the next line, not followed
    newest = semantics.resolve("0.10.0.dev", snapshot=True, keys=frozenset())
    assert newest.line == semantics._line(RELEASES[0]) and newest.doubt("actor_mini_unit") is None


def test_a_release_that_is_not_a_version_reads_as_the_newest():
    assert semantics.resolve("main", snapshot=True).line == semantics._line(RELEASES[0])


def test_every_fact_starts_at_the_first_release_and_changes_in_order():
    for fact, changes in semantics.FACTS.items():
        assert changes[0].since == semantics.FIRST, fact
        lines = [semantics._line(c.since) for c in changes]
        assert lines == sorted(lines) and len(set(lines)) == len(lines), fact
        assert all(c.since in RELEASES for c in changes), fact


@pytest.mark.parametrize("release", RELEASES)
def test_micro_batch_remainder(release):
    """Whether a per-GPU micro-batch size must divide a GPU's share. The legacy workers cut with split(), the last
    piece smaller, and assert divisibility in __init__ only for the global ppo_micro_batch_size (under `if
    ppo_micro_batch_size is not None`) until 0.4.0, which asserts it for the per-GPU size of the update too;
    from 0.8.0 the engine's prepare_micro_batches asserts it for every micro-batch (the log-probs' too)."""
    require(release)
    _, workers = first_source(release, "verl/trainer/ppo/workers/fsdp_workers.py", "verl/workers/fsdp_workers.py")

    def divides(n) -> bool:
        return isinstance(n, ast.Assert) and "%" in ast.unparse(n.test) and "micro_batch_size" in ast.unparse(n.test)

    if workers is None:
        engine = function(source(release, "verl/workers/engine/utils.py"), "prepare_micro_batches")
        assert statements(engine, divides), f"verl {release}: prepare_micro_batches asserts no divisibility"
        train = log_prob = "exact"
    else:
        guards = conditions(function(workers, "__init__", "ActorRolloutRefWorker"), divides)
        only_global = all(any(inside and "ppo_micro_batch_size is not None" in ast.unparse(test)
                              for test, inside in g) for g in guards)
        _, actor = first_source(release, "verl/trainer/ppo/actor/dp_actor.py", "verl/workers/actor/dp_actor.py")
        for method in ("update_policy", "compute_log_prob"):
            body = ast.unparse(function(actor, method, "DataParallelPPOActor"))
            assert re.search(r"\.split\(", body), f"verl {release}: {method} does not split()"
        train, log_prob = ("smaller_last" if only_global else "exact"), "smaller_last"
    sem = _sem(release)
    assert (train, log_prob) == (sem.value("train_micro_remainder"), sem.value("log_prob_micro_remainder"))


@pytest.mark.parametrize("release", RELEASES)
def test_mini_batch_remainder(release):
    """What the actor does with a batch that is not a multiple of ppo_mini_batch_size: the legacy workers'
    update_policy cuts it with split() from 0.2 on, the last mini-batch smaller; 0.1's iterates with
    DataProto.make_iterator, and from 0.8.0 the engine's train_mini_batch with tensordict_utils.make_iterator,
    each asserting that the batch divides."""
    require(release)
    _, workers = first_source(release, "verl/trainer/ppo/workers/fsdp_workers.py", "verl/workers/fsdp_workers.py")
    if workers is None:
        train = function(source(release, "verl/workers/engine_workers.py"), "train_mini_batch", "TrainingWorker")
        iterator = function(source(release, "verl/utils/tensordict_utils.py"), "make_iterator")
    else:
        _, actor = first_source(release, "verl/trainer/ppo/actor/dp_actor.py", "verl/workers/actor/dp_actor.py")
        train = function(actor, "update_policy", "DataParallelPPOActor")
        iterator = function(source(release, "verl/protocol.py"), "make_iterator", "DataProto")
    body = ast.unparse(train)
    if re.search(r"\.split\(self\.config\.ppo_mini_batch_size\)", body):
        found = "smaller_last"
    else:
        assert "make_iterator" in body or "_make_minibatch_iterator" in body, f"verl {release}: no mini-batches"
        assert re.search(r"assert .*% mini_batch_size == 0", ast.unparse(iterator)), f"verl {release}: no assert"
        found = "exact"
    assert found == _sem(release).value("train_mini_remainder")


@pytest.mark.parametrize("release", RELEASES)
def test_global_micro_batch_sizes(release):
    """What the workers make of a global micro-batch size (rftc.verl.micro): the legacy workers floor-divide each
    of the actor's, rollout's, reference model's and critic's by their data-parallel ranks (the world over the
    Ulysses sequence-parallel size from 0.2, which 0.1 lacks; Megatron's data-parallel size); the engine workers of
    0.8.0 on read only the per-GPU sizes, and assert the actor's and the rollout's are set."""
    require(release)
    _, fsdp = first_source(release, "verl/trainer/ppo/workers/fsdp_workers.py", "verl/workers/fsdp_workers.py")
    _, megatron = first_source(release, "verl/trainer/ppo/workers/megatron_workers.py",
                               "verl/workers/megatron_workers.py")
    if fsdp is None:
        init = function(source(release, "verl/workers/engine_workers.py"), "init_model", "ActorRolloutRefWorker")
        asserted = {ast.unparse(n.test) for n in statements(init, lambda n: isinstance(n, ast.Assert))}
        assert {"self.config.rollout.log_prob_micro_batch_size_per_gpu is not None",
                "self.config.actor.ppo_micro_batch_size_per_gpu is not None"} <= asserted, release
        assert _sem(release).value("global_micro") == "ignored"
        return

    def divided(src, cls, divisor) -> set[str]:
        """'section.key' of each micro-batch size ``cls.__init__`` floor-divides by a ``divisor`` expression."""
        return {".".join(ast.unparse(n.target).split(".")[-2:]) for n in statements(
            function(src, "__init__", cls), lambda n: isinstance(n, ast.AugAssign) and isinstance(n.op, ast.FloorDiv)
            and "micro_batch_size" in ast.unparse(n.target) and divisor(ast.unparse(n.value)))}

    sp = (lambda v: "ulysses_sequence_parallel_size" in v) if release != "0.1" else (lambda v: "ulysses" not in v)
    assert {"actor.ppo_micro_batch_size", "rollout.log_prob_micro_batch_size", "ref.log_prob_micro_batch_size"} <= \
        divided(fsdp, "ActorRolloutRefWorker", sp), release
    assert "config.ppo_micro_batch_size" in divided(fsdp, "CriticWorker", sp), release
    dp = (lambda v: "get_data_parallel_world_size" in v)
    assert {"actor.ppo_micro_batch_size", "rollout.log_prob_micro_batch_size", "ref.log_prob_micro_batch_size"} <= \
        divided(megatron, "ActorRolloutRefWorker", dp), release
    assert _sem(release).value("global_micro") == "divided"


@pytest.mark.parametrize("release", RELEASES)
def test_multiturn_sft_rows_carry_images(release):
    """Whether veRL's multi-turn SFT dataset reads a row's images and videos (for a multimodal processor)."""
    require(release)
    src = source(release, "verl/utils/dataset/multiturn_sft_dataset.py")
    init = function(src, "__init__", "MultiTurnSFTDataset") if src is not None else None
    reads = init is not None and "self.image_key" in ast.unparse(init)
    assert reads == _sem(release).value("sft_multiturn_images")


# -- the actor's gradient clip ---------------------------------------------------------------------------------

LEGACY = {"actor": ("verl/workers/actor/dp_actor.py", "verl/trainer/ppo/actor/dp_actor.py"),
          "critic": ("verl/workers/critic/dp_critic.py", "verl/trainer/ppo/critic/dp_critic.py")}
# main_ppo's import of the engine worker under trainer.use_legacy_worker_impl == "disable"
ENGINE = {"actor": r"from verl\.workers\.engine_workers import ActorRolloutRefWorker",
          "critic": r"from verl\.workers\.(roles import CriticWorker|engine_workers import TrainingWorker)"}


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("role", ["actor", "critic"])
def test_the_key_the_actor_and_critic_clip_at(release, role):
    """The legacy FSDP actor and critic (dp_actor.py, dp_critic.py) clip at their config's grad_clip; the engine
    workers at the optimizer's clip_grad; main_ppo runs the engine workers with trainer.use_legacy_worker_impl=
    disable (the critic from 0.5.0, the actor from 0.7.0), and only them once the legacy ones are gone."""
    require(release)
    _, legacy = first_source(release, *LEGACY[role])
    main = source(release, "verl/trainer/main_ppo.py") or ""
    switch = re.search(r'use_legacy_worker_impl == "disable":\s*(#.*\s*)*' + ENGINE[role], main) is not None
    engine = source(release, "verl/workers/engine/fsdp/transformer_impl.py") or ""  # 0.5.0's engine_impl.py
    reads_optim = "self.optimizer_config.clip_grad" in engine  # clips at its config's grad_clip
    expected = "optim" if legacy is None else "grad_clip_unless_engine" if switch and reads_optim else "grad_clip"
    assert _sem(release).value(f"{role}_clip") == expected
    if legacy is not None:
        assert re.search(r"max_norm=self\.config\.grad_clip", legacy)
    else:
        assert reads_optim


MEGATRON = {"actor": ("verl/workers/actor/megatron_actor.py", "verl/trainer/ppo/actor/megatron_actor.py"),
            "critic": ("verl/workers/critic/megatron_critic.py", "verl/trainer/ppo/critic/megatron_critic.py")}


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("role", ["actor", "critic"])
def test_which_legacy_workers_shuffle_mini_batches(release, role):
    """verl 0.1's FSDP actor and critic pass their shuffle to make_iterator, unseeded; from 0.2 they split the batch
    in order, and only the Megatron workers shuffle, with data_loader_seed from 0.4.0. Where the legacy workers are
    gone (0.8.0 on) the engine workers' order is the release's (test_the_key_the_actor_and_critic_clip_at)."""
    require(release)
    _, fsdp = first_source(release, *LEGACY[role])
    _, megatron = first_source(release, *MEGATRON[role])
    if fsdp is None and megatron is None:
        assert _sem(release).value(f"{role}_clip") == "optim"
        return
    shuffles = re.compile(r"dataloader_kwargs=\{['\"]shuffle['\"]: self\.config\.shuffle\}")
    assert megatron is not None and shuffles.search(megatron)
    seeded = re.search(r"seed=self\.config\.data_loader_seed", megatron) is not None
    expected = "all_unseeded" if shuffles.search(fsdp or "") else "megatron_seeded" if seeded else "megatron_unseeded"
    assert _sem(release).value("legacy_shuffle") == expected


@pytest.mark.parametrize("release", RELEASES)
def test_which_sampling_keys_the_rollout_reads(release):
    """The sync vLLM rollout builds its SamplingParams from every config key naming a field (to 0.6.x); the agent
    loop fixes them, and vLLM's async server reads ignore_eos from the config from 0.9.0."""
    require(release)
    _, spmd = first_source(release, "verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py",
                           "verl/workers/rollout/vllm_rollout/vllm_rollout.py",
                           "verl/trainer/ppo/rollout/vllm_rollout/vllm_rollout.py")
    server = source(release, "verl/workers/rollout/vllm_rollout/vllm_async_server.py") or ""
    from_config = spmd is not None and "hasattr(SamplingParams()" in spmd
    expected = "config" if from_config else "ignore_eos" if 'setdefault("ignore_eos"' in server else "fixed"
    assert _sem(release).value("rollout_sampling_keys") == expected


@pytest.mark.parametrize("release", RELEASES)
def test_whether_the_rollout_gives_the_engine_max_model_len(release):
    """The async servers of 0.6.x set the engine's max_model_len to prompt + response, 0.7.0's to the model's
    max_position_embeddings, whatever rollout.max_model_len says; the other rollouts read it."""
    require(release)
    servers = "".join(source(release, p) or "" for p in ("verl/workers/rollout/vllm_rollout/vllm_async_server.py",
                                                         "verl/workers/rollout/sglang_rollout/async_sglang_server.py"))
    window = "self.config.max_model_len = self.model_config.hf_config.max_position_embeddings" in servers
    total = "self.config.max_model_len = self.config.prompt_length + self.config.response_length" in servers
    assert _sem(release).value("context_key") == ("unread" if window else "sync" if total else "read")


@pytest.mark.parametrize("release", RELEASES)
def test_the_temperature_of_the_distillation_teachers_log_probs(release):
    """veRL 0.8.0 asks the teacher for prompt log-probs at inference.temperature and refuses another than 1.0;
    0.9 asks at 1.0 whatever it says; before 0.8.0 there is no teacher."""
    require(release)
    src = source(release, "verl/experimental/teacher_loop/teacher_manager.py")
    fn = function(src, "_get_teacher_sampling_params") if src else None
    text = ast.unparse(fn) if fn is not None else ""
    refused = "raise NotImplementedError" in text
    fixed = "'temperature': 1.0" in text
    assert _sem(release).value("teacher_temperature") == (
        "refused" if refused else "ignored" if fixed else None), text[:200]


@pytest.mark.parametrize("release", RELEASES)
def test_whether_the_engine_workers_keep_the_reference_in_a_lora_actor(release):
    """From 0.7.1 main_ppo (0.9's main_ppo_v0) gives the engine ActorRolloutRefWorker a reference engine only where
    no LoRA keeps the reference in the actor; before, wherever a KL is used (rftc.mapping.seeds)."""
    require(release)
    main = "".join(source(release, p) or "" for p in ("verl/trainer/main_ppo.py", "verl/trainer/main_ppo_v0.py"))
    fused = "need_reference_policy(config) and not ref_in_actor" in main
    assert _sem(release).value("engine_ref_in_actor") is fused


# -- the model's own settings (rftc.semantics.model_settings) ----------------------------------------------------

MEGATRON_SOURCES = ("verl/trainer/ppo/workers/megatron_workers.py", "verl/workers/megatron_workers.py",
                    "verl/single_controller/base/megatron/worker.py")


@pytest.mark.parametrize("release", RELEASES)
def test_which_part_of_override_config_the_megatron_workers_apply(release):
    """The legacy Megatron workers apply all of model.override_config to the Hugging Face config before 0.4.0, its
    model_config entry from 0.4.0 (where the releases have such workers: to 0.7.x)."""
    require(release)
    code = "".join(source(release, p) or "" for p in MEGATRON_SOURCES)
    if "update_model_config" not in code:  # no legacy Megatron workers (0.8.0 on): the fact is not asked
        return
    sub = "override_model_config.get(\"model_config\", {})" in code
    assert _sem(release).value("megatron_model_override") == ("model_config" if sub else "whole")


@pytest.mark.parametrize("release", RELEASES)
def test_whether_the_legacy_fsdp_worker_reads_a_reference_model_of_its_own(release):
    """From 0.6.0 the legacy FSDP ActorRolloutRefWorker loads the reference from ref.model.path where ref.model is
    set (its releases have the worker to 0.7.x)."""
    require(release)
    workers = source(release, "verl/workers/fsdp_workers.py") or ""
    if "class ActorRolloutRefWorker" not in workers:
        return
    reads = 'self.config.ref.get("model", None)' in workers
    assert bool(_sem(release).value("ref_model_key")) is reads


@pytest.mark.parametrize("release", RELEASES)
def test_what_computes_the_reward(release):
    """The trainer's reward function (load_reward_manager over reward_model.*) to 0.6.x; 0.7.0's trainer asks
    reward_model.use_reward_loop whether its reward loop scores; from 0.7.1 the reward loop always does, its manager
    from the reward section (rftc.semantics.reward)."""
    require(release)
    trainer = source(release, "verl/trainer/ppo/ray_trainer.py") or ""
    loop = source(release, "verl/experimental/reward_loop/reward_loop.py") or ""
    expected = ("optional" if "self.config.reward_model.use_reward_loop" in trainer
                else "always" if "def migrate_legacy_reward_impl" in loop else "none")
    assert _sem(release).value("reward_loop") == expected


@pytest.mark.parametrize("release", RELEASES)
def test_which_rollout_modes_the_release_runs(release):
    """rollout.mode chooses a sync rollout or an async one (agent loops) from 0.4.0; from 0.7.0 only async runs."""
    require(release)
    trainer = source(release, "verl/trainer/ppo/ray_trainer.py") or ""
    config = source(release, "verl/workers/config/rollout.py") or ""
    expected = (("async",) if "Only 'async' mode is supported" in config
                else ("sync", "async") if 'rollout.mode == "async"' in trainer else ("sync",))
    assert _sem(release).value("rollout_modes") == expected


# -- precision (rftc.mapping.precision) ---------------------------------------------------------------------------

LEGACY_FSDP = ("verl/trainer/ppo/workers/fsdp_workers.py", "verl/workers/fsdp_workers.py")


@pytest.mark.parametrize("release", RELEASES)
def test_what_the_legacy_fsdp_workers_compute_in(release):
    """Where fsdp_config.mixed_precision is unset, the legacy ActorRolloutRefWorker casts parameters to bf16 (from
    0.6.1 to fsdp_config.dtype), and its DataParallelPPOActor autocasts in bf16 (from 0.6.1 in fsdp_config.dtype);
    0.1 gives the reference no mixed precision."""
    require(release)
    _, workers = first_source(release, *LEGACY_FSDP)
    if workers is None:  # 0.8.0 on: no legacy workers
        return
    build = ast.unparse(function(workers, "_build_model_optimizer", "ActorRolloutRefWorker"))
    actor = source(release, "verl/workers/actor/dp_actor.py") or source(release, "verl/trainer/ppo/actor/dp_actor.py")
    reads = "param_dtype = PrecisionType.to_dtype(fsdp_config.dtype)" in build
    autocast = 'self.config.fsdp_config.get("dtype", "bfloat16")' in actor
    assert reads == autocast, f"verl {release}: the worker's cast and the actor's autocast read different keys"
    assert _sem(release).value("legacy_fsdp_dtype") == ("dtype" if reads else "bf16")
    unmixed = re.search(r"if self\._is_ref:\s+mixed_precision = None", build) is not None
    assert _sem(release).value("legacy_ref_mixed") is not unmixed


@pytest.mark.parametrize("release", RELEASES)
def test_what_the_fsdp_engine_autocasts_in(release):
    """The engine workers' FSDP engine autocasts its forward in bf16; from 0.8.0 in its mixed precision's
    param_dtype."""
    require(release)
    engine = source(release, "verl/workers/engine/fsdp/transformer_impl.py") or ""
    expected = "params" if "self._autocast_dtype = param_dtype" in engine else "bf16"
    assert _sem(release).value("engine_autocast") == expected


@pytest.mark.parametrize("release", RELEASES)
def test_what_the_legacy_megatron_workers_compute_in(release):
    """The legacy Megatron ActorRolloutRefWorker computes in bf16, from 0.6.1 in the actor's megatron.dtype (its
    reference too)."""
    require(release)
    _, workers = first_source(release, "verl/trainer/ppo/workers/megatron_workers.py", "verl/workers/megatron_workers.py")
    if workers is None:
        return
    init = ast.unparse(function(workers, "init_model", "ActorRolloutRefWorker"))
    reads = "self.config.actor.megatron.dtype" in init
    assert reads or "torch.bfloat16" in init, f"verl {release}: the worker's dtype is neither"
    assert _sem(release).value("legacy_megatron_dtype") == ("megatron.dtype" if reads else "bf16")


@pytest.mark.parametrize("release", RELEASES)
def test_what_fsdp_sft_trainer_loads_the_weights_in(release):
    """fsdp_sft_trainer loads the model in fp32; from 0.4.0 in model.fsdp_config.model_dtype (unset fp32)."""
    require(release)
    trainer = source(release, "verl/trainer/fsdp_sft_trainer.py")
    if trainer is None:
        return
    reads = 'self.config.model.fsdp_config.get("model_dtype", "fp32")' in trainer
    assert reads or "torch_dtype=torch.float32" in trainer
    assert _sem(release).value("sft_model_dtype") == ("read" if reads else "fp32")


@pytest.mark.parametrize("release", RELEASES)
def test_the_number_of_the_first_trainer_step(release):
    """RayPPOTrainer.fit numbers its steps from global_steps = 0, adding 1 before the loop where the release does (0.2
    on), after each step otherwise: the first step's number, which trainer.critic_warmup is compared with."""
    require(release)
    fit = function(source(release, "verl/trainer/ppo/ray_trainer.py"), "fit", "RayPPOTrainer")
    loop = next(n for n in ast.walk(fit) if isinstance(n, ast.For) and "dataloader" in ast.unparse(n.iter))

    def counts(n) -> bool:
        return isinstance(n, (ast.Assign, ast.AugAssign)) and ast.unparse(
            n.targets[0] if isinstance(n, ast.Assign) else n.target).endswith("global_steps") and n.lineno < loop.lineno
    first = run(statements(fit, counts), {"self": types.SimpleNamespace()})
    step = first.get("global_steps", getattr(first.get("self"), "global_steps", None))
    assert step == _sem(release).value("first_trainer_step")


# -- how rows are read and rendered ------------------------------------------------------------------------------

@pytest.mark.parametrize("release", RELEASES)
def test_whether_the_datasets_pass_the_configs_chat_template_arguments(release):
    """From 0.6.0 RLHFDataset (and the SFT datasets) pass data.apply_chat_template_kwargs to the chat template."""
    require(release)
    reads = "apply_chat_template_kwargs" in source(release, "verl/utils/dataset/rl_dataset.py")
    assert reads is _sem(release).value("chat_template_kwargs")


@pytest.mark.parametrize("release", RELEASES)
def test_who_reads_data_datagen(release):
    """0.5.0-0.6.x: main_ppo picks DynamicGenDataset from data.datagen where no custom class is set, importing it
    from a module the wheel does not have; 0.7.x: only a custom class (verl's DynamicGenDataset) reads it."""
    require(release)
    z = (source(release, "verl/trainer/main_ppo.py") or "") + (source(release, "verl/utils/dataset/rl_dataset.py")
                                                                 or "")
    generator = source(release, "verl/experimental/dynamic_dataset/dynamicgen_dataset.py")
    if "verl.utils.dataset.dynamicgen_dataset import" in z:
        assert source(release, "verl/utils/dataset/dynamicgen_dataset.py") is None
        expected = "main_ppo"
    else:
        expected = "custom_cls" if generator is not None and "config.datagen" in generator else "unread"
    assert _sem(release).value("datagen") == expected


# -- how a step's loss is made from its micro-batches (rftc.mapping.microloss) ----------------------------------

@pytest.mark.parametrize("release", RELEASES)
def test_what_a_seq_mean_token_sum_norm_loss_divides(release):
    """agg_loss's seq-mean-token-sum-norm on two responses of 1 and 3 tokens of loss 1, width 4: the token sum over
    the width (4 / 4) to 0.7.0, the sequences' mean token sum over it ((1 + 3) / 2 / 4) from 0.7.1."""
    require(release)
    import torch

    src = source(release, "verl/trainer/ppo/core_algos.py")
    if function(src, "agg_loss") is None:  # before 0.4.0: token-mean only
        assert _sem(release).value("loss_agg_modes") == ("token-mean",)
        return
    tf = source(release, "verl/utils/torch_functional.py")
    verl_f = types.SimpleNamespace(**define(tf, ["masked_mean", "masked_sum"], {"torch": torch}))
    ns = define(src, ["agg_loss"], {"torch": torch, "verl_F": verl_f, "Optional": None})
    mask = torch.tensor([[1.0, 0, 0, 0], [1.0, 1.0, 1.0, 0]])
    got = float(ns["agg_loss"](loss_mat=torch.ones_like(mask), loss_mask=mask, loss_agg_mode="seq-mean-token-sum-norm"))
    assert got == pytest.approx({"token_sum": 4 / 4, "seq_mean": 4 / 2 / 4}[_sem(release).value("sum_norm")])


@pytest.mark.parametrize("release", RELEASES)
def test_how_the_engine_scales_each_micro_batchs_loss(release):
    """FSDPEngine.forward_backward_batch: 0.6.0 scales each micro-batch's loss by its rows over the rank's share of
    the global batch (a row-weighted mean); from 0.6.1 it backpropagates the loss as returned (a sum over the
    micro-batches), the losses normalising by the global batch where they do (batch_num_tokens, dp_size)."""
    require(release)
    engine = source(release, "verl/workers/engine/fsdp/transformer_impl.py")
    if engine is None:
        return  # no FSDP engine (before 0.6.0; 0.5.0's engine_impl.py trains no role of main_ppo's)
    fwd = function(engine, "forward_backward_batch", "FSDPEngine")
    text = ast.unparse(fwd)
    weighted = "loss_scale_factor = local_micro_bsz / (global_bsz / self.get_data_parallel_size())" in text
    assert _sem(release).value("engine_micro") == ("weighted" if weighted else "sum")
    if not weighted:
        assert "dp_size=self.get_data_parallel_size()" in text and "batch_num_tokens" in text


@pytest.mark.parametrize("release", RELEASES)
def test_what_the_engine_losses_normalise_by(release):
    """The engine's value_loss aggregates within the micro-batch until 0.9.0, which normalises it by the global
    mini-batch; its sft_loss takes the micro-batch's token mean in 0.6.0, the global batch's tokens from 0.6.1."""
    require(release)
    _, losses = first_source(release, "verl/workers/utils/losses.py", "verl/workers/roles/utils/losses.py")
    if losses is None:
        return  # no engine losses (before 0.6.0)
    value = ast.unparse(function(losses, "value_loss"))
    call = next(n for n in ast.walk(ast.parse(value)) if isinstance(n, ast.Call)
                and ast.unparse(n.func) == "compute_value_loss")
    global_value = {"dp_size", "batch_num_tokens"} <= {k.arg for k in call.keywords}
    assert _sem(release).value("engine_critic_loss") == ("global" if global_value else "local")
    sft = ast.unparse(function(losses, "sft_loss"))
    assert _sem(release).value("engine_sft_loss") == ("global" if "/ batch_num_tokens * dp_size" in sft else "local")
