"""Where Python finds a launch's module, read from the file system as Python's import system reads it (nothing is
imported or run).

sys.path for `python3 -m pkg.mod` is the launch's working directory (`python3 path/to/main.py` runs that file),
then the entries of PYTHONPATH as the script sets them (relative ones taken from the working directory; an empty
one is the working directory), then site-packages, where a repository's editable install puts its src/ folder, its
own root, or a nested project's. Along it, as importlib's PathFinder: in each entry a regular package (a folder
with __init__.py) comes before a module file, which comes before a namespace package (a folder without
__init__.py); the first regular package or module wins, and where there is none, the namespace folders found make
one package. A submodule is looked up in its package's folders only. `-m pkg` runs pkg/__main__.py."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rftc.shell.invocation import Invocation

PROJECT_MARKERS = ("setup.py", "pyproject.toml", "setup.cfg", ".git")
_PROJECT_FILES = ("setup.py", "pyproject.toml", "setup.cfg")  # what pip installs from (.git alone: a checkout)
_PWD = "${oc.env:PWD}"
_SYMBOLIC = re.compile(r"\$\{|\$\(")
_ENTRIES = re.compile(r":(?![^{]*\})")  # PYTHONPATH's separator, not the one inside `${oc.env:PYTHONPATH}`
_PLACEHOLDER = re.compile(r"[^\w.\-]")  # a path component no folder is named: `{path_to_this_repo}`, `<repo>`


@dataclass(frozen=True)
class Entry:
    """One sys.path entry and why it is there (for diagnostics)."""

    folder: Path
    why: str
    written: str = ""  # a PYTHONPATH entry as the script writes it, where that path is not on this machine


@dataclass(frozen=True)
class Spec:
    """A module found: its file (None for a namespace package) and the sys.path entry it was found under."""

    name: str
    file: Path | None
    entry: Entry
    folders: tuple[Path, ...] = ()  # a package's __path__ (several for a namespace package)


def launch_dir(inv: Invocation) -> Path:
    """The directory the launch runs in: the script's cd (an unknown start is where rftc runs), else here."""
    cwd = inv.cwd
    if cwd and cwd.startswith(_PWD):
        cwd = str(Path.cwd()) + cwd[len(_PWD):]
    if cwd and not _SYMBOLIC.search(cwd):
        return Path(cwd)
    return Path.cwd()


def script_dir(inv: Invocation) -> Path | None:
    """The folder of the launch's script file; None for standard input and override text."""
    if inv.script and inv.script not in ("-", "<stdin>") and Path(inv.script).is_file():
        return Path(inv.script).resolve().parent
    return None


def pythonpath(inv: Invocation) -> list[Entry]:
    """The PYTHONPATH entries the launch runs with, as folders: the known ones (a part only the caller knows,
    `$PYTHONPATH`, is left out: it is not here to search). An entry that is not on this machine (a container's
    `/workspace/<repo>/x`, a placeholder `{path_to_this_repo}/x` the user fills in) is the folder of the repository
    that holds its longest tail, as a --config-path is (RFTC236); none: the entry as written, which holds nothing."""
    value = inv.env.get("PYTHONPATH")
    if value is None:
        return []
    base = launch_dir(inv)
    out = []
    for part in _ENTRIES.split(value):
        if _SYMBOLIC.search(part):
            continue
        why = f"the PYTHONPATH entry '{part}' the launch sets"
        folder = base / part if part else base
        if folder.is_dir():
            out.append(Entry(folder, why))
            continue
        found = _by_tail(inv, part)
        out.append(Entry(found[0], f"{why} (not here as written: found as {found[1]}/ in the repository)", part)
                   if found is not None else Entry(folder, why, part))
    return out


