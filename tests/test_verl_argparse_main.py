"""A fork main without Hydra (argparse, OmegaConf.load / merge / from_dotlist) composed from its source
(rftc.verl.primary.argparse_main, rftc.verl.primary.loaded), differentially: the fixture's own main is run for
real in a subprocess (real argparse, real OmegaConf; veRL's run_ppo stubbed to print the config it is given) on the
launch's words, and its config must be rftc's, key for key. Shapes rftc cannot follow keep RFTC235 with the line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rftc import api
from rftc.diagnostics.collector import Diagnostics
from rftc.verl.compose import effective_config

_STUB = {"verl/__init__.py": "", "verl/trainer/__init__.py": "",
         "verl/trainer/main_ppo.py": "import json\nfrom omegaconf import OmegaConf\n\n\ndef run_ppo(config):\n"
                                     "    print(json.dumps(OmegaConf.to_container(config, resolve=True)))\n",
         "verl/trainer/ppo/__init__.py": "",
         "verl/trainer/ppo/ray_trainer.py": "from verl.trainer.main_ppo import run_ppo\n\n\nclass RayPPOTrainer:\n"
                                           "    def __init__(self, config):\n        self.config = config\n\n"
                                           "    def fit(self):\n        run_ppo(self.config)\n"}
_BASE = """trainer:
  n_gpus_per_node: 8
  nnodes: 1
  project_name: base
  logger: [console]
data:
  train_batch_size: 256
  max_prompt_length: 512
actor_rollout_ref:
  model:
    path: base/model
  actor:
    optim:
      lr: 1.0e-6
algorithm:
  adv_estimator: gae
"""
_USER = """algorithm:
  adv_estimator: grpo
actor_rollout_ref:
  model:
    path: Qwen/Qwen2.5-0.5B-Instruct
data:
  max_response_length: ${data.max_prompt_length}
"""
# a copy of a Hydra config: OmegaConf.load keeps its defaults list as a plain key and composes nothing
_HYDRA_COPY = """defaults:
  - ppo_trainer
  - _self_
trainer:
  nnodes: 2
"""
_HEAD = "import argparse\nimport os\nfrom pathlib import Path\n\nfrom omegaconf import OmegaConf\n" \
        "from verl.trainer.main_ppo import run_ppo\n"
MAINS = {
    "positional": _HEAD + """

def main(args):
    base = OmegaConf.load(os.path.join(os.path.dirname(__file__), "config", "ppo_trainer.yaml"))
    cfg = OmegaConf.merge(base, OmegaConf.load(args.config), OmegaConf.from_dotlist(args.overrides))
    run_ppo(cfg)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("overrides", nargs="*")
    main(parser.parse_args())
""",
    "options": _HEAD + """
HERE = Path(__file__).resolve().parent


def load(path):
    return OmegaConf.load(path)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("-c", "--config-file", dest="config", type=str, required=True)
    parser.add_argument("--base", default=str(HERE / "config" / "ppo_trainer.yaml"))
    parser.add_argument("--verbose", action="store_true")
    args, rest = parser.parse_known_args()
    cfg = load(args.base)
    cfg.merge_with(load(args.config))
    cfg.merge_with(OmegaConf.from_cli(rest))
    run_ppo(config=cfg)
""",
    "cli": _HEAD + """from verl.trainer.ppo.ray_trainer import RayPPOTrainer

if __name__ == "__main__":
    name = "hydra_copy"
    cfg = OmegaConf.merge(OmegaConf.load("forkpkg/config/ppo_trainer.yaml"), OmegaConf.load(f"cfg/{name}.yaml"))
    trainer = RayPPOTrainer(config=OmegaConf.merge(cfg, OmegaConf.from_cli()))
    trainer.fit()
""",
    "argv": _HEAD + """import sys

if __name__ == "__main__":
    base = OmegaConf.load(Path(__file__).parent / "config" / "ppo_trainer.yaml")
    run_ppo(OmegaConf.merge(base, OmegaConf.load(sys.argv[1]), OmegaConf.from_dotlist(sys.argv[2:])))
""",
    "named": _HEAD + """
if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="base")
    parser.add_argument("--cfg-dir", default="cfg")
    args, rest = parser.parse_known_args()
    user = OmegaConf.load(os.path.join(os.getcwd(), args.cfg_dir, f"{args.name}.yaml"))
    run_ppo(OmegaConf.merge(OmegaConf.load("forkpkg/config/ppo_trainer.yaml"), user, OmegaConf.from_cli(rest)))
