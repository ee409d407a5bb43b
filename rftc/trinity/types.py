"""Field types that convert values the way OmegaConf 2.3 does when Trinity merges a YAML file into its
structured config (``OmegaConf.merge(OmegaConf.structured(Config), yaml)``), with OmegaConf's messages.

int: an int, or a str that ``int()`` accepts ("3", " 3", "3_000"); not a float, not a bool.
float: an int, float or str that ``float()`` accepts; not a bool.
bool: a bool; an int (non-zero is True); a str that is an int, or yes/y/on/true, no/n/off/false (any case).
str: any scalar, through ``str()`` (True becomes "True"); not a mapping or a list.
enum: the member name, case-insensitive, or one of Trinity's aliases.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from pydantic import Field
from pydantic_core import PydanticCustomError, core_schema

AUTO = "x-trinity-auto"  # schema marker: Trinity's validator computes this field ("do not set")
DEPRECATED = "x-trinity-deprecated"  # schema marker: value is the replacement's dotted name (or a note)

_BOOL_TRUE = ("yes", "y", "on", "true")
_BOOL_FALSE = ("no", "n", "off", "false")


def _fail(template: str, value: Any) -> PydanticCustomError:
    return PydanticCustomError("omegaconf", template, {"value": str(value), "type": type(value).__name__})


def _none(value: Any, optional: bool, type_name: str = "Any"):
    if value is None and not optional:
        raise PydanticCustomError("omegaconf_none", "Incompatible value 'None' for field of type '{type}'",
                                  {"type": type_name})


def to_int(value: Any) -> int:
    if type(value) in (str, int):
        try:
            return int(value)
        except ValueError:
            pass
    raise _fail("Value '{value}' of type '{type}' could not be converted to Integer", value)


def to_float(value: Any) -> float:
    if type(value) in (float, str, int):
        try:
            return float(value)
        except ValueError:
            pass
    raise _fail("Value '{value}' of type '{type}' could not be converted to Float", value)


def to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        try:
            return int(value) != 0
        except ValueError:
            if value.lower() in _BOOL_TRUE:
                return True
            if value.lower() in _BOOL_FALSE:
                return False
    raise _fail("Value '{value}' is not a valid bool (type {type})", value)


def to_str(value: Any) -> str:
    if isinstance(value, (dict, list, tuple, bytes)):
        raise _fail("Cannot convert '{type}' to string: '{value}'", value)
    return str(value)


def to_dict(value: Any) -> dict:
    if isinstance(value, dict):
        return value
    raise _fail("Value '{value}' of type '{type}' is not a mapping (expected a dict here)", value)


def to_list(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return list(value)
    raise _fail("Invalid value assigned: '{type}' is not a ListConfig, list or tuple", value)


_TYPE_NAMES = {"to_int": "int", "to_float": "float", "to_bool": "bool", "to_str": "str", "to_dict": "Dict[str, Any]",
               "to_list": "List"}


class _Before:
    """Runs ``convert`` before the type's own validation: the schema pydantic's BeforeValidator builds, without the
    signature inspection BeforeValidator repeats for every field (a sixth of the IR's build time)."""

    __slots__ = ("convert",)

    def __init__(self, convert):
        self.convert = convert

    def __get_pydantic_core_schema__(self, source, handler):
        return core_schema.no_info_before_validator_function(self.convert, handler(source))


def _conv(fn, optional: bool):
    type_name = _TYPE_NAMES[fn.__name__]

    def convert(value):
        _none(value, optional, type_name)
        return None if value is None else fn(value)
    return _Before(convert)


Int = Annotated[int, _conv(to_int, False)]
Float = Annotated[float, _conv(to_float, False)]
Bool = Annotated[bool, _conv(to_bool, False)]
Str = Annotated[str, _conv(to_str, False)]
Dict = Annotated[dict[str, Any], _conv(to_dict, False)]
OInt = Annotated[Optional[int], _conv(to_int, True)]
OFloat = Annotated[Optional[float], _conv(to_float, True)]
OBool = Annotated[Optional[bool], _conv(to_bool, True)]
OStr = Annotated[Optional[str], _conv(to_str, True)]
ODict = Annotated[Optional[dict[str, Any]], _conv(to_dict, True)]
FloatList = Annotated[list[Float], _conv(to_list, False)]
StrList = Annotated[list[Str], _conv(to_list, False)]


def enum(enum_name: str, members: tuple[str, ...], aliases: dict[str, str] | None = None):
    """An enum field: Trinity's enums look members up by name, case-insensitively, and map aliases."""
    aliases = aliases or {}

    def convert(value):
        _none(value, False, enum_name)
        if isinstance(value, str):
            key = value.split(f"{enum_name}.", 1)[-1].lower()
            key = aliases.get(key, key)
            if key in members:
                return key
        valid = ", ".join(m.upper() for m in members)
        raise PydanticCustomError("omegaconf_enum", "Invalid value '{value}', expected one of [{valid}]",
                                  {"value": str(value), "valid": valid})

    return Annotated[Literal[members], _Before(convert)]


def fresh(make):
    """A field whose default is a new ``make()`` for each instance. Pydantic inspects a default factory's signature
    (does it take the validated data?): a plain function's is cheap, a model class's is built field by field and a
    builtin's (``list``) parsed with the tokenizer, whose patterns a cold start would compile for it alone."""
    return Field(default_factory=lambda: make())


def auto(default: Any = None):
    """A field Trinity's validator fills in; setting it is legal but overwritten."""
    return Field(default, json_schema_extra={AUTO: True})


def deprecated(default: Any, replacement: str):
    return Field(default, json_schema_extra={DEPRECATED: replacement})
