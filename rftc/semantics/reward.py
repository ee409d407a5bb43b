"""How a run computes its reward and generates its rollouts, where veRL's releases and Trinity-RFT differ in the
parts rftc.semantics.verl and trinity leave to this module: the reward manager veRL's release loads, the code
sandbox its default reward runs code in, the reward model's settings, the rollout's turns (multi-turn rollouts,
agent loops, Trinity's multi-turn workflows), and what trains and generates on Trinity's side (its trainer backend,
an external model). What veRL's release reads for them: rftc.mapping.reward_loop.
"""

from __future__ import annotations

from rftc.mapping.reward_loop import SINGLE_TURN, manager, reward_model_settings, sandbox, verl_turns
from rftc.plugins import DISTILL_WORKFLOW, WORKFLOW
from rftc.semantics.inputs import launch_path
from rftc.semantics.model import Value
from rftc.trinity.registry import MULTI_TURN_WORKFLOWS, SINGLE_TURN_WORKFLOWS

NO_EXTERNAL = "none"
NO_WORKFLOW = "no workflow"
VERL_BACKEND = "veRL"


def verl_reward(r, sem, crf, enable, paths) -> Value:
    """The reward: the reward model's score where one is enabled (its path and settings), else the rule reward: the
    custom function (path:name) or veRL's default_compute_score with the code sandbox it runs code in, under its
    manager when that is not naive; ``crf``, ``enable``, ``paths``: the keys the trainer reads
    (rftc.semantics.verl_inputs.reward_keys)."""
    loop, legacy = sem.value("reward_loop"), not _ignores_legacy(r)
    has = r.eff.has
    rm = next((k for k in enable if r.get(k)), None)
    if rm:
        path = next((k for k in paths if r.get(k)), paths[0])
        settings, keys = reward_model_settings(r.get, has, loop, legacy, sem.value("context_key") != "unread",
                                               launch_path)
        return r.of(f"reward model {launch_path(str(r.get(path)))} ({settings})", rm, path, *keys)
    prefix = next((p for p in crf if r.get(f"{p}.path")), None)
    fn = f"{launch_path(str(r.get(f'{prefix}.path')))}:{r.get(f'{prefix}.name') or 'compute_score'}" if prefix \
        else "default_compute_score"
    code, code_keys = sandbox(r.get, has, loop, legacy) if prefix is None else (None, ())
    name, manager_keys = manager(r.get, loop, legacy, launch_path)
    text = fn + (f" ({code})" if code else "")
    text = text if name == "naive" else f"{text} ({name} manager)"
    return r.of(text, *([f"{prefix}.path", f"{prefix}.name"] if prefix else []),
                *(k for k in manager_keys if has(k)), *code_keys)


def _ignores_legacy(r) -> bool:
    from rftc.verl.releases import legacy
    from rftc.verl.trainers import module_of

    inv = r.eff.invocation
    return inv is not None and legacy.ignores_legacy(module_of(inv), r.eff.release)


def verl_fields(r, sem, release: str) -> dict[str, Value]:
    """TrainingRun's multi-turn, trainer-backend and external-model quantities of a veRL launch: veRL generates
    with the policy it trains."""
    turns, keys, formula = verl_turns(r.get, r.eff.has, release, sem.value("rollout_modes"))
    return dict(
        multi_turn=r.of(turns, *keys, formula=formula) if keys else Value(turns, f"verl {release}", formula),
        external_model=Value(NO_EXTERNAL, f"verl {release} generates with the policy it trains"),
        **verl_backend(release),
    )


def verl_backend(release: str) -> dict[str, Value]:
    """The trainer backend of a veRL launch (RL or SFT): veRL's own workers."""
    return dict(trainer_backend=Value(VERL_BACKEND, f"verl {release}'s own workers"))


# ---- Trinity-RFT 0.6

TINKER = ("rank", "seed", "train_mlp", "train_attn", "train_unembed")


