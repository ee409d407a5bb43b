"""What the runtime's tests need (packages of the runtime environment, the bundled model), and the skips that
say how to get it."""

import importlib.util
import os
from pathlib import Path

import pytest

SETUP = "bash scripts/setup-runtime.sh, then .venv-run/bin/python -m pytest"


def require(*modules: str) -> None:
    """Skip the calling test module unless these packages are installed in this Python."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"the runtime is not installed in this Python ({', '.join(missing)} missing): {SETUP}",
                    allow_module_level=True)


def model_dir() -> Path:
    """The bundled model's directory (RFTC_MODEL_DIR overrides it)."""
    from rftc_runtime.model_cache import default_model_dir

    return Path(os.environ.get("RFTC_MODEL_DIR", default_model_dir()))


def require_model() -> Path:
    """Skip the calling test module unless the bundled model has been converted; return its directory."""
    model = model_dir()
    if not (model / "config.json").is_file():
        pytest.skip(f"no model at {model}: bash scripts/setup-runtime.sh converts it", allow_module_level=True)
    return model
