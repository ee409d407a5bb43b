"""The dotted path configs written by rftc convert name (Trinity imports the class by it): rftc.plugins.operators."""

from rftc.plugins.operators import VerlFilterGroups  # noqa: F401