""",
}
_WORDS = "data.train_files=train.parquet trainer.n_gpus_per_node=4 trainer.new_key=hello " \
         "actor_rollout_ref.actor.optim.lr=3e-6 trainer.logger=[console,wandb] data.train_batch_size=null"
LAUNCHES = {
    "positional": f"cfg/user.yaml {_WORDS}",
    "options": f"--verb --config-file=cfg/user.yaml {_WORDS}",
    "cli": f"{_WORDS} +extra.k=1 ~trainer.nnodes bare",
    "argv": f"cfg/user.yaml {_WORDS}",
    "named": f"--name user {_WORDS}",  # the file's path keeps the place of the word it is built from  # Hydra's grammar is part of the key in a dotlist
}


def _fork(root: Path, main: str) -> Path:
    for name, text in {"forkpkg/__init__.py": "", "forkpkg/main.py": main, "forkpkg/config/ppo_trainer.yaml": _BASE,
                       "cfg/user.yaml": _USER, "cfg/hydra_copy.yaml": _HYDRA_COPY}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _real(root: Path, stub: Path, words: str, entry: str = "-m forkpkg.main") -> dict:
    """The config the fixture's main gives run_ppo, run for real (veRL stubbed, beside the fork, not in it)."""
    for name, text in _STUB.items():
        (stub / name).parent.mkdir(parents=True, exist_ok=True)
        (stub / name).write_text(text)
    env = {**os.environ, "PYTHONPATH": str(stub)}
    out = subprocess.run([sys.executable, *entry.split(), *words.split()], cwd=root, env=env,
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return json.loads(out)


def _launch(root: Path, words: str, entry: str = "-m forkpkg.main"):
    (root / "run.sh").write_text(f"python3 {entry} {words}\n")
    found = api.read([str(root / "run.sh")], api.Options(cwd=str(root)))
    return found, found.launches[0]


def _leaves(node, prefix=""):
    if isinstance(node, dict) and node:
        for k, v in node.items():
            yield from _leaves(v, f"{prefix}.{k}" if prefix else k)
    else:
        yield prefix, node


@pytest.mark.parametrize("shape, entry", [(shape, "-m forkpkg.main") for shape in sorted(MAINS)]
                         + [("positional", "forkpkg/main.py")])
def test_the_config_is_the_one_the_main_composes_when_run(shape, entry, tmp_path):
    root = _fork(tmp_path / "repo", MAINS[shape])
    real = _real(root, tmp_path / "stub", LAUNCHES[shape], entry)
    found, inv = _launch(root, LAUNCHES[shape], entry)
    assert inv.fork is not None and inv.fork.plan is not None, found.diagnostics
    diags = Diagnostics()
    eff = effective_config(inv, diags=diags)
    assert eff is not None, diags
    set_here = {k for k, p in eff.provenance.items() if p.user_set}
    assert set_here == {k for k, _ in _leaves(real)}
    for key, value in _leaves(real):
        assert eff.get(key) == value, key
    assert real["trainer"]["new_key"] == "hello" and real["data"]["train_batch_size"] is None  # no `+`, null
    if shape == "cli":
        assert real["+extra"] == {"k": 1} and real["~trainer"] == {"nnodes": None} and real["bare"] is None
        assert real["defaults"] == ["ppo_trainer", "_self_"] and real["trainer"]["nnodes"] == 2
    words = {w.text: w for w in inv.args} or {}
    lr = eff.provenance["actor_rollout_ref.actor.optim.lr"]
    assert lr.kind == "override" and lr.text == "actor_rollout_ref.actor.optim.lr=3e-6"
    assert lr.span.file.endswith("run.sh") and not words  # the words went to the dotlist, not to Hydra
    if shape == "cli":
        return
    model = eff.provenance["actor_rollout_ref.model.path"]
    assert model.kind == "config-file" and model.span.file.endswith("user.yaml") and model.span.line == 5
    [user] = [step for step in inv.fork.plan.steps if getattr(step, "path", "").endswith("user.yaml")]
    assert user.word is not None and user.word.span.file.endswith("run.sh")  # the launch word that names it


REFUSED = {
    "a conditional merge": ("""
if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    args = parser.parse_args()
    cfg = OmegaConf.load(args.config)
    if os.environ.get("FAST"):
        cfg = OmegaConf.merge(cfg, OmegaConf.load("fast.yaml"))
    run_ppo(cfg)
""", 13, "`cfg` is set in a conditional"),
    "a path known at run time": ("""
if __name__ == "__main__":
    cfg = OmegaConf.load(os.environ["CONFIG"])
    run_ppo(cfg)
""", 9, "os.environ"),
    "a loop": ("""
if __name__ == "__main__":
    cfg = OmegaConf.create()
    for name in ("a.yaml", "b.yaml"):
        cfg = OmegaConf.merge(cfg, OmegaConf.load(name))
    run_ppo(cfg)
""", 10, "`cfg` is set in a loop"),
    "words argparse refuses": ("""
if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    run_ppo(OmegaConf.load(parser.parse_args().config))
""", 11, "argparse refuses the launch's words: unrecognized arguments: extra=1"),
    "sys.argv changed": ("""import sys

if __name__ == "__main__":
    sys.argv += ["trainer.nnodes=2"]
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    run_ppo(OmegaConf.merge(OmegaConf.load(args.config), OmegaConf.from_dotlist(args.overrides)))
""", 10, "the module changes sys.argv"),
    "a list of words changed": ("""
if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    args.overrides.append("trainer.nnodes=2")
    run_ppo(OmegaConf.merge(OmegaConf.load(args.config), OmegaConf.from_dotlist(args.overrides)))
""", 13, "changes a value rftc does not follow"),
    "a config changed in place": ("""
if __name__ == "__main__":
    cfg = OmegaConf.load("cfg/user.yaml")
    cfg.trainer.nnodes = 2
    run_ppo(cfg)
""", 10, "`cfg.trainer.nnodes` is set in the source"),
    "a trainer call never reached": ("""
def unused():
    run_ppo(OmegaConf.load("cfg/user.yaml"))
""", 9, "the trainer call is not reached"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_the_source_decides_at_run_time_is_refused_with_its_line(case, tmp_path):
    body, line, why = REFUSED[case]
    root = _fork(tmp_path / "repo", _HEAD + body)
    found, inv = _launch(root, "cfg/user.yaml" + " extra=1" * (case == "words argparse refuses"))
    assert inv.fork is None
    [d] = [d for d in found.diagnostics if d.code == "RFTC235"]
    assert f"forkpkg/main.py:{line}:" in d.message and why in d.message, d.message


def test_a_block_that_only_checks_and_exits_changes_nothing(tmp_path):
    root = _fork(tmp_path / "repo", _HEAD + """import sys

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    args = parser.parse_args()
    if not os.path.exists(args.config):
        parser.print_help()
        sys.exit(1)
    run_ppo(OmegaConf.load(args.config))
""")
    found, inv = _launch(root, "cfg/user.yaml")
    assert inv.fork is not None, found.diagnostics
    assert [s.word.text for s in inv.fork.plan.steps] == ["cfg/user.yaml"]


def test_a_trainer_class_of_the_fork_s_own_is_named(tmp_path):
    root = _fork(tmp_path / "repo", _HEAD + """from forkpkg.curriculum import CurriculumTrainer

if __name__ == "__main__":
    CurriculumTrainer(OmegaConf.load("cfg/user.yaml")).fit()
""")
    found, inv = _launch(root, "")
    assert inv.fork is not None and inv.fork.named_by.endswith("forkpkg/main.py:10")
    assert inv.own_trainers == ("forkpkg.curriculum.CurriculumTrainer",)
    result = api.verl_config(inv, api.Options(cwd=str(root)))
    [own] = [d for d in result.diagnostics if d.code == "RFTC234"]
    assert own.severity.name.lower() == "warning" and "forkpkg.curriculum.CurriculumTrainer" in own.message


def test_a_checkout_s_main_ppo_without_hydra_is_the_argparse_main_it_is(tmp_path):
    """`python3 -m verl.trainer.main_ppo cfg/user.yaml` from a checkout whose verl/trainer/main_ppo.py is an
    argparse + OmegaConf program (`@hydra.main` only inside a string): Python runs that file, so the config is
    the one its code composes, as for the same program under another name."""
    main = MAINS["positional"].replace('"config", "ppo_trainer.yaml"', '"config", "ppo_trainer.yaml"').replace(
        "from verl.trainer.main_ppo import run_ppo\n",
        "from verl.trainer.ppo.ray_trainer import RayPPOTrainer\n\nUSAGE = '@hydra.main is not used here'\n"
    ).replace("run_ppo(cfg)", "RayPPOTrainer(cfg).fit()")
    root = tmp_path / "repo"
    for name, text in {"verl/__init__.py": "", "verl/trainer/__init__.py": "", "verl/trainer/main_ppo.py": main,
                       "verl/trainer/config/ppo_trainer.yaml": _BASE, "launcher/__init__.py": "",
                       "launcher/main_ppo.py": main.replace('os.path.dirname(__file__), "config"',
                                                            'os.path.dirname(__file__), "..", "verl", "trainer", '
                                                            '"config"'),
                       "cfg/user.yaml": _USER}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    effs = []
    for module in ("verl.trainer.main_ppo", "launcher.main_ppo"):
        found, inv = _launch(root, "cfg/user.yaml trainer.nnodes=2", f"-m {module}")
        assert inv.fork is not None and inv.fork.plan is not None, found.diagnostics
        [d] = [d for d in found.diagnostics if d.code == "RFTC233"]
        assert "it has no @hydra.main" in d.message and "'cfg/user.yaml'" in d.message
        diags = Diagnostics()
        effs.append(effective_config(inv, diags=diags))
        assert effs[-1] is not None and not diags.has_errors, list(diags)
    assert effs[0].values == effs[1].values
    assert effs[0].get("actor_rollout_ref.model.path") == "Qwen/Qwen2.5-0.5B-Instruct"
    assert effs[0].get("trainer.nnodes") == 2 and effs[0].get("algorithm.adv_estimator") == "grpo"


def test_a_config_file_only_the_caller_knows_is_named_not_guessed(tmp_path):
    root = _fork(tmp_path / "repo", MAINS["positional"])
    found, inv = _launch(root, '"$CONFIG" trainer.nnodes=2')
    diags = Diagnostics()
    assert inv.fork is not None and effective_config(inv, diags=diags) is None
    [d] = [d for d in diags if d.code == "RFTC210"]
    assert "${oc.env:CONFIG}" in d.message and "not known statically" in d.message and d.span.file.endswith("run.sh")
