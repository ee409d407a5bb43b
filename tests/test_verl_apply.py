"""Override application and interpolation resolution on the bundled schema (Hydra's semantics, plain dicts)."""

import pytest

from rftc import api
from rftc.diagnostics.collector import Diagnostics
from rftc.verl import effective_config, invocation_from_text
from rftc.verl.overrides.resolve import InterpolationError, Resolver, parse_string
from rftc.verl.releases import schema


def compose(text, version="0.9.1"):
    diags = Diagnostics()
    inv = invocation_from_text("actor_rollout_ref.rollout.name=vllm " + text, diags=diags)
    return effective_config(inv, verl_version=version, diags=diags), diags


def codes(diags):
    return [d.code for d in diags]


def test_plain_override_and_provenance_span():
    eff, diags = compose("trainer.nnodes=2")
    assert not diags and eff.get("trainer.nnodes") == 2
    p = eff.prov("trainer.nnodes")
    assert p.kind == "override" and p.text == "trainer.nnodes=2" and p.span.col == 37
    assert eff.prov("trainer.total_epochs").kind == "default"


def test_interpolation_follows_the_set_key_and_is_derived():
    eff, _ = compose("actor_rollout_ref.rollout.n=5 trainer.project_name=p trainer.experiment_name=e")
    assert eff.get("actor_rollout_ref.actor.rollout_n") == 5
    p = eff.prov("actor_rollout_ref.actor.rollout_n")
    assert p.kind == "derived" and p.source_key == "actor_rollout_ref.rollout.n"
    assert eff.get("trainer.default_local_dir") == "checkpoints/p/e"
    assert eff.prov("trainer.default_local_dir").kind == "derived"


def test_explicit_value_breaks_the_link():
    eff, _ = compose("actor_rollout_ref.rollout.n=5 actor_rollout_ref.actor.rollout_n=3")
    assert eff.get("actor_rollout_ref.actor.rollout_n") == 3
    assert eff.prov("actor_rollout_ref.actor.rollout_n").kind == "override"


@pytest.mark.parametrize("text,code", [
    ("trainer.nnode=2", "RFTC203"),
    ("+trainer.nnodes=2", "RFTC204"),
    ("~actor_rollout_ref.actor.ppo_micro_batch_size", "RFTC205"),
    ("~trainer.nnodes=9", "RFTC205"),
    ("actor_rollout_ref.rollout.engine_kwargs.vllm.x=1", "RFTC203"),
    ("trainer.logger={a:1}", "RFTC216"),
    ("model_engine=nope", "RFTC207"),
    ("data=custom", "RFTC207"),
])
def test_hydra_rejections(text, code):
    _, diags = compose(text)
    assert code in codes(diags)


def test_add_force_add_delete_and_merge():
    eff, diags = compose("+actor_rollout_ref.rollout.engine_kwargs.vllm.attention_backend=flash "
                         "++trainer.brand.new=1 ~trainer.logger +actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 "
                         "actor_rollout_ref.rollout.val_kwargs={temperature:0.5,n:3}")
    assert not diags.has_errors, [d.message for d in diags]
    assert eff.get("actor_rollout_ref.rollout.engine_kwargs.vllm") == {"attention_backend": "flash"}
    assert eff.get("trainer.brand") == {"new": 1} and not eff.has("trainer.logger")
    assert eff.get("actor_rollout_ref.rollout.val_kwargs.n") == 3
    assert eff.get("actor_rollout_ref.rollout.val_kwargs.do_sample") is False  # merged, not replaced
    assert eff.prov("actor_rollout_ref.rollout.val_kwargs.n").text.startswith("actor_rollout_ref.rollout.val_kwargs=")


def test_duplicates_warn_at_the_earlier_one_and_last_wins():
    eff, diags = compose("trainer.nnodes=1 trainer.nnodes=2")
    assert eff.get("trainer.nnodes") == 2
    dup = [d for d in diags if d.code == "RFTC206"]
    assert len(dup) == 1 and dup[0].span.col == 37


def test_unknown_key_hints():
    _, diags = compose("trainer.nnode=2 actor_rollout_ref.actor.megatron.grad_offload=True")
    msgs = {d.key: d for d in diags if d.code in ("RFTC203", "RFTC215")}
    assert msgs["trainer.nnode"].hint == "did you mean 'trainer.nnodes'?"
    _, diags = compose("critic.model.fsdp_config.param_offload=True", version="0.9.1")
    d = next(d for d in diags if d.code == "RFTC215")
    assert "0.7.1" in d.message and d.hint.startswith("renamed to 'critic.fsdp.param_offload'")


