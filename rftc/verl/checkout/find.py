"""Which copy of veRL a launch imports, found as Python's import system would find it, so that the config it
composes is that copy's own (a fork's, or a checkout's), not a bundled release's.

`python3 -m verl.trainer.main_ppo` puts the directory it runs in first on sys.path, so a `verl` package there
is the one imported; a repository that installs its copy editable (`pip install -e .`, a `src/` layout, or a
veRL checkout in a subfolder: `pip install -e ./verl`) is imported through site-packages. rftc looks, in order:

1. `--verl-source DIR` (DIR holds `verl/`, `src/verl/`, or is the `verl` package itself);
2. the entry module's own file when the launch names it by path (`python3 x/verl/trainer/main_ppo.py`,
   `-m x.verl.trainer.main_ppo`): Hydra's --config-path is relative to that file;
3. the directory the launch runs in, then the PYTHONPATH entries the script sets, as Python searches them before
   site-packages (rftc.verl.checkout.modules: a regular package before a namespace package);
4. the directory the launch runs in (the script's `cd`, else where rftc starts), then the script's folder and
   its parents up to the repository it belongs to (the first with setup.py, pyproject.toml, setup.cfg or .git):
   the first directory D with `D/verl`, else `D/src/verl`, else, where D is such a project, `D/<sub>/verl`
   (a veRL checkout the project installs); a `verl` counts when it holds `trainer/config/`.

None found: the bundled releases. A copy without its Python files (only the config folder) counts the same.
rftc's own Python environment is not searched: it is not the training job's; name an installed verl with
--verl-source.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rftc.shell.invocation import Invocation
from rftc.verl.checkout.modules import (find_spec, is_project, launch_dir, pythonpath, script_dir, search_path,
                                       up_to_repository)

BUNDLED = "bundled"  # --verl-source bundled: ignore any checkout, use the bundled releases
CONFIG = Path("trainer") / "config"


@dataclass(frozen=True)
class VerlSource:
    package: Path  # the `verl` package directory (absolute)
    how: str  # how it was found, for the info diagnostic

    @property
    def root(self) -> Path:
        """The directory that is on sys.path (holds the `verl` package)."""
        return self.package.parent

    def display(self) -> str:
        """The package's folder, relative to the working directory when below it ("verl/")."""
        try:
            return f"{self.package.relative_to(Path.cwd())}/"
        except ValueError:
            return f"{self.package}/"


def is_package(d: Path) -> bool:
    return d.name == "verl" and (d / CONFIG).is_dir()


def from_dir(directory: str | Path) -> VerlSource | None:
    """The verl package ``--verl-source DIR`` names: DIR itself, DIR/verl or DIR/src/verl."""
    d = Path(directory).expanduser().resolve()
    for candidate in (d, d / "verl", d / "src" / "verl"):
        if is_package(candidate):
            return VerlSource(candidate, "named with --verl-source")
    return None


def find(inv: Invocation) -> VerlSource | None:
    """The verl package ``inv`` imports (steps 2 to 4 of the module docstring), or None."""
    starts = [launch_dir(inv)]
    if (folder := script_dir(inv)) is not None:
        starts += up_to_repository(folder)
    if inv.entry_file:
        found = _by_entry_file(inv, starts)
        if found is not None:
            return found
    found = _on_pythonpath(inv)
    if found is not None:
        return found
    for i, d in enumerate(starts):
        found = _in(d)
        if found is not None:
            where = ("the launch's directory, which Python searches first" if i == 0 else "the script's folder"
                     if i == 1 else "a parent folder of the script, in the repository it belongs to")
            return VerlSource(found.resolve(), f"found in {where}{_layout(d, found)}")
    return None


def _by_entry_file(inv: Invocation, starts: list[Path]) -> VerlSource | None:
    """The `verl` package that holds the entry module's file (Hydra reads --config-path relative to it)."""
    entry = Path(inv.entry_file)
    for base in [Path("/")] if entry.is_absolute() else starts:
        f = base / entry
        if f.parent.is_dir():
            package = next((p for p in f.parents if is_package(p)), None)
            if package is not None:
                return VerlSource(package.resolve(), f"the package of the entry file {inv.entry_file}")
    return None


def _on_pythonpath(inv: Invocation) -> VerlSource | None:
    """The `verl` Python imports through the PYTHONPATH the script sets, when no regular `verl` package in the
    launch's directory comes first (a namespace one there does not: Python prefers a regular package)."""
    path = pythonpath(inv)
    if not path:
        return None
    spec = find_spec("verl", search_path(inv)[:1 + len(path)])  # the launch's folder, then PYTHONPATH
    if spec is None or spec.entry not in path:
        return None
    package = next((f for f in spec.folders if is_package(f)), None)
    if package is None:
        return None
    return VerlSource(package.resolve(), f"found through {spec.entry.why}, which Python searches before "
                      "site-packages")


def _in(d: Path) -> Path | None:
    """D/verl, D/src/verl, or D/<sub>/verl when D is a project (Python's import of `verl` from D, or the copy
    D's project installs: `pip install -e .` of a src layout, `pip install -e <sub>` of a veRL checkout)."""
    for candidate in (d / "verl", d / "src" / "verl"):
        if is_package(candidate):
            return candidate
    if not is_project(d):
        return None
    try:
        subs = sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return None
    return next((sub / "verl" for sub in subs if is_package(sub / "verl")), None)


def _layout(d: Path, package: Path) -> str:
    rel = package.relative_to(d)
    if rel == Path("verl"):
        return ""
    if rel.parts[0] == "src":
        return "; a src/ layout, imported once the project is installed"
    return f"; a veRL checkout in {rel.parts[0]}/, imported once the project installs it (pip install -e {rel.parts[0]})"
