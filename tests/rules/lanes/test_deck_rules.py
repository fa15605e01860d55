"""lanes.md "Game Setup", "Deck Building", "Heroes" (deck-builder rules), starting hand.

Deck legality is checked when the data is loaded; an illegal deck is an ``battlesim.ecs.datafiles.DataError``
that names the file, the deck and the card.
"""

from __future__ import annotations

import shutil
import tomllib
from collections import Counter

import pytest

from battlesim.data import data_dir
from battlesim.ecs.datafiles import DataError
from battlesim.systems.lanes.cards import CARD_TYPES, load_card_set, load_deck
from battlesim.systems.lanes.compiled.processors import (
    CreepSpawn,
    DrawPhase,
    HeroAvailability,
    HeroDeployment,
)

SHIPPED = data_dir() / "decks" / "lanes"


def base_deck() -> dict:
    return tomllib.loads((SHIPPED / "red_vanguard.toml").read_text())


def _toml_value(v) -> str:
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return str(v)


def toml_of(deck: dict) -> str:
    """Write a deck dict back as TOML (keys first, then tables such as ``[cards]``), so every
    field of the shipped deck format is kept."""
    lines = [f"{k} = {_toml_value(v)}" for k, v in deck.items() if not isinstance(v, dict)]
    for k, table in deck.items():
        if isinstance(table, dict):
            lines += ["", f"[{k}]"] + [f"{_toml_value(n)} = {_toml_value(c)}" for n, c in table.items()]
    return "\n".join(lines) + "\n"


def write(tmp_path, deck: dict, stem: str = "bad_deck"):
    path = tmp_path / f"{stem}.toml"
    path.write_text(toml_of(deck))
    return path


def load(game, path):
    return load_deck(path, game.cards.specs, game.cards.catalog, game.params)


def check_error(exc, path, deck_name, *words):
    msg = str(exc.value)
    assert str(path) in msg, msg
    assert deck_name in msg, msg
    for word in words:
        assert word in msg, msg


# -- the shipped decks ----------------------------------------------------------------------

def test_every_shipped_deck_is_legal(game):
    # lanes.md: "Each player starts with a 40-card deck (minimum)"; "Deck size: 40 cards minimum"
    # lanes.md: "Each deck must include exactly 5 Hero cards"
    # lanes.md: "Each hero comes with 3 signature cards automatically added to your deck"
    cat = game.cards.catalog
    assert {"red_vanguard", "blue_tide", "green_grove", "black_covenant"} <= set(game.cards.decks)
    for deck in game.cards.decks.values():
        assert deck.main.size >= 40
        assert deck.heroes.size == 5 and len(set(deck.heroes.tolist())) == 5
        counts = Counter(deck.main.tolist())
        for h in deck.heroes:
            spec = game.cards.specs[cat.names[h]]
            assert spec.type == "hero" and spec.rarity == "Legendary"
            assert len(spec.signature) == 3
            for sig in spec.signature:
                assert counts[cat.id(sig)] >= 1
                # "Signature cards are tied to that hero and share their faction"
                assert game.cards.specs[sig].faction == spec.faction
        for cid, n in counts.items():
            assert n <= (1 if cat.arrays.unique[cid] else 3)
            # heroes and creeps never sit in the main deck
            assert cat.arrays.kind[cid] not in (CARD_TYPES.index("hero"), CARD_TYPES.index("creep"))


def test_each_game_starts_with_the_full_40_card_deck_shuffled(game, new_world):
    # lanes.md "Game Setup": "Each player starts with a 40-card deck (minimum)"
    w = new_world(4)
    for seat, name in enumerate(("red_vanguard", "blue_tide")):
        main = sorted(game.cards.deck(name).main.tolist())
        for b in range(4):
            assert w.g.deck_size[b, seat] == 40
            assert sorted(w.g.deck[b, seat, :40].tolist()) == main
    assert w.g.deck[0, 0, :40].tolist() != w.g.deck[1, 0, :40].tolist()  # shuffled per game


def test_signature_cards_count_toward_the_40_minimum(game, tmp_path):
    # lanes.md: "The 15 signature cards (5 heroes × 3 each) count toward your 40-card minimum"
    deck = base_deck()
    assert sum(deck["cards"].values()) == 25
    good = load(game, write(tmp_path, deck, "good"))
    assert good.main.size == 40
    cards = dict(deck["cards"])
    cards["Ashen Titan"] -= 1
    cards.pop("Ashen Titan")
    deck["cards"] = cards
    path = write(tmp_path, deck)
    with pytest.raises(DataError) as e:
        load(game, path)
    check_error(e, path, "Red Vanguard", "39 cards", "minimum is 40")


def test_deck_minimum_is_a_parameter(game, tmp_path):
    # lanes.md: "Deck size: 40 cards minimum (main deck)" (deck_min)
    assert game.params.deck_min == 40
    deck = base_deck()
    deck["cards"]["Cinder Recruit"] = 3
    deck["cards"]["Normark Spearman"] = 3
    path = write(tmp_path, deck)
    assert load(game, path).main.size == 40
    p = game.params.model_copy(update={"deck_min": 41})
    with pytest.raises(DataError) as e:
        load_deck(path, game.cards.specs, game.cards.catalog, p)
    check_error(e, path, "Red Vanguard", "minimum is 41")