def test_version_choice_prefers_the_newest_that_has_every_key():
    diags = Diagnostics()
    inv = invocation_from_text("--config-name=ppo_megatron_trainer actor_rollout_ref.rollout.name=vllm "
                               "actor_rollout_ref.actor.megatron.grad_offload=True", diags=diags)
    eff = effective_config(inv, diags=diags)
    assert eff.verl_version == "0.9.0" and "0.9.1 has no actor_rollout_ref.actor.megatron.grad_offload" in \
        eff.version_note
    assert not diags.has_errors


def test_verl_0_6_and_0_7_0_keys_choose_those_versions():
    # reward-model worker keys exist up to 0.7.0, use_reward_loop only in 0.7.0
    cases = {"reward_model.model.use_remove_padding=True reward_model.micro_batch_size_per_gpu=4": "0.7.0",
             "reward_model.use_reward_loop=True": "0.7.0",
             "reward_model.model.fsdp_config.param_offload=True "
             "algorithm.rollout_correction.use_policy_gradient=True": "0.6.1"}
    for text, version in cases.items():
        diags = Diagnostics()
        eff = effective_config(invocation_from_text("actor_rollout_ref.rollout.name=vllm " + text, diags=diags),
                               diags=diags)
        assert eff.verl_version == version and not diags.has_errors, (text, eff.version_note, list(diags))
        assert "RFTC212" not in codes(diags)  # under 0.6 and 0.7 the legacy reward keys are the live ones



def test_verl_0_5_keys_choose_0_5():
    # verl 0.5.0 has the sglang attention backend and no actor fsdp_config.model_dtype (so '+' adds it); every
    # later version rejects the first and 0.6.1-0.9.1 reject the '+' on an existing key
    text = ("actor_rollout_ref.rollout.name=sglang actor_rollout_ref.rollout.engine_kwargs.sglang.attention_backend=triton "
            "+actor_rollout_ref.actor.fsdp_config.model_dtype=bfloat16")
    diags = Diagnostics()
    eff = effective_config(invocation_from_text(text, diags=diags), diags=diags)
    assert eff.verl_version == "0.5.0" and not diags.has_errors, (eff.version_note, list(diags))
    assert eff.get("actor_rollout_ref.actor.fsdp_config.model_dtype") == "bfloat16"
    assert eff.get("actor_rollout_ref.actor.optim.warmup_style") == "constant"  # 0.5.0's name for the schedule
    # a launch every newer version accepts never falls back to 0.5.0
    diags = Diagnostics()
    eff = effective_config(invocation_from_text("actor_rollout_ref.rollout.name=vllm", diags=diags), diags=diags)
    assert eff.verl_version == "0.9.1"


def test_a_removed_key_set_to_what_verl_always_does_is_dropped_when_no_version_has_every_key():
    # lora.merge exists from 0.7.1, use_reward_loop only up to 0.7.0, where the reward loop became the only path
    text = "actor_rollout_ref.rollout.name=vllm actor_rollout_ref.model.lora.merge=True reward_model.use_reward_loop="
    diags = Diagnostics()
    eff = effective_config(invocation_from_text(text + "True", diags=diags), diags=diags)
    assert codes(diags) == ["RFTC220"]  # a warning: the launch composes under the newest version
    (d,) = [d for d in diags if d.code == "RFTC220"]
    assert "the reward loop is always used" in d.message and d.span.col == 77 and d.hint == "remove the override"
    assert eff.verl_version == "0.9.1" and not eff.has("reward_model.use_reward_loop")
    # any other value asks for what no version without the key does: the error stays
    diags = Diagnostics()
    effective_config(invocation_from_text(text + "False", diags=diags), diags=diags)
    assert "RFTC215" in codes(diags) and "RFTC220" not in codes(diags)
    # a version the user names is Hydra's verdict on it
    diags = Diagnostics()
    effective_config(invocation_from_text(text + "True", diags=diags), verl_version="0.9.1", diags=diags)
    assert "RFTC215" in codes(diags) and "RFTC220" not in codes(diags)

