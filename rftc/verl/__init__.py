"""The veRL stage: from a launch's Hydra overrides to the effective veRL config, with the provenance of every
value, composed as Hydra would on the config of the veRL the launch imports: a checkout's own config folder
(rftc.verl.checkout, composed by hydra-core), else the bundled verl schemas (rftc.verl.releases, no verl install
needed).

    effective_config(invocation, verl_version=None, source=None, diags=diags) -> EffectiveConfig | None
    invocation_from_text("k=v k2=v2", diags=diags) -> Invocation | None

compose.py runs the stage: primary/ finds the config a launch composes and reads its own config files,
overrides/ parses (Hydra's grammar), applies and resolves its overrides, releases/ or checkout/ give the config
they apply to; effective.py is what the stage hands on, startup.py veRL's startup checks over it.
"""

from __future__ import annotations

from rftc.verl.compose import effective_config
from rftc.verl.overrides.text import invocation_from_text

__all__ = ["effective_config", "invocation_from_text"]
