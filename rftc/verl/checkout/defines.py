"""Whether a veRL copy's own Python knows a name its config selects (an advantage estimator), read with ast: the
name as a string its code registers, enumerates or compares with (`register_adv_est("x")`, `X = "x"` in an enum,
`adv_estimator == "x"`), or a function or class named for it (`compute_x_advantage`). Nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path


def where_defined(package: Path, name: str) -> str | None:
    """``file:line`` (relative to the package's parent) of the first place ``package``'s Python knows ``name``;
    None when none does."""
    word = name.lower()
    for file in sorted(package.rglob("*.py")):
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        docstrings = docstring_ids(tree)
        for n in ast.walk(tree):
            named = isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                word in n.name.lower().split("_")
            literal = isinstance(n, ast.Constant) and n.value == name and id(n) not in docstrings
            if named or literal:
                return f"{file.relative_to(package.parent)}:{n.lineno}"
    return None


def docstring_ids(tree: ast.Module) -> set[int]:
    """The ids of the docstring constants of a module and its classes and functions: prose, not code."""
    return {id(n.body[0].value) for n in ast.walk(tree) if isinstance(
        n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body and isinstance(
        n.body[0], ast.Expr)}
