"""The config an entry module declares: `@hydra.main(config_path=..., config_name=...)` in a checkout's own copy
of the module, read with ast (nothing of the checkout is imported). A fork may change either (a trainer of its
own, a config with its keys), so the config a launch composes is the one its copy of the module names."""

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


def declared(path: Path) -> Declared | None:
    """The @hydra.main arguments of the module at ``path``; None when the file is absent, unreadable or has no
    @hydra.main."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
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
