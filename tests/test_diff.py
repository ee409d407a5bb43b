"""`rftc diff`: what two configs train differently, by the semantic model (rftc.semantics).

- every golden conversion (golden/convert/**/NAME.sh -> NAME.yaml) differs from its script exactly in the quantities
  golden/convert/DEVIATIONS.md explains (tests/test_convert_equivalence.py's explain()): `rftc diff` of a script
  and its conversion exits 0 where it explains none;
- golden/diff/CASE/ holds a pair (a.sh or a.yaml, b.yaml) reproducing a difference Trinity-RFT users report, and
  expected.txt, the table `rftc diff` prints (read by hand);
- a config compared with itself prints nothing and exits 0; --format json; a side with no run is RFTC600.
"""

from __future__ import annotations

import json

import pytest

from rftc import api, compare
from support import paths
from support.cli import launch, rftc
from rftc.semantics.model import differences, quantities
from test_convert_equivalence import BY_PAIR, BY_VALUE, CASES, EXPLAINED, GOLDEN, MICRO_LABEL, _args, explain

DIFF = paths.GOLDEN / "diff"
PAIRS = sorted(p for p in DIFF.iterdir() if p.is_dir())


@pytest.mark.parametrize("script", CASES, ids=lambda s: str(s.relative_to(GOLDEN)))
def test_a_conversion_differs_from_its_script_only_where_documented(script):
    """... in the quantities golden/convert/DEVIATIONS.md explains, and nothing else."""
    from rftc.commands import convert

    result = compare.diff(str(script), str(script.with_suffix(".yaml")), convert.options(_args(script)))
    assert result.a.run is not None and result.b.run is not None, [str(d) for d in result.diagnostics]
    name = str(script.relative_to(GOLDEN))
    undocumented = [f"{q.label}: {a} / {b}" for q, a, b in result.differences
                    if explain(name, q.label, a.value, EXPLAINED, b.value) is None]
    assert not undocumented
    found = {q.label for q, _, _ in result.differences}
    verl = {q.label: getattr(result.a.run, q.name).value for q in quantities()}
    trinity = {q.label: getattr(result.b.run, q.name).value for q in quantities()}
    documented = {key for key, test, _ in BY_VALUE if key in verl and test(verl[key])}
    documented |= {key for key, test, _ in BY_PAIR if key in verl and test(verl[key], trinity[key])}
    documented |= {key for case, key in EXPLAINED if case == name}
    assert found == documented
    if not documented:  # what `rftc diff SCRIPT NAME.yaml` decides its exit status by
        assert not result.differences and not result.diagnostics.has_errors


def test_a_script_and_its_conversion_differ_only_in_what_the_conversion_warned_of():
    """`rftc diff` of a script and its conversion exits 1 on the one difference the conversion warned of: Trinity adds
    up its token-budget micro-batches' losses, veRL 0.9.1's engine normalises by the mini-batch (RFTC305)."""
    case = GOLDEN / "run_deepseek7b_llm_seq_balance.sh"
    proc = rftc("diff", case.name, case.with_suffix(".yaml").name, "--format", "json", cwd=case.parent)
    assert proc.returncode == 1
    assert [d["quantity"] for d in json.loads(proc.stdout)["differences"]] == ["microbatch_loss"]
    assert "RFTC305" in case.with_suffix(".stderr").read_text()


@pytest.mark.parametrize("case", PAIRS, ids=lambda p: p.name)
@pytest.mark.usefixtures("plain_terminal")
def test_golden_diff(case):
    a = next(p.name for p in sorted(case.glob("a.*")))
    proc = rftc("diff", a, "b.yaml", "--color", "never", cwd=case)
    assert proc.stderr == ""
    assert proc.stdout == (case / "expected.txt").read_text()
    assert proc.returncode == 1


