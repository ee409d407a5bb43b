"""How a veRL launch reads and renders its rows, in the semantic model: the arguments its chat template is rendered
with, a dataset class of the user's (and the data generator it reads), the media a prompt's images, videos and audio
come from, how a turn becomes tokens, and preference-feedback PPO's resampling of the batch. Each function says the
formula and which veRL code decides; rftc.semantics.data_trinity computes the same quantities of a Trinity-RFT 0.6
config, whose values for what Trinity does not have are the "off" values named here."""

from __future__ import annotations

from rftc.semantics.inputs import launch_path
from rftc.semantics.model import Value
from rftc.semantics.reader import Reader

D = "data"
KWARGS = f"{D}.apply_chat_template_kwargs"
THINKING_DEFAULT = f"{D}.enable_thinking_default"  # the engine SFT trainer's multi-turn dataset, 0.7.1 on
# the off values both sides compare by
NO_CLASS = "none"  # the trainer's own dataset (veRL's RLHFDataset and SFT datasets, Trinity's readers)
TEMPLATE_TURNS = "each turn rendered by the chat template"
NO_PF_PPO = "none"
# (what, key) of the media columns veRL's RLHFDataset reads, each where the release's config has the key (image_key
# from 0.3.0, video_key from 0.4.0, audio_key from 0.8.0: rl_dataset.py RLHFDataset.__init__)
MEDIA = (("images", "image_key"), ("videos", "video_key"), ("audios", "audio_key"))
PATCH = 14  # RLHFDataset's image patch size: config.get("image_patch_size", 14)
PF_METHODS = ("pow", "max_min", "max_random")  # core_algos.py compute_pf_ppo_reweight_data


def chat_kwargs(r: Reader, sem, *, sft_engine: bool = False) -> tuple[dict, list[str]]:
    """The arguments veRL's datasets and agent loops pass to apply_chat_template (data.apply_chat_template_kwargs,
    where the release passes them: chat_template_kwargs, 0.6.0 on; a ``chat_template`` among them is the template
    the rows are rendered with), and the keys they come from. The engine SFT trainer's multi-turn dataset (0.7.1 on:
    multiturn_sft_dataset.py __getitem__) replaces enable_thinking by data.enable_thinking_default where that is not
    None, as bool() reads it: its config's default is the string 'none', which is true."""
    out, keys = {}, []
    if sem.value("chat_template_kwargs") and r.eff.has(KWARGS):
        out, keys = dict(r.get(KWARGS) or {}), [KWARGS]
    default = r.get(THINKING_DEFAULT) if sft_engine and r.eff.has(THINKING_DEFAULT) else None
    if default is not None:
        out["enable_thinking"] = bool(default)
        keys.append(THINKING_DEFAULT)
    return out, keys


def verl_data_fields(r: Reader, sem, release: str) -> dict[str, Value]:
    """TrainingRun's quantities of how the launch reads its rows (rftc.semantics.verl)."""
    return dict(dataset_class=dataset_class(r, sem, release), media=_media(r, release),
                tokenization=_tokenization(r, release), pf_ppo=_pf_ppo(r, release))


def dataset_class(r: Reader, sem, release: str) -> Value:
    """The dataset class of the user's that reads the rows: data.custom_cls.path:name (main_ppo's create_rl_dataset,
    0.4.0 on; from 0.7.0 rl_dataset.py get_dataset_class; the SFT trainers' create_sft_dataset alike), with the data
    generator such a class may read (data.datagen, 0.5.0 to 0.7.x: verl's DynamicGenDataset reads it). Without one,
    0.5.0-0.6.x's main_ppo picks DynamicGenDataset where data.datagen.path is set and imports it from a module the
    wheel lacks, so the run stops (the release table's datagen); else none: the trainer's own dataset."""
    c, g = f"{D}.custom_cls", f"{D}.datagen"
    if not r.eff.has(f"{c}.path"):
        return Value(NO_CLASS, f"verl {release} reads no custom dataset class")
    path, generator = r.get(f"{c}.path"), r.get(f"{g}.path") if sem.value("datagen") != "unread" else None
    if path:
        text = f"{launch_path(str(path))}:{r.get(f'{c}.name')}"
        if generator:
            text += f", its data generator {launch_path(str(generator))}:{r.get(f'{g}.name')}"
        return r.of(text, f"{c}.path", f"{c}.name", *([f"{g}.path", f"{g}.name"] if generator else []))
    if generator and sem.value("datagen") == "main_ppo":
        return r.of(f"the run stops (verl {release}'s main_ppo imports DynamicGenDataset for data.datagen from "
                    "verl.utils.dataset.dynamicgen_dataset, a module it lacks)", f"{g}.path", f"{c}.path")
    return r.of(NO_CLASS, f"{c}.path")


