"""Data: veRL's train/val files become Trinity tasksets; lengths, truncation, shuffling and sampling follow."""

from __future__ import annotations

import ast
import posixpath
import re

from rftc.mapping.draft import Draft
from rftc.mapping.models import SAMPLE_FLAG_READERS, greedy_rollout
from rftc.plugins import WORKFLOW

D, R = "data", "actor_rollout_ref.rollout"
V = f"{R}.val_kwargs"
EI = "buffer.explorer_input"
SPLITS = ("train", "test", "validation")  # file stems datasets.load_dataset(dir) maps to a split of that name

def file_list(d: Draft, key: str) -> list[str]:
    """data.train_files / val_files as a list (veRL accepts a path or a list of paths)."""
    return as_files(d.val(key))


def as_files(v) -> list[str]:
    """A value of data.train_files / val_files as the list of paths veRL reads."""
    if v is None:
        return []
    if isinstance(v, str):
        s = v.strip()
        if s.startswith("[") and s.endswith("]"):
            try:
                parsed = ast.literal_eval(s)
                return [str(x) for x in parsed]
            except (ValueError, SyntaxError):
                return [x.strip().strip("'\"") for x in s[1:-1].split(",") if x.strip()]
        return [s] if s else []
    if isinstance(v, (list, tuple)):
        return [str(x) for x in v]
    return [str(v)]


def split_path(path: str) -> tuple[str, str]:
    """``dir/train.parquet`` -> (``dir``, ``train``), as the Trinity guide writes it: datasets.load_dataset
    on the directory serves each ``<split>.parquet`` as that split. Any other file is loaded as itself
    (datasets names a single file's split ``train``)."""
    head, base = posixpath.split(path)
    stem, ext = posixpath.splitext(base)
    if head and stem in SPLITS and ext in (".parquet", ".json", ".jsonl", ".csv", ".arrow"):
        return head, stem
    return path, "train"


def source_name(path: str) -> str:
    """The data source a path names: the directory of a split file, else the file's stem (environment
    references dropped, other characters than letters, digits, ``.``, ``-`` and ``_`` replaced)."""
    directory, _ = split_path(path)
    base = posixpath.basename(directory.rstrip("/")) if directory != path else posixpath.splitext(posixpath.basename(path))[0]
    base = re.sub(r"\$\{[^}]*\}?", "", base)
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", base).strip("_.") or "data"


def map_data(d: Draft, *, rule_reward: bool = True) -> list[str]:
    """tasksets[i] = data.train_files[i] (path, split, name), eval_tasksets[i] = data.val_files[i];
    format.prompt_key = data.prompt_key, format.response_key = data.response_key (``answer`` when veRL has none,
    as the guide); model.max_prompt_tokens / max_response_tokens = data.max_prompt_length / max_response_length,
    model.max_model_len = their sum (or rollout.max_model_len; one below the sum leaves max_prompt_tokens to
    Trinity, RFTC305); model.enable_prompt_truncation =
    data.filter_overlong_prompts (veRL false, Trinity true: always written; true before verl 0.3.0, whose dataset
    always leaves over-long prompts out; false is RFTC305: veRL cuts them as data.truncation says, or stops, where
    Trinity gives vLLM the whole prompt); data.shuffle ->
    data_selector shuffle (veRL's default is true); training sampling -> model.* and each training taskset's
    rollout_args.temperature; val_kwargs -> eval rollout_args (temperature 0 when do_sample is false, veRL's
    default) and eval repeat_times = val_kwargs.n; every taskset's default_workflow_type = rftc's veRL reward
    workflow (veRL's rule reward; not set when a reward model scores, ``rule_reward`` false) with
    workflow_args.reward_fn_key = data.reward_fn_key.
    Returns the tasksets (train and eval) the reward workflow scores; none without training data (RFTC314)."""
    train = file_list(d, f"{D}.train_files")
    if not train:
        d.report("RFTC314", "data.train_files is empty: Trinity needs at least one training taskset",
                 f"{D}.train_files" if d.user(f"{D}.train_files") else None)
        return []
    _lengths(d)
    fmt = _format(d, rule_reward)
    shuffle = d.flag(f"{D}.shuffle")
    names: set[str] = set()
    tasksets = [f"{EI}.tasksets[{i}]" for i in range(len(train))]
    for at, f in zip(tasksets, train):
        _taskset(d, at, f, f"{D}.train_files", fmt, names, "", rule_reward)
        if shuffle:
            d.set(f"{at}.data_selector.selector_type", "shuffle", f"{D}.shuffle",
                  note="" if d.user(f"{D}.shuffle") else "veRL default (Trinity's is sequential)")
            if d.user(f"{D}.seed") and d.val(f"{D}.seed") is not None:
                d.set(f"{at}.data_selector.seed", d.val(f"{D}.seed"), f"{D}.seed")
        elif shuffle is False:
            d.account(f"{D}.shuffle", "mapped", note="sequential, Trinity's default")
        _train_sampling(d, f"{at}.rollout_args")
    if shuffle is False and len(train) > 1:  # trinity/buffer/task_scheduler.py TasksetScheduler.build_orders
        d.report("RFTC305", f"data.shuffle=False reads the {len(train)} training files one after another; Trinity "
                 "interleaves its tasksets at random each epoch (each in its file's order)",
                 f"{D}.shuffle" if d.user(f"{D}.shuffle") else f"{D}.train_files", settles=False,
                 hint="concatenate the files into one to keep their order")
    for i, f in enumerate(file_list(d, f"{D}.val_files")):
        _taskset(d, f"{EI}.eval_tasksets[{i}]", f, f"{D}.val_files", fmt, names, "_eval", rule_reward)
        _eval_sampling(d, f"{EI}.eval_tasksets[{i}]")
        tasksets.append(f"{EI}.eval_tasksets[{i}]")
    if d.user(f"{D}.val_files") and not file_list(d, f"{D}.val_files"):
        d.implied(f"{D}.val_files", "empty: no evaluation")
    _model_sampling(d)
    return tasksets if rule_reward else []


