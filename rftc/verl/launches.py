"""What the veRL stage knows of a launch before composing it: whether it can compose its config, and the
diagnostic for a training launch it cannot."""

from __future__ import annotations

from rftc.diagnostics.collector import Diagnostics
from rftc.shell.invocation import Invocation
from rftc.verl.configdir import entry_of


def composable(inv: Invocation) -> bool:
    """Launches whose config the veRL stage composes: the verl trainers and recipes rftc knows, and any launch
    naming a config."""
    return entry_of(inv.module) is not None or (inv.is_training and inv.config_name is not None)


def report_no_schema(inv: Invocation, diags: Diagnostics) -> None:
    """RFTC218 for a training launch whose config rftc cannot compose (its overrides go unchecked)."""
    diags.add("RFTC218", f"no bundled veRL config for the entry point '{inv.module}'; its overrides are not "
              "checked", inv.span, hint="pass --config-path/--config-name if it uses a config of its own")