def _media(r: Reader, release: str) -> Value:
    """The columns RLHFDataset gives a prompt's media from (rl_dataset.py _build_messages: a row's images, videos
    and audio replace its <image>, <video>, <audio> placeholders, for a model with a processor; a row without such a
    column has none), and how the processor takes them: image_patch_size where not 14 (0.6.1 on, the image resize
    unit process_vision_info takes, config.get("image_patch_size", 14), as the releases before the key resize; null:
    the processor's) and mm_processor_kwargs (0.8.0 on). A release whose dataset reads no media (before 0.3.0) has
    no such quantity."""
    keys = [f"{D}.{k}" for _, k in MEDIA if r.eff.has(f"{D}.{k}")]
    if not keys:
        return Value(None, f"verl {release}'s dataset reads no media")
    columns = [f"{what} from column {r.get(f'{D}.{k}')}" for what, k in MEDIA
               if r.eff.has(f"{D}.{k}") and r.get(f"{D}.{k}")]
    text = ", ".join(columns) or "none"
    patch, kwargs = f"{D}.image_patch_size", f"{D}.mm_processor_kwargs"
    if r.eff.has(patch) and r.get(patch) != PATCH:
        size = r.get(patch)
        text += f"; image patch size {size}" if size else "; the processor's image patch size"
        keys.append(patch)
    if r.get(kwargs):
        text += f"; processor arguments {dict(r.get(kwargs))}"
        keys.append(kwargs)
    return r.of(text, *keys)


def _tokenization(r: Reader, release: str) -> Value:
    """How the agent loop turns a chat into tokens: verl 0.9.0's data.continuous_token.enable keeps the rollout's own
    token stream across turns, each model family's boundaries by its builder (agent_loop.py AgentLoopWorker: only
    for a model without a processor, which falls back to the chat template), else each turn rendered by the chat
    template."""
    key = f"{D}.continuous_token.enable"
    if not r.eff.has(key):
        return Value(TEMPLATE_TURNS, f"verl {release}")
    if r.get(key):
        family = f"{D}.continuous_token.model_family"
        return r.of(f"continuous tokens (model family {r.get(family)}; a model with a processor renders each turn)",
                    key, family)
    return r.of(TEMPLATE_TURNS, key)


def _pf_ppo(r: Reader, release: str) -> Value:
    """Preference-feedback PPO (0.4.0 on): with algorithm.use_pf_ppo, compute_advantage resamples the batch after
    GAE (ray_trainer.py: the gae estimator only), drawing responses with weights of their scores
    (core_algos.py compute_pf_ppo_reweight_data: |score| ** weight_pow for pow; max_min, max_random by rank); an
    unknown reweight_method raises at the first step."""
    key = "algorithm.use_pf_ppo"
    if not r.eff.has(key):
        return Value(NO_PF_PPO, f"verl {release} has no preference-feedback PPO")
    if not (r.get(key) and r.get("algorithm.adv_estimator") == "gae"):
        return r.of(NO_PF_PPO, key, "algorithm.adv_estimator")
    p = "algorithm.pf_ppo"
    method = r.get(f"{p}.reweight_method")
    if method not in PF_METHODS:
        return r.of(f"the run stops (reweight_method {method} is not one of {', '.join(PF_METHODS)})", key,
                    f"{p}.reweight_method")
    if method == "pow":
        return r.of(f"batch resampled by |score| ** {r.get(f'{p}.weight_pow')}", key, f"{p}.reweight_method",
                    f"{p}.weight_pow")
    return r.of(f"batch resampled by {method}", key, f"{p}.reweight_method")
