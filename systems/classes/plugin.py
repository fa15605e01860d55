"""Keywords and conditions a plugin adds to classes (issue 15: "Components in the classes
namespace; a plugin can add a condition or keyword").

classes' compiled loop reads a fixed unit layout (``state.py``), so a plugin keyword is written in
the words the loop already plays: per unit of its value (a ``tag`` counts 1, a ``number`` X counts
X) it adds Attack, HP, range and Shield, grants built-in tag keywords (ferocious, grounded,
momentum, ethereal), and appends effects with a unit trigger (``on_summon``, ``on_death``,
``aura``) in the card-file schema (a number keyword multiplies their ``amount`` by X). The card set
applies it when a card file names it (``cards.py``), so the compiled batch loop plays the changed
card and its effects (no Python per decision) and no kernel recompiles.

```python
from battlesim.systems.classes.plugin import classes_keyword

classes_keyword("bulwark", "number", "Bulwark X: +X Shield and +X HP.", shield=1, health=1)
classes_keyword("rally", "tag", "Rally: when summoned, every other allied unit gains 1 Attack.",
                effects=[{"trigger": "on_summon", "op": "gain", "select": "other_allied_units",
                          "stat": "attack", "amount": 1}])
```

A plugin condition is a token count on a unit, as the text's six are: cards, keywords and
scenarios give it (``op = "condition"``), and at each of its unit's owner's Enchantments Steps it
ticks: its effects resolve once per token with the unit as their chosen target (any other
selector from the unit's owner's side; ``enemies_in_range`` counts from the unit's field), then
the unit discards one token, all of them, or none. It takes one of the unit columns kept for
plugin conditions (``vocabulary.CONDITION_SLOTS``) and its rule is a row of the compiled tables,
so the kernels do not recompile for it.

```python
from battlesim.systems.classes.plugin import classes_condition

classes_condition("poison", "Poison: at its owner's Enchantments Step the unit takes 1 damage per token, then "
                  "discards one.", effects=[{"op": "damage", "select": "chosen", "amount": 1}], discard="one")
```

Each keyword or condition is a component in the classes namespace (``classes_<name>``,
``components.py``), ``battlesim keywords --ruleset classes`` lists it with its plugin as source,
and ``battlesim.ecs.plugin.isolated()`` forgets it (its component is gone from the registry).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from pydantic import ValidationError

from battlesim.ecs import registry
from battlesim.ecs.declaring import PluginError, check_keyword_value, current_source
from battlesim.ecs.plugin import component
from battlesim.systems.classes.components import PREFIX
from battlesim.systems.classes.conditions import ClassesCondition, Discard, declare, plugin_conditions
from battlesim.systems.classes.effect_spec import AMOUNT_MAX, EffectSpec
from battlesim.systems.classes.vocabulary import (
    CONDITION_SLOTS,
    CONDITIONS,
    DISCARDS,
    KEYWORDS,
    OPS,
    POWER_ONLY_OPS,
    RANGE_MAX,
)

NUMBER_MAX = 10  # a number keyword's X (as a card's shield count: cards.KEYWORD_MAX)
STAT_MAX = 10  # what one unit of a keyword's value may add to one stat
GRANTABLE = tuple(k for k, (kind, _) in KEYWORDS.items() if kind == "tag")
EFFECT_TRIGGERS = ("on_summon", "on_death", "aura")  # a unit's triggers that need no Enchantment clause
# What a condition's tick may do: to its unit (``chosen``) or to units and players by rule. Not the
# ops that need a card of their own, a shape, a power or a card choice.
TICK_OPS = ("damage", "heal", "gain", "condition", "kill", "gain_mana")
TICK_SELECTORS = ("chosen", "all_units", "enemy_units", "allied_units", "other_allied_units", "enemies_in_range",
                  "enemy_player", "own_player")


@dataclass(frozen=True)
class ClassesKeyword:
    """A plugin keyword: its value kind and what one unit of its value does to a unit card."""

    name: str
    value: Literal["tag", "number"]
    doc: str
    source: str
    attack: int = 0
    health: int = 0
    range: int = 0
    shield: int = 0
    grants: tuple[str, ...] = ()
    effects: tuple[EffectSpec, ...] = ()


_DECLARED: dict[str, ClassesKeyword] = {}


def _component_name(name: str) -> str:
    return PREFIX + name


def plugin_keywords() -> dict[str, ClassesKeyword]:
    """The plugin keywords declared now (one forgotten by ``isolated()`` has lost its component)."""
    live = registry._REGISTRY
    return {n: k for n, k in _DECLARED.items() if _component_name(n) in live}


def classes_keyword(name: str, value: Literal["tag", "number"] = "tag", doc: str = "", *, attack: int = 0,
                    health: int = 0, range: int = 0, shield: int = 0, grants: tuple[str, ...] | list[str] = (),
                    effects: tuple[dict[str, Any], ...] | list[dict[str, Any]] = ()) -> ClassesKeyword:
    """Declare a classes keyword card files may name (``keywords = { rally = true }``) and what it
    does per unit of its value. A built-in keyword or condition name, or a second declaration of
    one name, is refused; so is anything the card schema would refuse (one line each)."""
    where = f"classes keyword {name!r}"
    _new_word(where, name)
    if value not in ("tag", "number"):
        raise PluginError(f"{where}: value must be 'tag' or 'number' (got {value!r})")
    for stat, n in (("attack", attack), ("health", health), ("range", range), ("shield", shield)):
        if not isinstance(n, int) or not 0 <= n <= STAT_MAX:
            raise PluginError(f"{where}: {stat} = {n!r}: expected 0 to {STAT_MAX}")
    for g in grants:
        if g not in GRANTABLE:
            raise PluginError(f"{where}: grants {g!r}: expected one of {', '.join(GRANTABLE)}")
    checked = []
    for i, raw in enumerate(effects):
        try:
            e = EffectSpec.model_validate(raw)
        except ValidationError as err:
            raise PluginError(f"{where}: effects[{i}]: {err.errors()[0]['msg']}") from None
        if e.trigger not in EFFECT_TRIGGERS:
            raise PluginError(f"{where}: effects[{i}]: trigger {e.trigger!r}: a keyword's effect takes "
                              f"{', '.join(EFFECT_TRIGGERS)}")
        if e.needs_target or e.op in POWER_ONLY_OPS or e.on_self:
            raise PluginError(f"{where}: effects[{i}]: op {e.op!r} with select {e.select!r} needs a chosen target "
                              f"or a card of its own; a keyword's effect selects by rule")
        checked.append(e)
    if not any((attack, health, range, shield, grants, checked)):
        raise PluginError(f"{where}: does nothing (give attack, health, range, shield, grants or effects)")
    tag = value == "tag"
    component(_component_name(name), np.bool_ if tag else np.int16, False if tag else 0, "tag" if tag else "nonzero",
              doc or name)
    kw = ClassesKeyword(name, value, doc, current_source(), attack, health, range, shield, tuple(grants), tuple(checked))
    _DECLARED[name] = kw
    return kw


def _new_word(where: str, name: str) -> None:
    """Refuse a name that is not a word, or is a built-in or declared keyword or condition."""
    if not isinstance(name, str) or not name.isidentifier() or not name.islower():
        raise PluginError(f"{where}: a keyword or condition name is a lower-case word (letters, digits, _)")
    if name in KEYWORDS or name in CONDITIONS:
        raise PluginError(f"{where} is built in")
    declared = {**plugin_keywords(), **plugin_conditions()}
    if name in declared:
        raise PluginError(f"{where} is already declared (by {declared[name].source})")


def classes_condition(name: str, doc: str = "", *, effects: tuple[dict[str, Any], ...] | list[dict[str, Any]] = (),
                      discard: Discard = "one") -> ClassesCondition:
    """Declare a classes condition: a token count on a unit that cards, keywords and scenarios may
    give (``op = "condition"``, ``conditions = { name = 2 }``). At each of its unit's owner's
    Enchantments Steps, ``effects`` resolve once per token (select ``chosen``: the unit; any other
    selector from the unit's owner's side), then the unit discards ``discard`` ("one" token,
    "all", "none"). Refused in one line: a taken name, an op or selector a tick cannot resolve
    (``TICK_OPS``, ``TICK_SELECTORS``), a condition that does nothing, more conditions than the
    unit has columns for."""
    where = f"classes condition {name!r}"
    _new_word(where, name)
    if len(plugin_conditions()) >= CONDITION_SLOTS:
        raise PluginError(f"{where}: the unit keeps {CONDITION_SLOTS} columns for plugin conditions, all taken "
                          f"({', '.join(plugin_conditions())})")
    if discard not in DISCARDS:
        raise PluginError(f"{where}: discard must be one of {', '.join(DISCARDS)} (got {discard!r})")
    checked = []
    for i, raw in enumerate(effects):
        op = OPS.get(raw.get("op"))
        on_units = op is not None and "select" in (*op[1], *op[2])
        spec = {"select": "chosen", **raw} if on_units else dict(raw)  # by default, the condition's own unit
        try:
            e = EffectSpec.model_validate(spec)
        except ValidationError as err:
            raise PluginError(f"{where}: effects[{i}]: {err.errors()[0]['msg']}") from None
        if e.trigger != "on_cast" or e.op not in TICK_OPS or (e.select is not None and e.select not in TICK_SELECTORS):
            raise PluginError(f"{where}: effects[{i}]: op {e.op!r} with select {e.select!r}: a tick resolves "
                              f"{', '.join(TICK_OPS)} on {', '.join(TICK_SELECTORS)}, with no trigger")
        checked.append(e)
    if not checked:
        raise PluginError(f"{where}: does nothing (give effects)")
    component(_component_name(name), np.int16, 0, "nonzero", doc or name)
    condition = ClassesCondition(name, doc, current_source(), tuple(checked), discard)
    declare(condition)
    return condition


def check_plugin_keyword(name: str, value: bool | int) -> bool:
    """True if ``name`` is a plugin keyword and ``value`` fits its kind; a misfit is an error."""
    kw = plugin_keywords().get(name)
    if kw is None:
        return False
    check_keyword_value(name, kw.value, value, 1, NUMBER_MAX)
    return True


def expand(raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, bool | int]]:
    """A unit card as written (a dict in the card schema) with its plugin keywords applied: the
    card the compiled loop plays, and the plugin keywords it named (listings show them)."""
    words = plugin_keywords()
    named = {k: v for k, v in (raw.get("keywords") or {}).items() if k in words}
    if not named:
        return raw, {}
    out = dict(raw)
    keywords = {k: v for k, v in raw["keywords"].items() if k not in words}
    effects = list(raw.get("effects") or [])
    for k, v in named.items():
        kw, x = words[k], int(v)
        if kw.attack and out.get("attack") is not None:  # no Attack value: "cannot Attack" (spec §6) stays so
            out["attack"] = min(AMOUNT_MAX, out["attack"] + x * kw.attack)
        if kw.health:
            out["health"] = min(AMOUNT_MAX, (out.get("health") or 1) + x * kw.health)
        if kw.range:
            out["range"] = min(RANGE_MAX, out.get("range", 1) + x * kw.range)
        if kw.shield:
            keywords["shield"] = int(keywords.get("shield", 0)) + x * kw.shield
        for g in kw.grants:
            keywords[g] = True
        for e in kw.effects:
            d = e.model_dump(exclude_none=True)
            if "amount" in d:
                d["amount"] = min(AMOUNT_MAX, d["amount"] * x)
            effects.append(d)
    out["keywords"] = keywords
    out["effects"] = effects
    return out, named


def vocabulary() -> list[dict[str, str]]:
    """The plugin keywords and conditions as ``battlesim keywords`` lists them."""
    rows = []
    for c in plugin_conditions().values():
        ticks = "; ".join(f"{e.op} {e.select}" + (f" {e.amount}" if e.amount is not None else "") for e in c.effects)
        rows.append({"kind": "condition", "name": c.name, "value_type": "int (tokens)", "source": c.source,
                     "doc": f"{c.doc or c.name} [each owner's Enchantments Step, per token: {ticks}; "
                            f"then discards {c.discard}]"})
    for kw in plugin_keywords().values():
        parts = [f"+{getattr(kw, s)} {s}" for s in ("attack", "health", "range", "shield") if getattr(kw, s)]
        parts += [f"grants {g}" for g in kw.grants]
        parts += [f"{e.trigger}: {e.op} {e.select or ''}".strip() for e in kw.effects]
        doc = (kw.doc or kw.name) + f" [{'; '.join(parts)}{' per X' if kw.value == 'number' else ''}]"
        rows.append({"kind": "keyword", "name": kw.name, "value_type": "bool" if kw.value == "tag" else "int",
                     "source": kw.source, "doc": doc})
    return rows

