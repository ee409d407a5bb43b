"""The verl release a repository pins (rftc.verl.releases.pins): every packaging format, which file decides, what is
passed over; the launches of golden/launch-resolution/pinned/ composed under the pinned release; and key matching
that prefers a release where veRL starts (the launch of C7: 0.9.1 with a note, not 0.3.0.post1 and a refusal)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rftc import api
from rftc.verl.releases import pins
from support.paths import GOLDEN

PINNED = GOLDEN / "launch-resolution" / "pinned"


def _pins(tmp_path: Path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    pins.pinned.cache_clear()
    return [(p.file.name, p.line, p.versions, bool(p.passed)) for p in pins.pinned(tmp_path)]


@pytest.mark.parametrize("files, expected", [
    ({"uv.lock": '[[package]]\nname = "torch"\nversion = "2.4.0"\n\n[[package]]\nname = "verl"\nversion = "0.4.1"\n'},
     [("uv.lock", 6, ("0.4.1",), False)]),
    ({"poetry.lock": '[[package]]\nname = "verl"\nversion = "0.5.0"\ndescription = ""\n'},
     [("poetry.lock", 2, ("0.5.0",), False)]),
    ({"requirements.txt": "# env\ntorch\nverl==0.3.0.post1\n"}, [("requirements.txt", 3, ("0.3.0.post1",), False)]),
    ({"requirements-train.txt": "-e git+https://github.com/volcengine/verl.git@v0.4.1#egg=verl\n"},
     [("requirements-train.txt", 1, ("0.4.1",), False)]),
    ({"pyproject.toml": '[project]\nname = "x"\ndependencies = [\n  "verl~=0.4.0",\n]\n'
                        '[project.optional-dependencies]\nnew = ["verl==0.9.1"]\n'},
     [("pyproject.toml", 4, ("0.4.1", "0.4.0"), False)]),
    ({"setup.py": 'from setuptools import setup\nsetup(name="x", install_requires=["numpy", "verl==0.2"],\n'
                  '      extras_require={"a": ["verl==0.9.1"]})\n'}, [("setup.py", 2, ("0.2",), False)]),
    ({"setup.cfg": "[metadata]\nname = x\n[options]\ninstall_requires =\n    numpy\n    verl==0.5.0\n"},
     [("setup.cfg", 6, ("0.5.0",), False)]),
    ({"scripts/setup_env.sh": "set -e\ngit clone --branch v0.4.0 https://github.com/volcengine/verl\n"},
     [("setup_env.sh", 2, ("0.4.0",), False)]),
    # passed over: a branch, a commit, a release with no bundled schema, a submodule
    ({"requirements.txt": "verl @ git+https://github.com/volcengine/verl@main\n"}, [("requirements.txt", 1, (), True)]),
    ({"install.sh": "git clone -b 1a2b3c4d https://github.com/me/verl.git\n"}, [("install.sh", 1, (), True)]),
    ({"requirements.txt": "verl==0.12.0\n"}, [("requirements.txt", 1, (), True)]),
    ({".gitmodules": '[submodule "verl"]\n  path = verl\n  url = https://github.com/volcengine/verl.git\n'},
     [(".gitmodules", 3, (), True)]),
    # not a pin: an unversioned requirement, an extra, veRL's own project (a fork), a local path
    ({"requirements.txt": "verl\nfoo[verl]==1\n"}, []),
    ({"requirements.txt": 'verl==0.4.1; extra == "rl"\n'}, []),
    ({"pyproject.toml": '[project]\nname = "verl"\ndependencies = ["verl==0.4.1"]\n'}, []),
    ({"setup.py": 'from setuptools import setup\nsetup(name="verl", install_requires=["verl==0.4.1"])\n'}, []),
    ({"uv.lock": '[[package]]\nname = "verl"\nversion = "0.4.1"\nsource = { editable = "verl" }\n'}, []),
])
def test_each_format(tmp_path, files, expected):
    assert _pins(tmp_path, files) == expected


def test_a_lock_decides_before_requirements_before_packaging_before_scripts(tmp_path):
    found = _pins(tmp_path, {"install.sh": "git clone -b v0.2 https://github.com/volcengine/verl.git\n",
                             "setup.py": 'setup(install_requires=["verl==0.3.0.post1"])\n',
                             "requirements.txt": "verl==0.4.0\n",
                             "uv.lock": '[[package]]\nname = "verl"\nversion = "0.4.1"\n'})
    assert [f for f, *_ in found] == ["uv.lock", "requirements.txt", "setup.py", "install.sh"]


GIT_LOCKS = {
    "poetry.lock": '[[package]]\nname = "verl"\nversion = "0.1"\n\n[package.source]\ntype = "git"\n'
                   'url = "https://example.org/f/verl.git"\nreference = "{ref}"\nresolved_reference = "3c1f0e9a7b2d"\n',
    "uv.lock": '[[package]]\nname = "verl"\nversion = "0.1"\n'
               'source = {{ git = "https://example.org/f/verl?{kind}={ref}#3c1f0e9a7b2d" }}\n',
}


@pytest.mark.parametrize("lock", sorted(GIT_LOCKS))
def test_a_lock_entry_installed_from_git_pins_a_commit_not_the_release_its_version_names(tmp_path, lock):
    """The lock installs commit resolved_reference of a branch; its version is what that commit's veRL declares
    (veRL's main said 0.1 for weeks while it gained rollout.n and use_kl_loss): the launch is composed by its keys,
    as a branch in requirements is (RFTC225). A release tag pins that release."""
    found = _pins(tmp_path, {lock: GIT_LOCKS[lock].format(kind="branch", ref="my-feature")})
    assert found == [(lock, 2, (), True)]
    assert "'my-feature' is a branch, not a release: the lock installs commit 3c1f0e9a7b2d" in \
        pins.pinned(tmp_path)[0].passed
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')  # the repository the launch belongs to
    (tmp_path / "run.sh").write_text("python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.name=vllm "
                                     "actor_rollout_ref.rollout.n=4 actor_rollout_ref.actor.use_kl_loss=True\n")
    release, diags = _release(tmp_path)
    assert release != "0.1" and "RFTC225" in diags and "RFTC215" not in diags and "RFTC224" not in diags
    assert _pins(tmp_path, {lock: GIT_LOCKS[lock].format(kind="tag", ref="v0.4.1")}) == [(lock, 2, ("0.4.1",), False)]


def _release(folder: Path, *overrides: str):
    pins.pinned.cache_clear()
    found = api.read([str(folder / "run.sh")], api.Options(cwd=str(folder)))
    (inv,) = found.launches
    inv.overrides.extend(type(inv.overrides[0])(o, inv.overrides[0].span) for o in overrides)
    result = api.verl_config(inv)
    return result.verl.verl_version, {d.code: d for d in result.diagnostics}


@pytest.mark.parametrize("case, release, code, line", [
    ("requirements", "0.4.1", "RFTC224", 2), ("uv-lock", "0.5.0", "RFTC224", 10),
    ("clone-tag", "0.3.0.post1", "RFTC224", 3), ("range", "0.5.0", "RFTC224", 5),
    ("branch", "0.9.1", "RFTC225", 1), ("newer", "0.9.1", "RFTC225", 4), ("submodule", "0.9.1", "RFTC225", 3),
])
def test_the_pinned_release_is_composed(case, release, code, line):
    got, diags = _release(PINNED / case)
    assert got == release and diags[code].span.line == line and "RFTC221" not in diags


def test_a_pin_is_stronger_than_key_matching():
    """kl_coef takes effect only before 0.4.0 (key matching alone picks an older release); the pin decides."""
    got, diags = _release(PINNED / "requirements", "algorithm.kl_ctrl.kl_coef=0.001")
    assert got == "0.4.1" and "RFTC219" not in diags


C7 = ("data.train_files=x algorithm.kl_ctrl.kl_coef=0.001 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 "
      "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.name=vllm "
      "critic.ppo_micro_batch_size_per_gpu=2")


def test_key_matching_prefers_a_release_where_verl_starts(tmp_path, monkeypatch):
    """C7: the kl_ctrl key takes effect only in 0.3.0.post1 and older, whose startup check refuses the launch (no
    reference micro batch size); veRL 0.9.1 starts it, so 0.9.1 is chosen and the note says why."""
    monkeypatch.chdir(tmp_path)
    result = api.compile(overrides=C7)
    codes = {d.code: d for d in result.diagnostics}
    assert result.verl.verl_version == "0.9.1" and "RFTC221" not in codes
    assert "in verl 0.3.0.post1, where it takes effect, veRL refuses the launch at startup" in codes["RFTC219"].message
    older = api.compile(overrides=C7, options=api.Options(verl_version="0.3.0.post1"))
    assert any(d.code == "RFTC221" for d in older.diagnostics)  # what veRL 0.3.0.post1 says at startup
    valid = api.compile(overrides=C7 + " actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2")
    assert valid.verl.verl_version == "0.3.0.post1"  # valid there: the release where every key takes effect


def test_a_checkout_composed_from_its_own_verl_keeps_the_release_it_declares(tmp_path):
    """A pin says which bundled release to compose; a repository that vendors veRL composes that copy's config,
    under the release its verl/version/version declares, whatever its requirements say."""
    from verl_checkout import launch, write_checkout

    write_checkout(tmp_path, version="0.5.0", release="0.5.0")
    (tmp_path / "requirements.txt").write_text("verl==0.3.0.post1\n")
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = myproject\n")
    script = launch(tmp_path, "data.train_files=x actor_rollout_ref.rollout.name=vllm")
    pins.pinned.cache_clear()
    found = api.read([str(script)], api.Options(cwd=str(tmp_path)))
    result = api.verl_config(found.launches[0], startup=False)
    codes = {d.code for d in result.diagnostics}
    assert result.verl.release == "0.5.0" and result.verl.source and "RFTC230" in codes
    assert not codes & {"RFTC224", "RFTC225"}


@pytest.mark.parametrize("case", sorted(p.name for p in PINNED.iterdir()))
@pytest.mark.usefixtures("plain_terminal")
def test_golden_lint_output(case):
    """What `rftc lint run.sh` says in each repository of golden/launch-resolution/pinned (expected.txt)."""
    from support.cli import rftc

    done = rftc("lint", "run.sh", "--format", "concise", cwd=PINNED / case)
    assert done.stderr == (PINNED / case / "expected.txt").read_text() and done.returncode == 0


# The launch of docs/verl-configs.md's example: every key exists in 0.9.1, and kl_coef (no use_kl_in_reward) takes
# effect only before 0.4.0, so the keys point at 0.3.0.post1, whose veRL starts it.
GRPO = ("data.train_files=x algorithm.adv_estimator=grpo algorithm.kl_ctrl.kl_coef=0.0005 "
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.n=4 "
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 "
        "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.name=vllm")


def _stage(text: str, options: api.Options | None = None):
    """The verl stage of the main_ppo launch of override text: (release composed, {code: diagnostic})."""
    options = options or api.Options()
    pins.pinned.cache_clear()
    (inv,) = api.read([], options, overrides=text).launches
    result = api.verl_config(inv, options)
    return result.verl.verl_version, {d.code: d for d in result.diagnostics}


def test_an_inferred_release_that_trains_differently_from_the_newest_is_a_warning(tmp_path, monkeypatch):
    """The release the keys point at is kept, and RFTC226 names what it trains differently from the newest release
    where every key exists: the quantities rftc diff finds between the launch under each release."""
    from rftc.compare import training_run
    from rftc.diagnostics.model import Severity
    from rftc.semantics.model import differences

    monkeypatch.chdir(tmp_path)
    got, diags = _stage(GRPO)
    assert got == "0.3.0.post1" and "RFTC219" not in diags
    warning = diags["RFTC226"]
    assert warning.severity is Severity.WARNING
    # KL goes into the reward, the entropy coefficient's default was 0.001, and there is no dual clip before 0.4.0
    for said in ("kl in reward type k1 vs none", "kl in reward coef 0.0005 vs -", "clip ratio c none vs 3.0",
                 "entropy coef 0.001 vs 0"):
        assert said in warning.message
    runs = [training_run(api.OVERRIDES, api.Options(verl_version=v), overrides=GRPO).run
            for v in ("0.3.0.post1", "0.9.1")]
    named = [q.label for q, _, _ in differences(*runs)]
    assert named and warning.message.endswith(", ".join(f"{q.label} {a} vs {b}" for q, a, b in
                                                         differences(*runs)))
    assert "--verl-version" in warning.hint and "0.9.1" in warning.hint and "pin verl in the repository" in \
        warning.hint


@pytest.mark.parametrize("extra, why", [
    ("data.train_batch_size=${oc.env:BS}", "data.train_batch_size only known when the script runs"),
    ("actor_rollout_ref.rollout.n=null", "actor_rollout_ref.rollout.n set to a value of another kind than the key's"),
    ("actor_rollout_ref.actor.ppo_mini_batch_size=0", "the launch's values give ValueError: a step of 1024 prompts x n "
                                                      "4 in mini-batches of 0 prompts: not positive whole numbers"),
])
def test_values_the_model_cannot_compute_with_are_said_not_a_traceback(tmp_path, monkeypatch, extra, why):
    monkeypatch.chdir(tmp_path)
    _, diags = _stage(f"{GRPO} {extra}")
    assert f"may train differently from verl 0.9.1, the newest where every key exists: rftc cannot compare the two, " \
           f"{why}" in diags["RFTC226"].message


def test_an_inferred_release_that_trains_like_the_newest_stays_an_info(tmp_path, monkeypatch):
    """The newest release where every key exists is no choice to warn about (0.9.0: 0.9.1 lacks grad_offload); an
    older one the model finds training the same stays RFTC219 too."""
    import rftc.semantics.model

    monkeypatch.chdir(tmp_path)
    got, diags = _stage("--config-name=ppo_megatron_trainer actor_rollout_ref.rollout.name=vllm "
                        "actor_rollout_ref.actor.megatron.grad_offload=True")
    assert got == "0.9.0" and "RFTC219" in diags and "RFTC226" not in diags
    monkeypatch.setattr(rftc.semantics.model, "differences", lambda a, b: [])
    got, diags = _stage(GRPO)
    assert got == "0.3.0.post1" and "RFTC219" in diags and "RFTC226" not in diags


def test_a_named_or_pinned_release_is_never_compared(tmp_path, monkeypatch):
    """--verl-version, a pin of one release, a pin of a range the keys choose in, and a launch composed under the
    newest release where every key exists: no RFTC226, and no second run is modelled (it costs time)."""
    import rftc.semantics.verl

    def no_model(*args, **kwargs):
        raise AssertionError("the launch was modelled")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(rftc.semantics.verl, "from_verl", no_model)
    for v in ("0.3.0.post1", "0.9.1"):
        got, diags = _stage(GRPO, api.Options(verl_version=v))
        assert got == v and not {"RFTC219", "RFTC226"} & set(diags)
    got, diags = _stage(GRPO.replace("algorithm.kl_ctrl.kl_coef=0.0005", "algorithm.use_kl_in_reward=True"))
    assert got == "0.9.1" and not {"RFTC219", "RFTC226"} & set(diags)
    got, diags = _release(PINNED / "clone-tag", "algorithm.kl_ctrl.kl_coef=0.001")
    assert got == "0.3.0.post1" and "RFTC224" in diags and "RFTC226" not in diags
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = myproject\n")
    (tmp_path / "requirements.txt").write_text("verl>=0.3.0.post1\n")
    got, diags = _stage(GRPO)
    assert got == "0.3.0.post1" and "RFTC224" in diags and not {"RFTC219", "RFTC226"} & set(diags)