def test_more_than_three_copies_of_a_non_unique_card_is_an_error(game, tmp_path):
    # lanes.md: "Maximum 3 copies of any non-unique card per deck"
    # lanes.md: 'Generic units (like "Guard" or "Soldier") are not unique and follow the 3-copy limit'
    deck = base_deck()
    deck["cards"]["Cinder Recruit"] = 4
    path = write(tmp_path, deck)
    with pytest.raises(DataError) as e:
        load(game, path)
    check_error(e, path, "Red Vanguard", "4 copies", "non-unique", "Cinder Recruit", "max 3")


def test_signature_copies_count_toward_the_copy_limit(game, tmp_path):
    # lanes.md: "Each hero comes with 3 signature cards automatically added to your deck"
    # + "Maximum 3 copies": 3 listed copies + 1 automatic signature copy = 4
    deck = base_deck()
    deck["cards"]["Ashbrand Duelist"] = 3
    path = write(tmp_path, deck)
    with pytest.raises(DataError) as e:
        load(game, path)
    check_error(e, path, "Red Vanguard", "4 copies", "Ashbrand Duelist")
    deck["cards"]["Ashbrand Duelist"] = 2  # 2 + 1 = 3 is fine
    assert load(game, write(tmp_path, deck, "ok")).main.size == 42


def test_exactly_five_heroes(game, tmp_path):
    # lanes.md: "Each deck must include exactly 5 Hero cards in dedicated deck builder slots"
    for heroes in (base_deck()["heroes"][:4], base_deck()["heroes"] + ["Ithra Tidecaller"]):
        deck = base_deck()
        deck["heroes"] = heroes
        path = write(tmp_path, deck)
        with pytest.raises(DataError) as e:
            load(game, path)
        check_error(e, path, "Red Vanguard", "exactly 5 heroes", f"has {len(heroes)}")


def test_a_hero_only_once(game, tmp_path):
    # lanes.md: "Heroes are Legendary and unique (only 1 copy each)"
    deck = base_deck()
    deck["heroes"] = deck["heroes"][:4] + [deck["heroes"][0]]
    path = write(tmp_path, deck)
    with pytest.raises(DataError) as e:
        load(game, path)
    check_error(e, path, "Red Vanguard", "listed twice")


def test_heroes_stay_out_of_the_main_deck(game, tmp_path):
    # lanes.md: heroes are "in dedicated deck builder slots (separate from main deck)";
    # "Not drawn from deck — deployed during Hero Deployment Phase"
    deck = base_deck()
    deck["cards"]["Ithra Tidecaller"] = 1
    path = write(tmp_path, deck)
    with pytest.raises(DataError) as e:
        load(game, path)
    check_error(e, path, "Red Vanguard", "Ithra Tidecaller", "is a hero, not a unit")


def test_unknown_card_is_named(game, tmp_path):
    # DESIGN.md "Data files": an unknown card id is an error, never a silent default
    deck = base_deck()
    deck["cards"]["Cinder Recruitt"] = 1
    path = write(tmp_path, deck)
    with pytest.raises(DataError) as e:
        load(game, path)
    check_error(e, path, "Red Vanguard", "unknown card 'Cinder Recruitt'")


# -- unique and Legendary cards (a card directory with extra cards) -------------------------

EXTRA = """
[[cards]]
name = "Sir Named"
type = "unit"
faction = "Red"
rarity = "Common"
unique = true
cost = 2
attack = 2
health = 2

[[cards]]
name = "Old Relic"
type = "unit"
faction = "Red"
rarity = "Legendary"
cost = 5
attack = 5
health = 5
"""


def card_dirs(tmp_path, extra: str = EXTRA):
    cards = tmp_path / "cards"
    shutil.copytree(data_dir() / "cards" / "lanes", cards)
    (cards / "zz_extra.toml").write_text(extra)
    decks = tmp_path / "decks"
    decks.mkdir()
    return cards, decks


@pytest.mark.parametrize("card", ["Sir Named", "Old Relic"])
def test_unique_cards_only_once(game, tmp_path, card):
    # lanes.md: "Unique cards can only have 1 copy per deck"
    # lanes.md: "All Legendary cards are unique"; "Cards can be unique regardless of rarity"
    cards, decks = card_dirs(tmp_path)
    deck = base_deck()
    deck["cards"][card] = 1
    write(decks, deck, "one_copy")
    cs = load_card_set(game.params, cards, decks)
    assert cs.catalog.arrays.unique[cs.catalog.id(card)]
    assert cs.deck("one_copy").main.size == 41
    deck["cards"][card] = 2
    path = write(decks, deck, "two_copies")
    with pytest.raises(DataError) as e:
        load_card_set(game.params, cards, decks).deck("two_copies")
    check_error(e, path, "Red Vanguard", "2 copies of unique card", card, "max 1")


