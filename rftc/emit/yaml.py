"""YAML output: ruamel.yaml, keys in the guide's order, a provenance comment on each emitted key naming the
veRL key(s) and the script line, comments aligned to one column, and a header naming the source script, the
veRL schema version and the Trinity-RFT target version. Deterministic: the same input gives the same bytes."""

from __future__ import annotations

import io
import os
from collections.abc import Mapping

from rftc.diagnostics.model import Span
from rftc.shell.invocation import COMMAND_LINE

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
    for key in origin.keys:
        prov = cfg.prov(key)
        span = prov.span
        if span is None and prov.kind == "derived" and prov.source_key:
            span = cfg.prov(prov.source_key).span
        parts.append(f"{key} ({location(span)})" if prov.user_set or span else key)
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


def header(source: str, cfg, launch_line: int | None) -> str:
    where = f"{source}" + (f" (launch at line {launch_line})" if launch_line else "")
    version = cfg.verl_version + (f" ({cfg.config_name})" if cfg.config_name else "")
    lines = [f"Trinity-RFT {TRINITY_VERSION} config compiled by rftc from {where}",
             f"veRL schema: {version}" + (f"; {cfg.version_note}" if cfg.version_note else ""),
             f"Target: trinity-rft=={TRINITY_VERSION}. Each comment names the veRL key(s) a value came from and "
             "the script line;",
             "values without a script line are veRL defaults stated because Trinity's default differs."]
    return "".join(f"# {line}\n" for line in lines)


def emit(config: dict, origins: dict, cfg, *, source: str, launch_line: int | None = None) -> str:
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
    body = "\n".join(line.rstrip() for line in out.getvalue().splitlines()) + "\n"
    return header(source, cfg, launch_line) + body
