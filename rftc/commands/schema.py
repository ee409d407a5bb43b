"""``rftc schema``: the JSON Schema of the Trinity-RFT 0.6.0 config IR, for YAML editors (completion and
validation, e.g. with a `# yaml-language-server: $schema=...` line)."""

from __future__ import annotations

DESCRIPTION = "Print the JSON Schema of the Trinity-RFT 0.6.0 config (for editor completion and validation)."


def add_arguments(p) -> None:
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")


def json_schema() -> dict:
    from rftc import TRINITY_VERSION
    from rftc.trinity.schema import TrinityConfig

    schema = TrinityConfig.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"Trinity-RFT {TRINITY_VERSION} config"
    return schema


def run(args) -> int:
    import json
    import sys

    text = json.dumps(json_schema(), indent=2, sort_keys=False) + "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0
