"""Sizes from the input never cost time or memory in proportion to them: huge, negative and non-integer numbers in
every numeric override of the golden scripts, in --explorer-gpus and in a Trinity config's numeric fields end in
diagnostics within seconds, never a hang, an exhausted machine or an internal error. Also: the GPU split's search
is the exhaustive one, done without visiting every candidate."""

from __future__ import annotations

import random
import re
import resource
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rftc import api
from rftc.mapping.gpu import MAX_GPUS, Split, Workload, candidates, extra_nodes, score, solve, why_invalid
from rftc.mapping.parquet import ParquetError, num_rows
from rftc.shell import analyze
from support.cli import convert, launch, rftc
from support.paths import GOLDEN

CASES = sorted((GOLDEN / "convert" / "cases").glob("*.sh"))
CONFIGS = sorted((GOLDEN / "check" / "valid").glob("*.yaml"))
OVERRIDE_NUMBER = re.compile(r"(?<=[\w.]=)-?\d+(?:\.\d+)?(?:e-?\d+)?(?=[\s\\]|$)", re.M)
YAML_NUMBER = re.compile(r"(?<=: )-?\d+(?:\.\d+)?(?:e-?\d+)?(?=\s*(?:#.*)?$)", re.M)
HUGE = st.one_of(st.integers(-10**30, 10**30), st.sampled_from([2**63 - 1, 2**63, 2**63 + 1, -2**63 - 1, 0, -1]),
                 st.sampled_from([1e300, -1e300, 1e18, 2.5]))
SECONDS = 5  # per conversion or check; each takes well under one
MEMORY = 2 << 30  # bytes of address space a conversion may add to the test's own
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class OverTime(BaseException):
    """Raised by the alarm: not an Exception, so that no handler in rftc takes it for an input error."""


@contextmanager
def bounded():
    """The block fails past SECONDS, and a MemoryError stops it past MEMORY more address space."""
    def expire(*_):
        raise OverTime(f"more than {SECONDS} s")

    with open("/proc/self/statm") as f:
        used = int(f.read().split()[0]) * resource.getpagesize()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (min(used + MEMORY, hard) if hard > 0 else used + MEMORY, hard))
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def written(value) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def no_internal_error(result: api.Result) -> None:
    assert not [d for d in result.diagnostics if d.code == "RFTC002"], [str(d) for d in result.diagnostics]


@PROPERTY
@given(case=st.sampled_from(CASES), data=st.data())
def test_huge_numbers_in_the_overrides_of_a_golden_script(case: Path, data, tmp_path_factory):
    text = case.read_text()
    spots = list(OVERRIDE_NUMBER.finditer(text))
    spot = data.draw(st.sampled_from(spots))
    value = data.draw(HUGE)
    script = tmp_path_factory.mktemp("case") / case.name
    script.write_text(text[:spot.start()] + written(value) + text[spot.end():])
    with bounded():
        result = api.compile(str(script), api.Options(env={"HOME": "/home/u"}))
        if result.ok:
            result.yaml()
    no_internal_error(result)


@PROPERTY
@given(gpus=HUGE.filter(lambda v: isinstance(v, int)))
def test_huge_explorer_gpus(gpus):
    script = GOLDEN / "convert" / "cases" / "gpu_explorer_gpus.sh"
    with bounded():
        try:
            result = api.compile(str(script), api.Options(env={"HOME": "/home/u"}, explorer_gpus=gpus))
        except api.UsageError as e:  # rftc convert's exit status 2, with this message
            assert gpus <= 0 or gpus > MAX_GPUS, e
            return
    no_internal_error(result)


@PROPERTY
@given(config=st.sampled_from(CONFIGS), data=st.data())
def test_huge_numbers_in_a_trinity_config(config: Path, data):
    text = config.read_text()
    spots = list(YAML_NUMBER.finditer(text))
    picked = data.draw(st.lists(st.sampled_from(spots), min_size=1, max_size=3, unique_by=lambda m: m.start()))
    for spot in sorted(picked, key=lambda m: -m.start()):
        text = text[:spot.start()] + written(data.draw(HUGE)) + text[spot.end():]
    with bounded():
        result = api.check(config.name, text=text)
    no_internal_error(result)


