"""The legal mask kept between decisions (rules.legal_mask's ``since``; docs/grid-speed.md): after
every action of many random and greedy games, on every shipped map, the mask updated from the
decision before equals a mask built afresh, entry for entry."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from battlesim.ecs.compiled.rng import choice
from battlesim.systems.grid.action_table import END_UNIT, SELECT, decode
from battlesim.systems.grid.agents import greedy_action
from battlesim.systems.grid.apply import apply_action
from battlesim.systems.grid.game import MAX_ACTIONS, GridBatch, GridTables
from battlesim.systems.grid.play import RNG_AGENT, setup_game
from battlesim.systems.grid.rules import legal_mask
from battlesim.systems.grid.state import GAME_OVER, K
from battlesim.systems.grid.work import new_agent_work

MAPS = ({}, {"map": "webwood"}, {"map": "citadel", "width": 10, "height": 10})


def kept_against_fresh(tables, seed, decks, greedy):
    """Plays one game (random choices, or greedy ones), updating one mask from the decision before
    by the action taken since, and compares it with a fresh mask at every decision. The kinds of
    action the kept mask followed, and the first decision where the two differ (None if none)."""
    t = tables
    gb = GridBatch(t, np.array([seed]), decks)
    args = (gb.ws, gb.cols, gb.f, t.bd, t.ct, t.pr, 0)
    agent_work = new_agent_work(gb.ws, gb.f, gb.actions_size)
    work = agent_work.k
    kept, fresh, scratch = (np.zeros(gb.actions_size, dtype=np.bool_) for _ in range(3))
    setup_game(*args, gb.main, gb.sizes, gb.heroes, gb.cells, gb.start)
    since, followed = -1, []
    for n in range(MAX_ACTIONS):
        if gb.f.g[0, GAME_OVER]:
            break
        legal_mask(*args, work, kept, since)
        legal_mask(*args, work, fresh)
        if not (kept == fresh).all():
            return followed, (n, since, np.flatnonzero(kept != fresh))
        followed.append(since)
        a = greedy_action(*args, agent_work, scratch) if greedy else choice(gb.f.rng, 0, kept, RNG_AGENT)
        apply_action(*args, work, a)
        since = decode(a, t.bd.wall.shape[0], K, t.params.hand_limit)[0]
    return followed, None


@pytest.mark.parametrize("overrides", MAPS, ids=["crossroads", "webwood", "citadel"])
def test_the_kept_mask_is_the_fresh_mask_after_every_action(params, card_set, overrides):
    # grid.md 4.1.3: "Starting the turn of another unit or hero results in the immediate termination
    # of the previous card's turn.": a select or an end of a unit's turn changes who is active and
    # nothing else, so the mask before it is kept but for the active unit's blocks and the spells
    tables = GridTables(params.model_copy(update=overrides), card_set)
    pairs = list(itertools.permutations(sorted(card_set.decks), 2))
    followed = []
    for seed in range(12):
        kinds, differ = kept_against_fresh(tables, seed, pairs[seed % len(pairs)], greedy=seed % 3 == 2)
        assert differ is None, (seed, differ)
        followed += kinds
    # the kept path really ran, after both kinds of action it keeps the mask for
    assert followed.count(SELECT) > 300 and followed.count(END_UNIT) > 10
