"""The launch a Trinity config goes back to: veRL's SFT trainer under torchrun for an SFT config
(rftc.reverse.sft), main_ppo otherwise (rftc.reverse.overrides)."""

from __future__ import annotations

from rftc.reverse.overrides import Override, overrides, primary
from rftc.reverse.script import MAIN_PPO, render, torchrun
from rftc.reverse.sft import sft_overrides, trainer_of
from rftc.semantics.model import Value
from rftc.trinity.schema import TrinityConfig


def launch(x: TrinityConfig, v: dict[str, Value], release: str, raw: dict, source: str
           ) -> tuple[str, list[Override], list[Override]]:
    """The launch script's text, its overrides, and those whose key the release lacks (left out of it)."""
    if x.algorithm.algorithm_type != "sft":
        kept, lacking = overrides(x, v, release, raw=raw)
        config = primary(x)  # veRL's own config folder, so no --config-path
        command = MAIN_PPO + (f" --config-name={config}" if config != "ppo_trainer" else "")
        return render(kept, source=source, release=release, command=command), kept, lacking
    kept, lacking = sft_overrides(x, v, release, raw)
    module, _ = trainer_of(release)
    # Trinity's SFT (mode train) trains on the whole cluster; torchrun starts one process per GPU of it
    nodes, gpus = x.cluster.node_num or 1, x.cluster.gpu_per_node or 1
    command = (f"# {v['cluster.trainer_gpu_num'].source}: torchrun's world, the whole cluster (mode train)\n"
               + torchrun(module, nodes, gpus))
    text = render(kept, source=source, release=release, trainer=module.rsplit(".", 1)[-1], command=command)
    return text, kept, lacking