# What the rollout is given of a prompt over the length limit: the whole prompt (Trinity without
# enable_prompt_truncation; veRL's truncation=error, whose run stops at the first such prompt, so a veRL run that
# trains has given every prompt it met whole), or data.truncation's cut in veRL's RLHFDataset.__getitem__
WHOLE = "whole"
PROMPT_CUTS = {"error": WHOLE, "left": "its last max_prompt_length tokens",
               "right": "its first max_prompt_length tokens", "middle": "its first and last halves"}


def reads_context(get, sem) -> bool:
    """Whether the training rollout gives the engine rollout.max_model_len (rftc.verl.releases.semantics
    "context_key"): verl 0.6's async servers give it prompt + response, 0.7.0's the model's max_position_embeddings
    (which prompt and response do not reach wherever a window of their sum starts)."""
    rule = sem.value("context_key")
    return rule == "read" or rule == "sync" and get(f"{R}.mode") != "async"


def _lengths(d: Draft) -> None:
    p = d.number(f"{D}.max_prompt_length", positive=True)
    r = d.number(f"{D}.max_response_length", positive=True)
    if r is not None:
        d.set("model.max_response_tokens", r, f"{D}.max_response_length")
    key = f"{R}.max_model_len"
    given = d.user(key) and d.val(key) is not None and reads_context(d.val, d.sem)
    if d.user(key) and d.val(key) is not None and not given:
        d.implied(key, f"not read: verl {d.sem.release}'s rollout gives the engine prompt + response")
    ml = d.number(key, positive=True) if given else None
    filt = d.flag(f"{D}.filter_overlong_prompts")
    if ml is not None and p is not None and r is not None and ml < p + r:
        _short_context(d, key, ml, p, r, filt)
    else:
        if p is not None:
            d.set("model.max_prompt_tokens", p, f"{D}.max_prompt_length")
        if ml is not None:
            d.set("model.max_model_len", ml, key)
        elif p is not None and r is not None and not given:
            d.set("model.max_model_len", p + r, f"{D}.max_prompt_length", f"{D}.max_response_length",
                  note=f"{p}+{r}")
    _truncation(d, filt)