def test_model_engine_choice_selects_the_megatron_tree():
    eff, diags = compose("model_engine=megatron actor_rollout_ref.actor.megatron.tensor_model_parallel_size=4")
    assert not diags.has_errors
    assert eff.get("actor_rollout_ref.actor.strategy") == "megatron"
    assert eff.get("actor_rollout_ref.ref.megatron.tensor_model_parallel_size") == 4
    assert eff.prov("actor_rollout_ref.ref.megatron.tensor_model_parallel_size").kind == "derived"


def test_legacy_reward_keys_are_reported_under_0_9_only():
    _, diags = compose("reward_model.reward_manager=dapo custom_reward_function.path=/r.py")
    hints = sorted(d.hint for d in diags if d.code == "RFTC212")
    assert hints == ["set 'reward.custom_reward_function.path' instead", "set 'reward.reward_manager.name' instead"]
    _, diags = compose("reward_model.reward_manager=dapo", version="0.8.0")
    assert "RFTC212" not in codes(diags)


def test_oc_env_is_kept_symbolic():
    eff, diags = compose("trainer.default_local_dir=${oc.env:HOME}/ck trainer.project_name=${oc.env:P,dflt}")
    assert not diags.has_errors
    assert eff.get("trainer.default_local_dir") == "${oc.env:HOME}/ck"
    assert eff.get("actor_rollout_ref.rollout.trace.project_name") == "${oc.env:P,dflt}"


def test_resolver_forms():
    tree = {"a": {"b": 1, "c": "${.b}", "d": "${oc.select:a.missing,[]}", "e": "${oc.select:a.b,0}",
                  "f": "x-${a.b}-${oc.select:a.none, null}", "g": "${oc.select:a.m,${a.b}}", "m": "???"},
            "cyc": "${cyc}", "bad": "${no.where}"}
    r = Resolver(tree)
    assert [r.resolve_key(f"a.{k}") for k in "cdefg"] == [1, [], 1, "x-1-None", 1]
    for key in ("cyc", "bad"):
        with pytest.raises(InterpolationError):
            r.resolve_key(key)
    assert parse_string("\\${not}") == ("${not}",)


def test_mandatory_value_unset_is_a_warning():
    diags = Diagnostics()
    inv = invocation_from_text("trainer.nnodes=1", diags=diags)
    eff = effective_config(inv, diags=diags)
    assert codes(diags) == ["RFTC217"] and eff.get("actor_rollout_ref.rollout.name") == "???"


def test_a_config_dir_the_script_spells_out_says_where_it_is_set(tmp_path):
    from rftc.shell import analyze

    script = tmp_path / "run.sh"
    script.write_text("BASEDIR=base_dir\npython3 -m verl.trainer.main_ppo --config-path=${BASEDIR}/configs "
                      "--config-name=x actor_rollout_ref.rollout.name=vllm\n")
    (inv,) = analyze(script.read_text(), str(script)).invocations
    diags = Diagnostics()
    assert effective_config(inv, diags=diags) is None
    (d,) = diags
    assert d.code == "RFTC210" and "'base_dir/configs'" in d.message and d.span.line == 2
    assert d.notes == ("its value is set at run.sh:1",) and "--env" not in d.hint  # the script's value wins


def _composed(monkeypatch) -> list[str]:
    """The versions effective_config composes under, in order."""
    from rftc.verl.releases import compose

    calls: list[str] = []
    real = compose._compose
    monkeypatch.setattr(compose, "_compose", lambda v, *a, **k: calls.append(v) or real(v, *a, **k))
    return calls


def test_version_detection_composes_only_where_every_key_exists(monkeypatch):
    calls = _composed(monkeypatch)
    diags = Diagnostics()
    eff = effective_config(invocation_from_text("actor_rollout_ref.rollout.name=vllm trainer.nnodes=2",
                                                diags=diags), diags=diags)
    assert eff.verl_version == "0.9.1" and calls == ["0.9.1"]
    calls.clear()
    # a verl 0.2-era launch: grad_offload went away in 0.3.0.post0, val_before_train was no key yet
    text = ("actor_rollout_ref.rollout.name=vllm actor_rollout_ref.actor.fsdp_config.grad_offload=True "
            "+trainer.val_before_train=False")
    eff = effective_config(invocation_from_text(text, diags=diags), diags=diags)
    assert eff.verl_version == "0.2.0.post2" and calls == ["0.2.0.post2"]
    assert "0.3.0.post0-0.9.1 have no actor_rollout_ref.actor.fsdp_config.grad_offload" in eff.version_note
    assert "every key also exists in 0.1-0.2.0.post1" in eff.version_note
    calls.clear()
    again = effective_config(invocation_from_text(text, diags=Diagnostics()), diags=Diagnostics())
    assert again.verl_version == eff.verl_version and again.version_note == eff.version_note


