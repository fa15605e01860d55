"""Ability and item cards on a blitz army (hex.md "Ability Cards", "Item Cards", "Pre-Battle
Setup") and the ability effects batch games play (spec §5 ops and selectors, Spell Power, Channel):
each test cites its sentence or choice. The effects themselves are checked by hand-worked scenario
files (``tests/scenarios/hex/``); these tests check what only the army setup shows."""

from __future__ import annotations

import numpy as np
import pytest

from battlesim.systems.hex.battle import prop
from battlesim.systems.hex.game import Armies
from battlesim.systems.hex.kingdoms import load_kingdoms
from battlesim.systems.hex.state import (
    A_CHANNEL,
    A_ONCE,
    A_PRESENT,
    A_SPELL_POWER,
    HEALTH,
    M_SLOT,
    MANA,
    MAX_MANA,
    ONCE_BATTLE,
    POWER,
    S_POWER,
    SLOTS,
)
from battlesim.systems.hex.turn import settle


@pytest.fixture(scope="module")
def ember(hex_cards) -> Armies:
    ks = load_kingdoms(hex_cards)
    by_name = {k.name: k for k in ks.values()}
    return Armies(hex_cards, (by_name["Ember Raid"], by_name["Gale Strike"]))


def test_units_with_mana_start_with_a_full_mana_pool(ember) -> None:
    # hex.md: "Place a mana counter on all units that have mana." (spec §2.5: at their max mana)
    bt = ember.template
    for s, key in ember.army.card.items():
        card = ember.cards.cards[key]
        if card.mana is not None:
            assert bt.i(MANA, 0, s) == bt.i(MAX_MANA, 0, s) == card.mana
        else:
            assert bt.i(MANA, 0, s) == -1  # hex.md "a missing value (NULL) for mana"


def test_item_passives_modify_the_own_hero_and_end_with_it(ember) -> None:
    # hex.md: "Item cards only affect the hero belonging to the same kingdom that they belong to.";
    # "Basic property modifiers may also be stated here"; "Item cards do not affect the battlefield
    # after the owning hero is dead." (I-40: the passive is a modifier instance on the hero)
    src = ember.template
    hero = next(s for s, k in ember.army.card.items() if k == "Pyra")
    printed = ember.cards.cards["Pyra"].power
    assert prop(src.st, src.cols, src.f, 0, hero, S_POWER) == printed + 1  # Cinder Blade: +1 Power
    units = [s for s, k in ember.army.card.items() if ember.cards.cards[k].type != "hero"]
    assert all(not (src.f.mods[0, :, M_SLOT] == s).any() for s in units)  # passives are the hero's only
    f = type(src.f)(*(a.copy() for a in src.f))
    st = src.st
    saved = (st.i16.copy(), st.alive.copy())
    try:
        st.i16[src.cols[HEALTH], 0, hero] = 0
        settle(st, src.cols, f, 0, np.zeros(SLOTS, dtype=np.int64))
        assert not st.alive[0, hero] and not (f.mods[0, :, M_SLOT] == hero).any()
    finally:
        st.i16[:], st.alive[:] = saved
    assert st.i16[src.cols[POWER], 0, hero] == printed


def test_ability_cards_become_the_heros_abilities_with_their_spell_power(ember) -> None:
    # hex.md: "Abilities: Gold Cost, Mana Cost, Cast Range, Spell Power" (Fireball, level 2: Spell Power 1)
    src = ember.template
    hero = next(s for s, k in ember.army.card.items() if k == "Pyra")
    names = ember.army.abilities[hero]
    row = src.f.abil[0, hero, names.index("Fireball")]
    key = next(k for k in ember.kingdoms[0].cards if ember.cards.cards[k].name == "Fireball")
    assert row[A_PRESENT] == 1 and row[A_SPELL_POWER] == ember.cards.cards[key].active().spell_power


def test_every_card_effect_is_played_in_batch_games(hex_cards) -> None:
    # ledger "Cards in batch games": what the compiled engine leaves out is listed, never played half
    ks = load_kingdoms(hex_cards)
    blitz = [k for k in ks.values() if k.format == "blitz"]
    for a in blitz:
        for b in blitz:
            armies = Armies(hex_cards, (a, b))
            assert armies.army.skipped == []


def test_channel_and_once_per_battle_rows(hex_cards) -> None:
    # hex-keywords.md "Channel X – When a unit channels an ability, place X Channel counters on it.";
    # hex.md "If an ability says that it can only be used once per round or per battle"
    from battlesim.systems.hex.actions import Battle
    from battlesim.systems.hex.setup import playable, write_ability
    from battlesim.systems.hex.state import new_world

    bt = Battle(new_world(1, np.zeros(1, dtype=np.int64)))
    theft = hex_cards.cards["Mind Theft"].active()
    write_ability(bt.f.abil[0, 0, 0], theft, playable(theft))
    assert bt.f.abil[0, 0, 0, A_CHANNEL] == 2
    wither = hex_cards.cards["Wither"].active()
    write_ability(bt.f.abil[0, 0, 1], wither, playable(wither))
    assert bt.f.abil[0, 0, 1, A_ONCE] == ONCE_BATTLE


def test_one_row_per_ability_name_at_its_highest_level(hex_cards) -> None:
    # hex.md: "The ability level is not considered part of the ability name. Therefore, if an ability
    # says that it can only be used once per round, this restriction views all levels of an ability as
    # the same ability." (I-44: the higher level replaces the lower: one row, one limit)
    from battlesim.systems.hex.setup import highest_levels

    fireballs = [c for c in hex_cards.cards.values() if getattr(c, "name", "") == "Fireball"]
    blade = hex_cards.cards["Cinder Blade"]
    assert sorted(c.level for c in fireballs) == [1, 2]
    kept = highest_levels([*fireballs, blade])
    assert [getattr(c, "level", None) for c in kept if c is not blade] == [2] and blade in kept
