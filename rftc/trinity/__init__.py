"""The Trinity-RFT 0.6.0 config: its IR (schema), the file reader (document), the checks, the values Trinity
derives (derive) and the config as Trinity runs it (expand). Submodules import pydantic; this one imports nothing."""
