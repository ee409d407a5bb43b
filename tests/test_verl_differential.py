"""Differential test: rftc's effective veRL config equals Hydra's compose on the verl wheels' own config files
(OmegaConf.to_container(resolve=True), ${oc.env:...} kept as text), key by key, for every bundled version.

Cases: the main_ppo launches of the corpora (../shared/corpus/verl, veRL's own scripts, and
../shared/corpus/wild, users' scripts, many written for releases 0.1 to 0.4; through the shell stage) plus the
override lists below, under every bundled release. Needs the reference built by scripts/setup-verl-ref.sh; skipped
with a message otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hydra.errors import HydraException
from omegaconf.errors import OmegaConfBaseException

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Span
from rftc.shell.invocation import Arg, Invocation
from rftc.verl import effective_config
from rftc.verl.releases import schema
import verl_reference as reference
from support.paths import CORPUS, WILD, needs_corpus, needs_wild

# The newest version runs by default; the older ones are marked slow (Hydra composes take about a second each).
VERSIONS = [pytest.param(v, marks=[pytest.mark.slow] if i else []) for i, v in enumerate(schema.versions())]

CASES = {
    "plain": ["trainer.nnodes=2", "data.train_batch_size=64", "actor_rollout_ref.rollout.name=vllm"],
    "links": ["actor_rollout_ref.rollout.n=5", "actor_rollout_ref.actor.use_dynamic_bsz=True",
              "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=9000", "trainer.project_name=p",
              "trainer.experiment_name=e", "data.max_prompt_length=333", "trainer.n_gpus_per_node=4"],
    "lists-and-null": ["trainer.logger=['console','wandb']", "data.train_files=[/a.parquet,/b.parquet]",
                       "actor_rollout_ref.actor.ppo_micro_batch_size=null", "trainer.total_training_steps=null"],
    "add-force-delete": ["+actor_rollout_ref.model.override_config.max_position_embeddings=32768",
                         "++trainer.nnodes=3", "++trainer.brand_new.x=1", "~trainer.logger",
                         "+actor_rollout_ref.rollout.engine_kwargs.vllm.attention_backend=flash"],
    "quoted-and-env": ["trainer.experiment_name='a,b c'", "trainer.default_local_dir=${oc.env:HOME}/ck",
                       "trainer.project_name=\"q\"", "data.train_files=''"],
    "interp": ["trainer.experiment_name=${trainer.project_name}_x", "trainer.project_name=proj",
               "+trainer.extra=${data.max_prompt_length}"],
    "dict-merge": ["actor_rollout_ref.rollout.val_kwargs={temperature:0.5,n:3}", "+trainer.newdict={a:1,b:[1,2]}",
                   "+trainer.newdict.c=2"],
    "duplicates": ["trainer.nnodes=1", "trainer.nnodes=2", "algorithm.adv_estimator=grpo",
                   "algorithm.adv_estimator=rloo"],
    "megatron": ["model_engine=megatron", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=4",
                 "actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=2"],
    "add-on-null": ["+actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4", "+reward_model.reward_manager=dapo"],
    "replace-list-with-scalar": ["trainer.logger=console", "trainer.val_before_train=False"],
    # other options of the release's config groups, composed by Hydra on its own files
    "group-choices": ["actor@actor_rollout_ref.actor=megatron_actor", "ref@actor_rollout_ref.ref=megatron_ref",
                      "critic=megatron_critic", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2"],
    "group-delete": ["~transfer_queue"],
    "group-delete-read-elsewhere": ["~critic"],
    "group-add": ["+npu_profile@trainer.npu_extra=npu_profile", "trainer.npu_extra.options.save_path=/p"],
    "numbers": ["actor_rollout_ref.actor.optim.lr=1e-6", "trainer.total_epochs=1_000", "algorithm.gamma=.99",
                "algorithm.lam=1", "actor_rollout_ref.rollout.temperature=inf"],
}


def _require_reference(version: str) -> None:
    if reference.config_dir(version) is None:
        pytest.skip("the verl reference is not built: run scripts/setup-verl-ref.sh")


def _arg(text: str, i: int) -> Arg:
    return Arg(text, Span("<case>", 1, i + 1, 1, i + 1 + len(text)))


def _compare(ours: dict, theirs: dict, path: str = "") -> list[str]:
    out = []
    for k in sorted(set(ours) | set(theirs), key=str):
        p = f"{path}.{k}" if path else str(k)
        if k not in ours or k not in theirs:
            out.append(f"{p}: {'missing in rftc' if k not in ours else 'extra in rftc'}")
        elif isinstance(ours[k], dict) and isinstance(theirs[k], dict):
            out += _compare(ours[k], theirs[k], p)
        elif ours[k] != theirs[k] and not (ours[k] != ours[k] and theirs[k] != theirs[k]):  # nan == nan
            out.append(f"{p}: rftc {ours[k]!r} != hydra {theirs[k]!r}")
        elif type(ours[k]) is not type(theirs[k]):
            out.append(f"{p}: rftc {type(ours[k]).__name__} != hydra {type(theirs[k]).__name__}")
    return out


def _hydra(version: str, config_name: str, overrides: list[str], module: str = "verl.trainer.main_ppo"):
    """Hydra's result, or None when Hydra rejects the launch."""
    try:
        return reference.compose(reference.config_dir(version, module), config_name, overrides)
    except (HydraException, OmegaConfBaseException, TypeError, ValueError):  # Hydra crashes on some input
        return None


