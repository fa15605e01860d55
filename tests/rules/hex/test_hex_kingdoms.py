"""hex.md "Kingdoms" and "Game formats" as kingdom files (spec §2.1-2.2, I-7, I-8, I-44).

The 8 shipped kingdoms load; each kind of illegal kingdom is one line naming the file, the
kingdom, the card and the field.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from battlesim.data import data_dir
from battlesim.ecs.datafiles import DataError
from battlesim.systems.hex.board import deploys_on
from battlesim.systems.hex.cards import FACTIONS
from battlesim.systems.hex.kingdoms import ARMY_GOLD, KINGDOM_GOLD, load_kingdom, load_kingdoms


def test_a_draft_and_a_blitz_kingdom_per_faction(hex_cards):
    ks = load_kingdoms(hex_cards)
    assert set(ks) == {p.stem for p in (data_dir() / "kingdoms" / "hex").glob("*.toml")}
    assert sorted((k.faction, k.format) for k in ks.values()) == sorted(
        (f, fmt) for f in FACTIONS for fmt in ("blitz", "draft"))


def test_gold_limits_160_for_a_kingdom_80_for_a_blitz_army(hex_cards):
    # hex.md: "The gold limit of a kingdom is 160."; "A player may not draft more than 80 gold worth of cards."
    for k in load_kingdoms(hex_cards).values():
        limit = ARMY_GOLD if k.format == "blitz" else KINGDOM_GOLD
        assert 0 < k.gold <= limit, k.id
        assert k.gold == sum(hex_cards.cards[c].gold for c in k.cards)  # "hero card counts for zero gold"
        if k.format == "draft":
            assert k.gold > ARMY_GOLD  # a draft kingdom is more than one army: "not all cards ... drafted"


def test_blitz_units_stand_on_the_two_rows_closest_to_their_player(hex_cards):
    # hex.md: "units are placed on their pre-assigned hexes instead of drafted";
    # "A player may only place units on the two rows of hexes closest to them."
    for k in load_kingdoms(hex_cards).values():
        if k.format != "blitz":
            assert not k.placed
            continue
        units = [c for c in k.cards if hex_cards.cards[c].type == "unit"]
        assert sorted(c for c, _, _ in k.placed) == sorted([k.hero, *units])
        for side in (0, 1):
            hexes = [k.hex_of(side, col, rk) for _, col, rk in k.placed]
            assert len(set(hexes)) == len(hexes) and all(deploys_on(side, *h) for h in hexes)


def test_one_hero_of_the_kingdoms_faction(hex_cards):
    # hex.md: "A kingdom can only have one hero." / "A kingdom can only have cards from the hero's faction."
    for k in load_kingdoms(hex_cards).values():
        assert hex_cards.cards[k.hero].type == "hero"
        assert all(hex_cards.cards[c].faction == k.faction and hex_cards.cards[c].type != "hero" for c in k.cards)


# -- errors -----------------------------------------------------------------------------------

DRAFT = 'name = "Test Host"\nformat = "draft"\nhero = "Pyra"\n\n[cards]\n'
BLITZ = 'name = "Test Raid"\nformat = "blitz"\nhero = "Pyra"\nhero_hex = [4, 0]\n\n'

KINGDOM_ERRORS = [
    # (file text, card named, field named, what)
    (DRAFT + '"Ember Knight" = 11\n"Pyre Warlord" = 1\n"Magma Rhino" = 1\n', None, "cards",
     "168 gold, more than a draft kingdom may hold (160)"),
    (BLITZ + '[cards]\n"Fireball" = 1\n"Cinder Blade" = 1\n\n[[units]]\ncard = "Pyre Warlord"\nhex = [3, 1]\n\n'
     '[[units]]\n'
     'card = "Magma Rhino"\nhex = [5, 1]\n\n[[units]]\ncard = "Kiln Golem"\nhex = [4, 1]\n\n[[units]]\n'
     'card = "Ember Knight"\nhex = [2, 1]\n', None, "cards", "82 gold, more than a blitz kingdom may hold (80)"),
    (DRAFT + '"Sylva" = 1\n', "Sylva", "cards", "a second hero"),
    (DRAFT + '"Briar Wolf" = 1\n', "Briar Wolf", "cards", "faction Thorn, the hero 'Pyra' is Ember"),
    (DRAFT + '"Pyre Warlord" = 2\n', "Pyre Warlord", "cards", "Legendary: 2 copies, at most 1"),
    (BLITZ + '[cards]\n"Ember Crown" = 1\n"Cinder Blade" = 1\n"Flint Boots" = 1\n', None, "cards",
     "items take 4 inventory slots, a hero uses at most 3"),
    (DRAFT + '"Ember Sprite" = 1\n', "Ember Sprite", "cards", "a summon cannot be drafted"),
    (DRAFT + '"Fireball (level 2)" = 1\n', "Fireball (level 2)", "cards", "level 2 needs level 1 of 'Fireball'"),
    (DRAFT + '"Fire Ball" = 1\n', "Fire Ball", "cards", "unknown card; did you mean 'Fireball'?"),
    (DRAFT.replace('"Pyra"', '"Ember Knight"'), "Ember Knight", "hero", "not a hero card"),
    (BLITZ + '[cards]\n"Ember Knight" = 1\n', "Ember Knight", "cards", "a blitz kingdom places its units"),
    (BLITZ + '[[units]]\ncard = "Ember Knight"\nhex = [4, 0]\n', "Ember Knight", "hex",
     "[4, 0] already holds 'Pyra' (one unit per hex)"),
    (BLITZ + '[[units]]\ncard = "Fireball"\nhex = [3, 0]\n', "Fireball", "units", "is not placed on the map"),
]


@pytest.mark.parametrize("toml,card,field,what", KINGDOM_ERRORS, ids=[e[3][:40] for e in KINGDOM_ERRORS])
def test_a_bad_kingdom_is_one_line_naming_file_kingdom_card_and_field(hex_cards, tmp_path: Path, toml, card, field,
                                                                       what):
    path = tmp_path / "bad.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_kingdom(path, hex_cards)
    text = str(e.value)
    assert "\n" not in text and text.startswith(str(path))
    assert "kingdom 'Test " in text and f"field {field!r}" in text and what in text, text
    if card:
        assert f"card {card!r}" in text, text


@pytest.mark.parametrize("toml,what", [
    (BLITZ.replace("hero_hex = [4, 0]\n", ""), "a blitz kingdom places its hero"),
    (BLITZ.replace("[4, 0]", "[4, 2]"), "rank 0-1"),
    (DRAFT.replace('format = "draft"\n', 'format = "draft"\nhero_hex = [4, 0]\n'), "a draft kingdom places nothing"),
    (DRAFT.replace('"draft"', '"sealed"'), "field 'format': expected one of"),
    (DRAFT + '"Fireball" = 0\n', "field 'cards.Fireball': must be >= 1"),
])
def test_a_kingdom_of_the_wrong_shape_is_one_line(hex_cards, tmp_path: Path, toml, what):
    path = tmp_path / "bad.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(DataError) as e:
        load_kingdom(path, hex_cards)
    assert "\n" not in str(e.value) and what in str(e.value) and "'Test " in str(e.value), str(e.value)


def test_an_ability_of_another_hero_of_the_faction_is_refused(tmp_path: Path):
    # hex.md "Owning hero": "Only this hero may draft this ability."
    from battlesim.systems.hex.cards import load_cards

    cards = tmp_path / "cards"
    cards.mkdir()
    hero = '[[cards]]\nname = "{n}"\ntype = "hero"\nfaction = "Ember"\nhealth = 5\nmana = 2\n\n'
    (cards / "c.toml").write_text(hero.format(n="Pyra") + hero.format(n="Ash") + '[[cards]]\nname = "Cinders"\n'
                                  'type = "ability"\nfaction = "Ember"\nhero = "Ash"\ngold = 8\ntarget = "enemy"\n'
                                  'effects = [{ op = "heal", amount = 1 }]\n', encoding="utf-8")
    path = tmp_path / "k.toml"
    path.write_text(DRAFT + '"Cinders" = 1\n', encoding="utf-8")
    with pytest.raises(DataError, match="kingdom 'Test Host': card 'Cinders': field 'cards': an ability of 'Ash', "
                                        "not of the hero 'Pyra'"):
        load_kingdom(path, load_cards(cards))
