"""The kept legal table (``legal.kept_actions``): each seat's battle table is kept between its
decisions and only the blocks a change can alter are rebuilt. At every decision of many random
and greedy games (every kingdom pair, both seats) the kept table must equal one built whole
(``legal_actions``): entries, acting units and per-unit counts. The check run of the game loop
asks it before each decision and reports ``the kept legal table differs from one built whole``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from battlesim.ecs.ruleset import get_ruleset
from battlesim.systems.hex.board import N_HEXES
from battlesim.systems.hex.game import HexBatch, play_games
from battlesim.systems.hex.legal import WIDTH, kept_actions, legal_actions
from battlesim.systems.hex.play import GREEDY, INVARIANTS, KEPT_STALE, RANDOM, SETUP, play_batch
from battlesim.systems.hex.state import CONTROLLER, MANA, POS, ROOTED


@pytest.fixture(scope="module")
def hexgame():
    return get_ruleset("hex").load()


@pytest.mark.parametrize("agents", [(RANDOM, RANDOM), (GREEDY, GREEDY), (GREEDY, RANDOM)])
def test_the_kept_table_equals_one_built_whole_at_every_decision(hexgame, agents):
    # spec §6: the agent's mask is the battle table of the state it decides in; kept or built whole,
    # the same table
    results = []
    n = 120 if agents == (RANDOM, RANDOM) else 40
    for i, decks in enumerate(itertools.permutations(hexgame.deck_ids(), 2)):
        results += play_games(hexgame.armies(decks), list(range(i * 1000, i * 1000 + n)), agents=agents, check=True)
    assert INVARIANTS[KEPT_STALE] == "the kept legal table differs from one built whole"
    assert sum(r["decisions"] for r in results) > 10_000
    assert [(r["seed"], r["violation"]) for r in results if r["violation"]] == []


def test_a_change_made_outside_any_action_is_seen(hexgame):
    # the kept table finds changes by comparing the game with what it read, not by tracing the
    # writes of actions: a unit moved, rooted, killed or given mana behind its back is seen
    hb = HexBatch(hexgame.armies(hexgame.default_decks()), np.array([5]))
    bt = hb.bt
    play_batch(bt.st, bt.cols, bt.f, bt.k, hb.rng, np.array([0]), np.zeros(2, dtype=np.int64), 10, False, SETUP, hb.out)
    i16, alive, cols = bt.st.i16, bt.st.alive, bt.cols
    fresh = np.zeros(WIDTH, dtype=np.bool_)

    def same(seat: int) -> bool:
        units = kept_actions(bt.st, bt.cols, bt.f, bt.k, 0, seat)
        return units == legal_actions(bt.st, bt.cols, bt.f, bt.k, 0, seat, fresh) and np.array_equal(
            bt.k.tables[seat], fresh) and np.array_equal(bt.k.tcounts[seat], bt.k.counts)

    assert same(0) and same(1)
    live = [s for s in range(alive.shape[1]) if alive[0, s]]
    occupied = {int(i16[cols[POS], 0, s]) for s in live}
    enemy = next(s for s in live if i16[cols[CONTROLLER], 0, s] == 1)
    i16[cols[POS], 0, enemy] = next(h for h in range(N_HEXES) if h not in occupied)  # moved
    assert same(0)
    ally = next(s for s in live if i16[cols[CONTROLLER], 0, s] == 0)
    i16[cols[ROOTED], 0, ally] = 1  # rooted
    assert same(0)
    i16[cols[MANA], 0, ally] = i16[cols[MANA], 0, ally] + 5  # mana
    assert same(0)
    alive[0, enemy] = False  # gone
    assert same(0) and same(1)
