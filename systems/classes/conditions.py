"""The conditions a unit can carry, by name, in the order of their unit columns: the text's six
(``vocabulary.CONDITIONS``), then those plugins declare (``plugin.classes_condition``).

Why a registry of its own: card files, scenario files, the compiled tables and the JSON state all
name conditions, and a plugin condition must be a word to each of them exactly while its plugin
is loaded (``isolated()`` forgets it with its component). Its unit column is one of the
``vocabulary.CONDITION_SLOTS`` kept after the built-in ones (``state.py``), taken in declaration
order, and its rule is data (``rules.py``'s ``conditions`` table): the kernels compile once,
whatever the plugins declare.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from battlesim.ecs import registry
from battlesim.systems.classes.components import PREFIX
from battlesim.systems.classes.vocabulary import CONDITIONS

Discard = Literal["one", "all", "none"]  # vocabulary.DISCARDS


@dataclass(frozen=True)
class ClassesCondition:
    """A plugin condition: at each of its unit's owner's Enchantments Steps, ``effects`` resolve
    once per token with the unit as their chosen target, then the unit discards ``discard``."""

    name: str
    doc: str
    source: str
    effects: tuple[Any, ...]  # EffectSpec (effect_spec.py imports this module)
    discard: Discard


_DECLARED: dict[str, ClassesCondition] = {}


def plugin_conditions() -> dict[str, ClassesCondition]:
    """The plugin conditions declared now, in declaration order (one forgotten by ``isolated()``
    has lost its component)."""
    live = registry._REGISTRY
    return {n: c for n, c in _DECLARED.items() if PREFIX + n in live}


def condition_names() -> tuple[str, ...]:
    """Every condition a file may name now, in unit-column order (index k: ``U_CONDITION + k``)."""
    return (*CONDITIONS, *plugin_conditions())


def declare(condition: ClassesCondition) -> None:
    """Record a checked declaration (``plugin.classes_condition``)."""
    _DECLARED[condition.name] = condition