def _ours(version: str, config_name: str, overrides: list[str], *, inv: Invocation | None = None):
    diags = Diagnostics()
    if inv is None:
        args = [_arg(t, i) for i, t in enumerate(overrides)]
        inv = Invocation(0, "verl.trainer.main_ppo", "main_ppo", "python", Span("<case>", 1, 1), args, list(args),
                         config_name=_arg(config_name, 0))
    eff = effective_config(inv, verl_version=version, diags=diags)
    return eff, diags


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_override_lists_match_hydra(case, version):
    _require_reference(version)
    overrides = CASES[case]
    theirs = _hydra(version, "ppo_trainer", overrides)
    eff, diags = _ours(version, "ppo_trainer", overrides)
    if theirs is None:
        assert diags.has_errors, f"Hydra rejects {overrides} under {version}, rftc does not"
        return
    assert not diags.has_errors, [str(d.span) + " " + d.message for d in diags.errors]
    assert _compare(eff.values, theirs) == []


@pytest.mark.parametrize("version", VERSIONS)
def test_megatron_config_name_matches_hydra(version):
    _require_reference(version)
    overrides = ["actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2"]
    theirs = _hydra(version, "ppo_megatron_trainer", overrides)
    eff, diags = _ours(version, "ppo_megatron_trainer", overrides)
    assert theirs is not None and not diags.has_errors
    assert _compare(eff.values, theirs) == []


