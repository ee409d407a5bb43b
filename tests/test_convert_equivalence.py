"""The conversions train as their veRL scripts do, by Trinity-RFT 0.6.0's own account.

For every golden conversion (golden/convert/**/NAME.sh -> NAME.yaml, extra arguments in NAME.args), and for every
conversion of the corpus (../shared/corpus/verl) that exits 0, the YAML goes through Trinity's own loader,
validator and Trinity->veRL expansion (build_verl_config(), in .venv-trinity: one reference run for the golden
cases, and the corpus's shared with tests/test_convert_corpus.py), and the script through rftc's effective veRL
config (the config `rftc verl-config` prints). The training-relevant settings of both are compared in veRL's units:

- experiences per optimizer step: veRL ppo_mini_batch_size x rollout.n; Trinity's actor.ppo_mini_batch_size (Trinity
  sets it to buffer.train_batch_size, and its workers do not multiply by n);
- optimizer steps per rollout batch: veRL train_batch_size / ppo_mini_batch_size x ppo_epochs; Trinity's
  trainer sync interval x its actor.ppo_epochs;
- ppo_epochs, lr, warmup steps (veRL steps x train/mini: Trinity's scheduler steps once per mini-batch) and ratio,
  scheduler type, and the LR horizon where the schedule uses it (warmup ratio or a non-constant schedule): veRL's
  total steps (trainer.total_training_steps, --total-steps, or rows // train_batch_size x total_epochs with the rows
  from --dataset-size or the parquet footers) x train/mini against Trinity's actor.optim.total_training_steps;
- the policy loss, KL loss on/type/coef and KL in reward on/type/coef, clip ratios (none for veRL's sapo and gpg
  losses), sapo's tau_pos/tau_neg, entropy coefficient, loss aggregation mode, the advantage's gamma and lam (where the
  estimator discounts: gae, reinforce_plus_plus): Trinity's values are its *_fn and *_fn_args (with Trinity's
  defaults where the YAML leaves them out), not the placeholders build_verl_config() writes into the veRL dict
  (trinity-0.6.md §3.2, §4.3);
- weight decay, and the critic's lr (gae);
- the training length: total epochs, and total steps where veRL's trainer.total_training_steps bounds it (x
  train/mini, in Trinity's trainer steps) against Trinity's buffer.total_steps (explorer steps, x the trainer's
  sync interval / the explorer's);
- rollout.n, temperature, max prompt and response lengths;
- the staleness of veRL's trainer loop (rftc.verl.releases.modes: main_ppo's v1 modes, one_step_off_policy,
  fully_async_policy): the prompts generated ahead of the trainer against sync_offset x buffer.batch_size, the
  experiences between weight updates against trainer_sync_interval x ppo_mini_batch_size, the largest policy lag,
  and, where the rollout has GPUs of its own, its GPUs and the trainer's against Trinity's cluster's.

The tests print every difference; each must be in EXPLAINED (golden) or CORPUS_EXPLAINED, whose reasons
golden/convert/DEVIATIONS.md gives.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from rftc.mapping.data import WHOLE
from rftc.mapping.reward_loop import SINGLE_TURN
from rftc.semantics.distill import PROMPT_ONLY
from rftc.semantics.inputs import SHUFFLED
from rftc.semantics.minibatch import EPOCH_BY_EPOCH
from rftc.semantics.model import TrainingRun, Value, differences
from rftc.semantics.trinity import from_trinity, view
from rftc.semantics.verl import from_verl
from rftc.trinity import registry
from support import paths
from support.paths import CORPUS, needs_corpus
from trinity_ref import reference

REPO = paths.ROOT
GOLDEN = paths.GOLDEN / "convert"
SCRIPTS = sorted(GOLDEN.glob("*.sh")) + [s for sub in ("cases", "async") for s in sorted((GOLDEN / sub).glob("*.sh"))]
CASES = [s for s in SCRIPTS if s.with_suffix(".yaml").is_file() and s.with_suffix(".yaml").read_text().strip()]
REWARD_MODEL = ("veRL scores with its reward model; the converted config leaves the workflow that would query it "
                "to the user (RFTC308)")
MANAGER = ("veRL's reward manager has no Trinity-RFT 0.6 equivalent: RFTC300 warns, and the reward workflow scores "
           "as veRL's naive manager")
CURRICULUM = ("veRL's curriculum sampler (data.sampler.class_path) has no Trinity-RFT 0.6 equivalent: RFTC300 "
              "warns, and the tasksets keep veRL's shuffle")
MANAGER_KWARGS = ("reward-manager arguments the reward workflow does not take (another manager's, or the dapo "
                  "manager's where a reward model scores) have no Trinity-RFT 0.6 equivalent: RFTC300 warns")
CUSTOM_DATASET = ("veRL reads the rows with a dataset class of the user's (data.custom_cls), which has no Trinity-RFT "
                  "0.6 equivalent: RFTC300 warns, and Trinity's task reader reads them")
TEXT_ONLY = ("veRL gives a multimodal model a row's media from the image and video columns the launch names "
             "(data.image_key, video_key: the converted format names them too); rftc's veRL reward workflow gives the "
             "model the prompt's text only: RFTC305 warns")
TEMPLATE_ARGUMENTS = ("chat-template arguments other than the thinking switch (data.apply_chat_template_kwargs) have "
                      "no Trinity-RFT 0.6 field: RFTC300 warns")
# (quantity, a test of veRL's value, why): differences every conversion of such a script has (text of
# golden/convert/DEVIATIONS.md)
MICRO_SUM = ("Trinity-RFT 0.6's trainer adds up its micro-batches' losses, each aggregated within its micro-batch "
             "(verl 0.8's engine with TrinityPolicyLoss; veRL's value_loss for the critic), where veRL's engine workers "
             "normalise by the mini-batch and its legacy workers and fsdp_sft_trainer average the micro-batches: "
             "RFTC305 (RFTC331 for SFT) warns, naming the factor and the micro-batches a GPU")
NESTED = "Trinity's SFT formatter reads a column's text, not a field nested in it: RFTC300 warns"
MEAN_ONLY = ("Trinity-RFT 0.6's grpo advantage always divides by the group's standard deviation (veRL's "
             "norm_adv_by_std_in_grpo=False has no equivalent): RFTC305 warns")
MEGATRON_LORA = ("veRL's Megatron engine trains Megatron-Bridge's LoRA from actor_rollout_ref.model.lora, which "
                 "Trinity-RFT 0.6 has no field for (its model.lora_configs reach only an FSDP actor): RFTC300 warns")
SHUFFLED_MINIBATCHES = ("veRL's worker reshuffles the rollout batch's responses into its mini-batches every epoch "
                        "(actor.shuffle or critic.shuffle where the worker reads it: verl 0.1's default, and the "
                        "Megatron workers' of 0.2 and 0.3); Trinity-RFT 0.6 trains one mini-batch a trainer step in "
                        "the order the explorer hands them over: RFTC305 warns")
OVERLONG_CUT = ("veRL keeps a prompt over max_prompt_length and cuts it as data.truncation (left, right, middle) says; "
                "Trinity-RFT 0.6 without enable_prompt_truncation gives vLLM the whole prompt: RFTC305 warns")
EPOCHS_OVER_BATCH = ("veRL passes over all of a rollout batch's mini-batches once an epoch (ppo_epochs > 1); "
                     "Trinity-RFT 0.6 trains one mini-batch a trainer step, its epochs in a row: RFTC305 warns")
CRITIC_STEPS = "critic steps (responses, steps a batch, order)"
PARTIAL = ("veRL's v1 asynchronous trainers, and the fully async trainer with async_training.partial_rollout (its "
           "default), resume a response interrupted by a weight update with the new weights; Trinity-RFT 0.6 "
           "generates each response with one weight version: RFTC341 warns")
CORRECTION = ("veRL weighs or masks the loss by its rollout correction (algorithm.rollout_correction, with the "
              "rollout's log-probs); Trinity-RFT 0.6's trainer reads none of it: RFTC305 warns (0.6.0's "
              "algorithm.rollout_is keys: RFTC300)")
MULTI_TURN = ("veRL's multi-turn rollouts (SGLang's tool-calling loop, the agent loops the rows name) have no "
              "Trinity-RFT 0.6 equivalent: RFTC300 warns, and the reward workflow chats once per response")
TOOL_LENGTHS = ("veRL measures a prompt with its tools' schemas (data.tool_config_path) to leave it out; Trinity's "
                "length window counts the prompt alone: RFTC300 warns")
REFILL = ("veRL's trainers replace the groups their filter drops with more prompts and drop the passing surplus; "
          "Trinity-RFT 0.6's explorer goes on with steps of buffer.batch_size tasks and trains the surplus the step "
          "after: RFTC305 warns")
PRECISION = "training precision (actor, reference, critic)"
LORA_REFERENCE = ("veRL computes the reference with the actor without its LoRA adapter (Megatron-Bridge's LoRA, or an "
                  "adapter from lora_adapter_path alone), which the converted config does not train: its reference is "
                  "a model of its own (RFTC300 warns of Megatron's LoRA; an adapter path without lora_rank is left out)")
ACTOR_ROLLOUT = ("veRL's hf rollout generates with the actor's FSDP module; Trinity-RFT 0.6 rolls out with vLLM (or "
                 "SGLang) in explorer.rollout_model.dtype: RFTC305 warns")
MIXED_PRECISION = ("veRL's fsdp_config.mixed_precision (set with '+': its reduce dtype bf16) has no field in the config "
                   "the conversion writes (verl's config file does not list it): RFTC300 and RFTC305 warn")


def _order_kind(value) -> str | None:
    """The kind of a mini-batch order (the critic's within its steps)."""
    order = getattr(value, "order", value)
    return getattr(order, "kind", None)


BY_VALUE = [("reward", lambda v: str(v).startswith("reward model "), REWARD_MODEL),
            # the reward model reads no data column; the workflow left to the user reads its format's (a
            # distillation without task rewards reads none either: its conversion's workflow reads the prompt alone)
            ("data columns", lambda v: "data source" not in str(v) and PROMPT_ONLY not in str(v), REWARD_MODEL),
            ("data order", lambda v: str(v).startswith("sampler "), CURRICULUM),
            ("multi-turn rollouts (agent loop, tools)", lambda v: v != SINGLE_TURN, MULTI_TURN),
            ("over-long prompts", lambda v: "measured with the tools" in str(v), TOOL_LENGTHS),
            ("custom dataset class", lambda v: v != "none", CUSTOM_DATASET),
            ("reward arguments", lambda v: isinstance(v, dict) and "reward_kwargs" not in v, MANAGER_KWARGS),
            ("LoRA (rank, alpha, target modules)", lambda v: "Megatron-Bridge" in str(v), MEGATRON_LORA),
            ("advantage / group std", lambda v: v is False, MEAN_ONLY),
            (PRECISION, lambda v: "the actor's, without its LoRA adapter" in str(v), LORA_REFERENCE),
            ("rollout precision", lambda v: str(v).startswith("the actor's FSDP module"), ACTOR_ROLLOUT),
            ("over-long prompt cut", lambda v: v not in (None, WHOLE), OVERLONG_CUT),
            ("reward", lambda v: str(v).endswith(" manager)"), MANAGER),
            ("tokens with loss", lambda v: str(v).startswith("single-turn: ") and "[" in str(v), NESTED),
            *((label, lambda v: _order_kind(v) == SHUFFLED, SHUFFLED_MINIBATCHES)
              for label in ("mini-batch order", CRITIC_STEPS)),
            *((label, lambda v: _order_kind(v) == EPOCH_BY_EPOCH, EPOCHS_OVER_BATCH)
              for label in ("mini-batch order", CRITIC_STEPS)),
            ("partial rollouts", lambda v: v != "none", PARTIAL),
            ("rollout correction", lambda v: v != "none", CORRECTION),
            ("group refill (dynamic sampling)", lambda v: v is not None, REFILL)]
# (quantity, a test of veRL's and Trinity's values, why): differences the conversion warns of wherever they arise
# (tests/test_diff_micro.py holds each golden conversion's warning to its difference)
MICRO_LABEL = "micro-batch loss (a step's from its micro-batches)"
MICRO_WARNING = "Trinity-RFT 0.6's trainer adds up the losses of"  # the conversion's RFTC305 (RFTC331 for SFT)
BY_PAIR = [(MICRO_LABEL, lambda a, b: a != b, MICRO_SUM)]
# (case, key) -> why the difference is intended: each reason is text of golden/convert/DEVIATIONS.md ("Equivalence").
SYNC_OFFSET = ("--sync-offset 1 lets the explorer run one step ahead where veRL's synchronous trainer does not (the "
               "option's purpose: the guide's examples)")
CRITIC_MINI = ("veRL's critic takes critic.ppo_mini_batch_size (counted in responses before verl 0.4.0) where its "
               "actor takes ppo_mini_batch_size x n; Trinity's critic takes buffer.train_batch_size a trainer step, "
               "as its actor: RFTC316 warns")
EXPLAINED: dict[tuple[str, str], str] = {
    **{("cases/sync_offset_option.sh", key): SYNC_OFFSET
       for key in ("max policy lag (optimizer steps)", "prompts ahead of the trainer")},
    ("cases/release_0_3_kl_in_reward.sh", CRITIC_STEPS): CRITIC_MINI,
}


def explain(name: str, key: str, verl_value, explained: dict, trinity_value=None) -> str | None:
    """Why the conversion ``name`` differs from its script in ``key`` (veRL's value ``verl_value``; Trinity's
    ``trinity_value``, where the comparison is with the conversion), or None."""
    return explained.get((name, key)) or next(
        (why for k, test, why in BY_VALUE if k == key and test(verl_value)), None) or next(
        (why for k, test, why in BY_PAIR if k == key and trinity_value is not None and test(verl_value, trinity_value)),
        None)
DEVIATIONS = GOLDEN / "DEVIATIONS.md"

HORIZON_UNKNOWN = ("the LR horizon needs the number of training rows, and the data files are not readable where "
                   "rftc converts: RFTC303 warns, and --dataset-size or --total-steps give it")
GEO_MEAN = ("veRL's geo_mean (GMPO) loss has no Trinity-RFT 0.6 equivalent: RFTC305 warns and the config uses "
            "Trinity's ppo loss, whose dual clip (clip_ratio_c 3.0) the geometric-mean loss does not have")
BYPASS_REINFORCE = ("veRL's rollout-correction bypass mode with loss_type reinforce replaces the policy loss with "
                    "REINFORCE weighted by importance ratios; the config passes algorithm.rollout_correction on, but "
                    "Trinity's ppo loss does not read loss_type: RFTC305 warns")
LAG_ROUNDED = ("veRL's fully-async rollout runs int(prompts a step x staleness_threshold x "
               "trigger_parameter_sync_step) prompts ahead, not whole explorer steps: RFTC340 warns and Trinity's "
               "sync_offset rounds it up to whole steps")
FILES_IN_ORDER = ("data.shuffle=False reads the training files one after another; Trinity interleaves its "
                  "tasksets at random each epoch: RFTC305 warns")
# (corpus script relative to the corpus, key) -> why the difference is intended, as EXPLAINED.
CORPUS_EXPLAINED: dict[tuple[str, str], str] = {
    ("examples/grpo_trainer/run_qwen2-7b_math_megatron_lora.sh", "data order"): FILES_IN_ORDER,
    ("examples/grpo_trainer/run_qwen3-32b_npu.sh", PRECISION): MIXED_PRECISION,
    ("recipe/retool/run_gpt_oss_ppo.sh", "chat template"): TEMPLATE_ARGUMENTS,
    **{(script, "prompt media (columns, processing)"): TEXT_ONLY for script in (
        *(f"examples/grpo_trainer/{name}.sh" for name in (
            "run_glm41v_9b", "run_minicpmo2_6", "run_qwen2_5_vl-7b-sglang", "run_qwen2_5_vl-7b",
            "run_qwen2_5_vl-7b_freeze_vision", "run_qwen2_5_vl-7b_seq_balance", "run_qwen2_5_vl_32b_npu",
            "run_qwen2_5_vl_3b_npu", "run_qwen2_5_vl_7b_npu")),
        "recipe/infigui-g1/run_3b.sh", "recipe/infigui-g1/run_7b.sh", "tests/special_npu/run_qwen2_5_vl_3b_npu.sh")},
    **{(f"examples/{script}.sh", "lr horizon"): HORIZON_UNKNOWN for script in (
        "ppo_trainer/run_qwen2-7b_rm", "ppo_trainer/run_qwen2-7b_rm_legacy",
        "ppo_trainer/run_qwen2-7b_rm_reward_loop_colocate", "ppo_trainer/run_qwen2.5-3b_rm_legacy",
        "ppo_trainer/run_qwen2.5-3b_rm_reward_loop_colocate",
        "sglang_multiturn/search_r1_like/run_qwen2.5-3b_instruct_search_multiturn")},
    **{("examples/rollout_correction/run_with_rollout_corr.sh", key): BYPASS_REINFORCE
       for key in ("policy loss", "clip ratio c")},
    **{(f"examples/gmpo_trainer/{script}.sh", key): GEO_MEAN
       for script in ("run_qwen2_5-7b_math", "test_dapo_7b_math", "test_dapo_qwen3_30b_math")
       for key in ("policy loss", "clip ratio c")},
    **{(script, "prompts ahead of the trainer"): LAG_ROUNDED for script in (
        "tests/special_e2e/run_fully_async_policy.sh",
        *(f"verl/experimental/fully_async_policy/shell/{name}.sh" for name in (
            "dapo_7b_math_fsdp2_16_16", "dapo_7b_math_fsdp2_32_32", "dapo_7b_math_fsdp2_4_12",
            "dapo_7b_math_fsdp2_4_4", "dapo_7b_math_fsdp2_8_8", "geo3k_qwen25vl_7b_megatron_4_4")))},
}

pytestmark = pytest.mark.skipif(not reference.available(), reason=reference.MISSING)


def _args(script: Path) -> argparse.Namespace:
    from rftc.commands import convert

    parser = argparse.ArgumentParser()
    convert.add_arguments(parser)
    argv = [str(script), *paths.arguments(script.with_suffix(".args"))]
    cut = argv.index("--") if "--" in argv else len(argv)  # the script's own arguments follow, as rftc.cli reads
    args = parser.parse_args(argv[:cut])
    args.extra_args = argv[cut + 1:] if cut < len(argv) else None
    return args


# The comparison computes what main_ppo's trainers and the off-policy ones train, with a rollout; the DAPO
# recipe's trainer samples dynamically (a step is train_batch_size kept prompts out of rounds of gen_batch_size), and
# veRL's SFT trainers have no rollout: tests/test_mapping_dapo.py, tests/test_trinity_workflow.py and
# tests/test_convert_sft.py check their conversions.
OTHER_TRAINER = ("the DAPO recipe's trainer (dynamic sampling), checked by test_mapping_dapo, or an SFT "
                 "trainer, checked by test_convert_sft")


def _effective(script: Path, args, index: int | None = None):
    """rftc's effective veRL config of the script's launch of main_ppo or an off-policy trainer (the one with this
    index, when there are several); None for another trainer's (OTHER_TRAINER)."""
    from rftc import api
    from rftc.commands import convert
    from rftc.verl import effective_config
    from rftc.verl.trainers import MAIN_PPO, OFF_POLICY, maps, module_of

    inputs = api.read(args.paths, convert.options(args))
    launches = [i for i in inputs.launches if maps(i) and api.composable(i)
                and (index is None or i.index == index)]
    assert len(launches) == 1, f"{script}: {len(launches)} launches"
    if module_of(launches[0]) not in (MAIN_PPO, *OFF_POLICY):
        return None
    eff = effective_config(launches[0], verl_version=args.verl_version, diags=inputs.diagnostics)
    assert eff is not None, f"{script}: no effective config"
    return eff


def _verl_side(eff, args, script: Path) -> TrainingRun:
    """What veRL trains, by the rules of the release the config follows (batch units, KL switches, dual clip and
    loss aggregation differ before 0.4.0); the LR horizon from --total-steps, --dataset-size or the parquet
    footers beside the script."""
    return from_verl(eff, total_steps=args.total_steps, dataset_rows=args.dataset_size, cwd=str(script.parent))


def _trinity_side(record: dict, config: str) -> TrainingRun:
    """What Trinity trains, from its own expansion (the reference run's validator fields and the veRL config
    build_verl_config() writes); the quantities that run does not report (top_p, bypass_old_logprobs, prompt
    truncation, the workflow) from rftc's account of the same expansion (`rftc diff`'s), whose model must equal
    the one from Trinity's. Function arguments are Trinity's as built (its constructors' defaults under
    the keys the YAML leaves out)."""
    ours = _rftc_view(config)
    theirs = {k: Value(v, f"{k} (Trinity)") for k, v in record["derived"].items()}
    theirs.update({f"verl.{k}": Value(v, f"verl.{k} (Trinity)") for k, v in record["verl"].items()})
    for key, value in list(theirs.items()):
        field = key.removeprefix("algorithm.").removesuffix("_args")
        if key.endswith("_args") and field in registry.FUNCTION_FIELDS:
            name = theirs[key.removesuffix("_args")].value
            theirs[key] = Value(registry.arguments(field, name, value.value), value.source)
    run = from_trinity({**ours, **theirs})
    disagree = [f"{q.label}: rftc {a.value!r}, Trinity {b.value!r}" for q, a, b in differences(from_trinity(ours), run)]
    assert not disagree, f"{config}: rftc's expansion trains differently from Trinity's:\n" + "\n".join(disagree)
    return run


def _rftc_view(config: str) -> dict:
    from rftc import api
    from rftc.trinity.document import parse

    checked = api.check(str(REPO / config))
    assert checked.config is not None, config
    return view(checked.config, parse(checked.sources[next(iter(checked.sources))], config)[0])


def _compare(conversions, trinity: dict, explained: dict) -> dict:
    """Compare each (name, script, args, config path, launch index) conversion with Trinity's expansion of its
    config (`trinity`: the reference run's records by path). Returns the table rows, the differences `explained`
    does not explain, the conversions Trinity could not expand or could not decide offline, and the stale
    entries of `explained`."""
    rows, unexplained, broken, skipped = [], [], [], []
    for name, script, args, config, index in conversions:
        record = trinity[config]
        if record["undecided"]:  # e.g. a LoRA adapter without path: Trinity builds one on a copy of the model
            skipped.append((name, record["undecided"]))
            continue
        if not record["ok"] or "verl" not in record:
            broken.append(f"{name}: Trinity did not expand it: {record.get('error_type')}: {record.get('message')} "
                          f"{record.get('expand_error') or ''}")
            continue
        effective = _effective(script, args, index)
        if effective is None:
            skipped.append((name, OTHER_TRAINER))
            continue
        mine = _verl_side(effective, args, script)
        theirs = _trinity_side(record, config)
        for q, value, other in differences(mine, theirs):
            key = q.label
            why = explain(name, key, value.value, explained, other.value)
            rows.append((name, key, str(value), str(other), why or "UNEXPLAINED"))
            if why is None:
                unexplained.append(f"{name}: {key}: veRL {value.value!r}, Trinity {other.value!r}")
    stale = sorted(f"{c}: {k}" for c, k in explained if (c, k) not in {(r[0], r[1]) for r in rows})
    return {"rows": rows, "unexplained": unexplained, "broken": broken, "skipped": skipped, "stale": stale}


def _report(result: dict, what: str, compared: int, capsys) -> None:
    from test_trinity_agreement import _table

    rows, skipped = result["rows"], {}
    for name, why in result["skipped"]:
        skipped.setdefault(why, []).append(name)
    with capsys.disabled():
        print(f"\n{compared} {what} compared; {len(rows)} differences"
              + "".join(f"\nnot compared, Trinity's expansion depends on {why}: {', '.join(names)}"
                        for why, names in skipped.items()) + "\n"
              + (_table(rows, ("case", "key", "veRL (rftc)", "Trinity (expanded)", "why")) if rows else ""))


def _assert_explained(result: dict, explained: dict) -> None:
    assert not result["broken"], "\n".join(result["broken"])
    documented = DEVIATIONS.read_text(encoding="utf-8")
    reasons = [*explained.values(), *(why for _, _, why in BY_VALUE), *(why for _, _, why in BY_PAIR)]
    undocumented = sorted({why for why in reasons if why not in documented})
    assert not undocumented, "EXPLAINED reasons missing from golden/convert/DEVIATIONS.md:\n" + "\n".join(undocumented)
    assert not result["unexplained"], "unexplained differences:\n" + "\n".join(result["unexplained"])
    assert not result["stale"], ("EXPLAINED entries with no difference left (remove them):\n"
                                 + "\n".join(result["stale"]))


@pytest.fixture(scope="module")
def trinity() -> dict[str, dict]:
    return reference.run([str(s.with_suffix(".yaml").relative_to(REPO)) for s in CASES], expand=True)


def test_golden_conversions_train_as_their_scripts(trinity, capsys):
    assert len(CASES) >= 25
    conversions = [(str(s.relative_to(GOLDEN)), s, _args(s), str(s.with_suffix(".yaml").relative_to(REPO)), None)
                   for s in CASES]
    result = _compare(conversions, trinity, EXPLAINED)
    _report(result, "golden conversions", len(CASES) - len(result["skipped"]), capsys)
    assert len([1 for _, why in result["skipped"] if why != OTHER_TRAINER]) <= 1, result["skipped"]
    _assert_explained(result, EXPLAINED)


@needs_corpus
def test_corpus_conversions_train_as_their_scripts(corpus_run, corpus_trinity, capsys, monkeypatch):
    """The same comparison for every config the corpus converts to with exit 0 (LoRA configs whose adapter has no
    path are not compared: Trinity's expansion needs the model, see test_convert_corpus). Paths read the
    environment Trinity's run was given (${oc.env:NAME}), on every side."""
    records = corpus_trinity["records"]
    for name, value in corpus_trinity["env"].items():
        monkeypatch.setenv(name, value)
    conversions = []
    for script, configs in corpus_run["converted"]:
        args = _args(script)
        for config in configs:
            index = int(config.stem.rsplit(".", 1)[1]) if len(configs) > 1 else None
            name = str(script.relative_to(CORPUS))
            conversions.append((name if index is None else f"{name}:{index}", script, args, str(config), index))
    result = _compare(conversions, records, CORPUS_EXPLAINED)
    _report(result, "corpus conversions (exit 0)", len(conversions) - len(result["skipped"]), capsys)
    assert len(conversions) >= 100, len(conversions)
    assert all("a LoRA adapter without path" in why or why == OTHER_TRAINER for _, why in result["skipped"]), \
        result["skipped"]
    _assert_explained(result, CORPUS_EXPLAINED)
