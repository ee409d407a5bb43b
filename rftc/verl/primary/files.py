"""A launch's own config files: YAML read with the position of every key (composed in their defaults lists' order
by rftc.verl.primary.defaults), and merged in that order over the config they start from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.model import Span
from rftc.verl.effective import Provenance
from rftc.verl.overrides.apply import copy_tree, leaves
from rftc.verl.overrides.resolve import MISSING


@dataclass
class Layer:
    """A config file's own content, merged in defaults-list order."""

    tree: dict
    positions: dict  # dotted key -> Span of the key in the file
    file: str
    package: str = ""  # where the content goes ("" = the root)
    words: dict = field(default_factory=dict)  # a dotlist's: dotted key -> the launch's word (Arg) that sets it


@dataclass
class Primary:
    base: str | None  # bundled config the composition starts from (None: only local files)
    layers: list  # ordered: Layer, or the string "<base>" marking where the bundled config merges
    choice: str | None = None  # model_engine chosen by the config files ("override model_engine: x")
    name: str = ""  # the config name as the user wrote it (for EffectiveConfig.config_name)
    hydra: list = field(default_factory=list)  # hydra: sections of the files (recorded, not applied)
    group_choices: list = field(default_factory=list)  # "override group: option" of the files, as "group=option"
    choice_spans: dict = field(default_factory=dict)  # each of group_choices -> where its entry is written
    directory: Path | None = None  # the script-local config directory, when there is one
    named_by: str = ""  # the checkout's entry module that names the config ("file:line"), when it does
    assumed: str = ""  # why the checkout's own entry module could not say: the name is upstream's


def display(path: Path) -> str:
    """The path relative to the working directory when it is below it (stable in messages)."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def load_yaml(path: Path, diags: Diagnostics, span: Span) -> tuple[dict, dict] | None:
    import yaml
    from omegaconf._utils import get_yaml_loader

    shown = display(path)
    try:
        text = path.read_text(encoding="utf-8")
        loader = get_yaml_loader()
        data = yaml.load(text, Loader=loader)
        node = yaml.compose(text, Loader=loader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = Span(shown, mark.line + 1, mark.column + 1) if mark else span
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        diags.add("RFTC211", f"cannot read the config file {shown}: {problem}", where)
        return None
    if data is None:
        return {}, {}
    if not isinstance(data, dict):
        diags.add("RFTC211", f"the config file {shown} is not a mapping", Span(shown, 1, 1))
        return None
    positions: dict[str, Span] = {}
    _positions(node, "", shown, positions)
    return data, positions


def key_positions(path: Path) -> dict[str, Span]:
    """Where each key of a YAML file is written (dotted key -> Span), as load_yaml gives them, read by libyaml
    where PyYAML has it (many times faster; the same marks); {} when the file cannot be read."""
    import yaml

    try:
        node = yaml.compose(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    positions: dict[str, Span] = {}
    _positions(node, "", display(path), positions)
    return positions


def _positions(node, prefix: str, file: str, out: dict) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            key = f"{prefix}.{k.value}" if prefix else str(k.value)
            m, e = k.start_mark, k.end_mark
            out[key] = Span(file, m.line + 1, m.column + 1, e.line + 1, e.column + 1)
            _positions(v, key, file, out)


def layered(applied, primary: Primary, base_tree: dict | None) -> None:
    """The primary config's layers in defaults-list order: the composed base config and the launch's own files."""
    tree = applied.tree
    for layer in primary.layers:
        if layer == "<base>":
            base = copy_tree(base_tree)
            if not tree:
                tree.update(base)
            else:
                merge_layer(tree, Layer(base, {}, "<base>"), {})
        else:
            merge_layer(tree, layer, applied.provenance)


def merge_layer(tree: dict, layer: Layer, provenance: dict) -> None:
    """Merge a config file's content (OmegaConf.merge: dicts merge, anything else replaces; new keys allowed)."""
    dest = tree
    if layer.package:
        for part in layer.package.split("."):
            if not isinstance(dest.get(part), dict):
                dest[part] = {}
            dest = dest[part]

    def merge(d: dict, s: dict, prefix: str):
        for k, v in s.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(d.get(k), dict) and isinstance(v, dict):
                merge(d[k], v, key)
                continue
            if v == MISSING and k in d:
                continue  # OmegaConf's merge keeps the existing value over a mandatory marker
            d[k] = copy_tree(v)
            full = f"{layer.package}.{key}" if layer.package else key
            for gone in [p for p in provenance if p == full or p.startswith(full + ".")]:
                del provenance[gone]
            for leaf, _ in leaves(v, full):
                rel = leaf[len(layer.package) + 1:] if layer.package else leaf
                word = next((layer.words[p] for p in _prefixes(rel) if p in layer.words), None)
                if word is not None:
                    provenance[leaf] = Provenance("override", word.span, word.text, word.via)
                    continue
                provenance[leaf] = Provenance("config-file", layer.positions.get(rel) or layer.positions.get(key),
                                              f"{Path(layer.file).name}: {rel}")

    merge(dest, layer.tree, "")


def _prefixes(key: str) -> list[str]:
    """``key`` and its parents, the longest first."""
    parts = key.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
