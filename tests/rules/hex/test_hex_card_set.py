"""The shipped hex card set (spec §5) and the card loader's errors (DESIGN "Data files").

Shape: four factions, each 1 hero + >= 4 abilities + 3 items + 8 units, plus summons; every
keyword, status, op, selector and ability field of the vocabulary on at least one card (the
spec's coverage rule: a keyword no card carries fails here). Errors: one line each, naming the
file, the card and the field.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from battlesim.ecs.datafiles import DataError
from battlesim.systems.hex import vocabulary as V
from battlesim.systems.hex.cards import FACTIONS, AbilityCard, ItemCard, UnitCard, actives_of, effects_of, load_cards


def test_four_factions_of_a_hero_four_abilities_three_items_eight_units_and_summons(hex_cards):
    # spec §5: "4 factions x (1 hero + 4 abilities + 3 items + 8 units) = 64 cards + ~4 summon tokens"
    count = Counter((c.faction, c.type) for c in hex_cards.cards.values())
    for f in FACTIONS:
        assert count[(f, "hero")] == 1
        assert count[(f, "ability")] >= 4
        assert count[(f, "item")] == 3
        assert count[(f, "unit")] == 8
        assert count[(f, "summon")] >= 1
    assert len(hex_cards.cards) >= 68


def test_null_gold_for_heroes_and_summons_and_costs_in_the_specs_bands(hex_cards):
    # hex.md: "Heroes have a missing value (NULL) for gold cost"; "Summoned units also have a NULL value"
    for c in hex_cards.cards.values():
        if c.type in ("hero", "summon"):
            assert c.gold is None, c.name
        else:  # spec §5: "units 6-20, abilities 8-16, items 6-14 gold"
            lo, hi = {"unit": (6, 20), "ability": (8, 16), "item": (6, 14)}[c.type]
            assert lo <= c.gold <= hi, c.name


def test_every_summon_is_summoned_by_some_card_and_every_ability_by_its_hero(hex_cards):
    summoned = {e.card for c in hex_cards.cards.values() for e in effects_of(c) if e.op == "summon"}
    assert summoned == {c.name for c in hex_cards.of_type("summon")}
    heroes = {c.name: c.faction for c in hex_cards.of_type("hero")}
    for c in hex_cards.of_type("ability"):
        assert heroes[c.hero] == c.faction  # hex.md "Owning hero": "Only this hero may draft this ability."


def _used(cards) -> dict[str, set]:
    used: dict[str, set] = {k: set() for k in ("keyword", "status", "op", "selector", "ability", "card",
                                               "damage", "type", "target", "stat")}
    for c in cards.cards.values():
        if isinstance(c, UnitCard):
            used["keyword"] |= set(c.keywords)
            used["type"] |= set(c.types)
        passive = getattr(c, "passive", None)
        if passive is not None:
            used["keyword"] |= set(passive.keywords)
            used["keyword"] |= {m.keyword for m in passive.modifiers if m.keyword}
            used["stat"] |= {m.stat for m in passive.modifiers if m.stat}
        if c.legendary:
            used["card"].add("legendary")
        used["card"] |= {"faction"} | ({"gold"} if c.gold else set())
        for a in actives_of(c):
            used["target"].add(a.target)
            used["ability"] |= {k for k in ("combinable", "channel", "spell_power") if getattr(a, k)}
            if a.cast_range is not None:
                used["ability"].add("cast_range")
        for e in effects_of(c):
            used["op"].add(e.op)
            used["selector"].add(e.select)
            if e.op == "status":
                used["status"].add(e.status)
            if e.op == "shield":
                used["status"].add("shield")
            if e.op == "modifier":
                used["stat" if e.stat else "keyword"].add(e.stat or e.keyword)
            if e.type:
                used["damage"].add(e.type)
            if e.nonlethal:
                used["damage"].add("nonlethal")
    return used


def test_every_keyword_of_both_texts_is_on_a_card(hex_cards):
    # issue 14: "every keyword of both texts on at least one card (a test checks it)"
    used = _used(hex_cards)
    missing = [(term, kind, name) for term, (kind, name, _) in V.GLOSSARY.items()
               if kind != "define" and name not in used[kind]]
    assert not missing, missing
    assert set(V.KEYWORDS) <= used["keyword"]
    assert set(V.APPLIED_STATUSES) | {"shield"} <= used["status"]
    assert set(V.OPS) <= used["op"] and set(V.SELECTORS) <= used["selector"]
    assert set(V.DAMAGE_TYPES) | {"nonlethal"} <= used["damage"]
    assert set(V.TARGETS) - {"unit"} <= used["target"]


def test_both_forms_of_x_or_all_keywords_are_on_cards(hex_cards):
    # hex.md has "Evasion" and "Evasion X", "Piercing" and "Piercing X" (I-32): both forms are carried
    forms: dict[str, set] = {}
    for c in hex_cards.cards.values():
        kws = dict(getattr(c, "keywords", {}))
        if getattr(c, "passive", None):
            kws.update(c.passive.keywords)
        for k, v in kws.items():
            forms.setdefault(k, set()).add("all" if v is True else "X")
    assert forms["evasion"] == {"all", "X"} and forms["lifesteal"] == {"all", "X"}
    assert forms["physical_damage_return"] == {"all", "X"}


def test_ability_levels_share_a_name_and_have_their_own_key(hex_cards):
    # hex.md: "The ability level is not considered part of the ability name."
    fb1, fb2 = hex_cards.cards["Fireball"], hex_cards.cards["Fireball (level 2)"]
    assert isinstance(fb1, AbilityCard) and isinstance(fb2, AbilityCard)
    assert fb1.name == fb2.name == "Fireball" and (fb1.level, fb2.level) == (1, 2)


def test_items_take_one_to_three_slots(hex_cards):
    # hex.md: "A hero cannot use more than 3 inventory slots worth of items."
    assert all(1 <= c.slots <= 3 for c in hex_cards.cards.values() if isinstance(c, ItemCard))


# -- errors: one line, naming file, card and field ------------------------------------------------

HERO = '[[cards]]\nname = "Hero"\ntype = "hero"\nfaction = "Ember"\npower = 1\nhealth = 5\nmana = 2\n\n'
UNIT = '[[cards]]\nname = "Bad"\ntype = "unit"\nfaction = "Ember"\ngold = 6\nhealth = 3\n'
ABILITY = '[[cards]]\nname = "Bad"\ntype = "ability"\nfaction = "Ember"\nhero = "Hero"\ngold = 8\ntarget = "enemy"\n'

CARD_ERRORS = [
    ('[[cards]]\nname = "Bad"\ntype = "spell"\nfaction = "Ember"\n', "field 'type': expected one of"),
    (UNIT + "keywords = { armour = 1 }\n", "unknown keyword 'armour'; did you mean 'armor'?"),
    (UNIT + "keywords = { flying = 2 }\n", "flying is a tag: write flying = true"),
    (UNIT + "keywords = { burn = true }\n", "burn takes a number"),
    (UNIT.replace("gold = 6\n", ""), "a unit needs a gold cost"),
    (UNIT.replace('"unit"', '"summon"'), "a summon has no gold cost"),
    (HERO.replace("power = 1", "gold = 5"), "a hero has no gold cost"),
    (UNIT + "power = 101\n", "field 'power': must be <= 100"),
    (UNIT + "colour = 1\n", "field 'colour': unknown field"),
    ('[[cards]]\nname = "Bad"\ntype = "item"\nfaction = "Ember"\ngold = 8\nslots = 4\n'
     'passive = { modifiers = [{ stat = "power", amount = 1 }] }\n', "field 'slots': must be <= 3"),
    (ABILITY + 'effects = [{ op = "zap", amount = 1 }]\n', "unknown op 'zap'"),
    (ABILITY + 'effects = [{ op = "damage", amount = 1 }]\n', "op 'damage' needs 'type'"),
    (ABILITY + 'effects = [{ op = "heal", amount = 1, type = "pure" }]\n', "op 'heal' has no field 'type'"),
    (ABILITY + 'effects = [{ op = "status", status = "stunned", rounds = 1 }]\n', "unknown status 'stunned'"),
    (ABILITY + 'effects = [{ op = "heal", amount = 1, select = "everyone" }]\n', "unknown select 'everyone'"),
    (ABILITY + 'effects = [{ op = "modifier", stat = "speed", amount = 1 }]\n', "unknown stat 'speed'"),
    (ABILITY.replace('"Hero"', '"Nobody"') + 'effects = [{ op = "heal", amount = 1 }]\n',
     "field 'hero': 'Nobody' is not a hero card"),
    (ABILITY + 'effects = [{ op = "summon", card = "Hero" }]\n', "summon 'Hero' is not a summon card"),
    (UNIT + 'abilities = [{ name = "Zap", cost = 1, target = "enemy", effects = [{ op = "heal", amount = 1 }] }]\n',
     "an ability with a mana cost on a unit without mana"),
    (UNIT + "\n" + UNIT, "card 'Bad' is already defined"),
]


@pytest.mark.parametrize("toml,message", CARD_ERRORS, ids=[m for _, m in CARD_ERRORS])
def test_a_bad_card_is_one_line_naming_file_card_and_field(tmp_path: Path, toml: str, message: str):
    (tmp_path / "cards.toml").write_text(HERO + toml, encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_cards(tmp_path)
    text = str(e.value)
    assert "\n" not in text and message in text, text
    assert text.startswith(str(tmp_path / "cards.toml") + ":")
    assert "'Bad'" in text or "'Hero'" in text or "cards[" in text, text


def test_an_ability_of_another_factions_hero_is_refused(tmp_path: Path):
    toml = HERO + ABILITY.replace('"Ember"', '"Gale"') + 'effects = [{ op = "heal", amount = 1 }]\n'
    (tmp_path / "cards.toml").write_text(toml, encoding="utf-8")
    with pytest.raises(DataError, match="'Hero' is of faction Ember, the ability of Gale"):
        load_cards(tmp_path)


def test_an_active_without_cost_or_range_costs_zero_and_reaches_everywhere(hex_cards):
    # hex.md: "If no mana cost is specified, the ability has a mana cost of zero." / "If no ability
    # range is specified, the ability's range is infinite." (None); "adjacent" is not a number
    seed = next(a for a in actives_of(hex_cards.cards["Root Warden"]) if a.name == "Seed")
    assert seed.cost == 0 and seed.cast_range == "adjacent"
    wave = hex_cards.cards["Flame Wave"].active()
    assert wave is not None and wave.cast_range is None
    assert hex_cards.cards["Barkskin"].active() is None  # a passive-only ability card: no action
