"""The settings a run sets that feed quantities the semantic model does not compute yet (rftc.mapping.classes'
NOT_IN_MODEL), read from the key classification (rftc.mapping.rules, sft_rules, trinity_fields): `rftc diff` compares
them key by key (RFTC605) so that such a change never reads as the same training.

    a, b = verl_side(eff, run), trinity_side(cfg, doc, run)  # what each sets ({key: Setting}), its values
    for u in unmodelled(a, b): ...                           # u.setting.key, u.a, u.b: where the two differ
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable

from rftc.diagnostics.model import Span
from rftc.dotted import ABSENT
from rftc.mapping.classes import NOT_IN_MODEL, WHEN
from rftc.semantics.model import Value, same
from rftc.semantics.reader import Reader
from rftc.trinity.document import Document
from rftc.trinity.schema import TrinityConfig, _model_in
from rftc.verl.effective import EffectiveConfig

DESCRIPTIONS = dict(NOT_IN_MODEL)


@dataclass(frozen=True)
class Setting:
    """A key (or field) one side sets, the NOT_IN_MODEL quantities its row feeds, and its value there."""

    key: str
    quantities: tuple[str, ...]
    value: Value
    span: Span | None
    default: bool  # the value is the release's (or Trinity's) default
    holds: Callable  # get -> whether the row's condition holds on a side (get: that side's values)

    @property
    def description(self) -> str:
        return "; ".join(DESCRIPTIONS[q] for q in self.quantities)


def _unmodelled(row, run) -> tuple[str, ...]:
    """The NOT_IN_MODEL quantities ``row`` feeds, where it feeds none of ``run``'s (an RL or an SFT run: a field
    may feed a quantity of one model and, in the other kind of run, one that is not in the model yet)."""
    feeds = row.feeds.split() if row is not None else []
    if any(f.name in feeds for f in fields(run)):
        return ()
    return tuple(q for q in feeds if q in DESCRIPTIONS)


# ---- a veRL launch

def verl_settings(eff: EffectiveConfig, run) -> dict[str, Setting]:
    """The keys the launch sets (EffectiveConfig.user_keys) whose row feeds a NOT_IN_MODEL quantity, where the
    row's condition holds (a condition that cannot be evaluated, such as a release the table lacks, is taken to
    hold: the key is compared rather than ignored)."""
    from rftc.mapping.rules import RULES, find_rule
    from rftc.mapping.sft_rules import SFT_RULES
    from rftc.verl.trainers import SFT_CONFIGS

    rules = SFT_RULES if eff.config_name.split(" ")[0] in SFT_CONFIGS else RULES
    reader, out = Reader(eff), {}
    for key in eff.user_keys():
        row = find_rule(key, rules)
        quantities = _unmodelled(row, run)
        if not quantities:
            continue
        holds = _verl_holds(row.when, eff.release)
        if not holds(reader.get):
            continue
        p = eff.prov(key)
        out[key] = Setting(key, quantities, reader.v(key), p.span or (p.via[0] if p.via else None),
                           _verl_default(eff, key), holds)
    return out


def _verl_holds(when: str, release: str):
    def holds(get) -> bool:
        if not when:
            return True
        try:
            return bool(WHEN[when][1](get, release))
        except (KeyError, ValueError, TypeError, LookupError):  # the release's facts are not bundled
            return True
    return holds


def _verl_default(eff: EffectiveConfig, key: str) -> bool:
    """Whether ``key`` holds its default in the bundled release's config the launch composes (False where that
    config is not bundled: a script's own config, a checkout's)."""
    from rftc.dotted import get
    from rftc.verl.overrides.resolve import Resolver, has_interpolation
    from rftc.verl.releases import schema

    if eff.verl_version not in schema.versions():
        return False
    sch = schema.load(eff.verl_version)
    base = eff.config_name.split(" ")[0]
    if base not in sch.configs:
        return False
    tree = sch.tree(base, eff.get(schema.SWITCHABLE_GROUP, None)) or sch.tree(base)
    default = get(tree, key, ABSENT)
    if has_interpolation(default):
        try:
            default = Resolver(tree).resolve_key(key)
        except Exception:  # noqa: BLE001 - an interpolation of a key the release leaves unset ("???")
            return False
    return default is not ABSENT and same(default, eff.get(key, None))


# ---- a Trinity config

def trinity_settings(cfg: TrinityConfig, doc: Document, run) -> dict[str, Setting]:
    """The fields the file ``doc`` sets (of the config ``cfg`` it loads as; a stage's, laid over the global
    sections) whose row feeds a NOT_IN_MODEL quantity, where the row's condition holds."""
    from rftc.mapping.trinity_fields import WHEN as TRINITY_WHEN, find_field
    from rftc.semantics.trinity import where_set

    where, out = where_set(cfg, doc), {}
    get = trinity_get(cfg)
    default = _trinity_default(cfg)
    for path, schema_path, holder, attr in _set_fields(cfg, doc.data, "", ""):
        row = find_field(schema_path)
        quantities = _unmodelled(row, run)
        if not quantities:
            continue
        condition = TRINITY_WHEN[row.when][1] if row.when else None

        def holds(get, condition=condition) -> bool:
            return condition is None or bool(condition(get))

        if not holds(get):
            continue
        out[path] = Setting(path, quantities, Value(_plain(getattr(holder, attr)), where(path)),
                            doc.locate(tuple(int(p) if p.isdigit() else p for p in path.split("."))),
                            default(path, holder, attr), holds)
    return out


