"""The shipped lanes card set (issue 3, "Card set"): its size, its vocabulary coverage, its decks.

Per faction at least 20 units, 8 spells, 3 improvements (one timed, one activated, one Quick) and
5 heroes with abilities (passive, active and reactive in each faction); 30 equipment items over
tiers 1-5; every keyword, status, trigger, opcode and selector used by some card; 8 legal decks,
each playing 500 random games to the end, with both seats winning some.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from battlesim.components.keywords import KEYWORDS, STATUS_KEYWORDS, STATUSES
from battlesim.ecs.decisions import make_agent
from battlesim.systems.lanes.cards import FACTIONS
from battlesim.systems.lanes.state import RUNNING
from battlesim.systems.lanes.vocabulary import EXECUTOR

DECKS = {
    "red_vanguard", "blue_tide", "green_grove", "black_covenant",
    "red_black_raiders", "blue_green_wardens", "green_black_rot", "red_blue_tempest",
}
GAMES = 500  # random games per deck
# Each deck plays GAMES games in one of four pairings, each pairing a different mix of factions
# (four batches rather than eight keep this file under 20 s: a batch costs ~3-4 s).
PAIRS = [
    ("red_vanguard", "blue_tide"),
    ("green_grove", "black_covenant"),
    ("red_black_raiders", "blue_green_wardens"),
    ("green_black_rot", "red_blue_tempest"),
]


@pytest.fixture(scope="module")
def specs(lanes):
    return lanes.cards.specs


def effects(specs):
    """Every (card, effect) pair of the set, abilities' effects included (as on_activation)."""
    return [(s, e) for s in specs.values() for e, _ in s.all_effects()]


def of(specs, faction, kind):
    return [s for s in specs.values() if s.faction == faction and s.type == kind]


# -- counts ---------------------------------------------------------------------------------

@pytest.mark.parametrize("faction", FACTIONS)
def test_each_faction_has_its_units_spells_improvements_and_heroes(specs, faction):
    assert len(of(specs, faction, "unit")) >= 20
    assert len(of(specs, faction, "spell")) >= 8
    assert len(of(specs, faction, "hero")) >= 5
    imps = of(specs, faction, "improvement")
    assert len(imps) >= 3
    assert any(s.duration > 0 for s in imps), "a timed improvement"
    assert any(s.ability is not None and (s.ability.cooldown > 0 or s.ability.charges > 0) for s in imps)
    assert any(s.ability is not None and s.ability.quickcast for s in imps), "a Quick improvement"


@pytest.mark.parametrize("faction", FACTIONS)
def test_every_hero_has_an_ability_and_each_faction_mixes_the_kinds(specs, faction):
    kinds = set()
    for h in of(specs, faction, "hero"):
        passive = bool(h.keywords) or any(e.trigger == "while_in_lane" for e in h.effects)
        active = h.ability is not None
        reactive = any(e.trigger != "while_in_lane" for e in h.effects)
        assert passive or active or reactive, f"{h.name} has no ability"
        kinds |= {k for k, on in (("passive", passive), ("active", active), ("reactive", reactive)) if on}
        assert len(h.signature) == 3
    assert kinds == {"passive", "active", "reactive"}


def test_some_hero_abilities_are_quickcast(specs):
    assert any(s.type == "hero" and s.ability is not None and s.ability.quickcast for s in specs.values())


def test_thirty_equipment_items_over_the_five_tiers(specs):
    eq = [s for s in specs.values() if s.type == "equipment"]
    assert len(eq) >= 30
    tiers = Counter(s.tier for s in eq)
    assert sorted(tiers) == [1, 2, 3, 4, 5] and min(tiers.values()) >= 5
    for s in eq:
        assert 0 <= s.cost <= 3
        assert s.attack or s.health or s.keywords or s.effects, f"{s.name} grants nothing"
    assert max(s.gold for s in eq if s.tier == 1) <= 3
    assert min(s.gold for s in eq if s.tier == 5) >= 12
    mean = {t: np.mean([s.gold for s in eq if s.tier == t]) for t in tiers}
    assert [mean[t] for t in sorted(mean)] == sorted(mean.values()), "prices rise with the tier"
    assert any(e.trigger == "on_equip" for s in eq for e in s.effects)
    assert any(e.trigger == "on_equipped_attack" for s in eq for e in s.effects)


def test_summons_make_tokens_or_units(specs):
    made = {e.card for _, e in effects(specs) if e.op == "summon"}
    assert made and all(specs[c].type in ("token", "unit") for c in made)
    assert any(specs[c].type == "token" for c in made)