def _short_context(d: Draft, key: str, ml: int, p: int, r: int, filt: bool | None) -> None:
    """A context shorter than the longest prompt plus the longest response. veRL's SGLang rollout asserts
    max_model_len >= prompt_length + response_length (sglang_rollout.py, 0.4.0 on); its vLLM rollout hands
    max_model_len to vLLM as it is, which ends a response at response_length tokens or where prompt plus response
    reach max_model_len. Trinity-RFT rejects the three lengths written together, and takes max_model_len with
    max_response_tokens, setting max_prompt_tokens to their difference (config_validator.py)."""
    if d.val(f"{R}.name") == "sglang":
        d.report("RFTC313", f"{key} ({ml}) is less than max_prompt_length + max_response_length ({p}+{r}): veRL's "
                 "SGLang rollout asserts max_model_len >= prompt_length + response_length", key,
                 hint=f"raise {key} to {p + r} or more, or lower the lengths")
        return
    d.set("model.max_model_len", ml, key)
    d.implied(f"{D}.max_prompt_length", f"left to Trinity, which sets max_prompt_tokens {ml} - {r} = {ml - r}")
    cut = (f"Trinity truncates prompts to {ml - r} tokens (enable_prompt_truncation), where veRL keeps prompts up to "
           f"{p} tokens and shortens their responses" if filt else
           "prompts are not truncated, so a response ends where veRL's does")
    d.report("RFTC305", f"{key} ({ml}) is less than max_prompt_length + max_response_length ({p}+{r}): veRL's vLLM "
             f"rollout ends a response at {r} tokens or where prompt and response reach {ml}; Trinity-RFT rejects "
             f"the three lengths together, so max_prompt_tokens is left out and Trinity sets it to {ml - r}: {cut}",
             key, settles=False, hint=f"raise {key} to {p + r} to train on every prompt's full response length")


def _truncation(d: Draft, filt: bool | None) -> None:
    """Prompts over max_prompt_length. veRL's RLHFDataset leaves them out (always before verl 0.3.0, else where
    data.filter_overlong_prompts), as Trinity's enable_prompt_truncation does (it masks them out of the loss);
    otherwise veRL cuts them as data.truncation says (RFTC305: Trinity without enable_prompt_truncation gives vLLM the
    whole prompt), or stops at the first (its default, error: the prompts it trains on are whole, as Trinity's)."""
    t, key = d.val(f"{D}.truncation") or "error", f"{D}.truncation"
    if d.sem.value("prompt_filter") == "always":
        d.set("model.enable_prompt_truncation", True, note=f"verl {d.sem.release}'s dataset leaves out prompts over "
              "max_prompt_length")
        if d.user(key):
            d.implied(key, f"not read: verl {d.sem.release}'s trainer builds its dataset with truncation='error'")
        return
    if filt is not None:
        d.set("model.enable_prompt_truncation", filt, f"{D}.filter_overlong_prompts",
              note="" if d.user(f"{D}.filter_overlong_prompts") else "veRL default (Trinity's is true)")
    if filt:
        if d.user(key):
            d.implied(key, "overlong prompts are left out (filter_overlong_prompts), as Trinity masks them out of "
                      "the loss")
        return
    if filt is False and t == "error":
        if d.user(key):
            d.implied(key, "veRL stops at a prompt over max_prompt_length: the prompts it trains on are whole, as "
                      "Trinity gives them to vLLM")
        return
    if filt is False:
        rel, given = d.sem.release, d.user(key)
        verl_does = (f"verl {rel} stops at its first prompt (it has no truncation {t})"
                     if t not in d.sem.value("truncation_modes")
                     else f"veRL gives the rollout {PROMPT_CUTS[t]} of a prompt over max_prompt_length")
        default = "" if given else f" (verl {rel}'s default)"
        d.report("RFTC305", f"data.truncation={t}{default}: {verl_does}; with enable_prompt_truncation false "
                 "Trinity-RFT gives the whole prompt to vLLM", key if given else None,
                 hint="set data.filter_overlong_prompts=True: both leave such prompts out", settles=given)


def _format(d: Draft, rule_reward: bool) -> dict:
    """The taskset's format: the prompt and response columns, and the media columns the launch names (rftc's veRL
    reward workflow, which a rule reward runs in, reads none of them: RFTC305)."""
    fmt = {"prompt_key": (d.val(f"{D}.prompt_key") or "prompt", (f"{D}.prompt_key",), "")}
    if d.val(f"{D}.response_key"):
        fmt["response_key"] = (d.val(f"{D}.response_key"), (f"{D}.response_key",), "")
    else:
        fmt["response_key"] = ("answer", (), "as the Trinity guide: check the dataset's columns")
    for k, what in (("image_key", "images"), ("video_key", "videos")):
        if d.user(f"{D}.{k}") and d.val(f"{D}.{k}"):
            fmt[k] = (d.val(f"{D}.{k}"), (f"{D}.{k}",), "")
            if rule_reward:
                d.report("RFTC305", f"{D}.{k}={d.val(f'{D}.{k}')}: veRL's RLHFDataset gives a multimodal model a row's "
                         f"{what} from this column; rftc's veRL reward workflow gives the model the prompt's text "
                         f"only, so rows with {what} train on their text", f"{D}.{k}", settles=False,
                         hint="Trinity's simple_mm_workflow reads format.image_key and video_key, with its own reward")
    return fmt


