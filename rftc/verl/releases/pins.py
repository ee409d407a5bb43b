"""The verl release a repository pins, read from its packaging files (never run): uv.lock and poetry.lock (the
version resolved), requirements*.txt, pyproject's [project] dependencies, setup.py's install_requires (read with
ast), setup.cfg's, then a setup script that clones a tag (`git clone -b v0.4.1 .../verl`). Requirements are read
with `packaging`, as pip reads them; optional extras are not installed by default and are ignored. The first file
that names verl decides. A submodule's commit, a branch, and releases rftc has no schema for (newer than the
bundled ones) say nothing about a bundled release: they are named and passed over.

The repository is the one the launch belongs to: the script's folder and its parents up to the first that holds
a project marker (setup.py, pyproject.toml, setup.cfg, .git), else the same from the launch's directory."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from rftc.shell.invocation import Invocation
from rftc.verl.checkout.modules import is_project, launch_dir, script_dir, up_to_repository
from rftc.verl.releases import order, schema

_GIT_URL = re.compile(r"(?:git\+)?(?:https?://|git@|ssh://)\S*?/verl(?:\.git)?@([\w.\-/]+)")
_CLONE = re.compile(r"\bgit\s+clone\b(?P<args>[^\n;&|]*)")
_BRANCH = re.compile(r"(?:-b|--branch)[\s=]+['\"]?([\w.\-/]+)")
_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")


@dataclass(frozen=True)
class Pin:
    """What one file says about the verl release."""

    file: Path
    line: int
    text: str  # as written
    versions: tuple[str, ...] = ()  # the bundled releases it allows, newest first
    passed: str = ""  # why it says nothing about a bundled release (a branch, a commit, a release not bundled)

    def where(self) -> str:
        return f"{self.file.name}:{self.line}"


def repository(inv: Invocation) -> Path | None:
    """The repository a launch belongs to (see the module docstring)."""
    starts = [d for d in (script_dir(inv), launch_dir(inv).resolve()) if d is not None]
    for start in starts:
        if is_project(top := up_to_repository(start)[-1]):
            return top
    return None


@lru_cache(maxsize=64)
def pinned(root: Path) -> tuple[Pin, ...]:
    """Every pin of verl in ``root``'s files, in the order they decide: the first is the one used."""
    out: list[Pin] = []
    for name in ("uv.lock", "poetry.lock"):
        out += _lock(root / name)
    for path in sorted(root.glob("requirements*.txt")):
        out += _requirements(path)
    out += _pyproject(root / "pyproject.toml")
    out += _setup_py(root / "setup.py")
    out += _setup_cfg(root / "setup.cfg")
    for path in sorted([*root.glob("*.sh"), *root.glob("scripts/*.sh")]):
        out += _clones(path)
    out += _submodules(root / ".gitmodules")
    return tuple(out)


def _read(path: Path) -> str | None:
    """The file's text when it names verl at all (the others are not parsed)."""
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else None
    except (OSError, UnicodeDecodeError):
        return None
    return text if text is not None and "verl" in text.lower() else None


def _line_of(text: str, needle: str, start: int = 0) -> int:
    i = text.find(needle, start)
    return text.count("\n", 0, i) + 1 if i >= 0 else 1


def _toml(path: Path) -> tuple[str, dict]:
    """A TOML file's text and content ("", {} when absent or unreadable)."""
    import tomllib

    text = _read(path)
    try:
        return (text, tomllib.loads(text)) if text is not None else ("", {})
    except tomllib.TOMLDecodeError:
        return "", {}


def _lock(path: Path) -> list[Pin]:
    text, data = _toml(path)
    for pkg in data.get("package", []):
        if isinstance(pkg, dict) and _canonical(str(pkg.get("name", ""))) == "verl" and "version" in pkg:
            line = _line_of(text, f'name = "{pkg["name"]}"')
            source = pkg.get("source") or {}
            if isinstance(source, dict) and ("editable" in source or "directory" in source or "path" in source):
                return []  # the repository's own copy: its config is the checkout's (rftc.verl.checkout)
            git = _git_source(source)
            if git is None:
                return [_exact(path, line, f'verl {pkg["version"]}', str(pkg["version"]))]
            url, ref, commit = git
            pin = _ref(path, line, f'verl {pkg["version"]} from {url}', ref or commit)
            if pin.versions:
                return [pin]  # a release tag
            return [replace(pin, passed=f"{pin.passed}: the lock installs commit {commit or ref} from git, and its "
                            f"version {pkg['version']} is only what that commit's veRL declares")]
    return []


def _git_source(source) -> tuple[str, str, str] | None:
    """(url, ref, commit) of a lock entry installed from git: poetry's `type = "git"` with `reference` (a branch,
    tag or revision) and `resolved_reference`, uv's `git = "URL?branch=x#commit"` (or ?tag=, ?rev=)."""
    if not isinstance(source, dict):
        return None
    if source.get("type") == "git":
        return str(source.get("url", "")), str(source.get("reference") or ""), \
            str(source.get("resolved_reference") or "")
    if isinstance(source.get("git"), str):
        from urllib.parse import parse_qs, urlsplit

        parts = urlsplit(source["git"])
        query = parse_qs(parts.query)
        ref = next((query[k][0] for k in ("tag", "branch", "rev") if query.get(k)), "")
        return parts._replace(query="", fragment="").geturl(), ref, parts.fragment
    return None


