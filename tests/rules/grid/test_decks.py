"""Grid decks (spec §2 "Setup"): a starting hero plus a main deck of >= 20, <= 3 copies, heroes unique."""

from __future__ import annotations

import pytest

from battlesim.ecs.datafiles import DataError
from battlesim.systems.grid.decks import load_deck

GOOD = """name = "Test"
hero = "Champion"

[cards]
Footman = 3
Shieldbearer = 3
Berserker = 3
Sellsword = 3
Acolyte = 3
Longbowman = 3
Haste = 2
"""


def test_at_least_four_legal_decks_ship(card_set, params):
    assert len(card_set.decks) >= 4
    heroes = set()
    for deck in card_set.decks.values():
        assert len(deck.main) >= params.deck_min
        heroes.add(card_set.catalog.names[deck.hero])
    assert heroes == {"Champion", "Shadowblade", "Ranger Captain", "Archmage"}  # every hero starts a deck


def test_the_shipped_decks_use_every_card_type(card_set):
    used = {card_set.specs[card_set.catalog.names[c]].type for d in card_set.decks.values() for c in d.main}
    assert used == {"unit", "hero", "spell", "item", "trap"}


def test_a_good_deck_loads(tmp_path, card_set, params):
    p = tmp_path / "d.toml"
    p.write_text(GOOD, encoding="utf-8")
    deck = load_deck(p, card_set.specs, card_set.catalog, params)
    assert len(deck.main) == 20 and deck.main.dtype.name == "int16"


@pytest.mark.parametrize("old,new,line,words", [
    ('hero = "Champion"', 'hero = "Champ"', 2, "field 'hero': unknown card 'Champ'; did you mean 'Champion'?"),
    ('hero = "Champion"', 'hero = "Footman"', 2, "field 'hero': 'Footman' is a unit, the starting hero must be a hero"),
    ("Haste = 2", "Haste = 2\nFireball = 1", 12, "field 'cards': unknown card 'Fireball'"),
    ("Haste = 2", "Haste = 4", 11, "field 'cards.Haste': 4 copies of a card, at most 3"),
    ("Haste = 2", "Haste = 1\nArchmage = 2", 12, "field 'cards.Archmage': 2 copies of a hero (heroes are unique), at most 1"),
    ("Haste = 2", "Haste = 1\nChampion = 1", 12, "the starting hero is also in the main deck"),
    ("Haste = 2", "Haste = 1", 1, "field 'cards': the main deck has 19 cards, at least 20"),
    ("Haste = 2", "Haste = 0", 11, "field 'cards.Haste': 0 copies, expected 1 or more"),
    ('hero = "Champion"', 'hero = "Champion"\nheroes = 2', 3, "unknown field"),
])
def test_each_kind_of_bad_deck_is_one_line(tmp_path, card_set, params, old, new, line, words):
    p = tmp_path / "d.toml"
    p.write_text(GOOD.replace(old, new), encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_deck(p, card_set.specs, card_set.catalog, params)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{p}:{line}: "), msg
    assert words in msg, msg


def test_an_unknown_deck_name_suggests_the_close_one(card_set):
    with pytest.raises(DataError, match=r"unknown grid deck 'iron_vangard'; did you mean 'iron_vanguard'\?; available: "):
        card_set.deck("iron_vangard")
