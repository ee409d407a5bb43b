"""The dotted path configs written by rftc convert name (Trinity imports the class by it): rftc.plugins.algorithms."""

from rftc.plugins.algorithms import GPGPolicyLossFn, VerlAdvantageFn  # noqa: F401
