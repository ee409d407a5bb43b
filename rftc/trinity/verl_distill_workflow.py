"""The dotted path the configs rftc convert writes for veRL's on-policy distillation name (Trinity imports the
class by it): rftc.plugins.distill_workflow."""

from rftc.plugins.distill_workflow import VerlDistillWorkflow  # noqa: F401
