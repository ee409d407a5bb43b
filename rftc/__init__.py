"""rftc: compile veRL launch scripts into Trinity-RFT configs, check Trinity-RFT configs, and run them.

The library is rftc.api (``api.compile(script)``, ``api.check(config)``); the command line is rftc.cli."""

__version__ = "0.1.0"
TRINITY_VERSION = "0.6.0"
