"""classes' card set compiled to numbers: the ``Catalog`` (ecs/world.py) the engine will index.

DESIGN.md "The World": "Static card data is compiled once from data/ into a catalog of numpy arrays
by card id." Names become ids here, in the vocabulary's order (vocabulary.py: append, never
reorder), so compiled code never meets a string. Effects compile to ``[cards, E]`` columns (E = the
most effects any card has, ability effects after the card's own), ``-1`` where a field is unused,
the way lanes' EffectTable lays out its rows.
"""

from __future__ import annotations

import numpy as np

from battlesim.ecs.world import Catalog
from battlesim.systems.classes.cards import CardSet, CardSpec
from battlesim.systems.classes.conditions import condition_names
from battlesim.systems.classes.effect_spec import EffectSpec
from battlesim.systems.classes.vocabulary import (
    CLASSES,
    COLOURS,
    COST_COLOURS,
    KEYWORDS,
    OPS,
    SELECTORS,
    STATS,
    TARGET_KINDS,
    TRIGGERS,
)

NONE = -1
EFFECT_FIELDS = ("trigger", "op", "select", "amount", "stat", "condition", "colour", "steps", "card", "card_type",
                 "range", "per_token", "from_ability")


def type_words(cards: CardSet) -> tuple[str, ...]:
    """Every word of a unit card's type, sorted: bit k of ``type_bits`` = word k (a summon's
    ``card_type`` matches a card whose type has the word; classes.md: types "are used for interactions")."""
    return tuple(sorted({w for s in cards.specs.values() for w in s.type.split()}))


def _cost(cost: dict[str, int]) -> list[int]:
    return [cost.get(c, 0) for c in COST_COLOURS]


def _effect_row(e: EffectSpec, from_ability: bool, names: dict[str, int], words: tuple[str, ...]) -> list[int]:
    def idx(table, value) -> int:
        return list(table).index(value) if value is not None else NONE

    return [idx(TRIGGERS, e.trigger), idx(OPS, e.op), idx(SELECTORS, e.select),
            e.amount if e.amount is not None else NONE, idx(STATS, e.stat), idx(condition_names(), e.condition),
            idx(COLOURS, e.colour), e.steps if e.steps is not None else NONE,
            names[e.card] if e.card is not None else NONE, idx(words, e.card_type),
            e.range if e.range is not None else NONE, int(bool(e.per_token)), int(from_ability)]


def compile_catalog(cards: CardSet) -> Catalog:
    """Every card's numbers, by card id (the set's order: files sorted, cards in file order)."""
    names = list(cards.specs)
    index = {n: i for i, n in enumerate(names)}
    specs: list[CardSpec] = [cards.specs[n] for n in names]
    words = type_words(cards)
    n = len(specs)
    if len(words) > 32:
        raise ValueError(f"{len(words)} card type words; type_bits holds 32")
    rows = [[_effect_row(e, False, index, words) for e in s.effects]
            + [_effect_row(e, True, index, words) for e in (s.ability.effects if s.ability else [])] for s in specs]
    width = max((len(r) for r in rows), default=0)
    effects = np.full((len(EFFECT_FIELDS), n, max(width, 1)), NONE, dtype=np.int16)
    for i, card_rows in enumerate(rows):
        for k, row in enumerate(card_rows):
            effects[:, i, k] = row
    arrays: dict[str, np.ndarray] = {
        "is_spell": np.array([s.is_spell for s in specs], dtype=np.bool_),
        "class_id": np.array([CLASSES.index(c) if (c := cards.class_of[s.name]) else NONE for s in specs], dtype=np.int8),
        "copies": np.array([s.copies for s in specs], dtype=np.int8),
        "type_bits": np.array([sum(1 << words.index(w) for w in s.type.split()) for s in specs], dtype=np.uint32),
        "cost": np.array([_cost(s.cost) for s in specs], dtype=np.int8).reshape(n, len(COST_COLOURS)),
        "target": np.array([TARGET_KINDS.index(s.target) for s in specs], dtype=np.int8),
        # classes.md: "If the card has an Attack value, place an Attack die ... If not, no Attack die is placed."
        "has_attack": np.array([s.attack is not None for s in specs], dtype=np.bool_),
        "attack": np.array([s.attack or 0 for s in specs], dtype=np.int16),
        # classes.md: "If no HP is specified, set a single die set to 1."
        "health": np.array([0 if s.is_spell else (s.health or 1) for s in specs], dtype=np.int16),
        "range": np.array([s.range for s in specs], dtype=np.int8),
        "keywords": np.array([[int(s.keywords.get(k, 0)) for k in KEYWORDS] for s in specs],
                             dtype=np.int16).reshape(n, len(KEYWORDS)),
        "duration": np.array([s.enchantment.duration if s.enchantment else NONE for s in specs], dtype=np.int8),
        "has_aura": np.array([any(e.trigger == "aura" for e in s.effects) for s in specs], dtype=np.bool_),
        "has_ability": np.array([s.ability is not None for s in specs], dtype=np.bool_),
        "ability_cost": np.array([_cost(s.ability.cost if s.ability else {}) for s in specs],
                                 dtype=np.int8).reshape(n, len(COST_COLOURS)),
        "ability_clock": np.array([bool(s.ability and s.ability.clock) for s in specs], dtype=np.bool_),
        "ability_target": np.array([TARGET_KINDS.index(s.ability.target) if s.ability else NONE for s in specs],
                                   dtype=np.int8),
    }
    for f, column in zip(EFFECT_FIELDS, effects):
        arrays[f"effect_{f}"] = column
    return Catalog(names, arrays, specs)