def _by_tail(inv: Invocation, written: str) -> tuple[Path, str] | None:
    """(folder, tail): the folder of the launch's repository that is the longest tail of ``written`` (from the
    launch's directory, then the script's folder, and their parents up to the repository's root). A relative
    entry is its own tail unless it starts with a placeholder (`{path_to_this_repo}`, `<repo>`)."""
    parts = [p for p in written.split("/") if p not in ("", ".", "..")]
    first = 1 if written.startswith("/") or (parts and _PLACEHOLDER.search(parts[0])) else 0
    starts = [launch_dir(inv), *([d] if (d := script_dir(inv)) is not None else [])]
    bases = [b for start in starts for b in up_to_repository(start.resolve())]
    tails = ["/".join(parts[i:]) for i in range(first, len(parts))] if first else ["/".join(parts)]
    return next(((b / tail, tail) for tail in tails if tail for b in bases if (b / tail).is_dir()), None)


def search_path(inv: Invocation) -> list[Entry]:
    """sys.path for ``python -m`` in ``inv``, site-packages as the repository the launch runs in installs it: its
    src/ folder or its root, and nested projects, each editable."""
    base = launch_dir(inv)
    first = Entry(base, "the launch's working directory, which `python -m` puts first on sys.path")
    return [first, *pythonpath(inv), *installed(base)]


def installed(start: Path) -> list[Entry]:
    """What an editable install of the repository ``start`` is in puts on sys.path: the repository root (the first of
    ``start`` and its parents with packaging files) or its src/, then each nested project's likewise."""
    root = next((d for d in (start, *start.parents) if _installable(d)), None)
    if root is None:
        return []
    out = [_install_entry(root, "the repository's own project")]
    try:
        subs = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        subs = []
    out += [_install_entry(sub, f"the nested project {sub.name}/") for sub in subs if _installable(sub)]
    return out


def is_project(d: Path) -> bool:
    """Whether ``d`` is a repository's root (packaging files or a git checkout)."""
    return any((d / m).exists() for m in PROJECT_MARKERS)


def up_to_repository(start: Path) -> list[Path]:
    """``start`` and its parents up to the repository root it is in (all of them outside one): above the root lie
    other people's folders."""
    out = []
    for d in (start, *start.parents):
        out.append(d)
        if is_project(d):
            break
    return out


def _installable(d: Path) -> bool:
    """Whether pip can install ``d`` (a git checkout alone is a repository, not a project)."""
    return any((d / m).is_file() for m in _PROJECT_FILES)


def _install_entry(project: Path, what: str) -> Entry:
    if (project / "src").is_dir():
        return Entry(project / "src", f"the src/ folder of {what}, on sys.path once it is installed")
    return Entry(project, f"{what}, on sys.path once it is installed (pip install -e)")


def find_spec(name: str, path: list[Entry]) -> Spec | None:
    """The module ``name`` (dotted) as importlib.util.find_spec finds it along ``path``; None when Python finds
    none. A package's spec's file is its __init__.py."""
    head, *rest = name.split(".")
    spec = _find_in(head, [(e.folder, e) for e in path])
    for part in rest:
        if spec is None or not spec.folders:
            return None  # a module is not a package: `a.b` with a.py fails as Python fails
        spec = _find_in(part, [(f, spec.entry) for f in spec.folders], f"{spec.name}.")
    return spec


def main_file(spec: Spec) -> Path | None:
    """The file `python -m` runs for ``spec``: the module's own, or a package's __main__.py."""
    if not spec.folders:
        return spec.file
    return next((f / "__main__.py" for f in spec.folders if (f / "__main__.py").is_file()), None)


def _find_in(tail: str, folders: list[tuple[Path, Entry]], prefix: str = "") -> Spec | None:
    namespace: list[Path] = []
    first_entry = None
    for folder, entry in folders:
        package = folder / tail
        if (package / "__init__.py").is_file():
            return Spec(prefix + tail, package / "__init__.py", entry, (package,))
        module = folder / f"{tail}.py"
        if module.is_file():
            return Spec(prefix + tail, module, entry)
        if package.is_dir():
            namespace.append(package)
            first_entry = first_entry or entry
    if namespace:
        return Spec(prefix + tail, None, first_entry, tuple(namespace))
    return None
