"""The IR: Trinity-RFT 0.6.0's schema with OmegaConf's conversions, enums, aliases and unknown-key rules."""

import pytest
from pydantic import ValidationError

from rftc.trinity.schema import TrinityConfig, section_at, TrainerConfig, ReplayBufferConfig


def load(data):
    return TrinityConfig.model_validate(data)


def errors(data):
    with pytest.raises(ValidationError) as exc:
        load(data)
    return [(tuple(e["loc"]), e["msg"]) for e in exc.value.errors()]


def test_defaults_match_trinity():
    c = load({})
    assert c.mode == "both" and c.algorithm.algorithm_type == "ppo" and c.algorithm.repeat_times == 1
    assert c.trainer.trainer_strategy == "fsdp2" and c.trainer.use_dynamic_bsz is True
    assert c.synchronizer.sync_method == "nccl" and c.synchronizer.sync_style == "fixed"
    assert c.buffer.train_batch_size == 0 and c.explorer.eval_interval == 100
    assert c.algorithm.optimizer.betas == [0.9, 0.999] and c.model.min_response_tokens == 0


@pytest.mark.parametrize("value, expected", [("3", 3), (" 7 ", 7), (5, 5), ("3_000", 3000)])
def test_int_conversion_as_omegaconf(value, expected):
    assert load({"buffer": {"batch_size": value}}).buffer.batch_size == expected


@pytest.mark.parametrize("value, kind", [("lots", "str"), (3.0, "float"), (True, "bool"), ("1e3", "str")])
def test_int_rejections_as_omegaconf(value, kind):
    [(loc, msg)] = errors({"buffer": {"batch_size": value}})
    assert loc == ("buffer", "batch_size")
    assert msg == f"Value '{value}' of type '{kind}' could not be converted to Integer"


def test_float_bool_str_conversions():
    c = load({"algorithm": {"optimizer": {"lr": "1e-5"}}, "trainer": {"use_dynamic_bsz": "no", "name": 12},
              "model": {"enable_prompt_truncation": 0}})
    assert c.algorithm.optimizer.lr == 1e-5 and c.trainer.use_dynamic_bsz is False and c.trainer.name == "12"
    assert c.model.enable_prompt_truncation is False
    assert errors({"algorithm": {"optimizer": {"lr": True}}})[0][1].endswith("could not be converted to Float")
    assert "is not a valid bool" in errors({"trainer": {"use_dynamic_bsz": "maybe"}})[0][1]
    assert "Cannot convert 'list' to string" in errors({"name": [1]})[0][1]
    assert errors({"buffer": {"batch_size": None}})[0][1] == "Incompatible value 'None' for field of type 'int'"


@pytest.mark.parametrize("raw, expected", [("NCCL", "nccl"), ("online", "nccl"), ("Offline", "checkpoint"),
                                           ("SyncMethod.MEMORY", "memory")])
def test_enum_case_and_aliases(raw, expected):
    assert load({"synchronizer": {"sync_method": raw}}).synchronizer.sync_method == expected


def test_sync_style_aliases_and_bad_enum():
    assert load({"synchronizer": {"sync_style": "dynamic_by_explorer"}}).synchronizer.sync_style == "explorer_driven"
    assert load({"synchronizer": {"sync_style": "Dynamic_By_Trainer"}}).synchronizer.sync_style == "trainer_driven"
    [(loc, msg)] = errors({"synchronizer": {"sync_style": "async"}})
    assert msg == "Invalid value 'async', expected one of [FIXED, TRAINER_DRIVEN, EXPLORER_DRIVEN, FULLY_ASYNC]"


def test_unknown_keys_are_forbidden_everywhere_but_free_dicts():
    assert errors({"trainer": {"ppo_max_token_len_per_gpu": 1}})[0][0] == ("trainer", "ppo_max_token_len_per_gpu")
    assert errors({"algorithm": {"optimizer": {"fused": True}}})[0][0] == ("algorithm", "optimizer", "fused")
    c = load({"trainer": {"trainer_config": {"anything": {"goes": 1}}}, "algorithm": {"advantage_fn_args": {"x": 1}}})
    assert c.trainer.trainer_config == {"anything": {"goes": 1}}


def test_section_at_walks_models_lists_and_dicts():
    assert section_at(("trainer",)) is TrainerConfig
    assert section_at(("buffer", "trainer_input", "auxiliary_buffers", "sft", "replay_buffer")) is ReplayBufferConfig
    assert section_at(("buffer", "explorer_input", "tasksets", 0)).__name__ == "TasksetConfig"
    assert section_at(("trainer", "trainer_config")) is None


def test_json_schema_lists_enums_and_forbids_extras():
    from rftc.commands.schema import json_schema

    s = json_schema()
    sync = s["$defs"]["SynchronizerConfig"]
    assert sync["additionalProperties"] is False
    assert set(sync["properties"]["sync_method"]["enum"]) == {"nccl", "checkpoint", "memory"}
    assert s["title"].startswith("Trinity-RFT 0.6.0")