REJECTED = {
    "unknown-key": ["trainer.nnode=2"],
    "unknown-nested": ["actor_rollout_ref.actor.no_such.deeper=1"],
    "add-existing": ["+trainer.nnodes=2"],
    "delete-null": ["~data.tokenizer"],  # null in every release
    "delete-missing": ["~trainer.no_such_key"],
    "delete-wrong-value": ["~trainer.nnodes=5"],
    "dict-new-key": ["actor_rollout_ref.rollout.val_kwargs={temperature:0.5,brand_new:3}"],
    "dict-into-list": ["trainer.logger={a:1}"],
    "new-key-under-empty-dict": ["actor_rollout_ref.rollout.engine_kwargs.vllm.attention_backend=flash"],
    "key-under-scalar": ["trainer.nnodes.x=1"],
    "sweep": ["trainer.experiment_name=a,b"],
    "stray-brace": ["trainer.experiment_name=x}"],
    "group-typo": ["model_engine=megatrn"],
    "group-null": ["model_engine=null"],
    "delete-group": ["~model_engine"],
    "group-own-package": ["critic@critic=megatron_critic"],  # its package is the group's: `critic=...` chooses
    "group-no-option": ["actor@actor_rollout_ref.actor=no_such_actor"],
    "delete-list-element": ["~trainer.logger.0"],
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", sorted(REJECTED))
def test_rejections_match_hydra(case, version):
    _require_reference(version)
    overrides = ["actor_rollout_ref.rollout.name=vllm", *REJECTED[case]]
    theirs = _hydra(version, "ppo_trainer", overrides)
    eff, diags = _ours(version, "ppo_trainer", overrides)
    assert theirs is None, f"Hydra accepts {overrides}"
    assert diags.has_errors, f"rftc accepts {overrides}, Hydra does not"


EXPERIMENTAL = {
    "verl.experimental.fully_async_policy.fully_async_main": ("fully_async_ppo_trainer",
                                                              "fully_async_ppo_megatron_trainer"),
    "verl.experimental.one_step_off_policy.main_ppo": ("one_step_off_ppo_trainer", "one_step_off_ppo_megatron_trainer"),
}


# each experimental module under the versions that ship it (its configs are among the version's)
EXPERIMENTAL_CASES = [pytest.param(module, *version.values, marks=version.marks)
                      for module, names in sorted(EXPERIMENTAL.items()) for version in VERSIONS
                      if names[0] in schema.load(*version.values).config_names()]


@pytest.mark.parametrize("module, version", EXPERIMENTAL_CASES)
def test_experimental_configs_match_hydra(module, version):
    _require_reference(version)
    directory = reference.config_dir(version, module)
    assert directory is not None, f"verl {version}'s wheel has no {module}"
    overrides = ["actor_rollout_ref.rollout.name=vllm", "trainer.nnodes=2", "actor_rollout_ref.rollout.n=4"]
    for name in EXPERIMENTAL[module]:
        theirs = reference.compose(directory, name, overrides, version)
        args = [_arg(t, i) for i, t in enumerate(overrides)]
        inv = Invocation(0, module, "experimental", "python", Span("<case>", 1, 1), args, list(args),
                         config_name=_arg(name, 0))
        diags = Diagnostics()
        eff = effective_config(inv, verl_version=version, diags=diags)
        assert not diags.has_errors, [d.message for d in diags.errors]
        assert _compare(eff.values, theirs) == [], name


# veRL's engine SFT trainer on each engine its release ships (`engine=megatron optim=megatron`: its way to put
# the trainer on Megatron), under the versions that have its config
SFT_ENGINE_CASES = [pytest.param(engine, *version.values, marks=version.marks)
                    for version in VERSIONS if "sft_trainer_engine" in schema.load(*version.values).config_names()
                    for engine in schema.load(*version.values).groups.get("engine", ())]


@pytest.mark.parametrize("engine, version", SFT_ENGINE_CASES)
def test_sft_engine_choices_match_hydra(engine, version):
    _require_reference(version)
    module = "verl.trainer.sft_trainer"
    overrides = [f"engine={engine}", f"optim={engine}", "data.train_files=/t.parquet", "model.path=/m"]
    if engine == "megatron":
        overrides.append("engine.tensor_model_parallel_size=2")
    theirs = _hydra(version, "sft_trainer_engine", overrides, module)
    args = [_arg(t, i) for i, t in enumerate(overrides)]
    inv = Invocation(0, module, "sft", "torchrun", Span("<case>", 1, 1), args, list(args))
    eff, diags = _ours(version, "sft_trainer_engine", overrides, inv=inv)
    if theirs is None:
        assert diags.has_errors, f"Hydra rejects {overrides} under {version}, rftc does not"
        return
    assert not diags.has_errors, [d.message for d in diags.errors]
    assert _compare(eff.values, theirs) == []
    # the choices the release's default (fsdp) already makes change nothing
    assert eff.config_name == ("sft_trainer_engine" if engine == "fsdp" else
                               f"sft_trainer_engine (engine={engine}, optim={engine})")


def _corpus_configs():
    """(directory, config name) of every corpus config that extends verl's trainer config."""
    out = []
    for f in sorted(CORPUS.rglob("*.yaml")):
        head = f.read_text(errors="replace")
        if "defaults:" in head and ("ppo_trainer" in head or "ppo_megatron_trainer" in head):
            out.append(f)
    return out


@pytest.mark.slow
@needs_corpus
@pytest.mark.parametrize("version", schema.versions())
def test_corpus_config_dirs_match_hydra(version):
    """Script-local primary configs (hydra.searchpath to verl's folder, defaults list, _self_) compose as Hydra."""
    files = _corpus_configs()
    _require_reference(version)
    compared = 0
    for f in files:
        overrides = ["trainer.nnodes=3"]
        try:
            theirs = reference.compose(f.parent, f.stem, overrides, version)
        except (HydraException, OmegaConfBaseException, ValueError):
            theirs = None
        args = [_arg(t, i) for i, t in enumerate(overrides)]
        inv = Invocation(0, "verl.trainer.main_ppo", "main_ppo", "python", Span("<case>", 1, 1), args, list(args),
                         config_path=_arg(str(f.parent), 0), config_name=_arg(f.stem, 0))
        diags = Diagnostics()
        eff = effective_config(inv, verl_version=version, diags=diags)
        if theirs is None:
            assert diags.has_errors, f"Hydra rejects {f}, rftc does not"
            continue
        assert not diags.has_errors, (f, [d.message for d in diags.errors])
        assert _compare(eff.values, theirs) == [], f
        assert eff.prov("trainer.nnodes").kind == "override"
        compared += 1
    assert compared > 0


_LAUNCHES = None


def _corpus_launches():
    global _LAUNCHES
    if _LAUNCHES is None:
        _LAUNCHES = [inv for root in (CORPUS, WILD) if root.is_dir() for inv in reference.corpus_launches(root)]
    return _LAUNCHES


def _check_launch(inv, version):
    """(compared, problems): rftc agrees with Hydra on accepting the launch and, if accepted, on every value."""
    theirs = reference.hydra_effective(inv, version)
    diags = Diagnostics()
    eff = effective_config(inv, verl_version=version, diags=diags)
    errors = [d for d in diags.errors if d.code.startswith("RFTC2")]
    where = f"{inv.script}:{inv.span.line} under {version}"
    if theirs is None:
        return False, [] if errors or eff is None else [f"{where}: Hydra rejects the launch, rftc does not"]
    codes = {d.code for d in errors}
    if "RFTC207" in codes and codes <= {"RFTC207", "RFTC203"}:
        return False, []  # a group choice rftc does not bundle (e.g. sft engine=megatron): said, not composed
    if errors:
        return False, [f"{where}: rftc rejects what Hydra accepts: {[d.message for d in errors]}"]
    return True, [f"{where}: {p}" for p in _compare(eff.values, theirs)]


def _corpus_case(version, sample):
    launches = _corpus_launches()
    _require_reference(version)
    # the launches rftc accepts under this version are compared with Hydra (every one where they are few, as
    # under the old releases), the ones it rejects are checked to be rejected by Hydra too
    accepted = [inv for inv in launches if _accepts(inv, version)]
    rejected = [inv for inv in launches if inv not in accepted]
    chosen = (accepted if len(accepted) <= 30 else accepted[::sample]) + rejected[::sample]
    compared, problems = 0, []
    for inv in chosen:
        ok, found = _check_launch(inv, version)
        compared += ok
        problems += found
    assert problems == []
    # under verl 0.1 no corpus launch composes (their keys are newer): its rejections are what is compared
    assert chosen and (compared > 0 or not accepted)


def _accepts(inv, version) -> bool:
    diags = Diagnostics()
    return effective_config(inv, verl_version=version, diags=diags) is not None and not any(
        d.code.startswith("RFTC2") for d in diags.errors)


@needs_corpus
def test_corpus_launches_sample_match_hydra():
    """Every 12th corpus launch under the newest version (the full run is marked slow)."""
    _corpus_case(schema.versions()[0], 12)


@pytest.mark.slow
@needs_corpus
@pytest.mark.parametrize("version", schema.versions())
def test_corpus_launches_match_hydra(version):
    """Every 4th corpus launch under each version (the old releases accept few of veRL's own scripts and more of
    the users'); RFTC_DIFF_FULL=1 checks all of them (about 5 min each)."""
    _corpus_case(version, 1 if os.environ.get("RFTC_DIFF_FULL") else 4)


_FUZZ_KEYS = ["trainer.nnodes", "trainer.logger", "trainer.project_name", "actor_rollout_ref.rollout.n",
              "actor_rollout_ref.rollout.val_kwargs", "actor_rollout_ref.actor.ppo_micro_batch_size",
              "actor_rollout_ref.rollout.engine_kwargs.vllm", "actor_rollout_ref.rollout.engine_kwargs.vllm.x",
              "trainer.new", "trainer.new.deep", "data.train_files", "algorithm.kl_ctrl", "algorithm.kl_ctrl.kl_coef",
              "trainer.logger.0", "actor_rollout_ref.model.override_config", "critic.optim.lr",
              "trainer.default_local_dir", "actor_rollout_ref.actor.checkpoint.save_contents"]
_FUZZ_VALUES = ["1", "null", "[a,b]", "[]", "{}", "{kl_coef:0.5}", "{x:1}", "{type:fixed,new:2}", "'s,t'",
                "${trainer.nnodes}", "${.n}", "str", "true", "${oc.env:HOME}/x", "${oc.select:trainer.nnodes,3}", "???"]


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(60))
def test_random_override_sequences_match_hydra(seed):
    """Random sequences of change/add/force-add/delete overrides: same acceptance and same values as Hydra."""
    import random

    version = schema.versions()[seed % len(schema.versions())]
    _require_reference(version)
    rnd = random.Random(seed)
    overrides = ["actor_rollout_ref.rollout.name=vllm"]
    for _ in range(rnd.randint(1, 4)):
        prefix, key = rnd.choice(["", "", "+", "++", "~"]), rnd.choice(_FUZZ_KEYS)
        value = "" if prefix == "~" and rnd.random() < 0.8 else "=" + rnd.choice(_FUZZ_VALUES)
        overrides.append(f"{prefix}{key}{value}")
    theirs = _hydra(version, "ppo_trainer", overrides)
    eff, diags = _ours(version, "ppo_trainer", overrides)
    assert (theirs is None) == diags.has_errors, (overrides, [d.message for d in diags.errors])
    if theirs is not None:
        assert _compare(eff.values, theirs) == [], overrides



