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
- rollout.n, temperature, max prompt and response lengths.

The tests print every difference; each must be in EXPLAINED (golden) or CORPUS_EXPLAINED, whose reasons
golden/convert/DEVIATIONS.md gives.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from rftc.mapping.algorithm import NO_DUAL_CLIP
from rftc.plugins import GPG_LOSS_FN
from rftc.verl.releases import modes, semantics
from support import paths
from support.paths import CORPUS, needs_corpus
from trinity_ref import reference

REPO = paths.ROOT
GOLDEN = paths.GOLDEN / "convert"
SCRIPTS = sorted(GOLDEN.glob("*.sh")) + [s for sub in ("cases", "async") for s in sorted((GOLDEN / sub).glob("*.sh"))]
CASES = [s for s in SCRIPTS if s.with_suffix(".yaml").is_file() and s.with_suffix(".yaml").read_text().strip()]
A = "actor_rollout_ref.actor."
MAXSIZE = 2**63 - 1

# Trinity 0.6.0's policy-loss defaults (trinity-0.6.md §4.3; the loss classes' __init__) for the settings compared;
# ppo's low/high follow clip_range.
POLICY_DEFAULTS = {"ppo": {"clip_range": 0.2, "clip_ratio_c": 3.0},
                   "gspo": {"clip_range_low": 3e-4, "clip_range_high": 4e-4},
                   "cispo": {"clip_range_low": 1.0, "clip_range_high": 0.28},
                   "sapo": {"tau_pos": 1.0, "tau_neg": 1.05}}
# veRL's KL estimator names -> Trinity's (verl core_algos.kl_penalty: kl = k1, mse = k2)
KL_NAMES = {"kl": "k1", "mse": "k2"}
# veRL's policy_loss.loss_mode -> the name of the same loss in Trinity's registry (the others share names)
LOSS_NAMES = {"vanilla": "ppo", "gpg": GPG_LOSS_FN}
# veRL's estimators that discount with algorithm.gamma (gae also with lam): core_algos.compute_*_advantage
DISCOUNTED = ("gae", "reinforce_plus_plus")

# (case, key) -> why the difference is intended: each reason is text of golden/convert/DEVIATIONS.md ("Equivalence").
EXPLAINED: dict[tuple[str, str], str] = {
    ("cases/sync_offset_option.sh", "prompts ahead of the trainer"): "runs with `--sync-offset 1`, which makes the "
    "explorer run one step ahead where veRL's synchronous trainer does not",
}
DEVIATIONS = GOLDEN / "DEVIATIONS.md"

HORIZON_UNKNOWN = ("the LR horizon needs the number of training rows, and the data files are not readable where "
                   "rftc converts: RFTC303 warns, and --dataset-size or --total-steps give it")
GEO_MEAN = ("veRL's geo_mean (GMPO) loss has no Trinity-RFT 0.6 equivalent: RFTC305 warns and the config uses "
            "Trinity's ppo loss, whose dual clip (clip_ratio_c 3.0) the geometric-mean loss does not have")
LAG_ROUNDED = ("veRL's fully-async rollout runs int(prompts a step x staleness_threshold x "
               "trigger_parameter_sync_step) prompts ahead, not whole explorer steps: RFTC340 warns and Trinity's "
               "sync_offset rounds it up to whole steps")
