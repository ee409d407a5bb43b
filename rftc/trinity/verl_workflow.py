"""The dotted path configs written by rftc convert name (Trinity imports the class by it): rftc.plugins.workflow."""

from rftc.plugins.workflow import VerlRewardWorkflow  # noqa: F401