def test_a_launch_no_version_accepts_is_composed_under_every_version(monkeypatch):
    calls = _composed(monkeypatch)
    diags = Diagnostics()
    eff = effective_config(invocation_from_text("actor_rollout_ref.rollout.name=vllm trainer.no_such_key=1",
                                                diags=diags), diags=diags)
    assert sorted(calls) == sorted(schema.versions()) and eff.verl_version == "0.9.1"
    assert "RFTC203" in codes(diags)


# the micro-batch sizes veRL's startup checks ask for under gae (actor, rollout and reference log-probs, critic)
MICRO = (" actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2"
         " actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2"
         " actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 critic.ppo_micro_batch_size_per_gpu=2")


@pytest.mark.parametrize("extra,version", [
    (MICRO, "0.3.0.post1"),  # kl_ctrl.kl_coef acts only where the KL goes into the reward by default
    ("", "0.9.1"),  # ... but without the micro-batch sizes veRL 0.3.0.post1 refuses to start: the newest is kept
    (" algorithm.use_kl_in_reward=True", "0.9.1"),  # the switch exists from 0.4.0 on
    (" actor_rollout_ref.actor.use_kl_loss=True", "0.9.1"),  # no KL in the reward under either
])
def test_the_release_where_every_key_takes_effect_is_preferred(extra, version):
    text = "algorithm.adv_estimator=gae actor_rollout_ref.rollout.name=vllm algorithm.kl_ctrl.kl_coef=0.05" + extra
    result = api.verl_config(invocation_from_text(text, diags=Diagnostics()), startup=False)  # the model compares
    eff, diags = result.verl, result.diagnostics
    assert eff.verl_version == version
    if version != "0.9.1":
        assert "in 0.4.0-0.9.1, where they exist too, algorithm.kl_ctrl.kl_coef has no effect" in eff.version_note
        assert "RFTC226" in codes(diags) and "RFTC219" not in codes(diags)  # it trains differently from 0.9.1


def test_the_schema_index_names_the_configs_and_groups_of_every_bundled_release():
    """schemas/index.json (scripts/gen_verl_schemas.py --index-only) says what the schema files hold."""
    versions = schema.versions()
    assert schema.all_config_names() == set().union(*(schema.load(v).configs for v in versions))
    assert schema.all_group_names() == set().union(*(schema.load(v).groups for v in versions))


@pytest.mark.parametrize("flag, code, said", [
    ("--config_path=cfg/sft.yaml", "RFTC237", "error: unrecognized arguments: --config_path=cfg/sft.yaml"),
    ("--cfg job", "RFTC240", "'--cfg': Hydra prints the job's config composed with the overrides and exits, "
     "without running the job: this launch trains nothing"),
])
def test_what_hydras_command_line_refuses_or_prints_instead_trains_nothing(tmp_path, flag, code, said):
    from rftc.shell import analyze

    script = tmp_path / "run.sh"
    script.write_text(f"python3 -m verl.trainer.main_ppo \\\n  {flag} \\\n  actor_rollout_ref.rollout.name=vllm\n")
    (inv,) = analyze(script.read_text(), str(script)).invocations
    diags = Diagnostics()
    assert effective_config(inv, diags=diags) is None
    (d,) = diags
    assert (d.code, d.span.line, d.span.col) == (code, 2, 3) and said in d.message


DECODED = {"int": '${oc.decode:"3"}', "float": '${oc.decode:"3e-4"}', "list": '${oc.decode:"[1, 2.5, x]"}',
           "dict": '${oc.decode:"{a: 1}"}', "null": "${oc.decode:null}", "within": 'x${oc.decode:"3"}',
           "env_unset": "${oc.decode:${oc.env:RFTC_TEST_UNSET,3}}", "env_set": "${oc.decode:${oc.env:RFTC_TEST_SET,3}}",
           "followed": "${oc.decode:${n}}", "n": '"7"'}


