"""What an entry module declares, read with ast (nothing of the checkout or fork is imported): the config of its
`@hydra.main(config_path=..., config_name=...)` in a checkout's copy or a fork's own module, and the trainer it
runs. A fork may change either (a trainer of its own, a config with its keys), so the config a launch composes is
the one its module names."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

# hydra.main's positional parameters, in order
_PARAMS = ("config_path", "config_name", "version_base")


@dataclass(frozen=True)
class Declared:
    line: int  # the decorator's line
    config_path: str | None  # as written (None: Hydra's default, or not a literal)
    config_name: str | None
    literal: bool  # both arguments are literals (or absent): the values are what Hydra reads


def module_file(root: Path, module: str) -> Path:
    """The source file of ``module`` under the sys.path entry ``root``."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def parse(path: Path) -> ast.Module | None:
    """The module at ``path`` parsed; None when it is absent or unreadable."""
    try:
        return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None


def declared(path: Path) -> Declared | None:
    """The @hydra.main arguments of the module at ``path``; None when the file is absent, unreadable or has no
    @hydra.main."""
    tree = parse(path)
    return None if tree is None else declared_in(tree)


def declared_in(tree: ast.Module) -> Declared | None:
    """The @hydra.main arguments of a parsed module; None without one."""
    names = _hydra_main_names(tree)
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for deco in node.decorator_list:
            if isinstance(deco, ast.Call) and _is_hydra_main(deco.func, names):
                args = {p: a for p, a in zip(_PARAMS, deco.args)}
                args.update({k.arg: k.value for k in deco.keywords if k.arg in _PARAMS})
                values = [_literal(args.get(p)) for p in _PARAMS[:2]]
                return Declared(deco.lineno, *(None if v is _UNKNOWN else v for v in values),
                                literal=_UNKNOWN not in values)
    return None


_UNKNOWN = object()


def _literal(node):
    if node is None:
        return None
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return _UNKNOWN
    return value if value is None or isinstance(value, str) else _UNKNOWN


def _hydra_main_names(tree: ast.Module) -> set[str]:
    """Local names bound to hydra.main (`from hydra import main`, `... as hmain`)."""
    return {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "hydra"
            for a in n.names if a.name == "main"}


def _is_hydra_main(func: ast.expr, names: set[str]) -> bool:
    if isinstance(func, ast.Attribute):
        return func.attr == "main" and isinstance(func.value, ast.Name) and func.value.id == "hydra"
    return isinstance(func, ast.Name) and func.id in names


# veRL's PPO trainer as a fork's module reaches it: main_ppo's run_ppo, or the trainer class itself
VERL_TRAINER_NAMES = ("run_ppo", "RayPPOTrainer")


@dataclass(frozen=True)
class Trainer:
    verl: tuple[str, ...]  # veRL's run_ppo / RayPPOTrainer the module calls (dotted, as imported)
    own: tuple[str, ...]  # trainer classes of the fork's own it instantiates ("pkg.mod.Class", "Class (file:line)")


def trainer(tree: ast.Module, where: str) -> Trainer | None:
    """The PPO trainer a module runs: the veRL names it calls (imported from a `verl.` module) and the trainer
    classes of its own (a `...Trainer` class defined there or imported from elsewhere, in a module that imports
veRL; ``where``: the file, as messages show it); None when it calls neither."""
    origins = imports(tree)
    classes = {n.name: n.lineno for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    bound = _bound_names(tree)
    verl, own = [], []
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call):
            continue
        # a call through a variable (`trainer_cls = RayPPOTrainer; trainer_cls(config)`) calls what it is bound to
        funcs = bound.get(n.func.id, [n.func]) if isinstance(n.func, ast.Name) else [n.func]
        for func in funcs:
            dotted, name = callee(func, origins)
            if not is_trainer(name):
                continue
            if dotted is not None and dotted.startswith("verl.") and name in VERL_TRAINER_NAMES:
                verl.append(dotted)  # another class from a `verl.` module is a fork's, under veRL's package name
            elif name.endswith("Trainer") and (dotted is not None or name in classes):
                own.append(dotted or f"{name} ({where}:{classes[name]})")
    if not verl and not any(o == "verl" or o.startswith("verl.") for o in origins.values()):
        return None  # a trainer class of a module that imports nothing of veRL is no veRL fork's
    return Trainer(tuple(dict.fromkeys(verl)), tuple(dict.fromkeys(own))) if verl or own else None


def _bound_names(tree: ast.Module) -> dict[str, list[ast.expr]]:
    """Variable -> the names it is assigned (`x = A`, `x = A if c else B`, `x = A` in one branch and `x = B` in
    another): each is a class the variable may hold when it is called."""
    out: dict[str, list[ast.expr]] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            target, value = n.targets[0].id, n.value
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
            target, value = n.target.id, n.value
        else:
            continue
        values = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
        out.setdefault(target, []).extend(v for v in values if isinstance(v, (ast.Name, ast.Attribute)))
    return out


def imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> the dotted name it is bound to by the module's absolute imports."""
    origins: dict[str, str] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.module and not n.level:
            origins.update({a.asname or a.name: f"{n.module}.{a.name}" for a in n.names})
        elif isinstance(n, ast.Import):
            origins.update({a.asname or a.name.split(".")[0]: a.name if a.asname else a.name.split(".")[0]
                            for a in n.names})
    return origins


def is_trainer(name: str) -> bool:
    """Whether a call of ``name`` runs a PPO trainer: veRL's run_ppo / RayPPOTrainer, or a `...Trainer` class."""
    return name in VERL_TRAINER_NAMES or name.endswith("Trainer")


def callee(func: ast.expr, origins: dict[str, str]) -> tuple[str | None, str]:
    """(the dotted name the call reaches through the module's imports, or None; the name called)."""
    if isinstance(func, ast.Name):
        return origins.get(func.id), func.id
    if isinstance(func, ast.Attribute):
        parts, node = [func.attr], func.value
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in origins:
            return ".".join([origins[node.id], *reversed(parts)]), func.attr
        return None, func.attr
    return None, ""