def test_the_table_groups_and_wraps_to_its_width():
    """Under GROUPS' headings in their order, the model's order within a group; every line within the width, and
    every value, origin and effect whole (a line breaks only at a space, or inside a word longer than the width);
    the colour form is the same text."""
    import re
    from dataclasses import replace

    from rftc.commands.diff import _table
    from rftc.semantics.model import GROUPS, Value

    case = DIFF / "epochs_vs_total_epochs"
    result = compare.diff(str(case / "a.sh"), str(case / "b.yaml"), api.Options())
    q, a, b = result.differences[0]
    long = (q, Value("/models/" + "x" * 150 + " two words", a.source + ", " + a.source), Value("1\n2", b.source))
    result = replace(result, differences=[long, *result.differences])
    order = [g for g in GROUPS if any(q.group == g for q, _, _ in result.differences)]
    for width in (60, 100):
        text = _table(result, width, color=False)
        assert max(len(line) for line in text.splitlines()) <= width
        headings = [line.split()[1:-1] for line in text.splitlines() if line.startswith("--- ")]
        assert [" ".join(h) for h in headings] == order
        blocks = re.split(r"^--- .*$", text, flags=re.M)[1:]
        for group, block in zip(order, blocks):
            labels = [q.label for q, _, _ in result.differences if q.group == group]
            assert [line for line in block.splitlines() if line in labels] == labels
        flat = "".join(text.split())
        for q, a, b in result.differences:
            for part in (str(a), a.source, str(b), b.source, q.effect):
                assert "".join(part.split()) in flat
        colored = _table(result, width, color=True)
        assert [line.rstrip() for line in re.sub(r"\x1b\[[0-9;]*m", "", colored).splitlines()] == text.splitlines()


def test_the_table_width(monkeypatch):
    """A terminal's own width, at least MIN_WIDTH; WIDTH where the output is a file or a pipe."""
    from rftc.commands.diff import MIN_WIDTH, WIDTH, _width

    class Terminal:
        def __init__(self, tty):
            self.tty = tty

        def isatty(self):
            return self.tty

    for columns, tty, width in ((150, True, 150), (30, True, MIN_WIDTH), (150, False, WIDTH)):
        monkeypatch.setenv("COLUMNS", str(columns))
        assert _width(Terminal(tty)) == width


@pytest.mark.usefixtures("plain_terminal")
def test_same_config_prints_nothing_and_exits_0():
    case = DIFF / "sync_interval_staleness"
    proc = rftc("diff", "a.yaml", "a.yaml", cwd=case)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


@pytest.mark.usefixtures("plain_terminal")
def test_json():
    proc = rftc("diff", "a.sh", "b.yaml", "--format", "json", cwd=DIFF / "logprobs_loss_agg")
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and out["compared"]
    by_name = {d["quantity"]: d for d in out["differences"]}
    assert set(by_name) == {"loss_agg_mode", "logprob_source", "microbatch_loss"}
    agg = by_name["loss_agg_mode"]
    assert (agg["a"]["value"], agg["b"]["value"]) == ("seq-mean-token-mean", "token-mean")
    assert agg["a"]["source"] == "a.sh:9 actor_rollout_ref.actor.loss_agg_mode"
    assert agg["effect"]


LAUNCH = ("python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_files=train.parquet "
          "data.train_batch_size=16 actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B "
          "actor_rollout_ref.actor.ppo_mini_batch_size=8 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 "
          "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 "
          "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.n=4 "
          "trainer.total_training_steps=10")


@pytest.mark.usefixtures("plain_terminal")
def test_launches_differing_in_a_tokenizer_differ_in_their_chat_template(tmp_path):
    """A setting once compared key by key (the tokenizer the rows are rendered with) is a quantity's: exit 1, in the
    table and in --format json."""
    for name, tokenizer in (("a.sh", "/tok_a"), ("b.sh", "/tok_b")):
        (tmp_path / name).write_text(f"{LAUNCH} actor_rollout_ref.model.tokenizer_path={tokenizer}\n")
    result = compare.diff(str(tmp_path / "a.sh"), str(tmp_path / "b.sh"), api.Options())
    assert [q.name for q, _, _ in result.differences] == ["chat_template"]
    proc = rftc("diff", "a.sh", "b.sh", cwd=tmp_path)
    assert proc.returncode == 1 and "tokenizer /tok_a" in proc.stdout
    out = json.loads(rftc("diff", "a.sh", "b.sh", "--format", "json", cwd=tmp_path).stdout)
    assert [d["quantity"] for d in out["differences"]] == ["chat_template"]
    assert rftc("diff", "a.sh", "a.sh", cwd=tmp_path).returncode == 0


