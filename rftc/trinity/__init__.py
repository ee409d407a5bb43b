"""The Trinity-RFT 0.6.0 config: its IR (schema), the file reader (document), the checks and the derived
values Trinity computes. Submodules import pydantic; this package module stays free of imports."""


def load_config_file(path, options=None):
    """(TrinityConfig | None, Diagnostics, {file: text}) for a Trinity config file; see rftc.trinity.validate."""
    from rftc.trinity.validate import load_config_file as load

    return load(path, options)
