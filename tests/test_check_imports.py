"""`rftc check` stays light: a check run imports none of the heavy or compiler-only libraries."""

import json
import subprocess
import sys

from support.paths import GOLDEN, ROOT
HEAVY = ("hydra", "torch", "ray", "vllm", "verl", "omegaconf", "transformers", "lark")

PROBE = """
import json, sys
from rftc.cli import main
code = main(["check", sys.argv[1], "--format", "json"])
print(json.dumps({"code": code, "modules": sorted(m.split(".")[0] for m in sys.modules)}), file=sys.__stdout__)
"""


def test_check_imports_no_heavy_modules():
    example = GOLDEN / "check" / "valid" / "ppo_example.yaml"
    proc = subprocess.run([sys.executable, "-c", PROBE, str(example)], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["code"] == 0
    loaded = set(result["modules"])
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
    assert "pydantic" in loaded and "yaml" in loaded  # the check really ran


def test_ir_models_build_without_signature_inspection():
    """Pydantic inspects the signature of every default factory and of every BeforeValidator's function when it
    builds a model: a model class's whole signature, the tokenizer's patterns for a builtin such as ``list``. The
    IR's defaults are plain functions (rftc.trinity.types.fresh) and its conversions carry no BeforeValidator."""
    import inspect

    from pydantic import BaseModel, BeforeValidator

    from rftc.trinity import schema

    models = [c for c in vars(schema).values() if isinstance(c, type) and issubclass(c, BaseModel)]
    assert schema.TrinityConfig in models
    for cls in models:
        for name, f in cls.model_fields.items():
            assert f.default_factory is None or inspect.isfunction(f.default_factory), (cls.__name__, name)
            assert not any(isinstance(m, BeforeValidator) for m in f.metadata), (cls.__name__, name)

