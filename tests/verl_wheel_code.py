"""Running a verl release's own code where its wheel cannot be imported here (old releases need old torch, vLLM
and Megatron): the functions and statements a fact depends on are taken from the wheel's source with ast and run
on stand-in objects, with the config Hydra composes from that wheel's own config files.

    src = source("0.2", "verl/trainer/ppo/ray_trainer.py")        # None when the wheel is not downloaded
    fit = function(src, "fit", cls="RayPPOTrainer")
    tests = conditions(fit, calls("apply_kl_penalty"))             # the ifs that guard the call
    holds(tests, {"self": stand_in, ...})                          # evaluated with the release's own expressions

Needs .cache/verl-wheels (the wheels) and .cache/verl-ref (their configs), built by scripts/setup-verl-ref.sh."""

from __future__ import annotations

import ast
import copy
import enum
import types
import zipfile
from functools import lru_cache

import pytest

import verl_reference as reference
from support.paths import ROOT

WHEELS = ROOT / ".cache" / "verl-wheels"


@lru_cache(maxsize=None)
def _wheel(release: str) -> zipfile.ZipFile | None:
    found = sorted(WHEELS.glob(f"verl-{release}-*.whl"))
    return zipfile.ZipFile(found[0]) if found else None


def require(release: str) -> None:
    """Skip (with the fix) when the release's wheel or configs are not here."""
    if _wheel(release) is None or reference.config_dir(release) is None:
        pytest.skip(f"verl {release}'s wheel and configs are not here: run scripts/setup-verl-ref.sh")


def source(release: str, path: str) -> str | None:
    z = _wheel(release)
    if z is None or path not in z.namelist():
        return None
    return z.read(path).decode()


def first_source(release: str, *paths: str) -> tuple[str, str] | tuple[None, None]:
    """(path, source) of the first of ``paths`` the wheel has."""
    for p in paths:
        s = source(release, p)
        if s is not None:
            return p, s
    return None, None


def compose(release: str, overrides: list[str], name: str = "ppo_trainer"):
    """Hydra's compose of the release's own config (a fresh OmegaConf DictConfig, interpolations live)."""
    return copy.deepcopy(_compose(release, tuple(overrides), name))


@lru_cache(maxsize=None)
def _compose(release: str, overrides: tuple[str, ...], name: str):
    from hydra import compose as hydra_compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(reference.config_dir(release)), version_base=None):
        return hydra_compose(config_name=name, overrides=list(overrides))


def function(src: str, name: str, cls: str | None = None) -> ast.FunctionDef | None:
    tree = ast.parse(src)
    scope = tree.body
    if cls is not None:
        klass = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
        if klass is None:
            return None
        scope = klass.body
    return next((n for n in scope if isinstance(n, ast.FunctionDef) and n.name == name), None)


def define(src: str, names: list[str], namespace: dict) -> dict:
    """Execute the module-level defs (functions, classes) ``names`` of ``src`` into ``namespace``, without
    decorators or annotations (they name types the stand-ins do not need)."""
    tree = ast.parse(src)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in names:
            node.decorator_list = []
            for fn in ast.walk(node):
                if isinstance(fn, ast.FunctionDef):
                    fn.returns = None
                    for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs:
                        a.annotation = None
                elif isinstance(fn, ast.AnnAssign):
                    fn.annotation = ast.Constant(None)
            module = ast.Module([node], type_ignores=[])
            exec(compile(ast.fix_missing_locations(module), f"<verl {name_of(node)}>", "exec"), namespace)
    return namespace


def name_of(node) -> str:
    return getattr(node, "name", type(node).__name__)


def calls(name: str):
    """A predicate: a call of ``name`` (``f(...)`` or ``obj.f(...)``)."""
    return lambda n: isinstance(n, ast.Call) and ast.unparse(n.func).split(".")[-1] == name


def stores(text: str):
    """A predicate: an assignment whose target is ``text`` (e.g. ``self.use_critic``)."""
    return lambda n: isinstance(n, (ast.Assign, ast.AugAssign)) and any(
        ast.unparse(t) == text for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))


def conditions(root: ast.AST, pred) -> list[list[tuple[ast.expr, bool]]]:
    """For each node under ``root`` matching ``pred``: the tests of the ifs around it, each with whether the node
    is in the if's body (True) or its else branch (False)."""
    found: list = []

    def walk(node, stack):
        for field, value in ast.iter_fields(node):
            for child in value if isinstance(value, list) else [value]:
                if not isinstance(child, ast.AST):
                    continue
                inner = stack
                if isinstance(node, ast.If) and child is not node.test:
                    inner = stack + [(node.test, field == "body")]
                if pred(child):
                    found.append(inner)
                walk(child, inner)

    walk(root, [])
    return found


def holds(tests: list[tuple[ast.expr, bool]], namespace: dict) -> bool:
    """Whether every guarding test takes the branch that reaches the node."""
    return all(bool(evaluate(t, namespace)) == want for t, want in tests)


def evaluate(expr: ast.expr, namespace: dict):
    return eval(compile(ast.Expression(expr), "<verl expression>", "eval"), namespace)


def statements(root: ast.AST, pred) -> list[ast.stmt]:
    """The statements under ``root`` matching ``pred``, in source order."""
    return sorted((n for n in ast.walk(root) if isinstance(n, ast.stmt) and pred(n)), key=lambda n: n.lineno)


def run(stmts: list[ast.stmt], namespace: dict) -> dict:
    for s in stmts:
        exec(compile(ast.fix_missing_locations(ast.Module([s], type_ignores=[])), "<verl statement>", "exec"),
             namespace)
    return namespace


def advantage_estimator(release: str):
    """The release's own AdvantageEstimator enum (None before it had one: the code compared strings)."""
    for path in ("verl/trainer/ppo/ray_trainer.py", "verl/trainer/ppo/core_algos.py"):
        src = source(release, path)
        if src is not None and "class AdvantageEstimator" in src:
            return define(src, ["AdvantageEstimator"], {"Enum": enum.Enum})["AdvantageEstimator"]
    return None


def utils(release: str) -> dict:
    """The release's verl/trainer/ppo/utils.py helpers (need_reference_policy, need_critic) where it has them."""
    ns = {"AdvantageEstimator": advantage_estimator(release),
          "warnings": types.SimpleNamespace(warn=lambda *a, **k: None)}
    src = source(release, "verl/trainer/ppo/utils.py")
    return define(src, ["need_reference_policy", "need_critic"], ns) if src else ns


def uses_reference(release: str, cfg) -> bool:
    """main_ppo's decision, from the release's own code: the ifs around Role.RefPolicy's mapping, else
    need_reference_policy."""
    src = source(release, "verl/trainer/main_ppo.py")
    found = conditions(ast.parse(src), lambda n: isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
                       and ast.unparse(n).endswith("role_worker_mapping[Role.RefPolicy]")
                       or isinstance(n, ast.Dict) and any(k is not None and ast.unparse(k) == "Role.RefPolicy"
                                                          for k in n.keys))
    ns = {**utils(release), "config": cfg}
    if found:
        return holds(found[0], ns)
    return bool(ns["need_reference_policy"](cfg))