def test_configs_differing_in_the_rollout_engines_rope_differ_in_the_model_config(tmp_path):
    """The rollout engine's RoPE theta (a field once compared key by key) is the model config's."""
    base = (GOLDEN / "run_deepseek7b_llm_seq_balance.yaml").read_text()
    (tmp_path / "a.yaml").write_text(base)
    assert "\n  rollout_model:\n" in base and "rope_theta" not in base
    (tmp_path / "b.yaml").write_text(base.replace("\n  rollout_model:\n", "\n  rollout_model:\n    rope_theta: 500000\n"))
    result = compare.diff(str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), api.Options(dataset_size=7473))
    assert [q.name for q, _, _ in result.differences] == ["model_config"]


def test_a_launch_and_its_conversion_have_one_context_length(tmp_path):
    """veRL's null rollout.max_model_len and the sum Trinity's validator fills in are one value of the model."""
    from rftc.commands import convert

    script = GOLDEN / "run_deepseek7b_llm_seq_balance.sh"
    result = compare.diff(str(script), str(script.with_suffix(".yaml")), convert.options(_args(script)))
    assert [q.name for q, _, _ in result.differences] == ["microbatch_loss"]  # RFTC305 of the conversion
    assert result.a.run.context_length.value == result.b.run.context_length.value == 512 + 512


def test_kind_by_content(tmp_path):
    config = tmp_path / "config"
    config.write_text("mode: both\nalgorithm:\n  algorithm_type: grpo\n")
    script = tmp_path / "launch"
    script.write_text("python3 -m verl.trainer.main_ppo trainer.nnodes=1\n")
    assert (compare.kind_of(str(config), config.read_text()), compare.kind_of(str(script), script.read_text())) == \
        ("trinity", "verl")


SFT = sorted((GOLDEN / "sft").glob("*.sh"))


@pytest.mark.parametrize("script", SFT, ids=lambda s: s.name)
def test_an_sft_conversion_differs_from_its_script_only_where_documented(script):
    """SFT runs have their own quantities (rftc.semantics.model.SftRun); a conversion differs from its script only
    where golden/convert/DEVIATIONS.md says why (BY_VALUE), and `rftc diff` exits 0 where it differs in none."""
    from rftc.commands import convert

    result = compare.diff(str(script), str(script.with_suffix(".yaml")), convert.options(_args(script)))
    assert result.a.run is not None and result.b.run is not None, [str(d) for d in result.diagnostics]
    undocumented = [f"{q.label}: {a} / {b}" for q, a, b in result.differences
                    if explain(script.name, q.label, a.value, {}, b.value) is None]
    assert not undocumented


@pytest.mark.usefixtures("plain_terminal")
def test_an_sft_script_and_its_conversion_differ_only_in_what_the_conversion_warned_of():
    """The engine SFT trainer normalises by the step's tokens, Trinity adds up its token-budget micro-batches'
    losses: the one difference, which the conversion warned of (RFTC331)."""
    sft = GOLDEN / "sft"
    proc = rftc("diff", "vlm_qwen3_vl_2b.sh", "vlm_qwen3_vl_2b.yaml", *paths.arguments(sft / "vlm_qwen3_vl_2b.args"),
                "--format", "json", cwd=sft)
    assert proc.returncode == 1 and proc.stderr == "[]\n"  # json: no diagnostics
    assert [d["quantity"] for d in json.loads(proc.stdout)["differences"]] == ["microbatch_loss"]
    assert "RFTC331" in (sft / "vlm_qwen3_vl_2b.stderr").read_text()


@pytest.mark.usefixtures("plain_terminal")
def test_sft_against_rl_is_refused_with_a_reason():
    """An SFT run and an RL run have no quantity in common: RFTC600 says which trains by what, not a crash."""
    sft = GOLDEN / "sft" / "gsm8k_qwen_05_peft.yaml"
    proc = rftc("diff", str(sft), "b.yaml", "--format", "concise", cwd=DIFF / "logprobs_loss_agg")
    assert proc.returncode == 1 and proc.stdout == "" and "RFTC002" not in proc.stderr, proc.stderr
    assert proc.stderr.count("error[RFTC600]") == 1
    assert "it trains by reinforcement learning" in proc.stderr and "by SFT" in proc.stderr


