"""algorithm_type sft: the dataset as Trinity's sft formatter reads it (the trainer trains on it with veRL's
sft_loss).

A row becomes chat messages (format.prompt_type ``messages``: the list under messages_key, a JSON string
accepted; ``plaintext``: an optional system prompt, the prompt, and the response as the assistant's reply). As
Trinity's SFTFormatter does, the whole conversation goes through the tokenizer's chat template, and the tokens
the template gives all messages but the last one (with the generation prompt) are the prompt: the loss covers
the rest, the assistant's reply and the template's end-of-turn tokens.
"""

from __future__ import annotations

import json

from rftc_runtime.errors import RuntimeFailure


def messages(row, fmt) -> list[dict]:
    """The row's chat messages, read with the experience buffer's ``format``; ValueError says why a row has
    none."""
    if not isinstance(row, dict):
        raise ValueError(f"a {type(row).__name__}, not a record")
    if fmt.prompt_type == "plaintext":
        msgs = []
        if fmt.system_prompt_key is not None:
            msgs.append({"role": "system", "content": _text(row, fmt.system_prompt_key)})
        elif fmt.system_prompt is not None:
            msgs.append({"role": "system", "content": fmt.system_prompt})
        msgs.append({"role": "user", "content": _text(row, fmt.prompt_key)})
        msgs.append({"role": "assistant", "content": _text(row, fmt.response_key)})
        return msgs
    if fmt.prompt_type != "messages":
        raise ValueError(f"format.prompt_type {fmt.prompt_type!r} is not messages or plaintext")
    if fmt.messages_key not in row:
        raise ValueError(f"no {fmt.messages_key!r} key (format.messages_key; its keys: {', '.join(map(str, row))})")
    msgs = row[fmt.messages_key]
    if isinstance(msgs, str):
        try:
            msgs = json.loads(msgs)
        except json.JSONDecodeError:
            raise ValueError(f"{fmt.messages_key!r} is a string that is not JSON") from None
    if not isinstance(msgs, (list, tuple)) or not all(isinstance(m, dict) and "role" in m and "content" in m
                                                      for m in msgs):
        raise ValueError(f"{fmt.messages_key!r} is not a list of chat messages ({{'role': ..., 'content': ...}})")
    if not msgs or msgs[-1]["role"] != "assistant":
        raise ValueError(f"{fmt.messages_key!r} does not end with an assistant message to learn")
    return [dict(m) for m in msgs]


def _text(row: dict, key: str) -> str:
    if row.get(key) is None:
        raise ValueError(f"no {key!r} key (its keys: {', '.join(map(str, row))})")
    return str(row[key])


def read(data) -> list[list[dict]]:
    """Every row's messages; a row without them stops the run before anything starts (RFTC506), as it stops
    Trinity's formatter."""
    from rftc_runtime.tasksets import TasksetError, read_rows

    where = "buffer.trainer_input.experience_buffer"
    try:
        rows = read_rows(data.path, data.split, data.subset_name)
    except (OSError, ValueError) as exc:
        raise TasksetError("RFTC506", f"SFT dataset {data.path} cannot be read: {exc}",
                           f"fix {where}.path, or regenerate the file", f"{where}.path") from None
    out = []
    for i, row in enumerate(rows):
        try:
            out.append(messages(row, data.format))
        except ValueError as exc:
            raise TasksetError("RFTC506", f"SFT dataset {data.path}, row {i}: {exc}",
                               f"fix the data, or {where}.format (prompt_type, messages_key, prompt_key, "
                               "response_key)", f"{where}.format") from None
    if not out:
        raise TasksetError("RFTC506", f"SFT dataset {data.path} (split {data.split}) is empty",
                           f"point {where}.path at the data", f"{where}.path")
    return out


def tokenize(tokenizer, msgs: list[dict]) -> tuple[list[int], list[int]]:
    """(prompt ids, response ids) of one conversation, split where Trinity's SFTFormatter splits it."""
    full = list(tokenizer.apply_chat_template(msgs, add_generation_prompt=False, tokenize=True, return_dict=False))
    prompt = list(tokenizer.apply_chat_template(msgs[:-1], add_generation_prompt=True, tokenize=True,
                                                return_dict=False))
    if full[:len(prompt)] != prompt:  # a template that renders earlier turns differently once a reply follows
        raise RuntimeFailure("RFTC501", "the chat template does not render the prompt as a prefix of the whole "
                             "conversation, so the response tokens cannot be told apart",
                             "use a model whose chat template renders turns independently")
    return prompt, full[len(prompt):]



def tokenize_every_turn(tokenizer, msgs: list[dict]) -> tuple[list[int], list[int], list[int]]:
    """(prompt ids, response ids, loss mask over the response) of a conversation whose every assistant turn is
    learned (format.enable_concatenated_multi_turn), as Trinity's tokenize_and_mask_messages_default computes it:
    each assistant message's tokens are those its rendering adds to the rendering before it with the generation
    prompt; a template with <think> learns only the turns after the last user message; the prompt ends where the
    first learned token is."""
    def ids(messages: list[dict], generation: bool) -> list[int]:
        return list(tokenizer.apply_chat_template(messages, add_generation_prompt=generation, tokenize=True,
                                                  return_dict=False)) if messages else []

    full = ids(msgs, False)
    mask = [0] * len(full)
    start = 0
    if "<think>" in (tokenizer.chat_template or ""):
        start = max((i for i, m in enumerate(msgs) if m["role"] == "user"), default=0)
    for i in range(start, len(msgs)):
        if msgs[i]["role"] == "assistant":
            before, through = ids(msgs[:i], True), ids(msgs[:i + 1], False)
            mask[len(before):len(through)] = [1] * (len(through) - len(before))
    first = mask.index(1) if 1 in mask else len(full)
    return full[:first], full[first:], mask[first:]
