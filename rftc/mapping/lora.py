"""LoRA as PEFT applies it: veRL and Trinity both hand (rank, alpha, target_modules, exclude_modules) to peft's
LoraConfig. PEFT matches a list of names as "the module's name, or its last dotted parts" (key == name or
key.endswith("." + name)) and a string as a regular expression over the whole name (re.fullmatch), except
"all-linear". Trinity-RFT 0.6 takes a string only (LoRAConfig.target_modules: str): ``regex`` writes a list as the
expression PEFT matches the same modules with, and ``targets`` reads that expression back as the list, so the two
spellings compare equal."""

from __future__ import annotations

import re

NONE = "none"  # rank 0: every weight is trained
_LIST = re.compile(r"\(\.\*\\\.\)\?\(((?:[^()|]+\|)*[^()|]+)\)")


def regex(names: list[str]) -> str:
    """The expression PEFT matches as it matches the list ``names``."""
    return f"(.*\\.)?({'|'.join(re.escape(str(n)) for n in names)})"


def targets(value) -> str:
    """PEFT's target_modules in one spelling: a list (or an expression ``regex`` wrote) as its names, sorted (PEFT
    tests each module against all of them), a string as itself."""
    if isinstance(value, (list, tuple)):
        return _names(str(n) for n in value)
    text = str(value)
    m = _LIST.fullmatch(text)
    if m is not None:
        names = [re.sub(r"\\(.)", r"\1", n) for n in m.group(1).split("|")]
        if regex(names) == text:  # every name escaped as regex() escapes it: the list's own expression
            return _names(names)
    return text


def _names(names) -> str:
    return "[" + ", ".join(sorted(set(names))) + "]"


def lora(rank, alpha, target_modules, exclude_modules=None):
    """The LoRA a run trains: "none" at rank 0, else (rank, alpha, targets[, exclude])."""
    if not rank:
        return NONE
    out = (int(rank), alpha, targets(target_modules))
    return out + (targets(exclude_modules),) if exclude_modules else out


# the entries of Megatron-Bridge's LoRA settings (veRL's model.lora) that decide what is trained besides rank, alpha,
# targets and type; merge (whether the rollout gets merged weights) and a2a_experimental (a communication scheme)
# do not
MEGATRON_LORA = ("dropout", "dropout_position", "exclude_modules", "lora_A_init_method", "lora_B_init_method",
                 "dtype", "adapter_path", "freeze_language_model", "freeze_vision_model", "freeze_vision_projection")


def megatron_lora(get) -> tuple | str:
    """The LoRA a Megatron actor trains: Megatron-Bridge's from model.lora (``get(name)`` reads its keys;
    verl/workers/config/megatron_peft.py get_peft_cls: none at rank 0, else create_peft(model.lora)), whatever
    lora_rank says (verl's Megatron workers read model.lora from 0.7.0, and no LoRA key before): (rank, alpha,
    targets, type) and the other settings it is given (MEGATRON_LORA), a list as its names sorted."""
    rank = get("rank") or 0
    if rank <= 0:
        return NONE
    rest = tuple((k, targets(v) if isinstance(v, (list, tuple)) else v) for k in MEGATRON_LORA
                 if (v := get(k)) is not None)
    return (int(rank), get("alpha"), targets(get("target_modules") or []),
            f"Megatron-Bridge {get('type') or 'lora'}") + rest
