"""The veRL stage: from a launch's Hydra overrides to the effective veRL config, with the provenance of every
value, composed as Hydra would on the config of the veRL the launch imports: a checkout's own config folder
(rftc.verl.source, composed by hydra-core), else the bundled verl schemas (no verl install needed).

    effective_config(invocation, verl_version=None, source=None, diags=diags) -> EffectiveConfig | None
    invocation_from_text("k=v k2=v2", diags=diags) -> Invocation | None
"""

from __future__ import annotations

from rftc.verl.compose import effective_config
from rftc.verl.invocations import invocation_from_text

__all__ = ["effective_config", "invocation_from_text"]