def test_a_cluster_no_one_has_is_refused_naming_the_key_and_the_bound(tmp_path):
    script = launch(tmp_path, "data.train_files=/d/train.parquet", "data.val_files=/d/test.parquet",
                    "actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct", "trainer.n_gpus_per_node=8",
                    "trainer.nnodes=11099511627776")
    with bounded():
        done = convert(script, out=tmp_path / "out", status=1)
    (d,) = [d for d in done.errors() if d["code"] == "RFTC313"]
    assert d["key"] == "trainer.nnodes" and d["line"] == 1
    assert f"88796093022208 GPUs, more than the {MAX_GPUS} of any cluster" in d["message"]
    assert f"set trainer.nnodes to what the job runs on (at most {MAX_GPUS} GPUs" in d["hint"]
    run = rftc("convert", script, "--explorer-gpus", str(MAX_GPUS + 1), "--out-dir", tmp_path / "x")
    assert run.returncode == 2 and "of any cluster" in run.stderr and "Traceback" not in run.stderr


def test_an_engine_larger_than_any_cluster_is_refused(tmp_path):
    script = launch(tmp_path, "actor_rollout_ref.rollout.tensor_model_parallel_size=100000")
    with bounded():
        done = convert(script, out=tmp_path / "out", status=1)
    (d,) = [d for d in done.errors() if d["code"] == "RFTC313"]
    assert d["key"] == "actor_rollout_ref.rollout.tensor_model_parallel_size" and "one rollout engine" in d["message"]


def test_shell_constructs_that_would_run_long_are_bounded():
    launch_line = "python3 -m verl.trainer.main_ppo trainer.nnodes=1\n"
    for text in ["x=$((3**1000000000000)); y=$(( (1<<62) ** (1<<62) ))", "a[99999999999999]=1; echo ${#a[@]}",
                 "x=$(seq 1 1000000000)", "for ((i=0;i<10**15;i++)); do :; done", "echo {1..99999999999}",
                 "x=a; for i in $(seq 1 40); do x=$x$x; done", "while true; do :; done",
                 "x=$(printf '%*s' 1000000000000 '')", "x=abc; y=${x:99999999999999999999999:5}"]:
        with bounded():
            found = analyze(text + "\n" + launch_line, "bounds.sh")
        assert not [d for d in found.diagnostics if d.code == "RFTC002"], text
        assert len(found.invocations) == 1, text


def test_the_split_search_is_the_exhaustive_one():
    rnd = random.Random(0)
    for _ in range(3000):
        g = rnd.choice([1, 2, 4, 8, 8, 16])
        w = Workload(g * rnd.randint(1, 10), g, rnd.choice([1, 2, 3, 4, 8]), rnd.choice([[], [1], [2], [1, 2], [3]]),
                     rnd.choice([1, 2, 4, 8]), rnd.choice([12, 96, 100, 256, 2048]),
                     rnd.choice([[], [("a.m", 16)], [("a.m", 4), ("c.m", 32)]]), rnd.choice([rnd.random(), 0.5, 0.0]))
        forced = rnd.choice([None, None, w.engine_gpus, 3 * w.engine_gpus])
        found = [(score(w, s), i, s) for i, (s, why) in enumerate(candidates(w, forced)) if why is None]
        best, reasons = solve(w, forced)
        assert best == (min(found)[2] if found else None), (w, forced)
        if not found:
            assert reasons == [f"rollout {s.rollout_engines * w.engine_gpus}"
                               + (f" + auxiliary {s.aux_engines * sum(w.aux_gpus)}" if w.aux_gpus else "")
                               + f": {why}" for s, why in list(candidates(w, forced))[:5]]
        split, nodes, _ = extra_nodes(w, forced)
        assert (split, nodes) == _exhaustive_extra_nodes(w, forced), (w, forced)