def test_hero_must_be_legendary(game, tmp_path):
    # lanes.md: "Heroes are Legendary and unique"
    extra = """
[[cards]]
name = "Common Captain"
type = "hero"
faction = "Red"
rarity = "Rare"
attack = 2
health = 5
signature = ["Cinder Recruit", "Normark Spearman", "Emberblade Squire"]
"""
    cards, decks = card_dirs(tmp_path, extra)
    with pytest.raises(DataError) as e:
        load_card_set(game.params, cards, decks)
    msg = str(e.value)
    assert "zz_extra.toml" in msg and "Common Captain" in msg and "Legendary" in msg


def test_hero_needs_three_signature_cards(game, tmp_path):
    # lanes.md: "Each hero comes with 3 signature cards"
    extra = """
[[cards]]
name = "Short Handed"
type = "hero"
faction = "Red"
rarity = "Legendary"
attack = 2
health = 5
signature = ["Cinder Recruit", "Normark Spearman"]
"""
    cards, decks = card_dirs(tmp_path, extra)
    deck = base_deck()
    deck["heroes"] = deck["heroes"][:4] + ["Short Handed"]
    path = write(decks, deck)
    with pytest.raises(DataError) as e:
        load_card_set(game.params, cards, decks).deck("bad_deck")
    check_error(e, path, "Red Vanguard", "Short Handed", "3 signature cards")


def test_signature_cards_share_the_heroes_faction(game, tmp_path):
    # lanes.md: "Signature cards are tied to that hero and share their faction"
    extra = """
[[cards]]
name = "Turncoat"
type = "hero"
faction = "Red"
rarity = "Legendary"
attack = 2
health = 5
signature = ["Cinder Recruit", "Normark Spearman", "Ostland Lookout"]
"""
    cards, decks = card_dirs(tmp_path, extra)
    with pytest.raises(DataError) as e:
        load_card_set(game.params, cards, decks)
    msg = str(e.value)
    assert "zz_extra.toml" in msg and "Turncoat" in msg and "Ostland Lookout" in msg and "Blue" in msg


def test_heroes_have_a_faction(game):
    # lanes.md: "Heroes have a faction (Red, Blue, Green, Black)"; "Card Factions"
    heroes = [spec for spec in game.cards.specs.values() if spec.type == "hero"]
    assert len(heroes) >= 20
    for spec in heroes:
        assert spec.faction in ("Red", "Blue", "Green", "Black")


def test_bad_deck_in_the_deck_directory_fails_when_it_is_used(game, tmp_path):
    # DESIGN.md "Data files": "an error names the file, the card and the field"
    # issue 12: "One bad deck file must not block commands that do not use it."
    decks = tmp_path / "decks"
    shutil.copytree(SHIPPED, decks)
    deck = base_deck()
    deck["cards"]["Normark Spearman"] = 5
    path = write(decks, deck, "zz_bad")
    cs = load_card_set(game.params, None, decks)
    assert cs.deck("red_vanguard").main.size >= 40  # the good decks load
    with pytest.raises(DataError) as e:
        cs.deck("zz_bad")
    check_error(e, path, "Red Vanguard", "Normark Spearman", "5 copies")


# -- starting hand -------------------------------------------------------------------------

def test_starting_hand_of_five_after_hero_deployment(new_world, script):
    # lanes.md: "After hero deployment, players draw their starting hand of 5 cards"
    a = script()
    w = new_world(3, agents=[a, script()])
    CreepSpawn().process(w)
    HeroAvailability().process(w)
    HeroDeployment(w.actions).process(w)
    assert all((c["hand"] < 0).all() for c in a.calls)  # deployment happens with an empty hand
    assert (w.g.hand < 0).all()
    DrawPhase().process(w)
    assert ((w.g.hand >= 0).sum(axis=2) == 5).all()
    assert (w.g.hand[:, :, :5] == w.g.deck[:, :, :5]).all()
    assert (w.g.deck_top == 5).all()


def test_cards_have_cost_attack_health_faction_tier_and_rarity(game):
    # lanes.md "Card Stats": "Cost", "Attack", "Health", "Faction"; "Card Tiers": tiers 0-5;
    # "Card rarities: Common, Rare, Epic, Legendary"
    a = game.cards.catalog.arrays
    n = len(game.cards.catalog)
    assert all(len(x) == n for x in (a.cost, a.attack, a.health, a.faction, a.tier, a.rarity))
    assert {0, 1, 2, 3} <= set(a.faction.tolist())
    assert a.tier.min() >= 0 and a.tier.max() <= 5
    assert set(a.rarity.tolist()) <= {0, 1, 2, 3}
    units = a.kind == CARD_TYPES.index("unit")
    heroes = a.kind == CARD_TYPES.index("hero")
    assert units.any() and heroes.any()
    assert (a.cost[units] >= 1).all() and (a.health[units | heroes] >= 1).all()
    assert set(a.faction[units | heroes].tolist()) == {0, 1, 2, 3}
    assert (a.rarity[heroes] == 3).all() and a.unique[heroes].all()  # "Heroes are Legendary and unique"
    assert (a.cost[heroes] == 0).all()  # heroes are deployed, never paid for