def view(x, put, where) -> None:
    """``view``'s keys of this module: the trainer type, the Tinker settings (and its micro-batch loss scale), the
    external model."""
    put("trainer.trainer_type", x.trainer.trainer_type)
    put("trainer.fix_actor_microbatch_loss_scale", x.trainer.fix_actor_microbatch_loss_scale)
    for k in ("enable", *TINKER):
        put(f"model.tinker.{k}", getattr(x.model.tinker, k))
    for k in ("enable", "model_name"):
        put(f"model.external_model.{k}", getattr(x.model.external_model, k))


def trinity_fields(val, of, tasksets: list[dict]) -> dict[str, Value]:
    """The multi-turn quantity (each training taskset's workflow: one chat per response, or a workflow of several
    turns, by name; a row's workflow from its column where format.workflow_key names one), the external model
    (model.external_model, which Trinity's validator allows in bench mode only) and the trainer backend."""
    from rftc.semantics.trinity_inputs import TASKSETS, per_taskset  # it imports sft_verl, which imports this

    turns = per_taskset(tasksets, _turns)
    return dict(  # tasksets that run no workflow have no rollout to take turns: their reward says so
        multi_turn=of(turns, TASKSETS) if turns != NO_WORKFLOW else Value(None),
        external_model=of(f"{val('model.external_model.model_name')} (an API model)"
                          if val("model.external_model.enable") else NO_EXTERNAL,
                          "model.external_model.enable", "model.external_model.model_name"),
        **trinity_backend(val, of),
    )


def trinity_backend(val, of) -> dict[str, Value]:
    """The trainer backend of a Trinity config (RL or SFT): veRL's workers for trainer_type verl; Tinker where
    trainer_type is tinker, as the validator sets it for model.tinker.enable (trinity/trainer/trainer.py
    get_trainer_wrapper): TinkerTrainerWrapper trains a LoRA of model.tinker's rank, seed and modules."""
    tinker = val("trainer.trainer_type") == "tinker" or bool(val("model.tinker.enable"))
    # the Tinker trainer sums a token-mean loss over micro-batches unscaled under fix_actor_microbatch_loss_scale,
    # else divides each by their number (trinity/trainer/tinker/tinker_trainer.py)
    fixed = tinker and bool(val("trainer.fix_actor_microbatch_loss_scale")) and val("algorithm.loss_agg_mode") == \
        "token-mean"
    if tinker:
        backend = "Tinker (LoRA " + ", ".join(f"{k} {val(f'model.tinker.{k}')}" for k in TINKER) + ")" + (
            ", micro-batch losses summed unscaled" if fixed else "")
    elif val("trainer.trainer_type") == "verl":
        backend = VERL_BACKEND
    else:
        backend = f"trainer type {val('trainer.trainer_type')!r} (Trinity refuses it)"
    return dict(trainer_backend=of(backend, "trainer.trainer_type", "model.tinker.enable",
                                   *(f"model.tinker.{k}" for k in TINKER if tinker),
                                   *(["trainer.fix_actor_microbatch_loss_scale"] if fixed else [])))


def _turns(t: dict) -> str:
    """A taskset's turns: its workflow's (rftc.trinity.registry; rftc's veRL reward workflow chats once), and the
    column a row's own workflow comes from (Trinity's task reader)."""
    workflow = t.get("default_workflow_type")
    if workflow is None:
        text = NO_WORKFLOW
    elif workflow in SINGLE_TURN_WORKFLOWS or workflow in (WORKFLOW, DISTILL_WORKFLOW):  # rftc's chat once
        text = SINGLE_TURN
    elif workflow in MULTI_TURN_WORKFLOWS:
        text = f"multi-turn workflow {workflow}"
    else:
        text = f"workflow {workflow} (its own turns)"
    key = (t.get("format") or {}).get("workflow_key")
    return text + (f"; a row's workflow from its column {key}" if key else "")
