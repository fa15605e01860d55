"""The classes card set compiled to numbers (DESIGN.md "The World": "Static card data is compiled
once from data/ into a catalog of numpy arrays by card id")."""

from __future__ import annotations

import numpy as np
import pytest

from battlesim.systems.classes import vocabulary as V
from battlesim.systems.classes.cards import load_cards
from battlesim.systems.classes.catalog import EFFECT_FIELDS, NONE, compile_catalog, type_words


@pytest.fixture(scope="module")
def cards():
    return load_cards()


@pytest.fixture(scope="module")
def cat(cards):
    return compile_catalog(cards)


def test_unit_stats_as_the_text_sets_them_up(cat):
    a = cat.arrays
    guard, archer, cleric = cat.id("Guard"), cat.id("Archer"), cat.id("Cleric")
    # classes.md: "Guard has a base attack value of 1 and a base HP value of 3."
    assert (a.attack[guard], a.health[guard], a.has_attack[guard]) == (1, 3, True)
    assert a.keywords[guard, list(V.KEYWORDS).index("shield")] == 1
    assert a.range[archer] == 2
    # classes.md: "If not, no Attack die is placed." (Cleric has no Attack value; 0 would be an Attack of 0)
    assert not a.has_attack[cleric] and a.has_ability[cleric]
    assert not a.has_attack[cat.id("Smite")] and a.is_spell[cat.id("Smite")]


def test_costs_durations_and_classes(cat):
    a = cat.arrays
    smite = cat.id("Smite")
    assert a.cost[smite].tolist() == [1, 0, 1, 0, 0, 0]  # white, red, blue, purple, summoning, wild
    imp = cat.id("Imp")
    assert a.ability_cost[imp, V.COST_COLOURS.index("wild")] == 1 and not a.ability_clock[imp]
    assert a.duration[cat.id("Corruption")] == 3 and a.duration[cat.id("Doom")] == 0 and a.duration[smite] == NONE
    assert a.class_id[smite] == V.CLASSES.index("Paladin") and a.class_id[imp] == V.CLASSES.index("Warlock")
    assert a.has_aura[cat.id("Standard Bearer")] and not a.has_aura[cat.id("Footman")]


def test_effects_are_ids_in_vocabulary_order(cat, cards):
    a = cat.arrays
    hammer = cat.id("Hammer of Justice")
    ops = [o for o in a.effect_op[hammer] if o != NONE]
    assert [list(V.OPS)[o] for o in ops] == ["damage", "condition"]
    assert list(V.CONDITIONS)[a.effect_condition[hammer, 1]] == "stun"
    sergeant = cat.id("Sergeant")
    assert a.effect_card[sergeant, 0] == cat.id("Footman")
    assert list(V.TRIGGERS)[a.effect_trigger[sergeant, 0]] == "on_summon"
    imp = cat.id("Imp")  # the ability's effect follows the card's own (none here)
    assert a.effect_from_ability[imp, 0] == 1 and list(V.OPS)[a.effect_op[imp, 0]] == "damage"
    rift = cat.id("Rift")
    words = type_words(cards)
    assert words[a.effect_card_type[rift, 0]] == "Horror"
    assert a.type_bits[cat.id("Pit Horror")] & (1 << words.index("Horror"))
    every = sum(len(s.effects) + (len(s.ability.effects) if s.ability else 0) for s in cards.specs.values())
    assert int((a.effect_op != NONE).sum()) == every


def test_every_array_has_one_row_per_card(cat):
    for name in ("attack", "cost", "keywords", *(f"effect_{f}" for f in EFFECT_FIELDS)):
        assert len(getattr(cat.arrays, name)) == len(cat)
    assert np.issubdtype(cat.arrays.effect_op.dtype, np.integer)
