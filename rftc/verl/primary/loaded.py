"""The config a fork's main without Hydra composes (rftc.verl.primary.argparse_main), as OmegaConf composes it:
each OmegaConf.load a file as written (a `defaults:` list in it stays a plain key: OmegaConf composes nothing),
each from_dotlist / from_cli a config of `a.b=value` items (values read as YAML, new keys allowed, no Hydra
`+`/`~` grammar), merged in the module's order (OmegaConf.merge)."""

from __future__ import annotations

from pathlib import Path

from rftc.diagnostics.collector import Diagnostics
from rftc.diagnostics.model import Span
from rftc.shell.invocation import Invocation
from rftc.verl.checkout.modules import launch_dir
from rftc.verl.primary.argparse_main import Load
from rftc.verl.primary.files import Layer, Primary, display, load_yaml


def primary(inv: Invocation, diags: Diagnostics) -> Primary | None:
    """The layers of ``inv``'s fork main's composition; None (reported) when a file it loads is not there."""
    fork = inv.fork
    module = Path(fork.file)
    layers = []
    for step in fork.plan.steps:
        source = Span(display(module), step.line, 1)
        if isinstance(step, Load):
            path = Path(step.path)
            path = path if path.is_absolute() else launch_dir(inv) / path
            span = step.word.span if step.word is not None else source
            if step.word is not None and step.word.symbolic:
                diags.add("RFTC210", f"the config file {display(module)}:{step.line} loads is the launch's word "
                          f"'{step.word.text}', which is not known statically", span,
                          hint="pass the variable's value with --env NAME=VALUE (or the script's arguments after --)")
                return None
            if not path.is_file():
                diags.add("RFTC210", f"cannot find the config file {display(path)} that {display(module)}:"
                          f"{step.line} loads with OmegaConf.load", span,
                          hint="OmegaConf.load opens a relative path from the launch's working directory")
                return None
            loaded = load_yaml(path, diags, span)
            if loaded is None:
                return None
            layers.append(Layer(*loaded, display(path)))
        else:
            layers.extend(dotlist(step.words))
    first = next((layer.file for layer in layers if not layer.words), "")
    return Primary(None, layers, name=first)


def dotlist(words) -> list[Layer]:
    """OmegaConf.from_dotlist: each `key=value` (the value read by OmegaConf's YAML loader; a word without `=`:
    the key set to None) an OmegaConf.update of the config, which merges a dict into a dict and else replaces:
    one layer per word, merged in order."""
    import yaml
    from omegaconf._utils import get_yaml_loader

    layers = []
    for word in words:
        key, eq, text = word.text.partition("=")
        value = yaml.load(text, Loader=get_yaml_loader()) if eq else None
        tree = value
        for part in reversed(key.split(".")):
            tree = {part: tree}
        layers.append(Layer(tree, {}, "<dotlist>", words={key: word}))
    return layers