def test_oc_decode_is_omegaconfs(monkeypatch):
    from omegaconf import OmegaConf
    from omegaconf.basecontainer import BaseContainer
    from omegaconf.resolvers import oc

    # OmegaConf's own oc.env, which the Hydra reference of other tests replaces with one that keeps its text
    monkeypatch.setattr(BaseContainer, "_resolvers", dict(BaseContainer._resolvers))
    OmegaConf.register_new_resolver("oc.env", oc.env, replace=True, use_cache=False)
    monkeypatch.delenv("RFTC_TEST_UNSET", raising=False)
    monkeypatch.setenv("RFTC_TEST_SET", "5")
    expected = OmegaConf.to_container(OmegaConf.create(DECODED), resolve=True)
    r = Resolver(DECODED, {"RFTC_TEST_SET": "5"})
    assert {k: r.resolve_key(k) for k in DECODED} == expected
    assert expected["int"] == 3 and expected["env_unset"] == 3 and expected["env_set"] == 5
    assert r.assumed == [("env_unset", "RFTC_TEST_UNSET", "${oc.env:RFTC_TEST_UNSET,3}")]
    # a value the launch exports that is only known when it runs is decoded there: kept as written
    r = Resolver({"a": "${oc.decode:${oc.env:E,3}}"}, {"E": "${oc.env:1}"})
    assert r.resolve_key("a") == "${oc.decode:${oc.env:E,3}}" and not r.assumed
    with pytest.raises(InterpolationError, match="can only take strings"):
        Resolver({"a": "${oc.decode:1}"}).resolve_key("a")


def _config_file_launch(tmp_path, body: str):
    """The invocation of a main_ppo launch composing cfg/my.yaml (Hydra's search path reaching veRL's config, then
    ``body``: the rest of its defaults list and its values)."""
    from rftc.shell import analyze

    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "my.yaml").write_text("hydra:\n  searchpath:\n    - pkg://verl.trainer.config\ndefaults:\n"
                                              "  - ppo_trainer\n" + body)
    script = tmp_path / "run.sh"
    script.write_text(f"python3 -m verl.trainer.main_ppo --config-path={tmp_path}/cfg --config-name=my "
                      "actor_rollout_ref.rollout.name=vllm\n")
    (inv,) = analyze(script.read_text(), str(script)).invocations
    return inv


def test_oc_decode_in_an_override_and_in_a_config_file(tmp_path):
    eff, diags = compose("trainer.total_epochs='${oc.decode:\"3\"}'")
    assert not diags.has_errors and eff.get("trainer.total_epochs") == 3
    inv = _config_file_launch(tmp_path, "  - _self_\ntrainer:\n  total_epochs: ${oc.decode:${oc.env:EPOCHS,3}}\n")
    for env, epochs in (({}, 3), ({"EPOCHS": "5"}, 5)):
        diags = Diagnostics()
        eff = effective_config(inv, verl_version="0.9.1", diags=diags, env=env)
        assert not diags.has_errors and eff.get("trainer.total_epochs") == epochs
        assert [(d.code, d.span.line) for d in diags if d.code == "RFTC241"] == ([("RFTC241", 8)] if not env else [])


@pytest.mark.parametrize("choice", ["override actor@actor_rollout_ref.actor: megatron_actor",
                                    "override ref@actor_rollout_ref.ref: megatron_ref"])
def test_a_config_files_group_choice_composes_the_releases_option_as_hydra_does(tmp_path, choice):
    import verl_reference as reference

    inv = _config_file_launch(tmp_path, f"  - {choice}\n  - _self_\ntrainer:\n  nnodes: 2\n")
    diags = Diagnostics()
    eff = effective_config(inv, verl_version="0.9.1", diags=diags)
    assert not diags.has_errors, [d.message for d in diags]
    theirs = reference.compose(tmp_path / "cfg", "my", ["actor_rollout_ref.rollout.name=vllm"], "0.9.1")
    assert eff.values == theirs
    section = choice.split("@")[1].split(":")[0]
    assert eff.get(f"{section}.strategy") == "megatron" and eff.get("trainer.nnodes") == 2


def test_a_config_files_group_choice_the_release_lacks_is_hydras_error_at_its_entry(tmp_path):
    inv = _config_file_launch(tmp_path, "  - override actor@actor_rollout_ref.actor: nope\n  - _self_\n")
    diags = Diagnostics()
    effective_config(inv, verl_version="0.9.1", diags=diags)
    (d,) = [d for d in diags if d.code == "RFTC207"]
    assert d.span.file.endswith("my.yaml") and d.span.line == 6
    assert "Could not find 'actor/nope'" in d.message and "megatron_actor" in d.message
    assert "search path" not in d.message
