"""classes.md "Components" and the issue's data: the Paladin and Warlock sets as the text counts
them, the cards and powers it names, both class boards, level tables, decks, and the coverage
rule (every condition, keyword, op and trigger is used by a shipped card)."""

from __future__ import annotations

import pytest

from battlesim.systems.classes import vocabulary as V
from battlesim.systems.classes.cards import load_cards
from battlesim.systems.classes.components import COMPONENTS, PREFIX
from battlesim.systems.classes.decks import load_decks
from battlesim.systems.classes.powers import load_boards


@pytest.fixture(scope="module")
def cards():
    return load_cards()


@pytest.fixture(scope="module")
def boards(cards):
    return load_boards(cards)


def count(cards, class_name: str, word: str | None) -> int:
    """Physical cards of a class whose type has ``word`` (None: spells)."""
    return sum(c.copies for c in cards.of_class(class_name)
               if (c.is_spell if word is None else (not c.is_spell and word in c.type.split())))


def test_paladin_set_9_spells_24_followers(cards):
    # classes.md "Components": "Paladin set (9 spells, 24 followers)"
    assert count(cards, "Paladin", None) == 9
    assert count(cards, "Paladin", "Follower") == 24
    assert sum(c.copies for c in cards.of_class("Paladin")) == 33


def test_warlock_set_9_spells_18_demons_3_horrors(cards):
    # classes.md "Components": "Warlock set (9 spells, 18 demons, 3 horrors)"
    assert count(cards, "Warlock", None) == 9
    assert count(cards, "Warlock", "Demon") == 18
    assert count(cards, "Warlock", "Horror") == 3
    assert sum(c.copies for c in cards.of_class("Warlock")) == 30


def test_the_cards_the_text_names(cards):
    # classes.md: "Guard has a base attack value of 1 and a base HP value of 3."
    guard = cards.specs["Guard"]
    assert (guard.attack, guard.health) == (1, 3)
    # classes.md: "an Archer with a range of 2"
    assert cards.specs["Archer"].range == 2
    # classes.md: "Rejuvenate spell from the upgrade deck"; "The star only notes that the card is a spell."
    assert cards.specs["Rejuvenate"].is_spell and not cards.specs["Footman"].is_spell
    # classes.md: "you first cast the spell 'Dark Trade' and place a pentagon shaped red token on it"
    assert cards.specs["Dark Trade"].is_spell and cards.specs["Dark Trade"].enchantment is not None
    # classes.md: "Chaos Bolt ability costs one mana of any kind to perform"
    imp = cards.specs["Imp"]
    assert imp.ability is not None and imp.ability.name == "Chaos Bolt" and imp.ability.cost == {"wild": 1}


def test_the_powers_the_text_names(boards):
    paladin = boards["Paladin"]
    # classes.md: "Call to Arms  Innate  Summon a Follower onto any free space on the first row of the battlefield."
    call = paladin.power("Call to Arms")
    assert call.innate and call.abilities[0].target == "first_row"
    assert call.abilities[0].effects[0].op == "summon" and call.abilities[0].effects[0].card_type == "Follower"
    # classes.md: "Beacon of Light  Innate  Place 1 token on this power up to number of [slots] on this power."
    # "For each token on this power, tick a [white] orb two steps down the Mana Orb track."
    beacon = paladin.power("Beacon of Light")
    assert beacon.innate and beacon.abilities[0].effects[0].op == "add_token"
    tick = beacon.abilities[1].effects[0]
    assert (tick.op, tick.steps, tick.per_token) == ("tick_cooldown", 2, True)
    # classes.md: "The first token lets the player take Rejuvenate spell from the upgrade deck and add it to
    # his hand, along with a white Mana. The second power token only gives him a Footman card."
    mercy = paladin.power("Path of Mercy")
    assert [(e.op, e.card or e.colour) for e in mercy.on_token[0]] == [("add_card", "Rejuvenate"), ("gain_mana", "white")]
    assert [(e.op, e.card) for e in mercy.on_token[1]] == [("add_card", "Footman")]