def _exhaustive_extra_nodes(w: Workload, forced: int | None):
    """extra_nodes as a search through every rollout size on 1, 2, ... more nodes."""
    e, aux, g = w.engine_gpus, sum(w.aux_gpus), w.gpu_per_node
    if why_invalid(w, w.total):
        return None, 0
    for k in range(1, 2 * (e + aux) + 1):
        fits = [(abs((k * g - r) - r), r) for r in ([forced] if forced else range(e, k * g + 1, e))
                if ((k * g - r > 0 and (k * g - r) % aux == 0) if aux else r == k * g)]
        if fits:
            r = min(fits)[1]
            return Split(r // e, (k * g - r) // aux if aux else 0, w.total), k
    return None, 0


def test_a_corrupt_parquet_footer_is_an_error_not_a_loop(tmp_path):
    # FileMetaData whose field 1 is a list of 2**62 bools (type 1) in a few bytes: compact protocol list header 0xF1
    meta = bytes([0x19, 0xF1]) + bytes([0x80] * 8 + [0x40]) + b"\0"
    path = tmp_path / "corrupt.parquet"
    path.write_bytes(b"PAR1" + meta + len(meta).to_bytes(4, "little") + b"PAR1")
    with bounded(), pytest.raises(ParquetError, match="elements in"):
        num_rows(path)
    nested = bytes([0x1C] * 200) + b"\0" * 201  # struct within struct, 200 deep
    path.write_bytes(b"PAR1" + nested + len(nested).to_bytes(4, "little") + b"PAR1")
    with bounded(), pytest.raises(ParquetError, match="nested deeper"):
        num_rows(path)


def test_the_bound_is_the_one_the_diagnostics_reference_names():
    from rftc.diagnostics.catalogue import all_codes

    (code,) = [c for c in all_codes() if c.code == "RFTC313"]
    assert f"more than {MAX_GPUS} GPUs" in code.explanation



MAIN_PPO = ("algorithm.adv_estimator=grpo", "data.train_files=/d/train.parquet", "actor_rollout_ref.model.path=m",
            "actor_rollout_ref.rollout.name=vllm", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2",
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2", "trainer.total_training_steps=10")


def _numeric_keys() -> list[str]:
    """The main_ppo launch's keys whose value is an integer or null: where a count or size can be read."""
    from rftc.verl.overrides.apply import leaves

    eff = api.compile(overrides=" ".join(MAIN_PPO)).verl
    return sorted(k for k, v in leaves(eff.values, "") if v is None or type(v) is int)


NUMERIC_KEYS = _numeric_keys()
# what Hydra reads as a float where a setting takes an integer: infinity (a literal past 1.8e308), NaN, fractions
NOT_INTEGERS = st.one_of(st.sampled_from(["1e309", "-1e309", "inf", "nan", "2.5"]),
                         st.floats(allow_nan=False, allow_infinity=False).filter(lambda v: not v.is_integer())
                         .map(repr))


@contextmanager
def integer_reads():
    """The keys the mapping reads as integers (Draft.number with kind int) in the block, as a set filled in."""
    from rftc.mapping.draft import Draft

    read, number = set(), Draft.number

    def recording(self, key, kind=int, **kw):
        if kind is int:
            read.add(key)
        return number(self, key, kind, **kw)

    Draft.number = recording
    try:
        yield read
    finally:
        Draft.number = number


@PROPERTY
@given(key=st.sampled_from(NUMERIC_KEYS), value=NOT_INTEGERS)
def test_a_float_where_an_integer_is_read_is_a_diagnostic_at_its_line(key, value):
    with bounded(), integer_reads() as read:
        result = api.compile(overrides=f"{' '.join(MAIN_PPO)} {key}={value}")
    no_internal_error(result)
    if key in read:
        at = len(" ".join(MAIN_PPO)) + 2  # the override's column
        assert [d for d in result.diagnostics if d.key == key and d.severity.name == "ERROR" and d.span.col == at], \
            [str(d) for d in result.diagnostics]
        assert not result.ok


@pytest.mark.parametrize("command", ["convert", "verl-config", "lint", "diff"])
def test_infinity_in_a_length_is_refused_at_its_line(tmp_path, command):
    script = launch(tmp_path, "data.max_prompt_length=1e309")
    args = {"convert": ("--out-dir", tmp_path / "out", "--format", "concise"), "diff": (script, "--format", "concise"),
            "lint": ("--format", "concise")}.get(command, ())
    run = rftc(command, script, *args)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "error[RFTC227]" in run.stderr and "'data.max_prompt_length' is inf: float infinity" in run.stderr
    assert "run.sh:1:34" in run.stderr, run.stderr  # at the override


def test_nan_in_a_number_and_infinity_in_a_float_bound():
    result = api.compile(overrides=" ".join(MAIN_PPO) + " actor_rollout_ref.actor.optim.lr=nan")
    (d,) = [d for d in result.diagnostics if d.code == "RFTC227"]
    assert d.key == "actor_rollout_ref.actor.optim.lr" and "NaN" in d.message and not result.ok
    # a float setting may be unbounded: clip_ratio_c=inf is a dual clip no ratio reaches
    result = api.compile(overrides=" ".join(MAIN_PPO) + " actor_rollout_ref.actor.clip_ratio_c=inf")
    assert "RFTC227" not in {d.code for d in result.diagnostics}