@pytest.mark.usefixtures("plain_terminal")
def test_an_overrides_side(tmp_path):
    """--overrides TEXT is side A, as `rftc convert --overrides` reads it: the script's launch as override text
    trains what its conversion trains but for the micro-batch loss it warned of; a config that differs exits 1
    naming the quantity, A's source <overrides>."""
    case = GOLDEN / "run_deepseek7b_llm_seq_balance.sh"
    lines = case.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if "verl.trainer.main_ppo" in line) + 1
    text = " ".join(line.strip().removesuffix("\\").removesuffix("$@").strip() for line in lines[start:]
                    if line.strip())
    config = case.with_suffix(".yaml")
    proc = rftc("diff", "--overrides", text, config.name, "--format", "json", cwd=case.parent)
    assert proc.returncode == 1 and proc.stderr == "[]\n"  # json: no diagnostics
    assert [d["quantity"] for d in json.loads(proc.stdout)["differences"]] == ["microbatch_loss"]
    other = tmp_path / "lr.yaml"
    other.write_text(config.read_text().replace("lr: 1e-06 ", "lr: 2e-06 ", 1))
    proc = rftc("diff", "--overrides", text, str(other), "--format", "json")
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and out["a"]["path"] == "<overrides>"
    [lr] = [d for d in out["differences"] if d["quantity"] != "microbatch_loss"]
    assert (lr["quantity"], lr["a"]["value"], lr["b"]["value"]) == ("lr", 1e-06, 2e-06)
    assert lr["a"]["source"] == "<overrides>:1 actor_rollout_ref.actor.optim.lr"
    assert rftc("diff", "--overrides", text, "a.yaml", "b.yaml").returncode == 2


PIPELINE = paths.GOLDEN / "pipeline" / "sft_grpo"
GRPO = GOLDEN / "cases" / "algo_grpo_kl_loss.sh"  # the pipeline's second launch


@pytest.mark.usefixtures("plain_terminal")
def test_a_config_with_stages_is_compared_stage_by_stage():
    """Trinity trains each stage, never the global sections as written: --stage picks one, by stage_name or 1-based
    position, and the pipeline's RL stage trains what its launch trains but for the model it starts from (and holds
    its KL to): the SFT stage's checkpoint, as the conversion warned (RFTC334); without --stage RFTC604 names the
    stages, and a stage the config lacks is a usage error listing them."""
    for stage in ("algo_grpo_kl_loss", "2"):
        result = compare.diff(str(GRPO), str(PIPELINE / "expected.yaml"), stage=stage)
        assert {q.label for q, _, _ in result.differences} == {"model", "reference model", MICRO_LABEL}
        assert result.differences[0][2].value == "the last Hugging Face checkpoint of stage sft (known when it has run)"
    assert "RFTC334" in (PIPELINE / "expected.stderr").read_text()
    proc = rftc("diff", str(GRPO), "expected.yaml", "--format", "concise", cwd=PIPELINE)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == ("expected.yaml:79:1: error[RFTC604] the config runs 2 stages (sft, algo_grpo_kl_loss): "
                           "compare one with --stage NAME\n")
    proc = rftc("diff", str(GRPO), "expected.yaml", "--stage", "grpo", cwd=PIPELINE)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert "--stage grpo" in proc.stderr and "sft, algo_grpo_kl_loss" in proc.stderr
    proc = rftc("diff", str(GRPO), str(GRPO.with_suffix(".yaml")), "--stage", "sft", cwd=PIPELINE)
    assert proc.returncode == 2 and "neither side" in proc.stderr


def test_the_sft_stage_differs_from_its_launch_only_where_documented():
    """The SFT stage is the global config with the stage's sections laid over it: its values come from the stage's
    lines, and it differs from sft.sh only in what golden/convert/DEVIATIONS.md explains (BY_VALUE)."""
    result = compare.diff(str(PIPELINE / "sft.sh"), str(PIPELINE / "expected.yaml"),
                      api.Options(dataset_size=int(paths.arguments(PIPELINE / "args")[1])), stage="sft")
    assert result.b.stage == "sft" and not result.diagnostics.has_errors
    documented = {MICRO_LABEL, "tokens with loss"}
    # RFTC331 and RFTC300 of the conversion warn
    assert {q.label for q, a, b in result.differences if explain("sft.sh", q.label, a.value, {}, b.value)} == documented
    assert {q.label for q, _, _ in result.differences} == documented
    lines = (PIPELINE / "expected.yaml").read_text().splitlines()
    line = int(result.b.run.lr.source.split()[0].split(":")[1])
    stages = next(i for i, text in enumerate(lines, 1) if text.startswith("stages:"))
    assert lines[line - 1].strip().startswith("lr: 0.0001") and line > stages


