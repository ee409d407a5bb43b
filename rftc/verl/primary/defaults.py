"""A launch's own config files composed by their defaults lists as Hydra 1.3 composes them (version_base=None, as
veRL's entry modules declare it): each entry read as ConfigRepository reads it (`optional`/`override` keywords,
`group@package`, `_here_`, `_global_`, option lists, null and ???, a choice interpolating the others: `${db}`),
`.yaml` added to a name only when it lacks it, the `# @package` header, group paths relative to the containing
config unless absolute, `_self_` last when not listed, entries walked last first so that the first `override` of
a group registered wins, and Hydra's own errors where Hydra refuses. The bundled config a defaults entry names
(`ppo_trainer`, reached through hydra.searchpath) is where the bundled release merges.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.model import Span
from rftc.shell.invocation import Arg
from rftc.verl.primary.files import Layer, Primary, display, load_yaml

MISSING_VALUE = "???"


class DefaultsError(Exception):
    """Hydra's refusal of a defaults list; the message is Hydra's. ``entry``: the index of the entry at fault."""

    def __init__(self, message: str, file: Path | None = None, entry: int | None = None):
        super().__init__(message)
        self.file, self.entry = file, entry


@dataclass
class Entry:
    """One defaults-list element (hydra.core.default_element's ConfigDefault or GroupDefault)."""

    path: str  # a config's path, or a group's ("/" first: absolute)
    package: str | None
    group: bool  # a GroupDefault (`group: option`) rather than a ConfigDefault (`name`)
    value: object = None  # a group's option: a name, a list of names, None, or ???
    optional: bool = False
    override: bool = False
    index: int = 0  # its place in the list, for messages

    @property
    def is_self(self) -> bool:
        return (self.value if self.group else self.path) == "_self_"


def _split(text: str) -> tuple[str, str | None]:
    """ConfigRepository._split_group: `group@package` (a `:pkg2` rename suffix is dropped, as Hydra drops it)."""
    path, at, package = text.partition("@")
    return path, (package.partition(":")[0] if at else None)


def entries(defaults: list, config: str) -> list[Entry]:
    """ConfigRepository._create_defaults_list for version_base >= 1.2."""
    out = []
    for i, item in enumerate(defaults):
        if isinstance(item, dict):
            if len(item) > 1:
                raise DefaultsError(f"In {config}: Too many keys in default item {item}", entry=i)
            if not item:
                raise DefaultsError(f"In {config}: Missing group name in {item}", entry=i)
            (key, value), = item.items()
            group, package = _split(str(key))
            words = group.split(" ")
            keywords = set()
            for w in words[:-1]:
                if w not in ("optional", "override"):
                    break
                keywords.add(w)
            if value is not None and not isinstance(value, (str, list)):
                raise DefaultsError(f"Unsupported item value in defaults : {_type(value)}. Supported: string or "
                                    "list", entry=i)
            if isinstance(value, list) and any(not isinstance(v, str) for v in value):
                bad = next(v for v in value if not isinstance(v, str))
                raise DefaultsError(f"Unsupported item value in defaults : {_type(bad)}, nested list items must "
                                    "be strings", entry=i)
            out.append(Entry(words[-1], _here(package), True, value, "optional" in keywords,
                             "override" in keywords, i))
        elif isinstance(item, str):
            path, package = _split(item)
            if path == "_self_" and package is not None:
                raise DefaultsError("_self_@PACKAGE is not supported", entry=i)
            out.append(Entry(path, _here(package), False, index=i))
        else:
            raise DefaultsError(f"Unsupported type in defaults : {_type(item)}", entry=i)
    return out


def _here(package: str | None) -> str | None:
    return "" if package == "_here_" else package


def _type(value) -> str:
    return {dict: "DictConfig", list: "ListConfig"}.get(type(value), type(value).__name__)


def header_package(text: str) -> str | None:
    """The `# @package` of a config's header (ConfigSource._get_header_dict), made absolute (set_package_header)."""
    found = None
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if not re.match(r"^\s*#\s*@", line):
            break
        words = [w for w in line.lstrip("#").strip().split(" ") if w]
        if len(words) < 2:
            raise DefaultsError(f"Expected header format: KEY VALUE, got '{line.lstrip('#').strip()}'")
        if len(words) > 2:
            raise DefaultsError(f"Too many components in '{line.lstrip('#').strip()}'")
        if words[0] == "@package":
            found = words[1]
    if found is None:
        return None
    return found if found == "_global_" or found.startswith("_global_.") else \
        "_global_" if found == "" else f"_global_.{found}"


def file_name(path: str) -> str:
    """ConfigSource._normalize_file_name: `.yaml` is added unless the name has it."""
    return path if path.endswith(".yaml") else f"{path}.yaml"


def final_package(parent: str, package: str) -> str:
    """InputDefault._get_final_package: below the parent's package; `_global_` makes it absolute."""
    ret = package if parent == "" else parent if package == "" else f"{parent}.{package}"
    cut = ret.rfind("_global_")
    return ret if cut == -1 else ret[cut + len("_global_") + 1:]


@dataclass
class _Node:
    """A config being composed: where its file is (relative to the config folder) and where its content goes."""

    config: str  # its config path, without extension ("main", "grp/agent.yaml" stays as written)
    base_dir: str  # the group path its relative entries are under
    package: str  # its final package


@dataclass
class _Walk:
    directory: Path
    bundled: set[str]
    primary: Primary
    any_group: bool
    overrides: dict = field(default_factory=dict)  # override key -> [option, containing config, used]
    choices: dict = field(default_factory=dict)  # override key -> the option chosen (Multiple values)
    items: list = field(default_factory=list)  # Layer, or "<base>", in merge order


def compose_file(directory: Path, name: str, primary: Primary, bundled: set[str], span_of, diags: Diagnostics,
                 any_group: bool = False) -> bool:
    """Compose the primary config ``name`` of ``directory`` into ``primary.layers`` in Hydra's merge order;
    False when Hydra would refuse (reported: RFTC209 for the primary config, RFTC211 with Hydra's message)."""
    span = span_of.span if isinstance(span_of, Arg) else span_of
    if not (directory / file_name(name)).is_file():
        diags.add("RFTC209", f"no config named '{name}' in {display(directory)}", span,
                  hint="check --config-name and --config-path")
        return False
    walk = _Walk(directory, bundled, primary, any_group)
    try:
        text = (directory / file_name(name)).read_text(encoding="utf-8")
        root = _Node(name, name.rpartition("/")[0], final_package("", header_package(text) or ""))
        if not _node(walk, root, span, diags):
            return False
        _unused(walk)
    except DefaultsError as exc:
        where = _entry_span(exc.file, exc.entry) if exc.file is not None else None
        diags.add("RFTC211", f"Hydra refuses the defaults list: {exc}", where or span,
                  hint="Hydra stops here too: fix the defaults list")
        return False
    primary.layers.extend(walk.items)
    return True


def _node(walk: _Walk, node: _Node, span: Span, diags: Diagnostics) -> bool:
    path = walk.directory / file_name(node.config)
    loaded = load_yaml(path, diags, span)
    if loaded is None:
        return False
    data, positions = loaded
    defaults = data.pop("defaults", [])
    if "hydra" in data:
        walk.primary.hydra.append((str(path), data.pop("hydra")))
    if not isinstance(defaults, list):
        kind = "mapping" if isinstance(defaults, dict) else type(defaults).__name__
        raise DefaultsError(f"Invalid defaults list in '{node.config}', defaults must be a list (got {kind})", path)
    try:
        listed = entries(defaults, node.config)
    except DefaultsError as exc:
        raise DefaultsError(str(exc), path, exc.entry) from None
    own = Layer(data, {k: v for k, v in positions.items() if not k.startswith(("defaults", "hydra"))},
                str(path), node.package)
    selfs = [e for e in listed if e.is_self]
    if len(selfs) > 1:
        raise DefaultsError(f"Duplicate _self_ defined in {node.config}", path, selfs[1].index)
    if not selfs and (any(not e.override for e in listed) or not listed):
        listed.append(Entry("_self_", None, False, index=len(listed)))
    _register(walk, node, listed, path)
    children = []
    for e in reversed(listed):  # Hydra walks the list last first: a later sibling's overrides win
        if e.is_self:
            children.append([own])
        elif not e.override:
            got = _child(walk, node, e, path, span, diags)
            if got is None:
                return False
            children.append(got)
    for i, got in enumerate(children):  # interpolated choices, from the choices made meanwhile
        if isinstance(got, Entry):
            children[i] = _child(walk, node, got, path, span, diags, _interpolated(walk, got.value))
            if children[i] is None:
                return False
    for items in reversed(children):
        walk.items.extend(items)
    return True


def _override_key(group_path: str, package: str, default_package: str) -> str:
    """GroupDefault.get_override_key: the group, with `@package` where the package is not the group's own."""
    if package == default_package:
        return group_path
    return f"{group_path}@{package or '_global_'}"


def _group_path(node: _Node, group: str) -> str:
    return group[1:] if group.startswith("/") else f"{node.base_dir}/{group}" if node.base_dir else group


def _key(node: _Node, e: Entry) -> str:
    gpath = _group_path(node, e.path)
    package = final_package(node.package, e.package if e.package is not None else e.path.lstrip("/").replace(
        "/", "."))
    return _override_key(gpath, package, gpath.replace("/", "."))


def _register(walk: _Walk, node: _Node, listed: list[Entry], path: Path) -> None:
    """_update_overrides: a config's `override` entries, after all its others; the first registered wins."""
    last = None
    for e in listed:
        if last is not None and not e.override and not e.is_self:
            raise DefaultsError(f"In {node.config}: Override '{_key(node, last)} : {last.value}' is defined before "
                                f"'{_key(node, e) if e.group else e.path}: {e.value if e.group else e.path}'.",
                                path, e.index)
        if e.override and e.group:
            last = e
            walk.overrides.setdefault(_key(node, e), [e.value, node.config, False, e])


def _child(walk: _Walk, node: _Node, e: Entry, path: Path, span: Span, diags: Diagnostics,
           resolved: str | None = None) -> list | Entry | None:
    """The layers of one entry, in merge order; None when it cannot be composed (reported). An entry whose
    option is an interpolation comes back, with that option, to be composed after its siblings (``resolved``)."""
    if not e.group:
        target = e.path[1:] if e.path.startswith("/") else f"{node.base_dir}/{e.path}" if node.base_dir else e.path
        if not (walk.directory / file_name(target)).is_file():
            name = e.path.lstrip("/").removesuffix(".yaml")
            if name in walk.bundled and walk.primary.base is None and node.package == "" and e.package is None:
                walk.primary.base = name
                return ["<base>"]
            raise DefaultsError(f"In '{node.config}': Could not load '{target}'.", path, e.index)
        return _load(walk, node, e, target, e.path.lstrip("/").rpartition("/")[0], span, diags)
    key = _key(node, e)
    registered = walk.overrides.get(key)
    value = e.value if resolved is None else resolved
    if registered is not None and resolved is None:
        registered[2] = True
        value = registered[0]
    if isinstance(value, str) and "${" in value and resolved is None:
        return Entry(e.path, e.package, True, value, e.optional, e.override, e.index)
    if isinstance(value, list):
        if any("${" in v for v in value):
            raise DefaultsError(f"In '{node.config}': Defaults List interpolation is not supported in options list "
                                "items", path, e.index)
        out = []
        for option in value:
            got = _load(walk, node, e, f"{_group_path(node, e.path)}/{option}", e.path.lstrip("/"), span, diags)
            if got is None:
                return None
            out.extend(got)
        return out
    prev = walk.choices.setdefault(key, value)
    if prev != value:
        raise DefaultsError(f"Multiple values for {key}. To override a value use 'override {key}: {prev}'", path,
                            e.index)
    if value is None:
        return []
    if value == MISSING_VALUE:
        raise DefaultsError(f"You must specify '{key}', e.g, {key}=<OPTION>\nAvailable options:"
                            + "".join(f"\n\t{o}" for o in _options(walk.directory / _group_path(node, e.path))),
                            path, e.index)
    return _load(walk, node, e, f"{_group_path(node, e.path)}/{value}", e.path.lstrip("/"), span, diags,
                 _group_path(node, e.path))


def _interpolated(walk: _Walk, value: str) -> str:
    """GroupDefault.resolve_interpolation: the option, resolved against the group choices known so far."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    known = OmegaConf.create(dict(walk.choices))
    node = OmegaConf.create({"_dummy_": value})
    node._set_parent(known)
    try:
        got = node["_dummy_"]
    except OmegaConfBaseException:
        keys = ", ".join(str(k) for k in walk.choices)
        raise DefaultsError(f"Error resolving interpolation '{value}'" + (f", possible interpolation keys: {keys}"
                                                                           if keys else "")) from None
    return str(got)


def _load(walk: _Walk, node: _Node, e: Entry, target: str, relative_group: str, span: Span,
          diags: Diagnostics, base_dir: str | None = None) -> list | None:
    """The layers of config ``target``; ``relative_group``: the group path its package defaults to (relative to
    the containing config); ``base_dir``: the group path its own entries are under (default: its folder)."""
    file = walk.directory / file_name(target)
    if not file.is_file():
        if e.optional:
            return []
        group = target.rpartition("/")[0]
        options = _options(walk.directory / group)
        listing = f"\nAvailable options in '{group}':" + "".join(f"\n\t{o}" for o in options) if options else ""
        raise DefaultsError(f"In '{node.config}': Could not find '{target}'{listing}", walk.directory /
                            file_name(node.config), e.index)
    header = header_package(file.read_text(encoding="utf-8"))
    package = e.package
    if package is not None and "_group_" in package:  # InputDefault.update_parent
        package = "_global_." + package.replace("_group_", (base_dir or target.rpartition("/")[0]).replace("/", "."))
    if package is None:
        package = header if header is not None else relative_group.replace("/", ".")
    base = target.rpartition("/")[0] if base_dir is None else base_dir
    child = _Node(target, base, final_package(node.package, package))
    before = len(walk.items)
    if not _node(walk, child, span, diags):
        return None
    got = walk.items[before:]
    del walk.items[before:]
    return got


def _options(group: Path) -> list[str]:
    try:
        return sorted(p.stem for p in group.iterdir() if p.suffix == ".yaml" and p.is_file())
    except OSError:
        return []


def _unused(walk: _Walk) -> None:
    """Overrides that matched no entry: a group of the bundled config is chosen there (Hydra composes it, on the
    checkout's folder or the release's); one of the files' own groups is Hydra's error."""
    for key, (value, config, used, e) in walk.overrides.items():
        if used:
            continue
        group = key.partition("@")[0]
        if (walk.directory / group).is_dir() or not isinstance(value, str):
            raise DefaultsError(f"In '{config}': Could not override '{key}'. No match in the defaults list.",
                                walk.directory / file_name(config), e.index)
        if key == "model_engine" and not walk.any_group:
            walk.primary.choice = value  # the bundled trees hold its choices
        else:
            walk.primary.group_choices.append(f"{key}={value}")
            walk.primary.choice_spans[f"{key}={value}"] = _entry_span(walk.directory / file_name(config), e.index)


def _entry_span(file: Path, index: int | None) -> Span | None:
    """Where entry ``index`` of ``file``'s defaults list is written (the list itself when no entry is named)."""
    import yaml

    try:
        node = yaml.compose(file.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    shown = display(file)
    if not isinstance(node, yaml.MappingNode):
        return Span(shown, 1, 1)
    for k, v in node.value:
        if k.value == "defaults":
            at = v.value[index] if index is not None and isinstance(v, yaml.SequenceNode) and index < len(v.value) \
                else k
            return Span(shown, at.start_mark.line + 1, at.start_mark.column + 1)
    return Span(shown, 1, 1)