# -- vocabulary coverage --------------------------------------------------------------------

def test_every_keyword_is_used(specs):
    used = {k for s in specs.values() for k in s.keywords}
    used |= {e.keyword for _, e in effects(specs) if e.keyword}
    # a keyword that is a status (damage immunity) is used when some card applies the status
    used |= {e.status for _, e in effects(specs) if e.op == "apply_status"} & set(STATUS_KEYWORDS)
    assert set(KEYWORDS) - used == set()


def test_every_status_is_applied_by_some_card(specs):
    used = {e.status for _, e in effects(specs) if e.op == "apply_status"}
    assert set(STATUSES) - used == set()


def test_every_trigger_opcode_and_selector_is_used(specs):
    rows = [e for _, e in effects(specs)]
    assert set(EXECUTOR.triggers) - {e.trigger for e in rows} == set()
    assert set(EXECUTOR.opcodes) - {e.op for e in rows} == set()
    assert set(EXECUTOR.selectors) - {e.select for e in rows if e.select} == set()


def test_action_keywords_and_special_forms_are_used(specs):
    cards = list(specs.values())
    rows = effects(specs)
    assert any(s.keep_initiative for s in cards)
    assert any(s.quickcast for s in cards)
    assert any(s.keywords.get("rapid_deployment") for s in cards if s.type == "hero")
    # a negative-armor debuff, and anchor enchantments of every kind
    assert any(e.op == "grant_keyword" and e.keyword == "armor" and e.amount < 0 for _, e in rows)
    enchant = {e.keyword or e.stat for _, e in rows if e.op == "enchant_anchor"}
    assert enchant >= {"armor", "retaliate", "regeneration", "attack"}
    assert any(e.op == "destroy_improvement" and e.select == "enemy_improvements_in_lane" for _, e in rows)
    bounties = {np.sign(e.amount) for _, e in rows if e.op == "bounty"}
    assert bounties == {-1, 1}
    for op in ("push", "swap", "move_lane"):
        assert {e.direction for _, e in rows if e.op == op} <= {"left", "right"}
    # auras of both kinds
    auras = {e.op for _, e in rows if e.trigger == "while_in_lane"}
    assert auras == {"buff", "grant_keyword"}


def test_no_damage_loops(specs):
    # a unit that deals damage whenever it takes damage could ping-pong with another one
    for s, e in effects(specs):
        assert not (e.trigger == "on_damage_taken" and e.op == "damage"), s.name


def test_spells_name_their_caster_not_self(specs):
    # a spell has no source entity: the `self` selector finds nothing for it (use `caster`)
    for s in specs.values():
        if s.type == "spell":
            assert all(e.select != "self" for e in s.effects), s.name


def test_the_last_catalog_card_has_no_enemy_death_effect(lanes, specs):
    # systems/lanes/deaths.py _enemy_death reads listen[card_id] for anchors too, whose card_id is
    # -1: the last catalog card's "on_enemy_death" effects would fire for every anchor.
    last = lanes.cards.catalog.names[-1]
    assert not any(e.trigger == "on_enemy_death" for e, _ in specs[last].all_effects())


# -- decks ----------------------------------------------------------------------------------

def test_eight_legal_decks_with_equipment_of_every_tier(lanes, specs):
    assert set(lanes.deck_ids()) >= DECKS
    cat = lanes.cards.catalog
    for name in DECKS:
        deck = lanes.cards.deck(name)
        assert deck.main.size >= 40
        assert deck.equipment.size >= 10
        assert sorted({int(cat.arrays.tier[c]) for c in deck.equipment}) == [1, 2, 3, 4, 5]
        factions = {specs[cat.names[h]].faction for h in deck.heroes}
        assert {specs[cat.names[c]].faction for c in deck.main} <= factions
        kinds = {specs[cat.names[c]].type for c in deck.main}
        assert kinds == {"unit", "spell", "improvement"}, name


def test_the_pairings_cover_every_deck():
    assert {d for pair in PAIRS for d in pair} == DECKS


@pytest.mark.parametrize("pair", PAIRS, ids="-vs-".join)
def test_each_deck_plays_random_games_to_the_end(lanes, pair):
    out = lanes.play(np.arange(GAMES), pair, [make_agent("random"), make_agent("random")])
    winner = out["winner"]
    assert (winner != RUNNING).all()
    assert (winner == 0).any() and (winner == 1).any(), pair