def test_a_later_stage_starts_from_the_checkpoint_before_it(tmp_path):
    """Trinity's launcher sets a stage's model.model_path to the checkpoint the stage before it saved: a path only
    the run knows, from the stage's place in the order."""
    import yaml

    config = yaml.safe_load((PIPELINE / "expected.yaml").read_text())
    config["stages"].append({**config["stages"][0], "stage_name": "again"})
    path = tmp_path / "three.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    result = compare.diff(str(PIPELINE / "sft.sh"), str(path), api.Options(dataset_size=7473), stage="again")
    [model] = [(b.value, b.source) for q, _, b in result.differences if q.name == "model"]
    assert model[0] == "the last Hugging Face checkpoint of stage algo_grpo_kl_loss (known when it has run)"
    assert model[1].startswith("three.yaml:") and "stages.2" in model[1]


# A plain GRPO launch of veRL 0.9.1 with a custom reward function: each case changes one setting
BASE = ("algorithm.adv_estimator=grpo", "data.train_files=/data/gsm8k/train.parquet", "data.train_batch_size=16",
        "data.max_prompt_length=512", "data.max_response_length=512", "actor_rollout_ref.model.path=/models/qwen-0.5b",
        "actor_rollout_ref.actor.ppo_mini_batch_size=8", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
        "actor_rollout_ref.actor.use_kl_loss=True", "actor_rollout_ref.rollout.name=vllm",
        "actor_rollout_ref.rollout.n=4", "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2",
        "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=1", "trainer.n_gpus_per_node=2", "trainer.nnodes=1",
        "trainer.total_epochs=1", "reward.custom_reward_function.path=/rewards/r.py",
        "reward.custom_reward_function.name=score")


def _launch(folder, *changes: str):
    """BASE with ``changes`` (KEY=VALUE replaces KEY's override, or adds it; -KEY drops it)."""
    keys = {c.lstrip("-").split("=", 1)[0] for c in changes}
    folder.mkdir(exist_ok=True)
    return launch(folder, *[o for o in BASE if o.split("=", 1)[0] not in keys],
                  *[c for c in changes if not c.startswith("-")])


def _differ(tmp_path, a: tuple, b: tuple, release: str = "0.9.1") -> set[str]:
    result = compare.diff(str(_launch(tmp_path / "a", *a)), str(_launch(tmp_path / "b", *b)),
                          api.Options(verl_version=release, dataset_size=1000))
    assert result.a.run is not None and result.b.run is not None, [str(d) for d in result.diagnostics]
    return {q.name for q, _, _ in result.differences}


@pytest.mark.parametrize("change,quantities", [
    ("actor_rollout_ref.model.path=/models/qwen-7b", {"model", "reference_model"}),
    ("data.train_files=/data/math/train.parquet", {"data"}),
    ("data.train_files=[/data/gsm8k/train.parquet,/data/math/train.parquet]", {"data"}),
    ("data.prompt_key=question", {"data_columns"}),
    ("data.reward_fn_key=source", {"data_columns"}),
    ("data.train_max_samples=100", {"max_samples"}),
    ("data.shuffle=False", {"data_order"}),
    ("data.seed=7", {"data_order"}),
    ("reward.custom_reward_function.name=other", {"reward"}),
    ("+reward.custom_reward_function.reward_kwargs.scale=2", {"reward_kwargs"}),
    ("actor_rollout_ref.model.custom_chat_template=x", {"chat_template"}),
    ("actor_rollout_ref.actor.use_kl_loss=False", {"kl_loss", "kl_loss_coef", "reference_model", "precision"}),
])
def test_a_changed_input_is_reported(change, quantities, tmp_path):
    assert _differ(tmp_path, (), (change,)) == quantities


