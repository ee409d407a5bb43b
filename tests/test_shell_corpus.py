"""Conformance over the corpus of real veRL launch scripts (../shared/corpus/verl from the repository root):
every script is read without an exception or internal error, and every main_ppo launch is found.

Reference counts (shared/reference/verl.md section 2): 175 main_ppo invocations in 175 files.
"""

import collections
import time

import pytest

from rftc.shell import analyze
from support.paths import CORPUS, needs_corpus

pytestmark = needs_corpus


@pytest.fixture(scope="module")
def results():
    out = {}
    start = time.perf_counter()
    for path in sorted(CORPUS.rglob("*.sh")):
        name = str(path.relative_to(CORPUS))
        out[name] = analyze(path.read_text(encoding="utf-8", errors="replace"), str(path))
    out["__seconds__"] = time.perf_counter() - start
    return out


def test_corpus_reads_without_errors_and_finds_every_main_ppo_launch(results):
    seconds = results.pop("__seconds__")
    kinds = collections.Counter()
    codes = collections.Counter()
    main_files = 0
    for name, r in results.items():
        assert not [d for d in r.diagnostics if d.code in ("RFTC002", "RFTC100", "RFTC101")], (name, r.diagnostics)
        for d in r.diagnostics:
            codes[d.code] += 1
        ks = [i.kind for i in r.invocations]
        kinds.update(ks)
        main_files += "main_ppo" in ks
    print(f"\n{len(results)} scripts in {seconds:.2f} s ({seconds / len(results) * 1000:.1f} ms each)")
    print("launches by kind:", dict(sorted(kinds.items())))
    print("files with a main_ppo launch:", main_files)
    print("diagnostics by code:", dict(sorted(codes.items())))
    assert len(results) == 271
    assert kinds["main_ppo"] == 175 and main_files == 175


def test_corpus_broken_continuations_are_reported(results):
    results.pop("__seconds__", None)
    found = {(name, d.code, d.span.line) for name, r in results.items() for d in r.diagnostics
             if d.code in ("RFTC102", "RFTC103", "RFTC105")}
    assert ("examples/grpo_trainer/run_qwen3_vl-30b-megatron.sh", "RFTC102", 73) in found
    assert ("examples/grpo_trainer/run_qwen3_vl-30b-megatron.sh", "RFTC105", 74) in found
    assert ("examples/ppo_trainer/run_deepseek7b_llm_pfppo.sh", "RFTC103", 6) in found
    assert ("examples/ppo_trainer/run_deepseek7b_llm_pfppo.sh", "RFTC105", 7) in found
    # what veRL runs: the overrides before the cut, and (pfppo) the lone ' ' argument
    inv = results["examples/ppo_trainer/run_deepseek7b_llm_pfppo.sh"].invocations[0]
    assert [a.text for a in inv.args] == ["algorithm.adv_estimator=gae", "algorithm.use_pf_ppo=True",
                                          "algorithm.pf_ppo.reweight_method=pow", " "]


def test_corpus_array_and_string_styles(results):
    results.pop("__seconds__", None)
    inv = results["tests/special_e2e/run_fully_async_policy.sh"].invocations[0]
    assert inv.kind == "experimental" and len(inv.overrides) == 62 + 15  # the common array, then the fsdp2 branch
    assert inv.overrides[0].text == "data.train_files=${oc.env:HOME}/data/gsm8k/train.parquet"
    sapo = results["examples/sapo_trainer/run_qwen30b_sapo.sh"].invocations[-1]
    assert (sapo.launcher, sapo.config_name.text) == ("srun", "ppo_trainer")
    lr = next(a for a in sapo.overrides if a.text.startswith("actor_rollout_ref.actor.optim.lr="))
    assert (lr.text, lr.span.line) == ("actor_rollout_ref.actor.optim.lr=1e-6", 185)


@pytest.mark.parametrize("name, key, text", [
    ("examples/sglang_multiturn/run_qwen2.5-3b_gsm8k_multiturn.sh", "trainer.experiment_name",
     "trainer.experiment_name=qwen2.5-3b_baseline_${now:%d-%H-%M}"),
    ("examples/gspo_trainer/run_qwen3_32b_gspo_npu.sh", "actor_rollout_ref.actor.ppo_max_token_len_per_gpu",
     # sp_size is set only after this line: bash divides by 0 there
     "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=${oc.env:RFTC_ARITH}"),
])
def test_run_time_values_stay_one_hydra_word(name, key, text):
    from hydra.core.override_parser.overrides_parser import OverridesParser

    path = CORPUS / name
    inv = analyze(path.read_text(encoding="utf-8"), str(path)).invocations[0]
    args = [a.text for a in inv.args if a.text.startswith(key + "=")]
    assert args == [text]
    OverridesParser.create().parse_override(text)  # raises when Hydra cannot parse it
