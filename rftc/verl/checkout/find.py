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
   (a veRL checkout the project installs: of several, the one of the project that holds the script, which its
   install puts on sys.path); a `verl` counts when it holds `trainer/config/`.

A `verl` folder with no __init__.py and no module is a namespace folder of data: a regular package (the veRL the
job installs) wins over it, and no veRL module is in it, so Python never imports it and Hydra never reads its YAML.

None found: the bundled releases, and what the launch names that is not here (a PYTHONPATH entry of another
machine, a git submodule not checked out) or that Python passes over is said (Passed), with the release checked
instead. rftc's own Python environment is not searched: it is not the training job's; name an installed verl with
--verl-source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rftc.shell.invocation import Invocation
from rftc.verl.checkout.modules import (Entry, find_spec, is_project, launch_dir, pythonpath, script_dir,
                                       search_path, up_to_repository)

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


@dataclass(frozen=True)
class Passed:
    """A copy of veRL the launch names that rftc does not compose: the code and the text that say so (the
    release checked instead is added by the caller)."""

    code: str
    text: str
    hint: str = ""


def is_package(d: Path) -> bool:
    return d.name == "verl" and (d / CONFIG).is_dir()


def _importable(package: Path) -> bool:
    """Whether Python imports ``package``: a regular package, or a namespace folder that holds a module."""
    return (package / "__init__.py").is_file() or next(package.rglob("*.py"), None) is not None


def from_dir(directory: str | Path) -> VerlSource | None:
    """The verl package ``--verl-source DIR`` names: DIR itself, DIR/verl or DIR/src/verl."""
    d = Path(directory).expanduser().resolve()
    for candidate in (d, d / "verl", d / "src" / "verl"):
        if is_package(candidate):
            return VerlSource(candidate, "named with --verl-source")
    return None


def find(inv: Invocation, passed: list[Passed] | None = None) -> VerlSource | None:
    """The verl package ``inv`` imports (steps 2 to 4 of the module docstring), or None; ``passed`` gets what
    the launch names that is not composed (RFTC236 for a PYTHONPATH entry found by its tail)."""
    passed = [] if passed is None else passed
    folder = script_dir(inv)
    starts = [launch_dir(inv), *(up_to_repository(folder) if folder is not None else [])]
    if inv.entry_file:
        found = _by_entry_file(inv, starts)
        if found is not None:
            return found
    found = _on_pythonpath(inv, passed)
    if found is not None:
        return found
    for i, d in enumerate(starts):
        found, others = _in(d, folder, passed, inv.module)
        if found is not None:
            where = ("the launch's directory, which Python searches first" if i == 0 else "the script's folder"
                     if i == 1 else "a parent folder of the script, in the repository it belongs to")
            return VerlSource(found.resolve(), f"found in {where}{_layout(d, found, others, folder)}")
    passed += [_not_here(e) for e in pythonpath(inv) if e.written and not e.folder.is_dir()]
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


def _on_pythonpath(inv: Invocation, passed: list[Passed]) -> VerlSource | None:
    """The `verl` Python imports through the PYTHONPATH the script sets, when no regular `verl` package in the
    launch's directory comes first (a namespace one there does not: Python prefers a regular package)."""
    path = pythonpath(inv)
    if not path:
        return None
    spec = find_spec("verl", search_path(inv)[:1 + len(path)])  # the launch's folder, then PYTHONPATH
    if spec is None or spec.entry not in path:
        return None
    package = next((f for f in spec.folders if is_package(f) and _importable(f)), None)
    if package is None:
        return None
    if spec.entry.written:
        passed.append(Passed("RFTC236", f"the PYTHONPATH entry '{spec.entry.written}' is not on this machine (a "
                             f"container's or another machine's path, or a placeholder); composed the veRL its "
                             f"tail holds in the repository, {VerlSource(package.resolve(), '').display()}",
                             "check that it is the folder the job sees at that path"))
    return VerlSource(package.resolve(), f"found through {spec.entry.why}, which Python searches before "
                      "site-packages")