@pytest.mark.parametrize("a,b", [
    (("data.train_files=/data/gsm8k/train.parquet",), ("data.train_files=[/data/gsm8k/train.parquet]",)),
    (("data.train_files=$HOME/data/gsm8k/train.parquet",),
     ("data.train_files='${oc.env:HOME}/data/gsm8k/train.parquet'",)),
    (("actor_rollout_ref.model.path=$HOME/m",), ("actor_rollout_ref.model.path='${oc.env:HOME}/m'",)),
    # verl 0.9's main_ppo no longer reads the legacy custom_reward_function (RFTC212)
    (("custom_reward_function.path=/rewards/other.py",), ()),
])
def test_equal_inputs_written_differently(a, b, tmp_path):
    assert _differ(tmp_path, a, b) == set()


def _trinity_run(path):
    from rftc.semantics.trinity import from_trinity, view
    from rftc.trinity.document import parse

    checked = api.check(str(path))
    assert checked.config is not None, [str(d) for d in checked.diagnostics]
    return from_trinity(view(checked.config, parse(path.read_text(), str(path))[0]))


@pytest.mark.parametrize("old,new,quantity", [
    ("model_path: ${oc.env:HOME}/models/Qwen2-7B-Instruct", "model_path: /models/other", "model"),
    ("path: ${oc.env:HOME}/data/math ", "path: /data/other ", "data"),
    ("split: train ", "split: test ", "data"),
    ("prompt_key: prompt ", "prompt_key: question ", "data_columns"),
    ("selector_type: shuffle ", "selector_type: sequential ", "data_order"),
])
def test_a_changed_trinity_input_is_reported(old, new, quantity, tmp_path):
    config = GOLDEN / "run_qwen2-7b_rm.yaml"
    changed = tmp_path / "c.yaml"
    assert old in config.read_text()
    changed.write_text(config.read_text().replace(old, new, 1))
    assert quantity in {q.name for q, _, _ in differences(_trinity_run(config), _trinity_run(changed))}


def test_a_verl_file_is_trinitys_path_and_split(tmp_path):
    """dir/train.parquet names the file Trinity's reader opens for path dir, split train; dir/test.parquet is
    another."""
    from rftc.semantics.inputs import trinity_files, verl_files

    assert verl_files("/d/gsm8k/train.parquet") == trinity_files([("/d/gsm8k", "train", None)])
    assert verl_files(["/d/x.parquet"]) == trinity_files([("/d/x.parquet", "train", None)])
    assert verl_files("/d/gsm8k/test.parquet") != trinity_files([("/d/gsm8k", "train", None)])
    assert verl_files("/d/gsm8k/train.parquet") != trinity_files([("/d/gsm8k", "train", "main")])


def test_a_trainer_that_migrates_the_legacy_reward_keys_reads_them(tmp_path):
    """verl 0.8's main_ppo migrates custom_reward_function.* into reward.*, a legacy key that is set winning
    (migrate_legacy_reward_impl); 0.9's reads reward.* only."""
    legacy = ("custom_reward_function.path=/rewards/other.py",)
    assert _differ(tmp_path, (), legacy, "0.8.0") == {"reward"}
    assert _differ(tmp_path, (), legacy, "0.9.1") == set()


def test_a_value_only_the_environment_knows_is_named_not_a_crash(tmp_path):
    """A batch size from a variable the script leaves to its caller: the run's quantities cannot be computed, so
    RFTC600 names the key (at the launch's command) and --env gives it; never an internal error."""
    overrides = ("algorithm.adv_estimator=grpo", "data.train_batch_size=$BS", "actor_rollout_ref.rollout.n=4",
                 "actor_rollout_ref.actor.ppo_mini_batch_size=64", "actor_rollout_ref.rollout.name=vllm",
                 "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
                 "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2")
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        launch(tmp_path / name, *overrides)
    proc = rftc("diff", "a/run.sh", "b/run.sh", "--format", "concise", cwd=tmp_path)
    assert proc.returncode == 1 and "RFTC002" not in proc.stderr
    assert "a/run.sh:1:1: error[RFTC600] a/run.sh: no training run to compare: its quantities cannot be computed, " \
           "data.train_batch_size only known when the script runs" in proc.stderr
    proc = rftc("diff", "a/run.sh", "b/run.sh", "--env", "BS=128", cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