# (corpus script relative to the corpus, key) -> why the difference is intended, as EXPLAINED.
CORPUS_EXPLAINED: dict[tuple[str, str], str] = {
    **{(f"examples/{script}.sh", "lr horizon"): HORIZON_UNKNOWN for script in (
        "ppo_trainer/run_qwen2-7b_rm", "ppo_trainer/run_qwen2-7b_rm_legacy",
        "ppo_trainer/run_qwen2-7b_rm_reward_loop_colocate", "ppo_trainer/run_qwen2.5-3b_rm_legacy",
        "ppo_trainer/run_qwen2.5-3b_rm_reward_loop_colocate",
        "sglang_multiturn/search_r1_like/run_qwen2.5-3b_instruct_search_multiturn")},
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
    args = parser.parse_args([str(script), *paths.arguments(script.with_suffix(".args"))])
    args.extra_args = None  # the script's arguments: none given (after --)
    return args


RELEASE = "<semantics>"  # the release's behaviour (rftc.verl.semantics, tested against each release's code)
SCHEDULE = "<schedule>"  # the trainer loop's lag and weight-update cadence (rftc.verl.releases.modes)
# The comparison computes what main_ppo's RayPPOTrainer trains; the DAPO recipe's trainer samples dynamically
# (a step is train_batch_size kept prompts out of rounds of gen_batch_size): tests/test_mapping_dapo.py and
# tests/test_trinity_workflow.py check its conversion.
DAPO_SKIPPED = "the DAPO recipe's trainer (dynamic sampling), checked by test_mapping_dapo"


def _effective(script: Path, args, index: int | None = None) -> dict:
    """rftc's effective veRL config of the script's main_ppo launch (the one with this index, when there are
    several), as dotted keys, with the behaviour of its release under RELEASE; None for the DAPO recipe's."""
    from rftc import api
    from rftc.commands import convert
    from rftc.verl import effective_config
    from rftc.verl.overrides.apply import leaves
    from rftc.verl.trainers import CONVERTED, MAIN_PPO, OFF_POLICY

    inputs = api.read(args.paths, convert.options(args))
    launches = [i for i in inputs.launches if i.module in CONVERTED and api.composable(i)
                and (index is None or i.index == index)]
    assert len(launches) == 1, f"{script}: {len(launches)} launches"
    module = launches[0].module
    if module not in (MAIN_PPO, *OFF_POLICY):
        return None
    eff = effective_config(launches[0], verl_version=args.verl_version, diags=inputs.diagnostics)
    assert eff is not None, f"{script}: no effective config"
    return {**dict(leaves(eff.values, "")), RELEASE: semantics.of(eff),
            SCHEDULE: modes.schedule(module, eff.release, lambda k: eff.get(k, None))}


def _verl_total_steps(v: dict, args, script: Path):
    """veRL's trainer step count (its LR horizon), or a string saying why it is unknown here."""
    from rftc.mapping.parquet import num_rows

    if isinstance(v.get("trainer.total_training_steps"), int) and v["trainer.total_training_steps"] > 0:
        return v["trainer.total_training_steps"]
    if args.total_steps:
        return args.total_steps
    rows = args.dataset_size
    if rows is None:
        files = v.get("data.train_files")
        files = files if isinstance(files, list) else [files]
        paths = [script.parent / f for f in files if isinstance(f, str) and "${" not in f]
        if len(paths) != len(files) or not all(p.is_file() for p in paths):
            return "unknown (data not readable)"
        rows = sum(num_rows(p) for p in paths)
    return rows // v["data.train_batch_size"] * v["trainer.total_epochs"]


def _verl_side(v: dict, args, script: Path) -> dict:
    """What veRL trains, by the rules of the release the config follows (batch units, KL switches, dual clip and
    loss aggregation differ before 0.4.0)."""
    sem, loop = v[RELEASE], v[SCHEDULE]
    n, mini = v.get("actor_rollout_ref.rollout.n", 1), v[A + "ppo_mini_batch_size"]
    batch = loop.batch or v["data.train_batch_size"]  # the fully async trainer's step: mini x require_batches
    unit = sem.value("megatron_actor_mini_unit" if v[A + "strategy"] == "megatron" else "actor_mini_unit")
    responses = min(mini * n if unit == "prompts" else mini, batch * n)  # a larger mini-batch holds the batch
    epochs, si = v[A + "ppo_epochs"], batch * n // responses
    sched = next((v[A + f"optim.{k}"] for k in ("lr_scheduler_type", "warmup_style", "lr_decay_style")
                  if v.get(A + f"optim.{k}") is not None), "constant")
    warmup = v.get(A + "optim.lr_warmup_steps")
    ratio = v.get(A + "optim.lr_warmup_steps_ratio") or 0.0
    kl_loss, kl_reward = bool(v.get(A + "use_kl_loss")), bool(semantics.kl_in_reward(sem, v.get))
    mode = v.get(A + "policy_loss.loss_mode", "vanilla")
    est = v["algorithm.adv_estimator"]
    clip = v[A + "clip_ratio"]
    # veRL's sapo loss smooths the ratio with tau_pos/tau_neg, its gpg loss has no ratio: neither reads a clip ratio
    clipped = mode not in ("sapo", "gpg")
    total = v.get("trainer.total_training_steps")
    if loop.total_prompts is not None:  # the fully async rollouter stops after this many prompts
        total = loop.total_prompts // batch
    agg_modes = sem.value("loss_agg_modes")
    out = {
        "experiences per optimizer step": responses,
        "optimizer steps per rollout batch": si * epochs * loop.sync_every,  # between weight updates
        "ppo_epochs": epochs,
        "lr": v[A + "optim.lr"],
        "warmup steps": warmup * si if isinstance(warmup, int) and warmup > 0 else None,
        "warmup ratio": ratio,
        "lr scheduler": sched,
        "kl loss": kl_loss,
        "kl loss type": KL_NAMES.get(v[A + "kl_loss_type"], v[A + "kl_loss_type"]) if kl_loss else None,
        "kl loss coef": v[A + "kl_loss_coef"] if kl_loss else None,
        "kl in reward": kl_reward,
        "kl in reward type": KL_NAMES.get(v["algorithm.kl_penalty"], v["algorithm.kl_penalty"]) if kl_reward else None,
        "kl in reward coef": v["algorithm.kl_ctrl.kl_coef"] if kl_reward else None,
        "policy loss": LOSS_NAMES.get(mode, mode),
        "clip low": (v[A + "clip_ratio_low"] if v.get(A + "clip_ratio_low") is not None else clip) if clipped else None,
        "clip high": (v[A + "clip_ratio_high"] if v.get(A + "clip_ratio_high") is not None else clip) if clipped
        else None,
        "clip ratio c": (v.get(A + "clip_ratio_c") if sem.value("dual_clip") else "none") if mode == "vanilla"
        else None,
        "sapo tau_pos": v.get(A + "tau_pos") if mode == "sapo" else None,
        "sapo tau_neg": v.get(A + "tau_neg") if mode == "sapo" else None,
        "entropy coef": v[A + "entropy_coeff"],
        "loss agg mode": v[A + "loss_agg_mode"] if len(agg_modes) > 1 else agg_modes[0],
        "weight decay": v.get(A + "optim.weight_decay", 0.01),  # verl 0.1-0.3 read it with this default
        "gamma": v["algorithm.gamma"] if est in DISCOUNTED else None,
        "lam": v["algorithm.lam"] if est == "gae" else None,
        "critic lr": v["critic.optim.lr"] if est == "gae" else None,
        "total epochs": v["trainer.total_epochs"],
        "total steps": total * si if isinstance(total, int) and total > 0 else None,
        "rollout.n": n,
        "temperature": v["actor_rollout_ref.rollout.temperature"],
        "max prompt length": v["data.max_prompt_length"],
        "max response length": v["data.max_response_length"],
        # staleness: prompts generated ahead of the trainer, and experiences trained between weight updates
        "prompts ahead of the trainer": loop.ahead,
        "experiences between weight updates": batch * n * loop.sync_every,
    }
    if loop.rollout_gpus:  # a rollout on GPUs of its own: the explorer's, beside the trainer's
        out["rollout GPUs"] = loop.rollout_gpus[0] * loop.rollout_gpus[1]
        out["trainer GPUs"] = v["trainer.nnodes"] * v["trainer.n_gpus_per_node"]
    if (ratio > 0 and not out["warmup steps"]) or sched != "constant":
        total = total if loop.total_prompts is not None else _verl_total_steps(v, args, script)
        out["lr horizon"] = total * si if isinstance(total, int) else total
    return out


def _trinity_side(record: dict, wants_horizon: bool) -> dict:
    d, v = record["derived"], record["verl"]
    loss = d["algorithm.policy_loss_fn"]
    args = {**POLICY_DEFAULTS.get(loss, {}), **(d["algorithm.policy_loss_fn_args"] or {})}
    kl_loss, kl_reward = d["algorithm.kl_loss_fn"] != "none", d["algorithm.kl_penalty_fn"] != "none"
    entropy = d["algorithm.entropy_loss_fn"]
    adv, adv_args = d["algorithm.advantage_fn"], d["algorithm.advantage_fn_args"] or {}
    warmup = v.get("actor.optim.lr_warmup_steps")
    out = {
        "experiences per optimizer step": v["actor.ppo_mini_batch_size"],
        "optimizer steps per rollout batch": d["synchronizer.trainer_sync_interval"] * v["actor.ppo_epochs"],
        "ppo_epochs": v["actor.ppo_epochs"],
        "lr": v["actor.optim.lr"],
        "warmup steps": warmup if isinstance(warmup, int) and warmup > 0 else None,
        "warmup ratio": v.get("actor.optim.lr_warmup_steps_ratio") or 0.0,
        "lr scheduler": v.get("actor.optim.lr_scheduler_type") or v.get("actor.optim.lr_decay_style"),
        "kl loss": kl_loss,
        "kl loss type": d["algorithm.kl_loss_fn"] if kl_loss else None,
        "kl loss coef": d["algorithm.kl_loss_fn_args"]["kl_coef"] if kl_loss else None,
        "kl in reward": kl_reward,
        "kl in reward type": d["algorithm.kl_penalty_fn"] if kl_reward else None,
        "kl in reward coef": d["algorithm.kl_penalty_fn_args"]["kl_coef"] if kl_reward else None,
        "policy loss": loss,
        "clip low": args.get("clip_range_low", args.get("clip_range")),
        "clip high": args.get("clip_range_high", args.get("clip_range")),
        "clip ratio c": (args.get("clip_ratio_c") if args.get("clip_ratio_c", 0) < NO_DUAL_CLIP else "none")
        if loss == "ppo" else None,
        "sapo tau_pos": args.get("tau_pos") if loss == "sapo" else None,
        "sapo tau_neg": args.get("tau_neg") if loss == "sapo" else None,
        "entropy coef": 0.0 if entropy == "none" else (d["algorithm.entropy_loss_fn_args"] or {}).get(
            "entropy_coef", 0.0),
        "loss agg mode": args.get("loss_agg_mode", d["algorithm.loss_agg_mode"]),
        "weight decay": v["actor.optim.weight_decay"],
        "gamma": adv_args.get("gamma") if adv in ("ppo", "reinforceplusplus") else None,
        "lam": adv_args.get("lam") if adv == "ppo" else None,
        "critic lr": v["critic.optim.lr"] if adv == "ppo" else None,
        "total epochs": d["buffer.total_epochs"],
        "total steps": d["buffer.total_steps"] and d["buffer.total_steps"] * d["synchronizer.trainer_sync_interval"]
        // d["synchronizer.explorer_sync_interval"],  # explorer steps, in trainer steps
        "rollout.n": v["rollout.n"],
        "temperature": v["rollout.temperature"],
        "max prompt length": d["model.max_prompt_tokens"],
        "max response length": d["model.max_response_tokens"],
        "prompts ahead of the trainer": d["synchronizer.sync_offset"] * d["buffer.batch_size"],
        "experiences between weight updates": d["synchronizer.trainer_sync_interval"] * v["actor.ppo_mini_batch_size"],
        "rollout GPUs": d["cluster.rollout_gpu_num"],
        "trainer GPUs": d["cluster.trainer_gpu_num"],
    }
    if wants_horizon:
        total = v.get("actor.optim.total_training_steps", v.get("actor.optim.lr_decay_steps"))
        out["lr horizon"] = "sys.maxsize" if total == MAXSIZE else total
    return out


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))
    return a == b


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
            skipped.append((name, DAPO_SKIPPED))
            continue
        mine = _verl_side(effective, args, script)
        theirs = _trinity_side(record, "lr horizon" in mine)
        for key, value in mine.items():
            if _same(value, theirs[key]):
                continue
            why = explained.get((name, key))
            rows.append((name, key, str(value), str(theirs[key]), why or "UNEXPLAINED"))
            if why is None:
                unexplained.append(f"{name}: {key}: veRL {value!r}, Trinity {theirs[key]!r}")
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
    undocumented = sorted({why for why in explained.values() if why not in documented})
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
    assert len([1 for _, why in result["skipped"] if why != DAPO_SKIPPED]) <= 1, result["skipped"]
    _assert_explained(result, EXPLAINED)


@needs_corpus
def test_corpus_conversions_train_as_their_scripts(corpus_run, corpus_trinity, capsys):
    """The same comparison for every config the corpus converts to with exit 0 (LoRA configs whose adapter has no
    path are not compared: Trinity's expansion needs the model, see test_convert_corpus)."""
    records = corpus_trinity["records"]
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
    assert all("a LoRA adapter without path" in why or why == DAPO_SKIPPED for _, why in result["skipped"]), \
        result["skipped"]
    _assert_explained(result, CORPUS_EXPLAINED)
