"""A Trinity config file read exactly as Trinity reads it, with the line and column of every key and value.

Trinity loads YAML through OmegaConf, whose loader is PyYAML's SafeLoader (YAML 1.1: yes/no/on/off are
booleans) plus a float resolver for `1e-6`, without timestamps, rejecting duplicate keys. ``parse`` composes the
file with that loader (libyaml's C parser where available, about 30x faster than a pure-Python round trip, which
matters when CI checks hundreds of files) and keeps each node's marks; comment-preserving rewrites (`--fix`) use
ruamel.yaml's round trip instead (rftc.trinity.fix).

``parse`` never raises: broken YAML becomes an RFTC400 diagnostic at the error's position. ``Document.locate``
maps a config path (keys and list indices) to a Span; a path the file does not spell out (a default) is
located at its nearest written ancestor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Span

_FLOAT = re.compile(r"""^(?:
     [-+]?[0-9]+(?:_[0-9]+)*\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?[0-9]+(?:_[0-9]+)*(?:[eE][-+]?[0-9]+)
    |\.[0-9]+(?:_[0-9]+)*(?:[eE][-+][0-9]+)?
    |[-+]?[0-9]+(?:_[0-9]+)*(?::[0-5]?[0-9])+\.[0-9_]*
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""", re.X)

# (line, col, end_line, end_col) of a key (or list item) and of its value, 1-based
Marks = tuple[tuple[int, int, int, int], tuple[int, int, int, int]]


@dataclass
class Document:
    file: str
    text: str
    data: Any  # plain Python values, as OmegaConf's loader constructs them
    marks: dict[tuple, Marks] = field(default_factory=dict)

    def locate(self, path: tuple, *, value: bool = False) -> Span | None:
        """The span of the key at ``path`` (its value's span with ``value=True``); for a path the file does not
        contain, the span of the nearest ancestor it does contain; None for an empty document."""
        path = tuple(path)
        while path:
            m = self.marks.get(path)
            if m is not None:
                line, col, end_line, end_col = m[1] if value else m[0]
                return Span(self.file, line, col, end_line, end_col)
            path = path[:-1]
        return Span(self.file, 1, 1)


def _loader_class():
    import yaml

    base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

    class Loader(base):  # OmegaConf's loader (omegaconf._utils.get_yaml_loader), on libyaml where available
        def construct_mapping(self, node, deep=False):
            keys = set()
            for key_node, _ in node.value:
                if key_node.tag != yaml.resolver.BaseResolver.DEFAULT_SCALAR_TAG:
                    continue
                if key_node.value in keys:
                    raise yaml.constructor.ConstructorError("while constructing a mapping", node.start_mark,
                                                            f"found duplicate key {key_node.value}",
                                                            key_node.start_mark)
                keys.add(key_node.value)
            return super().construct_mapping(node, deep=deep)

    Loader.yaml_implicit_resolvers = {k: list(v) for k, v in base.yaml_implicit_resolvers.items()}
    Loader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789."))
    Loader.yaml_implicit_resolvers = {
        key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for key, resolvers in Loader.yaml_implicit_resolvers.items()}
    return Loader


_LOADER = None


def parse(text: str, file: str) -> tuple[Document | None, Diagnostics]:
    """Read YAML text; on a syntax error return None and an RFTC400 diagnostic at the error's position."""
    import yaml

    global _LOADER
    if _LOADER is None:
        _LOADER = _loader_class()
    diags = Diagnostics()
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
        marks: dict[tuple, Marks] = {}
        if node is not None:
            _index(loader, node, (), marks)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem, context = exc.problem or "", exc.context or ""
        if exc.context_mark and ("end of stream" in problem or "stream end" in problem or "flow" in context):
            mark = exc.context_mark  # an unclosed quote or bracket: point where it opens
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = " ".join(p for p in (exc.context, exc.problem) if p)
        diags.add("RFTC400", f"invalid YAML: {what}", Span(file, line, col))
        return None, diags
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:  # e.g. an unhashable key
        diags.add("RFTC400", f"invalid YAML: {exc}", Span(file, 1, 1))
        return None, diags
    finally:
        loader.dispose()
    return Document(file, text, data, marks), diags


def _span(node) -> tuple[int, int, int, int]:
    s, e = node.start_mark, node.end_mark
    if e.line > s.line:  # a block collection: mark its first line only
        return s.line + 1, s.column + 1, s.line + 1, s.column + 2
    return s.line + 1, s.column + 1, e.line + 1, e.column + 1


def _index(loader, node, path: tuple, marks: dict) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            key = loader.construct_object(key_node)
            try:
                hash(key)
            except TypeError:
                continue
            here = path + (key,)
            marks[here] = (_span(key_node), _span(value_node))
            _index(loader, value_node, here, marks)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            here = path + (i,)
            marks[here] = (_span(item), _span(item))
            _index(loader, item, here, marks)