def _taskset(d: Draft, at: str, f: str, key: str, fmt: dict, names: set, suffix: str, rule_reward: bool) -> None:
    path, split = split_path(f)
    base = source_name(f) + suffix
    name, i = base, 2
    while name in names:
        name, i = f"{base}_{i}", i + 1
    names.add(name)
    d.set(f"{at}.name", name, key, note="named after the data source")
    d.set(f"{at}.storage_type", "file")
    d.set(f"{at}.path", path, key, note=f"{posixpath.basename(f)} -> path + split" if path != f else "")
    d.set(f"{at}.split", split, key)
    for k, (v, keys, note) in fmt.items():
        d.set(f"{at}.format.{k}", v, *keys, note=note)
    if not rule_reward:
        return
    # Trinity's math workflows add a system prompt and their own format reward; this one rewards as veRL does
    d.set(f"{at}.default_workflow_type", WORKFLOW, key, note="veRL's reward manager: the row's data source, "
          "reward_model.ground_truth")
    rk = f"{D}.reward_fn_key"
    if d.user(rk) and d.val(rk) not in (None, "data_source"):
        d.set(f"{at}.workflow_args.reward_fn_key", d.val(rk), rk)
    elif d.user(rk):
        d.implied(rk, "veRL's default column, data_source")


def _train_sampling(d: Draft, at: str) -> None:
    t = _temperature(d)
    d.set(f"{at}.temperature", t, f"{R}.temperature", *_sample_flag(d),
          note="" if d.user(f"{R}.temperature") else "veRL default")


def _sample_flag(d: Draft) -> list[str]:
    """rollout.do_sample as a source of the temperature where the rollout reads it; else accounted as unread."""
    key = f"{R}.do_sample"
    if not d.user(key):
        return []
    if greedy_rollout(d.val) or d.val(f"{R}.name") in SAMPLE_FLAG_READERS:
        return [key]
    d.implied(key, f"veRL's {d.val(f'{R}.name')} rollout does not read it (only the hf and naive rollouts do): the "
              "launch samples at rollout.temperature")
    return []


def _temperature(d: Draft) -> float:
    if greedy_rollout(d.val):
        return 0.0
    t = d.number(f"{R}.temperature", float)
    return 1.0 if t is None else t


# Trinity-RFT's model.top_p and model.top_k defaults (stock veRL's too): a fork's config may default otherwise
TRINITY_SAMPLING = {"top_p": 1.0, "top_k": -1}


def _model_sampling(d: Draft) -> None:
    for k in ("temperature", "top_p", "top_k"):
        key, kind = f"{R}.{k}", float if k == "top_p" else int
        if d.user(key) or (k == "temperature" and greedy_rollout(d.val)):
            v = _temperature(d) if k == "temperature" else d.number(key, kind)
            if v is not None:
                d.set(f"model.{k}", v, key, *(_sample_flag(d) if k == "temperature" else []))
        elif k in TRINITY_SAMPLING and d.number(key, kind, allow_none=True) not in (None, TRINITY_SAMPLING[k]):
            d.set(f"model.{k}", d.number(key, kind), key, note="its veRL config's default")


def _eval_sampling(d: Draft, at: str) -> None:
    greedy = d.flag(f"{V}.do_sample") is False
    t = 0.0 if greedy else d.number(f"{V}.temperature", float)
    if t is not None:
        d.set(f"{at}.rollout_args.temperature", t, f"{V}.temperature", *([f"{V}.do_sample"] if d.user(f"{V}.do_sample") else []),
              note="greedy: veRL's val_kwargs.do_sample is false" if greedy else "")
    for k, kind in (("top_p", float), ("top_k", int)):
        if d.user(f"{V}.{k}"):
            v = d.number(f"{V}.{k}", kind)
            if v is not None:
                d.set(f"{at}.rollout_args.{k}", v, f"{V}.{k}")
    n = d.number(f"{V}.n", positive=True)
    if n is not None and (n != 1 or d.user(f"{V}.n")):
        d.set(f"{at}.repeat_times", n, f"{V}.n")
    for k in d.user_keys_under(V):
        if not d.done(k):
            d.report("RFTC300", f"{k} has no Trinity-RFT 0.6 equivalent for evaluation rollouts", k)