def _trinity_default(cfg: TrinityConfig):
    """(path, holder, field name) -> whether the field holds what Trinity runs with where the file leaves it unset:
    the field's default, or the value Trinity's validator fills in from the other fields (rftc.trinity.expand),
    such as max_model_len from the prompt and response lengths."""
    from rftc.trinity.expand import expand

    expanded = []

    def default(path: str, holder, attr: str) -> bool:
        value, unset = _plain(getattr(holder, attr)), type(holder).model_fields[attr].get_default(
            call_default_factory=True)
        if same(value, _plain(unset)):
            return True
        copy = cfg.model_copy(deep=True)
        parent, _, _ = path.rpartition(".")
        object.__setattr__(_at(copy, parent) if parent else copy, attr, unset)
        try:
            expanded[:] = expanded or [expand(cfg)]
            filled = _at(expand(copy), path)
        except (ValueError, TypeError, ArithmeticError, AttributeError):  # the config needs the field
            return False
        return filled is not None and same(_plain(filled), _plain(_at(expanded[0], path)))
    return default


def _set_fields(obj, data, path: str, schema_path: str):
    """(path with list indices, schema path, holder, field name) of each field ``data`` (the file's mapping for
    ``obj``) sets, down to the fields that hold no section of their own."""
    if not isinstance(data, dict):
        return
    for name, raw in data.items():
        fields = type(obj).model_fields
        if name not in fields:
            continue  # not a field: rftc check reports it
        p, sp = f"{path}.{name}" if path else name, f"{schema_path}.{name}" if schema_path else name
        sub, in_dict = _model_in(fields[name].annotation)
        child = getattr(obj, name)
        if sub is None or raw is None or child is None:
            yield p, sp, obj, name
        elif in_dict and isinstance(raw, dict) and isinstance(child, dict):
            for k, item in raw.items():
                if k in child:
                    yield from _set_fields(child[k], item, f"{p}.{k}", f"{sp}.*")
        elif isinstance(raw, list) and isinstance(child, list):
            for i, item in enumerate(raw[:len(child)]):
                yield from _set_fields(child[i], item, f"{p}.{i}", sp)
        else:
            yield from _set_fields(child, raw, p, sp)


def walk(obj, parts):
    """The object at ``parts`` below ``obj`` as the conditions read it (a list's first item, a dict's first entry);
    None where there is none."""
    for part in parts:
        if part == "*":
            obj = next(iter(obj.values()), None) if isinstance(obj, dict) else None
        else:
            obj = getattr(obj, part, None)
            if isinstance(obj, list):
                obj = obj[0] if obj else None
        if obj is None:
            return None
    return obj


def trinity_get(cfg: TrinityConfig):
    """get(path) over the config as the conditions read it (``walk``)."""
    def get(path: str):
        obj = walk(cfg, path.split("."))
        return None if obj is None else _plain(obj)
    return get


def _at(cfg: TrinityConfig, path: str):
    """The value at ``path`` (list items by index, dict entries by key) of ``cfg``; None where it has none."""
    obj = cfg
    for part in path.split("."):
        if isinstance(obj, list):
            obj = obj[int(part)] if part.isdigit() and int(part) < len(obj) else None
        elif isinstance(obj, dict):
            obj = obj.get(part)
        else:
            obj = getattr(obj, part, None)
        if obj is None:
            break
    return obj


def _plain(value):
    """An enum's value, a section's fields: as the file writes them."""
    import enum

    if isinstance(value, enum.Enum):
        return value.value
    dump = getattr(value, "model_dump", None)
    return dump() if dump else value


# ---- the comparison

@dataclass(frozen=True)
class Side:
    """One run's settings (``verl_side``, ``trinity_side``): those it sets, the value of any key, and ``get``, the
    conditions' view of its config."""

    kind: str  # "verl" | "trinity"
    settings: dict[str, Setting]
    value: Any  # key -> Value
    get: Any  # key -> its value, as the conditions read it
    default: str  # whose defaults the unset keys take, in words


def verl_side(eff: EffectiveConfig, run) -> Side:
    """A launch's side: ``run`` its model (rftc.semantics.model's TrainingRun or SftRun)."""
    reader = Reader(eff)
    return Side("verl", verl_settings(eff, run), reader.v, reader.get, f"verl {eff.release}'s")


def trinity_side(cfg: TrinityConfig, doc: Document, run) -> Side:
    """A config's side (a stage's config and file as the stage reads them): ``run`` its model."""
    from rftc.semantics.trinity import where_set

    where = where_set(cfg, doc)
    return Side("trinity", trinity_settings(cfg, doc, run), lambda path: Value(_plain(_at(cfg, path)), where(path)),
                trinity_get(cfg), "Trinity's")


@dataclass(frozen=True)
class Unmodelled:
    """A setting in which two runs differ that the semantic model does not compute: ``b`` is None where B's keys
    are of another kind (a veRL launch against a Trinity config: A sets the key to other than its default), ``a``
    likewise."""

    setting: Setting
    a: Value | None
    b: Value | None


def unmodelled(a: Side, b: Side) -> list[Unmodelled]:
    """The settings of NOT_IN_MODEL quantities in which A and B differ. Of two runs of one kind, each key either
    sets whose condition holds on a side, where its values differ; of a launch and a config (their keys differ),
    each key a side sets to other than its default."""
    out = []
    if a.kind == b.kind:
        for key in dict.fromkeys([*a.settings, *b.settings]):
            s = a.settings.get(key) or b.settings[key]
            if (s.holds(a.get) or s.holds(b.get)) and a.value(key) != b.value(key):
                out.append(Unmodelled(s, a.value(key), b.value(key)))
        return out
    for side in (a, b):
        out += [Unmodelled(s, s.value if side is a else None, s.value if side is b else None)
                for s in side.settings.values() if not s.default]
    return out