def _requirements(path: Path) -> list[Pin]:
    text = _read(path)
    if text is None:
        return []
    found = []
    for i, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)#.*", "", raw).strip()
        if line.startswith(("-e ", "--editable ")):
            line = line.split(None, 1)[1]
        if line and not line.startswith("-"):
            found.append((i, line))
    return _listed(path, found)


def _pyproject(path: Path) -> list[Pin]:
    text, data = _toml(path)
    project = data.get("project", {})
    if _canonical(str(project.get("name", ""))) == "verl":
        return []  # veRL itself (a fork): the release its checkout declares decides
    deps = project.get("dependencies", [])
    return _listed(path, [(_line_of(text, d), d) for d in deps if isinstance(d, str)] if isinstance(deps, list)
                   else [])


def _listed(path: Path, found: list[tuple[int, str]]) -> list[Pin]:
    """The pins of (line, requirement) pairs."""
    return [pin for line, dep in found if (pin := _requirement(path, line, dep)) is not None]


def _setup_py(path: Path) -> list[Pin]:
    """install_requires of setup(...): a literal list, or a name bound to one at module level."""
    text = _read(path)
    if text is None:
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    bound = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign) for t in node.targets
             if isinstance(t, ast.Name)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg == "name" and isinstance(kw.value, ast.Constant) and _canonical(str(kw.value.value)) == "verl":
                return []  # veRL itself
        for kw in node.keywords:
            if kw.arg != "install_requires":
                continue
            value = bound.get(kw.value.id) if isinstance(kw.value, ast.Name) else kw.value
            if isinstance(value, (ast.List, ast.Tuple)):
                found += [(e.lineno, e.value) for e in value.elts if isinstance(e, ast.Constant)
                          and isinstance(e.value, str)]
    return _listed(path, found)


def _setup_cfg(path: Path) -> list[Pin]:
    import configparser

    text = _read(path)
    if text is None:
        return []
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    if _canonical(parser.get("metadata", "name", fallback="")) == "verl":
        return []
    deps = parser.get("options", "install_requires", fallback="")
    return _listed(path, [(_line_of(text, d.strip()), d.strip()) for d in deps.splitlines() if d.strip()])


def _clones(path: Path) -> list[Pin]:
    """`git clone -b TAG <url of a verl repository>` in a setup script."""
    text = _read(path)
    if text is None:
        return []
    out = []
    for m in _CLONE.finditer(text):
        args = m.group("args")
        if not re.search(r"/verl(?:\.git)?\b", args):
            continue
        branch = _BRANCH.search(args)
        if branch is not None:
            out.append(_ref(path, _line_of(text, m.group(0), m.start()), m.group(0).strip(), branch.group(1)))
    return out


def _submodules(path: Path) -> list[Pin]:
    """A verl submodule: the commit it records is no release (passed over)."""
    text = _read(path)
    if text is None:
        return []
    for m in re.finditer(r"^\s*url\s*=\s*(\S*/verl(?:\.git)?)\s*$", text, re.M):
        return [Pin(path, _line_of(text, m.group(0)), m.group(1), passed="a submodule records a commit, not a "
                    "release; its checkout's own config is composed when it is there (git submodule update)")]
    return []


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement(path: Path, line: int, text: str) -> Pin | None:
    if "verl" not in text.lower():
        return None  # another package (not parsed: most are not verl)
    from packaging.requirements import InvalidRequirement, Requirement

    url = _GIT_URL.search(text)
    if url is not None and re.search(r"/verl(?:\.git)?@", text):
        return _ref(path, line, text, url.group(1).split("#")[0])
    try:
        req = Requirement(text)
    except InvalidRequirement:
        return None
    if _canonical(req.name) != "verl" or (req.marker is not None and "extra" in str(req.marker)):
        return None
    if req.url:
        return None  # a local path or an archive: no release named
    allowed = tuple(v for v in _bundled() if req.specifier.contains(v, prereleases=True))
    if not str(req.specifier):
        return None  # any release: says nothing
    if allowed:
        return Pin(path, line, text, allowed)
    return Pin(path, line, text, passed=f"no bundled release satisfies {req.specifier} (bundled: "
               f"{_bundled()[-1]} to {_bundled()[0]})")


def _exact(path: Path, line: int, text: str, version: str) -> Pin:
    from packaging.version import InvalidVersion, Version

    try:
        wanted = Version(version)
    except InvalidVersion:
        return Pin(path, line, text, passed=f"'{version}' is not a release number")
    found = tuple(v for v in _bundled() if Version(v) == wanted)
    return Pin(path, line, text, found) if found else \
        Pin(path, line, text, passed=f"verl {version} has no bundled schema (bundled: {_bundled()[-1]} to "
            f"{_bundled()[0]})")


def _ref(path: Path, line: int, text: str, ref: str) -> Pin:
    """A git ref: a release tag (v0.4.1) pins that release; a branch or a commit names none."""
    if _COMMIT.match(ref):
        return Pin(path, line, text, passed=f"'{ref}' is a commit, not a release")
    if re.fullmatch(r"v?\d+(\.\d+)*(\.?post\d+)?", ref):
        return _exact(path, line, text, ref.lstrip("v"))
    return Pin(path, line, text, passed=f"'{ref}' is a branch, not a release")


def _bundled() -> list[str]:
    return sorted(schema.versions(), key=order.key, reverse=True)