def _in(d: Path, near: Path | None, passed: list[Passed], module: str | None) -> tuple[Path | None, list[Path]]:
    """(package, the others passed over): D/verl, D/src/verl, or D/<sub>/verl when D is a project (Python's
    import of `verl` from D, or the copy D's project installs: `pip install -e .` of a src layout, `pip install -e
    <sub>` of a veRL checkout; of several, the one of the project that holds the script ``near``)."""
    for candidate in (d / "verl", d / "src" / "verl"):
        if is_package(candidate):
            if _importable(candidate):
                return candidate, []
            if (said := _namespace(candidate, module)) not in passed:  # a folder searched twice, said once
                passed.append(said)
    if not is_project(d):
        return None, []
    try:
        subs = sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return None, []
    found = [sub / "verl" for sub in subs if is_package(sub / "verl") and _importable(sub / "verl")]
    if not found:
        return None, []
    own = next((p for p in found if near is not None and near.is_relative_to(p.parent.resolve())), found[0])
    return own, [p for p in found if p != own]


def _layout(d: Path, package: Path, others: list[Path], near: Path | None) -> str:
    rel = package.relative_to(d)
    if rel == Path("verl"):
        return ""
    if rel.parts[0] == "src":
        return "; a src/ layout, imported once the project is installed"
    sub = rel.parts[0]
    text = f"; a veRL checkout in {sub}/, imported once the project installs it (pip install -e {sub})"
    if not others:
        return text
    also = ", ".join(f"{p.parent.name}/" for p in others)
    if near is not None and near.is_relative_to(package.parent.resolve()):
        return f"{text}: the project that holds the script, which its install puts on sys.path (also here: {also})"
    return f"{text}: assumed, the first by name of the checkouts here, none of which holds the script (also: {also})"


def _namespace(package: Path, module: str | None) -> Passed:
    """P1: a `verl` folder of YAML alone, which Python passes over."""
    shown = VerlSource(package.resolve(), "").display()
    return Passed("RFTC238", f"{shown} has no __init__.py and no Python module: a namespace folder, which the "
                  "veRL the job installs (a regular package) wins over, so Python imports that one and Hydra "
                  f"composes its own config, never this folder's YAML (with no veRL installed, {module or 'verl'} "
                  "is not found at all)")


def _not_here(entry: Entry) -> Passed:
    """D1, X2: a PYTHONPATH entry that is not on this machine, and no tail of it is in the repository."""
    sub = _submodule(entry.folder)
    what = f"the git submodule {sub}, not checked out here (git submodule update --init)" if sub else \
        "not on this machine, and no tail of it is in the repository"
    return Passed("RFTC239", f"the PYTHONPATH entry '{entry.written}' the launch sets is {what}: the veRL it "
                  "holds, if it holds one, is the one Python imports, and its config is not read here")


def _submodule(folder: Path) -> str | None:
    """The git submodule ``folder`` is in, as .gitmodules in a folder above it declares it: its path, url, the
    branch it follows and the commit the repository records (its gitlink)."""
    for d in folder.parents:
        try:
            text = (d / ".gitmodules").read_text(encoding="utf-8", errors="replace")
        except OSError:
            if is_project(d):
                return None
            continue
        for section in re.split(r"^\s*\[submodule\b[^\]]*\]\s*$", text, flags=re.M)[1:]:
            keys = dict(re.findall(r"^\s*(\w+)\s*=\s*(.*?)\s*$", section, re.M))
            path = keys.get("path", "")
            if path and folder.is_relative_to(d / path):
                commit = _gitlink(d, path)
                refs = [f"branch {keys['branch']}"] if keys.get("branch") else []
                refs += [f"commit {commit}"] if commit else [] if refs else ["the commit the repository records"]
                return f"{path}/ ({keys.get('url', 'no url')}, {', '.join(refs)})"
        return None
    return None


def _gitlink(root: Path, path: str) -> str | None:
    """The commit the index of the git repository ``root`` records for its submodule at ``path`` (what `git
    submodule update` checks out); None where it is no git checkout or git cannot say."""
    import subprocess

    if not (root / ".git").exists():
        return None
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "--stage", "--", path], capture_output=True,
                             text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.match(r"160000 ([0-9a-f]{40}) ", out)
    return found.group(1) if found else None