def test_both_boards_have_8_to_10_powers_over_levels_1_to_5(boards):
    # issue 15: "both class boards with 8-10 powers over levels 1-5; level tables"
    for board in boards.values():
        assert 8 <= len(board.powers) <= 10
        assert [lv.level for lv in board.levels] == [1, 2, 3, 4, 5]
        assert {p.level for p in board.powers} >= {1, 2, 3, 4, 5}
        # classes.md: "You gain a power token every time you level up" (spec choice 27)
        assert all("power_token" in lv.bonus for lv in board.levels)
        # classes.md: "Innate powers are unlocked from the start."
        assert any(p.innate for p in board.powers) and any(not p.innate for p in board.powers)
        # classes.md: "You may also use it on any power that is defined outside the level tree." (level 0)
        # classes.md: "You cannot unlock a power with a dependency before placing a power token in the talent."
        assert any(p.requires for p in board.powers)


def test_at_least_two_decks_per_class(cards, boards):
    decks = load_decks(cards, boards)
    for class_name in V.CLASSES:
        assert sum(d.class_name == class_name for d in decks.values()) >= 2
    for d in decks.values():
        assert d.hand and all(cards.class_of[c] == d.class_name for c in d.hand + d.upgrade)


def _used(cards, boards):
    effects = [e for c in cards.specs.values() for e in c.all_effects()]
    power_effects = [e for b in boards.values() for p in b.powers for e in p.all_effects()]
    return effects, power_effects


def test_every_condition_is_used_by_a_card_except_the_two_not_used(cards):
    # issue 15: "Every condition, keyword and effect op is used by a card (a test checks it)."
    # classes.md: "Chill (not used)"; "Snare (not used)": no shipped card applies them.
    used = {e.condition for c in cards.specs.values() for e in c.all_effects() if e.op == "condition"}
    assert used == set(V.CONDITIONS) - set(V.UNUSED_CONDITIONS)


def test_every_keyword_and_the_range_modifier_is_used_by_a_card(cards):
    used = {k for c in cards.specs.values() for k in c.keywords}
    assert used == set(V.KEYWORDS)
    # classes.md "Unit Modifiers": "Attack range – Increases unit's attack range by 1."
    assert any(c.range > 1 for c in cards.specs.values())
    # classes.md: "A unit needs an HP to be on the battlefield but it does not need an Attack value."
    assert any(not c.is_spell and c.attack is None for c in cards.specs.values())


def test_every_op_trigger_and_selector_is_used(cards, boards):
    effects, power_effects = _used(cards, boards)
    assert {e.op for e in effects} == set(V.OPS) - set(V.POWER_ONLY_OPS)
    assert {e.op for e in power_effects} >= set(V.POWER_ONLY_OPS)
    assert {e.trigger for e in effects} == set(V.TRIGGERS)
    assert {e.select for e in effects + power_effects if e.select} == set(V.SELECTORS)
    kinds = {c.target for c in cards.specs.values()} | {c.ability.target for c in cards.specs.values() if c.ability}
    kinds |= {a.target for b in boards.values() for p in b.powers for a in p.abilities}
    assert kinds == set(V.TARGET_KINDS) - {"field"} - {"player"}  # "field"/"player": scenarios and agents only


def test_components_live_in_the_classes_namespace():
    # DESIGN.md "The World": "hex's Shield X and lanes' Shield are different components"
    assert all(c.name.startswith(PREFIX) for c in COMPONENTS.values())
    for word in (*V.KEYWORDS, *V.CONDITIONS, "health", "attack", "defending", "enchanted"):
        assert COMPONENTS[word].name == PREFIX + word
    assert COMPONENTS["enchanted"].shape == (2, len(V.SHAPES))
