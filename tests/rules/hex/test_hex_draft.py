"""The hex draft (spec §2.4, hex.md H9.2; I-5, I-6, I-9): armies drafted from the draft kingdoms
by the agents, then battled (``--param format=draft``)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.hex.cards import AbilityCard, ItemCard, UnitCard
from battlesim.systems.hex.draft import DEPLOY, draft
from battlesim.systems.hex.kingdoms import ARMY_GOLD, INVENTORY_SLOTS

AGENT_PAIRS = [("random", "random"), ("greedy", "random"), ("random", "greedy"), ("greedy", "greedy"),
               ("pass", "lookahead")]


@pytest.fixture(scope="module")
def hexdraft():
    return get_ruleset("hex").load({"format": "draft"})


def drafts(game):
    """(kingdoms, agents, seed, armies) over every ordered pair of draft kingdoms and agent pair."""
    for (a, b), agents in itertools.product(itertools.permutations(game.deck_ids(), 2), AGENT_PAIRS):
        ks = (game.kingdoms[a], game.kingdoms[b])
        for seed in range(8):
            yield ks, agents, seed, draft(ks, game.cards, agents, seed)


def test_the_draft_kingdoms_are_the_decks_of_the_draft_format(hexdraft):
    assert hexdraft.deck_ids() and all(hexdraft.kingdoms[d].format == "draft" for d in hexdraft.deck_ids())


def test_an_army_keeps_the_gold_limit_the_slots_and_its_kingdom(hexdraft):
    # hex.md "A player may not draft more than 80 gold worth of cards."; "A hero cannot use more
    # than 3 inventory slots worth of items."; spec §2.4 the picks come from the drafter's own
    # (draft) kingdom, so its faction rules hold: "A kingdom can only have cards from the hero's
    # faction."; "Only this hero may draft this ability."
    cards = hexdraft.cards
    for ks, _, _, armies in drafts(hexdraft):
        for k, army in zip(ks, armies):
            got = [cards.cards[c] for c in army.cards]
            assert army.gold == sum(c.gold or 0 for c in got) <= ARMY_GOLD
            assert sum(c.slots for c in got if isinstance(c, ItemCard)) <= INVENTORY_SLOTS
            pool = Counter(k.cards)
            assert all(n <= pool[c] for c, n in Counter(army.cards).items())
            assert all(c.faction == cards.cards[k.hero].faction for c in got)
            assert all(c.hero == k.hero for c in got if isinstance(c, AbilityCard))


def test_the_hero_is_the_one_and_first_pick_and_units_stand_on_the_own_two_rows(hexdraft):
    # I-5 "the hero is mandatory and the first pick"; hex.md "A kingdom can only have one hero.";
    # spec §2.4 "a unit onto an empty hex of its own two rows"
    cards = hexdraft.cards
    for ks, _, _, armies in drafts(hexdraft):
        for k, army in zip(ks, armies):
            assert army.placed[0][0] == k.hero
            assert sum(cards.cards[c].type == "hero" for c, _, _ in army.placed) == 1
            hexes = [(c, r) for _, c, r in army.placed]
            assert len(set(hexes)) == len(hexes) and set(hexes) <= set(DEPLOY)
            units = sorted(c for c in army.cards if isinstance(cards.cards[c], UnitCard))
            assert units == sorted(c for c, _, _ in army.placed[1:])


def test_greedy_drafts_until_no_pick_is_legal_and_pass_drafts_its_hero_only(hexdraft):
    # spec §2.4: COMPLETE "ends that player's drafting for good"; "a player with no legal pick is
    # complete" - greedy never completes by choice, so it stops only at the gold or slot limits
    cards = hexdraft.cards
    for ks, agents, _, armies in drafts(hexdraft):
        for seat, army in enumerate(armies):
            if agents[seat] == "pass":
                assert army.cards == () and len(army.placed) == 1
            if agents[seat] == "greedy":
                left = Counter(ks[seat].cards) - Counter(army.cards)
                assert all(army.gold + (cards.cards[c].gold or 0) > ARMY_GOLD
                           or isinstance(cards.cards[c], (ItemCard, AbilityCard)) for c in left)


def test_a_draft_depends_only_on_its_seed_kingdoms_and_agents(hexdraft):
    ks = (hexdraft.kingdoms[hexdraft.deck_ids()[0]], hexdraft.kingdoms[hexdraft.deck_ids()[1]])
    a = [draft(ks, hexdraft.cards, ("random", "random"), s) for s in range(20)]
    assert a == [draft(ks, hexdraft.cards, ("random", "random"), s) for s in range(20)]
    assert len({x[0].placed for x in a}) > 1  # the random drafter does draw


def test_draft_games_are_deterministic_and_the_cards_table_is_the_drafted_units(hexdraft):
    # spec §2.4 then the battle; cards table: drawn_round = drafted (before round 1)
    decks = tuple(hexdraft.deck_ids()[:2])
    seeds = np.arange(12)
    t1 = hexdraft.play_tables(seeds, decks, ["greedy", "random"])
    t2 = hexdraft.play_tables(seeds[::-1].copy(), decks, ["greedy", "random"])
    order = np.argsort(t2["games"]["seed"])
    for c, v in t1["games"].items():
        assert list(v) == list(np.asarray(t2["games"][c])[order]), c
    alone = hexdraft.play_tables(np.array([5]), decks, ["greedy", "random"])
    assert {c: v[0] for c, v in alone["games"].items()} == {c: v[5] for c, v in t1["games"].items()}
    assert set(t1["cards"]["drawn_round"]) == {1}
    assert sorted(t1["cards"]) == sorted(get_ruleset("hex").load().play_tables(seeds[:2], ("ember_blitz", "gale_blitz"),
                                                                               ["greedy", "random"])["cards"])
    row = hexdraft.replay(5, decks, ["greedy", "random"], write=lambda *a: None)
    assert row["winner"] == t1["games"]["winner"][5]
