"""YAML output: keys in the guide's order, a provenance comment on each emitted key naming the veRL key(s) and
the script line, comments aligned to one column, and a header naming the source script, the veRL schema version
and the Trinity-RFT target version. Deterministic: the same input gives the same bytes.

The layout is ruamel.yaml's (block style, mappings indented 2, sequences 4 with the dash at 2). A config is
plain dicts, lists and scalars, so ``fast_body`` writes that layout itself and asks ruamel only how to write a
scalar it cannot prove plain (memoised); anything else (a list in a list, a multi-line string) goes through
ruamel whole (``ruamel_body``). tests/test_emit_yaml.py checks the two agree byte for byte."""

from __future__ import annotations

import io
import os
import re
from collections.abc import Mapping

from rftc.diagnostics.model import Span
from rftc.shell.invocation import COMMAND_LINE
from rftc.plugins import PREFIX

TRINITY_VERSION = "0.6.0"
MAX_COLUMN = 56  # comments start at the longest line's end (up to this column)


def location(span: Span | None) -> str:
    if span is None:
        return "default"
    if span.file == COMMAND_LINE:
        return "command line"
    return f"{os.path.basename(span.file)}:{span.line}"


def comment_for(origin, cfg) -> str:
    """``actor_rollout_ref.actor.ppo_mini_batch_size (run.sh:23)``; several keys are comma-separated; the
    origin's note follows a colon."""
    parts = []
    display = getattr(cfg, "display", lambda k: k)  # a pipeline's keys name their launch (rftc.mapping.stages)
    for key in origin.keys:
        prov = cfg.prov(key)
        span = prov.span
        if span is None and prov.kind == "derived" and prov.source_key:
            span = cfg.prov(prov.source_key).span
        name = display(key)
        parts.append(f"{name} ({location(span)})" if prov.user_set or span else name)
    text = ", ".join(parts)
    if origin.note:
        text = f"{text}: {origin.note}" if text else origin.note
    return text


def _to_ruamel(node, path, origins, cfg, comments):
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(node, Mapping):
        out = CommentedMap()
        for k, v in node.items():
            p = f"{path}.{k}" if path else str(k)
            out[k] = _to_ruamel(v, p, origins, cfg, comments)
            o = origins.get(p)
            if o is not None:
                text = comment_for(o, cfg)
                if text:
                    comments.append((out, k, text))
        return out
    if isinstance(node, list):
        seq = CommentedSeq()
        for i, v in enumerate(node):
            seq.append(_to_ruamel(v, f"{path}.{i}", origins, cfg, comments))
        return seq
    return node


def _yaml():
    from ruamel.yaml import YAML

    y = YAML()
    y.default_flow_style = False
    y.indent(mapping=2, sequence=4, offset=2)
    y.width = 4096
    return y


def _plugins(value) -> set[str]:
    """The classes of rftc's a config names (the values Trinity imports by dotted path)."""
    if isinstance(value, dict):
        return set().union(*map(_plugins, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(_plugins, value)) if value else set()
    return {value.rpartition(".")[2]} if isinstance(value, str) and value.startswith(PREFIX) else set()


def header(source: str, cfg, launch: str | None, config: dict | None = None) -> str:
    where = f"{source}" + (f" ({launch})" if launch else "")
    version = cfg.verl_version + (f" ({cfg.config_name})" if cfg.config_name else "")
    schema = f"veRL config: {cfg.config_name} of {cfg.source}" if cfg.source else f"veRL schema: {version}"
    lines = [f"Trinity-RFT {TRINITY_VERSION} config compiled by rftc from {where}",
             schema + (f"; {cfg.version_note}" if cfg.version_note else ""),
             f"Target: trinity-rft=={TRINITY_VERSION}. Each comment names the veRL key(s) a value came from and "
             "the script line;",
             "values without a script line are veRL defaults stated because Trinity's default differs."]
    plugins = sorted(_plugins(config or {}))
    if plugins:
        lines.append(f"Trinity imports rftc's {', '.join(plugins)} ({PREFIX}*): install rftc beside trinity-rft.")
    return "".join(f"# {line}\n" for line in lines)


def ruamel_body(config: dict, origins: dict, cfg) -> str:
    comments: list = []
    doc = _to_ruamel(config, "", origins, cfg, comments)
    y = _yaml()
    plain = io.StringIO()
    y.dump(doc, plain)
    width = max((len(line) for line in plain.getvalue().splitlines()), default=0)
    column = min(width, MAX_COLUMN) + 2
    for mapping, key, text in comments:
        mapping.yaml_add_eol_comment("# " + text, key, column=column)
    out = io.StringIO()
    y.dump(doc, out)
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines()) + "\n"