def _checkout_case(root: Path, launches, monkeypatch) -> tuple[int, list[str], int]:
    """(compared, problems, rejected by both) for launches that compose a checkout's own config, run from
    ``root``: rftc's effective config against Hydra's compose of that folder with the launch's overrides."""
    from rftc.verl.checkout import find as sources

    monkeypatch.chdir(root)
    compared, problems, rejected = 0, [], 0
    for inv in launches:
        found = sources.find(inv)
        if found is None:
            continue
        diags = Diagnostics()
        eff = effective_config(inv, diags=diags)
        # where the checkout lacks its entry module, rftc names the config it chose by the launch's keys (RFTC231):
        # Hydra composes that one, as the module would name it
        chosen = eff.config_name if any(d.code == "RFTC231" for d in diags) else None
        theirs = reference.hydra_effective(inv, source=found, config_name=chosen)
        errors = [d for d in diags.errors if d.code.startswith("RFTC2")]
        where = f"{inv.script}:{inv.span.line} on {found.display()}"
        if theirs is None:
            rejected += 1
            if not errors and eff is not None:
                problems.append(f"{where}: Hydra rejects the launch, rftc does not")
            continue
        if errors:
            problems.append(f"{where}: rftc rejects what Hydra accepts: {[d.message for d in errors]}")
            continue
        compared += 1
        problems += [f"{where}: {p}" for p in _compare(eff.values, theirs)]
    return compared, problems, rejected


@needs_wild
def test_wild_launches_match_hydra_on_their_own_veRL_config(monkeypatch, capsys):
    """Every launch of ../shared/corpus/wild, run from its repository's root, that composes the repository's own
    veRL config folder: rftc's effective config equals hydra-core's compose of that folder, key by key."""
    compared, problems, rejected = 0, [], 0
    for repo in sorted(p for p in WILD.iterdir() if p.is_dir()):
        c, p, r = _checkout_case(repo, reference.corpus_launches(repo), monkeypatch)
        compared, problems, rejected = compared + c, problems + p, rejected + r
    with capsys.disabled():
        print(f"\nwild launches on their own veRL config: {compared} identical to Hydra's compose, {rejected} "
              f"rejected by both, {len(problems)} differences")
    assert problems == []
    assert compared >= 40


@needs_corpus
def test_corpus_launches_sample_match_hydra_on_the_checkout_config(monkeypatch):
    """The development corpus is itself a veRL checkout: its launches compose its own config folder."""
    compared, problems, _ = _checkout_case(CORPUS, _corpus_launches()[::6], monkeypatch)
    assert problems == []
    assert compared > 0
