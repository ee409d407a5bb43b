"""The startup validation a veRL copy's own code holds, read with ast (nothing is imported): the files where veRL's
releases validate main_ppo's config (RayPPOTrainer._validate_config up to 0.5.0; verl.utils.config.validate_config
and the actor/critic config classes from 0.6.0). A fork that changed its trainer may have dropped or changed a
check: one of upstream's checks is the fork's only where the fork's validation code reads every setting the check
compares. A copy without any of these files (a folder of configs) says nothing: upstream's checks stand."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from rftc.verl.checkout.defines import docstring_ids

# where veRL's releases validate main_ppo's config, relative to the verl package
VALIDATION = ("trainer/ppo/ray_trainer.py", "utils/config.py", "workers/config/actor.py", "workers/config/critic.py")


@dataclass(frozen=True)
class ValidationCode:
    files: tuple[str, ...]  # the copy's validation files, as messages show them
    names: frozenset[str]  # the names, attributes and strings they hold

    def reads(self, key: str) -> bool:
        """Whether the code reads the setting ``key`` (by its last segment: `config.data.train_batch_size`,
        `self.ppo_mini_batch_size`, `"ppo_mini_batch_size"`)."""
        return key.rsplit(".", 1)[-1] in self.names

    def shown(self) -> str:
        return " and ".join(self.files)


def validation_code(package: str) -> ValidationCode | None:
    """The validation code of the verl package at ``package`` (as EffectiveConfig.source shows it); None where the
    copy has none of the files (its code is not here to read)."""
    root = Path(package)
    files, names = [], set()
    for rel in VALIDATION:
        path = root / rel
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        files.append(f"{package.rstrip('/')}/{rel}")
        prose = docstring_ids(tree)
        for n in ast.walk(tree):
            if isinstance(n, ast.Name):
                names.add(n.id)
            elif isinstance(n, ast.Attribute):
                names.add(n.attr)
            elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in prose:
                names.update(n.value.replace(".", " ").replace("'", " ").split())
    return ValidationCode(tuple(files), frozenset(names)) if files else None