class _Unusual(Exception):
    """A shape ``fast_body`` does not write; ruamel does."""


_PLAIN = re.compile(r"[A-Za-z0-9_./$]([A-Za-z0-9_./$+=@ -]*[A-Za-z0-9_./$+=@-])?")
_STR_TAG = "tag:yaml.org,2002:str"
_scalars: dict = {}
_resolver = None


def _scalar(v) -> str:
    if v is None:
        return ""
    if v is True or v is False:
        return "true" if v else "false"
    if type(v) is int:
        return str(v)
    if type(v) is str and _PLAIN.fullmatch(v) and _resolves_to_str(v):
        return v
    key = (type(v), repr(v))  # repr: -0.0 and 0.0 are equal keys otherwise
    text = _scalars.get(key)
    if text is None:
        out = io.StringIO()
        _yaml().dump({"k": v}, out)
        text = out.getvalue()
        if not text.startswith("k: ") or text.count("\n") != 1:
            raise _Unusual(v)
        text = _scalars[key] = text[3:-1]
    return text


def _resolves_to_str(v: str) -> bool:
    global _resolver
    if _resolver is None:
        from ruamel.yaml.resolver import VersionedResolver

        _resolver = VersionedResolver()
    from ruamel.yaml.nodes import ScalarNode

    return str(_resolver.resolve(ScalarNode, v, (True, False))) == _STR_TAG


def fast_body(config: dict, origins: dict, cfg) -> str:
    lines: list[list] = []  # [text, comment or None]

    def mapping(node: Mapping, indent: int, path: str, first_prefix: str | None = None) -> None:
        for i, (k, v) in enumerate(node.items()):
            if type(k) is not str or not _PLAIN.fullmatch(k) or not _resolves_to_str(k):
                raise _Unusual(k)
            p = f"{path}.{k}" if path else k
            lead = first_prefix if (i == 0 and first_prefix is not None) else " " * indent
            o = origins.get(p)
            comment = comment_for(o, cfg) if o is not None else None
            if isinstance(v, Mapping) and v:
                lines.append([f"{lead}{k}:", comment or None])
                mapping(v, indent + 2, p)
            elif isinstance(v, list) and v:
                lines.append([f"{lead}{k}:", comment or None])
                sequence(v, indent + 2, p)
            else:
                text = "{}" if isinstance(v, Mapping) else "[]" if isinstance(v, list) else _scalar(v)
                lines.append([f"{lead}{k}: {text}" if text else f"{lead}{k}:", comment or None])

    def sequence(items: list, indent: int, path: str) -> None:
        for i, v in enumerate(items):
            dash = " " * indent + "- "
            if isinstance(v, Mapping) and v:
                mapping(v, indent + 2, f"{path}.{i}", first_prefix=dash)
            elif isinstance(v, (Mapping, list)) or v is None:
                raise _Unusual(v)
            else:
                lines.append([dash + _scalar(v), None])

    mapping(config, 0, "")
    width = max((len(text) for text, _ in lines), default=0)
    column = min(width, MAX_COLUMN) + 2
    out = []
    for text, comment in lines:
        if comment:
            text = text.ljust(column) + "# " + comment if len(text) < column else f"{text} # {comment}"
        out.append(text.rstrip())
    return "\n".join(out) + "\n"


def emit(config: dict, origins: dict, cfg, *, source: str, launch: str | None = None) -> str:
    try:
        body = fast_body(config, origins, cfg)
    except _Unusual:
        body = ruamel_body(config, origins, cfg)
    return header(source, cfg, launch, config) + body
